package hostile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// An hcase is one hostile input, run on a fresh device for each engine.
type hcase struct {
	name string
	// only names the one engine that can run the case; the other skips
	// it, visibly, with onlyWhy.
	only, onlyWhy string
	root          bool     // needs root (device nodes)
	validators    []string // host tools on PATH (testparm, proftpd)
	// valid is the valid source put next to the hostile ones: ""
	// (conf.d/proftpd.conf), "exports.add", or "none" where the case
	// means nothing to be applied.
	valid string
	setup func(w *world) // make the hostile input (before the snapshot)
	act   func(w *world) // what the engine does; nil is one apply
	allow []string       // more paths the case may change ("dir/" for a tree)
	check func(w *world) // the case's own expectations
	limit time.Duration  // a run that takes longer hangs; 0 is runLimit
	// bug marks a failure that waits for a decision: engine → what is
	// wrong and what is proposed. The case is skipped with its failures.
	bug map[string]string
	// random: the outcome depends on timing, so the engines' results
	// are not compared (the invariants still hold for each).
	random bool
	// diverge marks a known disagreement of the engines that waits for a
	// decision: it is logged instead of failing the case.
	diverge string
}

// smb is a valid smb.conf that differs from the ROM's.
const smb = "[global]\n\tworkgroup = HOSTILE-OK\n"

// oddNames: a file in conf.d whose name no target can have is ignored,
// with a line in the log; nothing named after it is written.
func oddNames(names ...string) func(w *world) {
	return func(w *world) {
		for _, n := range names {
			w.write(w.conf(n), smb, 0o644)
		}
	}
}

func checkOdd(w *world) {
	w.untouched("smb.conf")
	w.untouched("exports")
	w.noStatusBut("proftpd.conf")
	w.logged("ignored")
}

func (w *world) symlink(target, link string) { w.must(os.Symlink(target, link)) }
func (w *world) mkfifo(p string)             { w.must(syscall.Mkfifo(p, 0o644)) }
func (w *world) link(old, new string)        { w.must(os.Link(old, new)) }
func (w *world) mkdev(p string, major, minor int) {
	w.must(syscall.Mknod(p, syscall.S_IFCHR|0o644, major<<8|minor))
}

// cases is the corpus: hostile sources, then hostile things planted
// around them (links in place of our own files, settings, captures).
var cases = append(sourceCases, plantedCases...)

// sourceCases are hostile files in conf.d: links, pipes, devices, odd
// content and odd names.
var sourceCases = []hcase{
	{
		name:  "symlink-to-secret",
		setup: func(w *world) { w.symlink(w.rootf("etc/shadow"), w.conf("smb.conf")) },
		check: func(w *world) {
			w.refused("smb.conf", "conf.d/smb.conf", "link")
			w.untouched("smb.conf")
		},
	},
	{
		name: "symlink-to-fifo",
		setup: func(w *world) {
			w.mkfifo(filepath.Join(w.outside, "fifo"))
			w.symlink(filepath.Join(w.outside, "fifo"), w.conf("smb.conf.add"))
		},
		check: func(w *world) {
			w.refused("smb.conf", "conf.d/smb.conf.add", "link")
			w.untouched("smb.conf")
		},
	},
	{
		name:  "symlink-to-dir",
		setup: func(w *world) { w.symlink(w.outside, w.conf("exports")) },
		check: func(w *world) {
			w.refused("exports", "conf.d/exports", "link")
			w.untouched("exports")
		},
	},
	{
		name: "symlink-elsewhere-and-dangling",
		setup: func(w *world) {
			w.symlink("../../outside/smb.conf", w.conf("smb.conf"))
			w.symlink("../nowhere/exports", w.conf("exports.add"))
		},
		check: func(w *world) {
			w.refused("smb.conf", "conf.d/smb.conf", "link")
			w.refused("exports", "conf.d/exports.add", "link")
			w.untouched("smb.conf")
			w.untouched("exports")
		},
	},
	{
		// A hard link is a regular file: only its link count tells that
		// its content is some other file's. Over SMB nobody can link a
		// file of the root file system (another file system), but a
		// local user, or SMB1 unix extensions, can link any file of the
		// data disk, e.g. another user's private one, and root would
		// apply it and keep it in state/gen on the share.
		name:       "hardlink-to-secret",
		validators: []string{"testparm"},
		setup:      func(w *world) { w.link(w.rootf("etc/shadow"), w.conf("smb.conf")) },
		check: func(w *world) {
			w.refused("smb.conf", "conf.d/smb.conf")
			w.untouched("smb.conf")
		},
	},
	{
		name: "fifo",
		setup: func(w *world) {
			w.mkfifo(w.conf("smb.conf"))
			w.mkfifo(w.conf("exports.add"))
		},
		check: func(w *world) {
			w.refused("smb.conf", "conf.d/smb.conf")
			w.refused("exports", "conf.d/exports.add")
			w.untouched("smb.conf")
			w.untouched("exports")
		},
	},
	{
		name: "char-device",
		root: true,
		setup: func(w *world) {
			w.mkdev(w.conf("smb.conf"), 1, 5)    // /dev/zero: a read never ends
			w.mkdev(w.conf("exports.add"), 1, 3) // /dev/null
		},
		check: func(w *world) {
			w.refused("smb.conf", "conf.d/smb.conf")
			w.refused("exports", "conf.d/exports.add")
			w.untouched("smb.conf")
			w.untouched("exports")
		},
	},
	{
		name: "dir-named-like-target",
		setup: func(w *world) {
			w.write(filepath.Join(w.conf("smb.conf"), "smb.conf"), smb, 0o644)
			w.must(os.Mkdir(w.conf("exports.add"), 0o755))
		},
		check: func(w *world) {
			w.refused("smb.conf", "conf.d/smb.conf")
			w.refused("exports", "conf.d/exports.add")
			w.untouched("smb.conf")
			w.untouched("exports")
		},
	},
	{
		name: "sparse-2GiB-and-just-over-1MiB",
		setup: func(w *world) {
			f, err := os.Create(w.conf("smb.conf"))
			w.must(err)
			w.must(f.Truncate(2 << 30))
			f.Close()
			line := "# padding to just over 1 MiB: 1048578 bytes in all .......... #\n" // 64 bytes
			w.write(w.conf("exports.add"), strings.Repeat(line, (1<<20)/len(line))+"/\n", 0o644)
		},
		check: func(w *world) {
			w.refused("smb.conf", "conf.d/smb.conf")
			w.refused("exports", "conf.d/exports.add")
			w.untouched("smb.conf")
			w.untouched("exports")
		},
	},
	{
		name:       "nul-bytes",
		validators: []string{"testparm"},
		setup: func(w *world) {
			w.write(w.conf("smb.conf"), "[global]\n\tworkgroup = NUL\x00BYTES\n\tserver string = a\x00\x00b\n", 0o644)
		},
		check: func(w *world) {
			w.reported("smb.conf", []string{"OK", "REFUSED", "NOT VALIDATED"}, "conf.d/smb.conf")
		},
	},
	{
		name:       "non-utf8",
		validators: []string{"testparm"},
		setup: func(w *world) {
			w.write(w.conf("smb.conf"), "[global]\n\tworkgroup = CAF\xe9\n\tserver string = \xff\xfe\xc3\x28 \xed\xa0\x80\n", 0o644)
		},
		check: func(w *world) {
			w.reported("smb.conf", []string{"OK", "REFUSED", "NOT VALIDATED"}, "conf.d/smb.conf")
		},
	},
	{
		name:  "name-newline",
		setup: oddNames("smb.conf\nmkdir canary-nl", "exports\n", "\n", "smb.conf\r"),
		check: checkOdd,
	},
	{
		name:  "name-leading-dash",
		setup: oddNames("-smb.conf", "--help", "-rf", "-", "-exports.add"),
		check: checkOdd,
	},
	{
		name:  "name-spaces",
		setup: oddNames(" smb.conf", "smb.conf ", "smb.conf .add", " ", "exports\t"),
		check: checkOdd,
	},
	{
		name:  "name-backslash",
		setup: oddNames("smb.conf\\", `..\..\etc\shadow`, `\`, `exports\.add`),
		check: checkOdd,
	},
	{
		name:  "name-glob",
		setup: oddNames("*", "smb.conf*", "?", "[a-z]*", "*.add", "exports[1]"),
		check: checkOdd,
	},
	{
		// Names and contents that would run a command if anything
		// evaluated them: each would make a canary folder in the
		// engine's working folder. (A name cannot hold a /, so no
		// `rm -rf /` here.)
		name: "shell-metacharacters",
		setup: func(w *world) {
			oddNames("$(mkdir canary1)", "`mkdir canary2`", "x;mkdir canary3", "x|mkdir canary4",
				"x&&mkdir canary5", "$(mkdir canary6).add", "smb.conf;mkdir canary7", "'$IFS\"", "smb.conf$(mkdir canary8)")(w)
			w.write(w.conf("smb.conf.add"), "\tserver string = $(mkdir canary9) `mkdir canary10` ;mkdir canary11\n", 0o644)
		},
		check: func(w *world) {
			w.live("smb.conf", romSmb+"\tserver string = $(mkdir canary9) `mkdir canary10` ;mkdir canary11\n")
			w.untouched("exports")
			w.noStatusBut("proftpd.conf", "smb.conf")
			w.logged("ignored")
		},
	},
	{
		name: "unknown-add-merge",
		setup: func(w *world) {
			for _, n := range []string{"passwd.add", "shadow.merge", "inittab", "crontab.add", "hosts.merge"} {
				w.write(w.conf(n), "root::0:0:root:/root:/bin/sh\n", 0o644)
			}
		},
		check: func(w *world) {
			for n, f := range map[string]string{"passwd": "passwd.add", "shadow": "shadow.merge", "inittab": "inittab", "crontab": "crontab.add", "hosts": "hosts.merge"} {
				w.reported(n, []string{"UNKNOWN"}, f)
			}
		},
	},
}
