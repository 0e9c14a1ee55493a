package hostile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// plantedCases are hostile things around the sources: links in place of
// conf.d, state/ and our status files, settings and captures that try to
// escape, floods, includes of secrets, and sources swapped mid-read.
var plantedCases = []hcase{
	{
		// conf.d itself a link to a folder outside the app dir: nothing
		// there may be read as a source, nor written (status files).
		name:  "confd-symlink",
		valid: "none",
		setup: func(w *world) {
			w.must(os.RemoveAll(filepath.Join(w.app, "conf.d")))
			w.symlink(w.outside, filepath.Join(w.app, "conf.d"))
		},
		check: func(w *world) {
			if w.code == 0 {
				w.errorf("apply exited 0 with conf.d a symbolic link")
			}
			w.logged("conf.d")
			w.untouched("smb.conf")
			w.untouched("proftpd.conf")
		},
	},
	{
		name: "captured-symlink",
		setup: func(w *world) {
			w.symlink(w.outside, w.conf(".captured"))
			w.write(w.conf("smb.conf"), smb, 0o644)
		},
		check: func(w *world) { w.live("smb.conf", smb) },
	},
	{
		// The Go daemon saves a target rewritten behind its back to
		// conf.d/.captured/: not through a link planted there.
		name:    "captured-symlink-drift-daemon",
		only:    "go",
		onlyWhy: "only the Go daemon (userscript run) saves drifted targets to conf.d/.captured; the sh poller has no drift capture",
		setup: func(w *world) {
			w.noHealthProbes()
			w.write(w.conf("smb.conf"), smb, 0o644)
			w.apply()
			w.write(w.rootf(smbPath), "[global]\n\tworkgroup = WEBGUI\n", 0o644) // drift
			w.symlink(w.outside, w.conf(".captured"))
		},
		act: func(w *world) { w.daemon("generation=2", 0) },
		check: func(w *world) {
			w.logged("drift")
		},
	},
	{
		name: "status-symlink",
		setup: func(w *world) {
			w.write(w.conf("smb.conf"), smb, 0o644)
			w.symlink(w.rootf("etc/important"), w.conf("smb.conf.status"))
			w.write(w.conf("passwd"), "x\n", 0o644)
			w.symlink(filepath.Join(w.outside, "keep.txt"), w.conf("passwd.status"))
		},
		check: func(w *world) {
			w.live("smb.conf", smb)
			w.logged("smb.conf.status")
			w.logged("passwd.status")
		},
	},
	{
		// the owner's page a link out of the app dir: never written
		// through, never replaced (and its page not written at all).
		name: "page-symlink",
		setup: func(w *world) {
			w.write(w.conf("smb.conf"), smb, 0o644)
			w.symlink(filepath.Join(w.outside, "keep.txt"), w.conf("STATUS.html"))
		},
		check: func(w *world) {
			w.live("smb.conf", smb)
		},
	},
	{
		name: "status-hardlink",
		setup: func(w *world) {
			w.write(w.conf("smb.conf"), smb, 0o644)
			w.link(w.rootf("etc/important"), w.conf("smb.conf.status"))
			w.write(w.conf("passwd"), "x\n", 0o644)
			w.link(filepath.Join(w.outside, "keep.txt"), w.conf("passwd.status"))
		},
		check: func(w *world) {
			w.live("smb.conf", smb)
			w.reported("smb.conf", []string{"NOT VALIDATED", "OK"}, "conf.d/smb.conf")
			w.reported("passwd", []string{"UNKNOWN"}, "passwd")
		},
	},
	{
		name: "status-fifo-and-dir",
		setup: func(w *world) {
			w.write(w.conf("smb.conf"), smb, 0o644)
			w.mkfifo(w.conf("smb.conf.status"))
			w.write(w.conf("exports.add"), validExp, 0o644)
			w.must(os.Mkdir(w.conf("exports.status"), 0o755))
		},
		check: func(w *world) {
			w.live("smb.conf", smb)
			w.live("exports", romExp+validExp)
			w.logged("smb.conf.status")
			w.logged("exports.status")
			if _, err := os.Lstat(w.state("lock.d")); err == nil {
				w.errorf("state/lock.d left behind")
			}
		},
	},
	{
		// The same, under the watcher: it must keep running.
		name: "status-dir-under-watcher",
		setup: func(w *world) {
			w.noHealthProbes()
			w.must(os.Mkdir(w.conf("exports.status"), 0o755))
			w.write(w.conf("exports.add"), validExp, 0o644)
		},
		// Until the first apply has ended (its generation logged), not
		// until "proftpd" first appears in the log: that is its start
		// ("base captured target=proftpd.conf"), and on a busy machine
		// the TERM then reached the restart mid-way (exit 143, REJECTED).
		act: func(w *world) { w.daemon("generation=1", 3*time.Second) },
		check: func(w *world) {
			w.live("exports", romExp+validExp)
			w.logged("exports.status")
		},
	},
	{
		// state/ is on the same share as conf.d: a link planted as the
		// log must not make root append to a file of the device.
		name: "state-log-symlink",
		setup: func(w *world) {
			w.must(os.MkdirAll(w.state(""), 0o755))
			w.symlink(w.rootf("etc/important"), w.state("log"))
		},
	},
	{
		name:  "state-dir-symlink",
		valid: "none",
		setup: func(w *world) {
			w.symlink(w.outside, w.state(""))
			w.write(w.conf("smb.conf"), smb, 0o644)
		},
		check: func(w *world) {
			if w.code == 0 {
				w.errorf("apply exited 0 with state/ a symbolic link")
			}
			w.logged("state")
			w.untouched("smb.conf")
		},
	},
	{
		// A base planted as a link to a secret, with state/written
		// saying the live file is ours, so the stored base is used.
		name:       "state-base-symlink",
		validators: []string{"testparm"},
		setup: func(w *world) {
			w.write(w.conf("smb.conf.add"), "\tserver string = first\n", 0o644)
			w.apply()
			w.must(os.Remove(w.state("base/smb.conf")))
			w.symlink(w.rootf("etc/shadow"), w.state("base/smb.conf"))
			w.write(w.conf("smb.conf.add"), "\tserver string = second\n", 0o644)
		},
		check: func(w *world) {
			w.reported("smb.conf", []string{"REFUSED", "FAILED", "OK"}, "smb.conf")
		},
	},
	{
		// A target in userscript.toml that would escape is never used:
		// the settings give way to the profile's own targets (a mistake
		// in the settings never stops the engine), and the output names
		// the file, the key and why.
		name:    "toml-target-escapes",
		only:    "go",
		onlyWhy: "the sh engine reads no targets from userscript.toml (its profile is rendered at build time; the status says so)",
		valid:   "none",
		allow:   []string{"app/userscript.toml"},
		setup: func(w *world) {
			w.write(w.conf("x"), "hostile\n", 0o644)
			w.write(w.conf("smb.conf"), smb, 0o644)
		},
		act: func(w *world) {
			for _, v := range []struct{ toml, key, why string }{
				{"[targets.x]\npath = \"/etc/../etc/shadow\"\n", "x", "not clean"},
				{"[targets.x]\npath = \"/proc/sys/kernel/core_pattern\"\n", "x", "/proc"},
				{"[targets.x]\npath = \"etc/shadow\"\n", "x", "not absolute"},
				{"[targets.x]\npath = \"/dev/sda\"\n", "x", "/dev"},
				{"[targets.\"smb.conf\"]\npath = \"/sys/kernel/uevent_helper\"\n", "smb.conf", "/sys"},
				{"[targets.\"smb.conf\"]\npath = \"/system/hddapp/etc/samba/../../../../etc/shadow\"\n", "smb.conf", "not clean"},
				{"[targets.\"../../etc/shadow\"]\npath = \"/etc/y\"\n", "../../etc/shadow", "name"},
				{"[targets.x]\npath = \"/etc/x y\"\n", "x", "space"},
			} {
				w.write(filepath.Join(w.app, "userscript.toml"), v.toml, 0o644)
				out := len(w.out)
				// The hostile setting is ignored and named; the profile's
				// own targets are applied (a mistake in the settings must
				// never stop the engine at boot). The harness checks that
				// nothing outside the profile's targets changed.
				if c := w.run("apply"); c != 0 {
					w.errorf("userscript.toml %q: apply exited %d", v.toml, c)
				}
				said := w.out[out:]
				for _, m := range []string{"userscript.toml", v.key, v.why} {
					if !strings.Contains(said, m) {
						w.errorf("userscript.toml %q: the message does not name %q:\n%s", v.toml, m, said)
					}
				}
			}
		},
		check: func(w *world) {
			w.live("smb.conf", smb)
			w.untouched("proftpd.conf")
		},
	},
	{
		name:    "capture-not-a-target",
		only:    "go",
		onlyWhy: "capture is a Go engine command; the sh engine has none",
		valid:   "none",
		setup: func(w *world) {
			w.symlink(w.rootf("etc/important"), w.conf("smb.conf"))
			// A live target that is a link to a secret is not copied.
			w.must(os.Remove(w.rootf(expPath)))
			w.symlink(w.rootf("etc/shadow"), w.rootf(expPath))
		},
		act: func(w *world) {
			for _, name := range []string{"../../etc/shadow", "/etc/shadow", "passwd", "shadow", "smb.conf.status", ".captured", "..", "smb.conf/../../x"} {
				out := len(w.out)
				if c := w.run("capture", name); c != 2 {
					w.errorf("capture %q exited %d, want 2 (usage: no such target)\n%s", name, c, w.out[out:])
				}
				if !strings.Contains(w.out[out:], "no target") {
					w.errorf("capture %q: the message does not say there is no such target:\n%s", name, w.out[out:])
				}
			}
			for _, args := range [][]string{{"capture", "--force", "smb.conf"}, {"capture", "exports"}} {
				out := len(w.out)
				if c := w.run(args...); c != 1 {
					w.errorf("%v exited %d, want 1 (refused)\n%s", args, c, w.out[out:])
				}
			}
		},
	},
	{
		name:    "capture-force-over-hardlink",
		only:    "go",
		onlyWhy: "capture is a Go engine command; the sh engine has none",
		valid:   "none",
		allow:   []string{"app/conf.d/exports"},
		setup:   func(w *world) { w.link(w.rootf("etc/important"), w.conf("exports")) },
		act: func(w *world) {
			if c := w.run("capture", "--force", "exports"); c != 0 {
				w.errorf("capture --force exports exited %d\n%s", c, w.out)
			}
		},
		check: func(w *world) {
			if got := w.read(w.conf("exports")); got != romExp {
				w.errorf("conf.d/exports is %q, want the live %q", got, romExp)
			}
		},
	},
	{
		name: "long-names",
		setup: oddNames(strings.Repeat("x", 255), strings.Repeat("y", 251)+".add",
			"smb.conf."+strings.Repeat("z", 246), strings.Repeat("w", 65)),
		check: func(w *world) {
			w.untouched("smb.conf")
			w.logged(strings.Repeat("x", 255))
			w.logged(strings.Repeat("y", 251))
		},
	},
	{
		name:  "ten-thousand-files",
		limit: 10 * time.Second,
		setup: func(w *world) {
			for i := range 10000 {
				w.write(w.conf(fmt.Sprintf("junk%05d", i)), "x\n", 0o644)
			}
			w.write(w.conf("smb.conf"), smb, 0o644)
		},
		// At most 20 UNKNOWN status files an apply (the rest: one log
		// line), so ten thousand stray files cost seconds, not minutes.
		check: func(w *world) {
			w.live("smb.conf", smb)
			es, _ := os.ReadDir(filepath.Join(w.app, "conf.d"))
			unknown := 0
			for _, e := range es {
				if n, ok := strings.CutSuffix(e.Name(), ".status"); ok && strings.HasPrefix(n, "junk") {
					unknown++
					w.reported(n, []string{"UNKNOWN"}, n)
				}
			}
			if unknown == 0 || unknown > 20 {
				w.errorf("%d UNKNOWN status files for 10,000 stray files, want 1 to 20", unknown)
			}
		},
	},
	{
		// The same number of editor droppings (ignored names) costs
		// nothing: the scan itself is not the problem.
		name:  "ten-thousand-droppings",
		limit: 10 * time.Second,
		setup: func(w *world) {
			for i := range 10000 {
				w.write(w.conf(fmt.Sprintf("~$junk%05d.tmp", i)), "x\n", 0o644)
			}
			w.write(w.conf("smb.conf"), smb, 0o644)
		},
		check: func(w *world) {
			w.live("smb.conf", smb)
			w.noStatusBut("proftpd.conf", "smb.conf")
		},
	},
	{
		// testparm follows include = and reports the included file's
		// unknown parameters: the file's words must not reach the
		// status file or the log on the share.
		name:       "smb-include-secret",
		validators: []string{"testparm"},
		setup: func(w *world) {
			p := w.addSecret("etc/samba-secret.conf", "[TOPSECRET-share]\n\tpath = /mnt/TOPSECRET-path\n\tTOPSECRET-key = TOPSECRET-value\n")
			w.write(w.conf("smb.conf.add"), "\tinclude = "+p+"\n", 0o644)
		},
		check: func(w *world) {
			w.reported("smb.conf", []string{"OK", "REFUSED"}, "smb.conf")
		},
	},
	{
		// proftpd -t names the first line it cannot parse, also of an
		// included file: a LAN user must not read /etc/shadow's first
		// line in conf.d/proftpd.conf.status.
		name:       "proftpd-include-secret",
		validators: []string{"proftpd"},
		valid:      "exports.add",
		setup: func(w *world) {
			w.write(w.conf("proftpd.conf"), "ServerName \"x\"\nInclude "+w.rootf("etc/shadow")+"\n", 0o644)
		},
		check: func(w *world) {
			w.refused("proftpd.conf", "proftpd.conf")
			w.untouched("proftpd.conf")
		},
	},
	{
		// Names ending in our own suffixes, and droppings in capitals.
		name:  "our-suffixes-and-case",
		setup: oddNames("passwd.status.add", "smb.conf.add.add", "smb.conf.merge.add", "x.TMP", "y.SWP", "z.Swx"),
		check: func(w *world) {
			w.untouched("smb.conf")
		},
	},
	{
		// Someone swaps the source for a FIFO between the engine's
		// checks and its read: a read that blocks would hang the apply
		// (and the watcher) until someone writes into the FIFO.
		name:  "swapped-for-fifo-while-read",
		limit: 5 * time.Second,
		allow: []string{"app/conf.d/smb.conf", "app/conf.d/.swap"},
		setup: func(w *world) {
			w.write(w.conf(".regular"), smb, 0o644)
			w.mkfifo(w.conf(".fifo"))
		},
		act:    func(w *world) { w.swapping(".fifo") },
		random: true,
	},
	{
		// The same with a link to a secret: read through the link, then
		// swapped back before the check after the read.
		name:  "swapped-for-symlink-while-read",
		limit: 5 * time.Second,
		allow: []string{"app/conf.d/smb.conf", "app/conf.d/.swap"},
		setup: func(w *world) {
			w.write(w.conf(".regular"), smb, 0o644)
			w.symlink(w.rootf("etc/shadow"), w.conf(".link"))
		},
		act:    func(w *world) { w.swapping(".link") },
		random: true,
	},
	{
		// One line of almost 1 MiB without a newline at the end.
		name:       "one-huge-line",
		validators: []string{"testparm"},
		setup: func(w *world) {
			w.write(w.conf("smb.conf.add"), "\tcomment = "+strings.Repeat("A", 1000000), 0o644)
		},
		check: func(w *world) {
			w.reported("smb.conf", []string{"OK", "REFUSED"}, "smb.conf.add")
		},
	},
	{
		name:  "tuning-escapes",
		allow: []string{"root/proc/sys/kernel/hostname"},
		setup: func(w *world) {
			w.write(w.rootf("proc/sys/kernel/hostname"), "rom\n", 0o644)
			w.write(w.conf("sysctl.conf"), "../../../etc/important = x\nkernel/../../../../etc/important = x\n..etc.important = x\n/etc/important = x\nkernel.hostname = hostile-ok\n", 0o644)
			w.write(w.conf("tuning.conf"), "sysfs block/../../../etc/important = x\nsysfs ../etc/important = x\ntxqueuelen ../../etc = 1\nirq ../x = 1\ncpufreq ../../../etc/important = x\n", 0o644)
		},
		check: func(w *world) {
			if got := w.read(w.rootf("proc/sys/kernel/hostname")); got != "hostile-ok\n" {
				w.errorf("the valid sysctl was not set: hostname is %q", got)
			}
			w.reported("sysctl", []string{"FAILED", "REFUSED", "OK"}, "line 1")
			w.reported("tuning", []string{"FAILED", "REFUSED", "OK"}, "line 1")
		},
	},
}

// swapping runs applies while conf.d/smb.conf is swapped every 2.5 ms
// between conf.d/.regular and conf.d/ODD (a FIFO, a link), until an apply
// shows a problem or 20 applies have run. The sh engine's window between
// its checks and its read is a few ms (it runs ls and rm in between), so
// about every third apply reads the odd file; the Go engine has no window
// (it opens with O_NOFOLLOW|O_NONBLOCK and checks what it opened).
func (w *world) swapping(odd string) {
	w.t.Helper()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			from := ".regular"
			if i%2 == 1 {
				from = odd
			}
			os.Remove(w.conf(".swap"))
			if os.Link(w.conf(from), w.conf(".swap")) == nil {
				os.Rename(w.conf(".swap"), w.conf("smb.conf"))
			}
			time.Sleep(2500 * time.Microsecond)
		}
	}()
	for i := 0; i < 20 && len(w.problems) == 0; i++ {
		w.apply()
		if strings.Contains(w.read(w.rootf(smbPath)), secret) {
			w.errorf("apply %d: the secret behind the link went live in smb.conf", i+1)
		}
	}
	close(stop)
	wg.Wait()
}

// noHealthProbes lets the Go daemon take a restarted service for healthy
// (the stubs start no daemons): no process, no port to probe.
func (w *world) noHealthProbes() {
	w.write(filepath.Join(w.app, "userscript.toml"), "[services.samba]\nprocess = \"\"\nports = []\n[services.nfs]\nports = []\n[services.proftpd]\nprocess = \"\"\nports = []\n", 0o644)
}

// daemon runs the engine's watcher (the Go daemon, the sh poller) until
// what it said holds until (or 20 s have passed) and it has run at least
// min, then stops it with TERM. A watcher that ends by itself before is an
// error: nothing would apply the next edit.
func (w *world) daemon(until string, min time.Duration) {
	w.t.Helper()
	var out bytes.Buffer
	cmd := execDaemon(w, &out)
	defer func() { w.out += out.String() }()
	start := time.Now()
	defer func() { w.took += time.Since(start) }()
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := start.Add(20 * time.Second)
	for time.Now().Before(deadline) && (!strings.Contains(w.said(), until) || time.Since(start) < min) {
		select {
		case err := <-done:
			w.errorf("the %s watcher ended by itself after %v (%v); nothing applies the next edit", w.eng, time.Since(start).Round(time.Millisecond), err)
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(runLimit):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		w.errorf("HANG: the %s watcher did not stop within %v of TERM", w.eng, runLimit)
	}
}
