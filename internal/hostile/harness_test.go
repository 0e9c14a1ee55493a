package hostile

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nas-userscript/userscript/internal/firmsim"
	"github.com/nas-userscript/userscript/internal/needtool"
	"github.com/nas-userscript/userscript/internal/systest"
)

// runLimit bounds every engine run: a run that takes longer hangs.
const runLimit = 60 * time.Second

var (
	goBin      string // the Go engine, built once
	goBuildErr error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "userscript-hostile-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	goBin, goBuildErr = firmsim.BuildEngine(dir)
	code := needtool.Run(m)
	os.RemoveAll(dir)
	os.Exit(code)
}

// need skips the test when ok is false, or fails it in CI (CI=true), where
// every tool must be installed and the tests run as root.
func need(t *testing.T, ok bool, format string, args ...any) {
	t.Helper()
	if ok {
		return
	}
	needtool.Missing(t, fmt.Sprintf(format, args...))
}

func needTool(t *testing.T, name string) {
	t.Helper()
	_, err := exec.LookPath(name)
	need(t, err == nil, "%s not found: %v", name, err)
}

// The device as the ROM leaves it, and the secrets on it.
const (
	smbPath = "system/hddapp/etc/samba/smb.conf"
	ftpPath = "system/hddapp/etc/proftpd.conf"
	expPath = "etc/exports"

	romSmb = "[global]\n\tworkgroup = ROM\n"
	romFtp = "ServerName \"ROM\"\n"
	romExp = "/mnt/ide1/public *(ro)\n"

	secret    = "TOPSECRET"
	shadow    = "root:TOPSECRET-root-hash:19000:0:99999:7:::\nadmin:TOPSECRET-admin-hash:19000:0:99999:7:::\n"
	important = "important: the firmware's own file; userscript must never change it\n"

	// The valid sources put next to the hostile ones.
	validFtp = "ServerName \"hostile-ok\"\n"
	validExp = "/mnt/ide1/ok *(ro,no_subtree_check)\n"
)

// targetPaths maps target names to paths under the root.
var targetPaths = map[string]string{"smb.conf": smbPath, "proftpd.conf": ftpPath, "exports": expPath}

// A world is one engine's run of one case: a device root, an app dir, a
// folder outside both, and what the engine left.
type world struct {
	t        *testing.T
	c        *hcase
	eng      string // "go" or "sh"
	bb       string // the BusyBox binary of the sh engine ("" is Debian's)
	dir      string
	root     string // ROOT
	app      string // APP: conf.d, state, lib
	outside  string // a folder that is neither
	tmp      string // TMPDIR of the engines (the Go engine stages there)
	cwd      string // the engines' working folder (canaries land here)
	dev      *firmsim.Device
	secrets  []string // files holding secrets, by path
	before   map[string]string
	code     int
	out      string // combined output of every run
	took     time.Duration
	problems []string
}

func (w *world) conf(name string) string  { return filepath.Join(w.app, "conf.d", name) }
func (w *world) state(name string) string { return filepath.Join(w.app, "state", name) }
func (w *world) rootf(rel string) string  { return filepath.Join(w.root, rel) }

// errorf records a broken invariant; the case reports them all at the end.
func (w *world) errorf(format string, args ...any) {
	w.problems = append(w.problems, fmt.Sprintf(format, args...))
}

func (w *world) must(err error) {
	w.t.Helper()
	if err != nil {
		w.t.Fatalf("setup: %v", err)
	}
}

func (w *world) write(path, data string, mode os.FileMode) {
	w.t.Helper()
	w.must(os.MkdirAll(filepath.Dir(path), 0o755))
	os.Remove(path)
	w.must(systest.WriteFile(path, []byte(data), mode))
}

func newWorld(t *testing.T, c *hcase, eng, bb string) *world {
	dir := t.TempDir()
	dev, err := firmsim.NewDevice(dir, firmsim.DeviceSpec{BusyBox: bb, Validators: c.validators,
		Files: map[string]string{smbPath: romSmb, ftpPath: romFtp, expPath: romExp, "etc/important": important}})
	if err != nil {
		t.Fatalf("setup: %v", err)
	}
	w := &world{t: t, c: c, eng: eng, bb: bb, dir: dir, dev: dev, root: dev.Root, app: dev.App,
		outside: filepath.Join(dir, "outside"), tmp: filepath.Join(dir, "tmp"), cwd: filepath.Join(dir, "cwd")}
	for _, d := range []string{w.outside, w.tmp, w.cwd} {
		w.must(os.MkdirAll(d, 0o755))
	}
	w.write(w.rootf("etc/shadow"), shadow, 0o600)
	w.secrets = []string{w.rootf("etc/shadow")}
	w.write(filepath.Join(w.outside, "keep.txt"), "outside: nothing may change here\n", 0o644)
	w.write(filepath.Join(w.outside, "smb.conf"), "[global]\n\tworkgroup = OUTSIDE\n", 0o644)
	w.write(filepath.Join(w.outside, "proftpd.conf"), "ServerName \"OUTSIDE\"\n", 0o644)
	if eng == "sh" {
		w.must(dev.InstallShEngine(filepath.Join("..", "..", "package", "lib"), "scenario"))
	}
	switch c.valid {
	case "":
		w.write(w.conf("proftpd.conf"), validFtp, 0o644)
	case "exports.add":
		w.write(w.conf("exports.add"), validExp, 0o644)
	}
	return w
}

// secret adds a file holding a secret to the root.
func (w *world) addSecret(rel, data string) string {
	p := w.rootf(rel)
	w.write(p, data, 0o600)
	w.secrets = append(w.secrets, p)
	return p
}

// run runs the engine with args (apply, capture NAME, ...) and a time limit.
func (w *world) run(args ...string) int {
	w.t.Helper()
	var argv []string
	if w.eng == "go" {
		argv = append([]string{goBin, "--root", w.root, "--app", w.app, "--profile", "nas4220b"}, args...)
	} else {
		argv = append([]string{w.dev.Shell, filepath.Join(w.app, "lib", "engine.sh")}, args...)
	}
	limit := runLimit
	if w.c.limit > 0 {
		limit = w.c.limit
	}
	limit *= time.Duration(firmsim.Slowdown(w.bb))
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(w.dev.Env(), "TMPDIR="+w.tmp)
	cmd.Dir = w.cwd
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var hung string
	cmd.Cancel = func() error {
		hung = groupProcs(cmd.Process.Pid)
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 2 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	w.took += took
	w.out += out.String()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		w.errorf("HANG: %s %v did not finish within %v; its processes then:\n%s", w.eng, args, limit, hung)
		return -1
	case errors.As(err, &ee):
		w.code = ee.ExitCode()
	case err != nil:
		w.t.Fatalf("%v: %v", argv, err)
	default:
		w.code = 0
	}
	if strings.Contains(out.String(), "panic:") || strings.Contains(out.String(), "goroutine ") {
		w.errorf("%s %v crashed:\n%s", w.eng, args, out.String())
	}
	return w.code
}

// apply runs one apply; exit codes other than 0 (ok), 1 (error) and 3
// (refused) break the contract.
func (w *world) apply() {
	w.t.Helper()
	switch c := w.run("apply"); c {
	case -1, 0, 1, 3:
	default:
		w.errorf("apply exited %d (want 0, 1 or 3)\n%s", c, w.out)
	}
}

// ---- snapshots ----------------------------------------------------------------

// snapshot describes every entry under root/, app/ and outside/, keyed by
// its path relative to the world. Links are never followed, FIFOs and
// devices never opened; files over 8 MiB are described by size and inode.
func (w *world) snapshot() map[string]string {
	m := map[string]string{}
	for _, top := range []string{"root", "app", "outside"} {
		filepath.WalkDir(filepath.Join(w.dir, top), func(p string, d fs.DirEntry, err error) error {
			rel, _ := filepath.Rel(w.dir, p)
			if err != nil {
				m[rel] = "error " + err.Error()
				return nil
			}
			fi, err := os.Lstat(p)
			if err != nil {
				m[rel] = "error " + err.Error()
				return nil
			}
			st := fi.Sys().(*syscall.Stat_t)
			switch mode := fi.Mode(); {
			case mode.IsDir():
				m[rel] = fmt.Sprintf("dir %v %d:%d", mode, st.Uid, st.Gid)
			case mode&fs.ModeSymlink != 0:
				target, _ := os.Readlink(p)
				m[rel] = "symlink -> " + target
			case mode.IsRegular():
				sum := "big"
				if fi.Size() <= 8<<20 {
					data, err := os.ReadFile(p)
					if err != nil {
						sum = "unreadable " + err.Error()
					} else {
						sum = fmt.Sprintf("%x", sha256.Sum256(data))
					}
				}
				m[rel] = fmt.Sprintf("file %v %d:%d size=%d ino=%d mtime=%d %s", mode, st.Uid, st.Gid, fi.Size(), st.Ino, fi.ModTime().UnixNano(), sum)
			default:
				m[rel] = fmt.Sprintf("%v rdev=%d ino=%d", mode, st.Rdev, st.Ino)
			}
			return nil
		})
	}
	return m
}

// allowed reports whether the engine may change (make, rewrite or remove)
// the entry rel, given what it is now.
func (w *world) allowed(rel, now string) bool {
	switch rel {
	case "root/" + smbPath, "root/" + ftpPath, "root/" + expPath, "root/" + firmsim.RestartLog:
		return true
	}
	if rel == "app/state" || strings.HasPrefix(rel, "app/state/") {
		return true
	}
	if dir, name := filepath.Split(rel); dir == "app/conf.d/" && (strings.HasSuffix(name, ".status") || name == "DOCTOR.txt" || name == "SAFE-MODE" || name == "STATUS.html") {
		// A status file (or the doctor's report, the safe-mode note, the
		// owner's page) the engine wrote: a regular file of its own.
		return now == "" || strings.HasPrefix(now, "file ")
	}
	// conf.d/.firmware: a real folder of the engine's, holding the
	// firmware's files of the targets, each a regular file of its own.
	if rel == "app/conf.d/.firmware" {
		return now == "" || strings.HasPrefix(now, "dir ")
	}
	if dir, name := filepath.Split(rel); dir == "app/conf.d/.firmware/" && slices.Contains([]string{"smb.conf", "proftpd.conf", "exports"}, name) {
		return now == "" || strings.HasPrefix(now, "file ")
	}
	for _, a := range w.c.allow {
		if rel == a || strings.HasSuffix(a, "/") && strings.HasPrefix(rel, a) {
			return true
		}
	}
	return false
}

// checkInvariants checks what every case must hold after its runs.
func (w *world) checkInvariants() {
	after := w.snapshot()
	var keys []string
	for k := range w.before {
		keys = append(keys, k)
	}
	for k := range after {
		if _, ok := w.before[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		was, now := w.before[k], after[k]
		if was == now || w.allowed(k, now) {
			continue
		}
		switch {
		case was == "":
			w.errorf("OUTSIDE THE ALLOWED FILES: %s was created (%s)", k, now)
		case now == "":
			w.errorf("OUTSIDE THE ALLOWED FILES: %s was removed (was %s)", k, was)
		default:
			w.errorf("OUTSIDE THE ALLOWED FILES: %s changed\n  was %s\n  now %s", k, was, now)
		}
	}
	w.checkSecrets()
	w.checkCanaries()
	if left, _ := os.ReadDir(w.tmp); len(left) > 0 {
		w.errorf("staging left in TMPDIR: %v", names(left))
	}
}

func names(es []fs.DirEntry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// checkSecrets: no secret in the output, nor in any regular file of the
// world that is not a secret file itself (a hard link to one is).
func (w *world) checkSecrets() {
	if strings.Contains(w.out, secret) {
		w.errorf("SECRET in the engine's output:\n%s", w.out)
	}
	var secretFiles []os.FileInfo
	for _, s := range w.secrets {
		if fi, err := os.Lstat(s); err == nil {
			secretFiles = append(secretFiles, fi)
		}
	}
	for _, top := range []string{"root", "app", "outside", "tmp", "cwd"} {
		filepath.WalkDir(filepath.Join(w.dir, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return nil
			}
			fi, err := os.Lstat(p)
			if err != nil || fi.Size() > 8<<20 {
				return nil
			}
			if slices.ContainsFunc(secretFiles, func(s os.FileInfo) bool { return os.SameFile(s, fi) }) {
				return nil
			}
			data, err := os.ReadFile(p)
			if err == nil && bytes.Contains(data, []byte(secret)) {
				rel, _ := filepath.Rel(w.dir, p)
				w.errorf("SECRET copied into %s:\n%s", rel, excerpt(data))
			}
			return nil
		})
	}
}

func excerpt(data []byte) string {
	i := bytes.Index(data, []byte(secret))
	lo, hi := max(0, i-200), min(len(data), i+200)
	return fmt.Sprintf("%q", data[lo:hi])
}

// checkCanaries: a command hidden in a name or a source would make a
// folder whose name starts with "canary".
func (w *world) checkCanaries() {
	filepath.WalkDir(w.dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), "canary") {
			rel, _ := filepath.Rel(w.dir, p)
			w.errorf("COMMAND RAN: %s exists", rel)
		}
		return nil
	})
}

// checkValid: the valid source next to the hostile ones went live and its
// service restarted once.
func (w *world) checkValid() {
	var rel, want, restart, status string
	switch w.c.valid {
	case "":
		rel, want, restart, status = ftpPath, validFtp, "S91proftpd.sh restart", "proftpd.conf"
	case "exports.add":
		rel, want, restart, status = expPath, romExp+validExp, "S85nfs.sh restart", "exports"
	default:
		return
	}
	if got := w.read(w.rootf(rel)); got != want {
		w.errorf("the valid conf.d source was not applied: %s is %q, want %q", rel, clip(got), want)
	}
	if n := strings.Count(w.read(w.rootf(firmsim.RestartLog)), restart+"\n"); n != 1 {
		w.errorf("%q ran %d times, want once; restarts.log:\n%s", restart, n, w.read(w.rootf(firmsim.RestartLog)))
	}
	if word := w.statusWord(status); word != "OK" && word != "NOT VALIDATED" {
		w.errorf("conf.d/%s.status says %q, want OK or NOT VALIDATED", status, word)
	}
}

func (w *world) read(p string) string {
	data, _ := os.ReadFile(p)
	return string(data)
}

// ---- what the engine said ----------------------------------------------------

// statusText is conf.d/NAME.status when it is a regular file.
func (w *world) statusText(name string) string {
	p := w.conf(name + ".status")
	if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	return w.read(p)
}

func (w *world) statusWord(name string) string {
	first, _, _ := strings.Cut(w.statusText(name), "\r\n")
	return strings.TrimPrefix(first, "status: ")
}

func (w *world) log() string { return w.read(w.state("log")) }

// said is state/log and the output, with the world's own path (which holds
// the test's name) replaced by $DIR.
func (w *world) said() string {
	return strings.ReplaceAll(w.log()+"\n"+w.out, w.dir, "$DIR")
}

// reported: conf.d/NAME.status says one of words and mentions every one of
// mention (a file name, a reason).
func (w *world) reported(name string, words []string, mention ...string) {
	text := w.statusText(name)
	if text == "" {
		w.errorf("no conf.d/%s.status (log:\n%s)", name, w.log())
		return
	}
	if word := w.statusWord(name); !slices.Contains(words, word) {
		w.errorf("conf.d/%s.status says %q, want one of %q:\n%s", name, word, words, text)
	}
	for _, m := range mention {
		if !strings.Contains(text, m) {
			w.errorf("conf.d/%s.status does not mention %q:\n%s", name, m, text)
		}
	}
}

func (w *world) refused(name string, mention ...string) {
	w.reported(name, []string{"REFUSED"}, mention...)
}

// logged: state/log or the engine's output has a line holding every part
// (the world's own path, which holds the test's name, does not count).
func (w *world) logged(parts ...string) {
	for _, l := range strings.Split(w.said(), "\n") {
		if all(l, parts) {
			return
		}
	}
	w.errorf("no line of state/log or the output holds %q\nlog:\n%s\noutput:\n%s", parts, w.log(), w.out)
}

func all(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// live: the target is exactly want.
func (w *world) live(target, want string) {
	if got := w.read(w.rootf(targetPaths[target])); got != want {
		w.errorf("live %s is %q, want %q", target, clip(got), want)
	}
}

// untouched: the target is the ROM's and its service did not restart.
func (w *world) untouched(target string) {
	rom := map[string]string{"smb.conf": romSmb, "proftpd.conf": romFtp, "exports": romExp}[target]
	w.live(target, rom)
	script := map[string]string{"smb.conf": "S80samba.sh", "proftpd.conf": "S91proftpd.sh", "exports": "S85nfs.sh"}[target]
	if strings.Contains(w.read(w.rootf(firmsim.RestartLog)), script) {
		w.errorf("%s restarted though %s did not change", script, target)
	}
}

// noStatusBut: the only status files in conf.d are these (and no status
// file has an odd name).
func (w *world) noStatusBut(want ...string) {
	es, _ := os.ReadDir(filepath.Join(w.app, "conf.d"))
	for _, e := range es {
		n := e.Name()
		if strings.HasSuffix(n, ".status") && !slices.Contains(want, strings.TrimSuffix(n, ".status")) && w.before["app/conf.d/"+n] == "" {
			w.errorf("unexpected status file conf.d/%q:\n%s", n, w.read(w.conf(n)))
		}
	}
}

// execDaemon is the engine's watcher: the Go daemon (userscript run), or
// the sh poller polling every second.
func execDaemon(w *world, out *bytes.Buffer) *exec.Cmd {
	cmd := exec.Command(goBin, "--root", w.root, "--app", w.app, "--profile", "nas4220b", "run", "--quiet", "100ms")
	if w.eng == "sh" {
		cmd = exec.Command(w.dev.Shell, filepath.Join(w.app, "lib", "engine.sh"), "poll")
	}
	cmd.Env = append(w.dev.Env(), "TMPDIR="+w.tmp, "USERSCRIPT_POLL=1")
	cmd.Dir = w.cwd
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdout, cmd.Stderr = out, out
	return cmd
}

// clip shortens long text for a message.
func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + fmt.Sprintf("... (%d bytes)", len(s))
	}
	return s
}

// groupProcs lists the processes of process group pgid (pid, state,
// command line), from /proc.
func groupProcs(pgid int) string {
	var b strings.Builder
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, st := range stats {
		data, err := os.ReadFile(st)
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(data[i+1:]))
		if len(f) < 3 || f[2] != fmt.Sprint(pgid) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join(filepath.Dir(st), "cmdline"))
		wchan, _ := os.ReadFile(filepath.Join(filepath.Dir(st), "wchan"))
		fmt.Fprintf(&b, "  %s %s wchan=%s: %s\n", filepath.Base(filepath.Dir(st)), f[0], wchan, bytes.ReplaceAll(bytes.TrimRight(cmdline, "\x00"), []byte{0}, []byte(" ")))
	}
	return b.String()
}
