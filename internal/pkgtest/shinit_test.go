package pkgtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nas-userscript/userscript/internal/firmsim"
	"github.com/nas-userscript/userscript/internal/needtool"
	"github.com/nas-userscript/userscript/internal/systest"
)

// eachBusyBox runs f for every BusyBox of the matrix (Debian's and the
// old ones), in parallel; a missing one is a visible skip (a failure
// under CI=true).
func eachBusyBox(t *testing.T, f func(t *testing.T, bb string)) { firmsim.EachBusyBox(t, f) }

// hang is how long an init command may take before it counts as hung:
// far more than any of them needs, even on a loaded machine.
const hang = 60 * time.Second

// initRun runs the init script at path (under n's shell) with n's
// environment minus the variables drop names, from dir; it fails the
// test when the command hangs.
func initRun(t *testing.T, n *firmsim.NAS, dir, path, verb string, drop ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	defer cancel()
	cmd := exec.CommandContext(ctx, n.Shell, path, verb)
	for _, kv := range n.Environ() {
		keep := true
		for _, d := range drop {
			keep = keep && !strings.HasPrefix(kv, d+"=")
		}
		if keep {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// Into a file, not a pipe: the poller init starts keeps its output.
	out, _ := os.CreateTemp(t.TempDir(), "console-")
	defer out.Close()
	cmd.Stdout, cmd.Stderr = out, out
	err := cmd.Run()
	text, _ := os.ReadFile(out.Name())
	if ctx.Err() != nil {
		t.Fatalf("%s %s did not return within %v (it hangs):\n%s", path, verb, hang, text)
	}
	return string(text), err
}

// Defect 7: the firmware may call init through a link (from
// /etc/init.d/) and without HD_MNT_POINT. init follows the link to find
// its app dir: it applies conf.d and creates nothing next to the link.
func TestInitThroughLink(t *testing.T) {
	eachBusyBox(t, func(t *testing.T, bb string) {
		n := installedWith(t, bb)
		app := n.AppDir("userscript")
		writeFile(t, filepath.Join(app, "conf.d", "smb.conf"), "[global]\n\tworkgroup = LINKED\n")
		initd := filepath.Join(n.Root, "etc", "init.d")
		if err := os.MkdirAll(initd, 0o755); err != nil {
			t.Fatal(err)
		}
		// A relative link, as `ln -s ../../mnt/... S99userscript` makes.
		rel, err := filepath.Rel(initd, filepath.Join(app, "init"))
		if err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(initd, "S99userscript")
		if err := os.Symlink(rel, link); err != nil {
			t.Fatal(err)
		}
		if err := n.Restore(); err != nil {
			t.Fatal(err)
		}
		out, err := initRun(t, n, "/", link, "start", "HD_MNT_POINT")
		if err != nil {
			t.Fatalf("%s start: %v\n%s", link, err, out)
		}
		if got, _ := n.Live(firmsim.SmbConf); got != "[global]\n\tworkgroup = LINKED\n" {
			t.Errorf("init through a link applied nothing; live smb.conf:\n%s\noutput:\n%s", got, out)
		}
		ents, _ := os.ReadDir(initd)
		for _, e := range ents {
			if e.Name() != "S99userscript" {
				t.Errorf("init through a link created %s next to it", filepath.Join("etc/init.d", e.Name()))
			}
		}
		if out, err := initRun(t, n, "/", link, "stop", "HD_MNT_POINT"); err != nil {
			t.Fatalf("%s stop: %v\n%s", link, err, out)
		}
		if got := pollers(app); len(got) != 0 {
			t.Errorf("pollers %v left after init stop through the link", got)
		}
	})
}

// Defect 2: whatever the data disk does, `init start` returns, says why,
// and the firmware's boot goes on; it never creates what is missing
// (conf.d), and the firmware's own files stay live. A read-only disk and
// a full state/ are made with mounts in a private mount namespace (root
// and unshare needed); the status of each source says "data disk full"
// where it can still be written.
func TestStartDiskTrouble(t *testing.T) {
	needRoot(t)
	mount := need1(t, "mount")
	need(t, "unshare")
	cases := []struct {
		name string
		// setup gets the app dir; it returns the shell commands that run,
		// in the private namespace, before init start.
		setup func(t *testing.T, app string) string
		say   string // init's output or state/log names this
		check func(t *testing.T, app string)
		// before runs first (outside the namespace)
		before func(t *testing.T, n *firmsim.NAS, app string)
	}{
		{
			// The disk went read-only after an error, state/ was made
			// at an earlier boot.
			name:   "read-only",
			before: bootedOnce,
			setup: func(t *testing.T, app string) string {
				return mount + " --bind " + app + " " + app + " && " + mount + " -o remount,bind,ro " + app + " " + app
			},
			say: "read-only",
		},
		{
			name: "full",
			setup: func(t *testing.T, app string) string {
				state := filepath.Join(app, "state")
				os.MkdirAll(state, 0o755)
				// a tmpfs with no room and no inode left over state/
				return mount + " -t tmpfs -o size=4k,nr_inodes=3 tmpfs " + state +
					" && { { cat /dev/zero >" + state + "/fill; mkdir " + state + "/a " + state + "/b; } 2>/dev/null; :; }"
			},
			say: "data disk full",
			check: func(t *testing.T, app string) {
				b, _ := os.ReadFile(filepath.Join(app, "conf.d", "smb.conf.status"))
				if !strings.Contains(string(b), "status: FAILED\r\n") || !strings.Contains(string(b), "data disk full") {
					t.Errorf("conf.d/smb.conf.status does not say FAILED, data disk full:\n%s", b)
				}
			},
		},
		{
			name: "conf.d-missing",
			setup: func(t *testing.T, app string) string {
				if err := os.RemoveAll(filepath.Join(app, "conf.d")); err != nil {
					t.Fatal(err)
				}
				return ":"
			},
			say: "conf.d: no such folder",
			check: func(t *testing.T, app string) {
				if _, err := os.Lstat(filepath.Join(app, "conf.d")); err == nil {
					t.Errorf("init start made a conf.d: a missing one is never taken for an empty one")
				}
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			n := installed(t)
			app := n.AppDir("userscript")
			writeFile(t, filepath.Join(app, "conf.d", "smb.conf"), "[global]\n\tworkgroup = MINE\n")
			if c.before != nil {
				c.before(t, n, app)
			}
			if err := n.Restore(); err != nil {
				t.Fatal(err)
			}
			rom, _ := n.Live(firmsim.SmbConf)
			script := filepath.Join(t.TempDir(), "start")
			body := "#!/bin/sh\n" + c.setup(t, app) + " || exit 9\nexec " + n.Shell + " " + filepath.Join(app, "init") + " start\n"
			if err := systest.WriteFile(script, []byte(body), 0o755); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { stopAll(t, n, app) })
			ctx, cancel := context.WithTimeout(context.Background(), hang)
			defer cancel()
			cmd := exec.CommandContext(ctx, "unshare", "-m", "--propagation", "private", script)
			cmd.Env = n.Environ()
			cmd.Dir = n.Root
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			// A hung start is ended with all it started (its session).
			cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
			out, _ := os.CreateTemp(t.TempDir(), "console-")
			defer out.Close()
			cmd.Stdout, cmd.Stderr = out, out
			err := cmd.Run()
			text, _ := os.ReadFile(out.Name())
			if ctx.Err() != nil {
				t.Fatalf("init start did not return within %v (it hangs):\n%s", hang, text)
			}
			if err != nil {
				t.Errorf("init start: %v (the firmware's boot must go on)\n%s", err, text)
			}
			log, _ := os.ReadFile(filepath.Join(app, "state", "log"))
			if !strings.Contains(string(text)+string(log), c.say) {
				t.Errorf("neither init's output nor state/log says %q:\n%s\nlog:\n%s", c.say, text, log)
			}
			if got, _ := n.Live(firmsim.SmbConf); got != rom {
				t.Errorf("the firmware's smb.conf did not stay live:\n%s", got)
			}
			if c.check != nil {
				c.check(t, app)
			}
			if testing.Verbose() {
				t.Logf("init start said:\n%s", text)
			}
		})
	}
}

// bootedOnce boots n and stops the app again: state/ exists.
func bootedOnce(t *testing.T, n *firmsim.NAS, app string) {
	t.Helper()
	if err := n.Boot(firmsim.ServicesFirst); err != nil {
		t.Fatal(err)
	}
	if out, err := n.Init("userscript", "stop"); err != nil {
		t.Fatalf("init stop: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(app, "state")); err != nil {
		t.Fatalf("the first boot left no state/: %v", err)
	}
}

// need1 is the path of one tool the test needs.
func need1(t *testing.T, name string) string {
	t.Helper()
	return needtool.Tool(t, name)[0]
}

// stopAll ends what a test's init start left: the poller (by init stop,
// else by its pid).
func stopAll(t *testing.T, n *firmsim.NAS, app string) {
	n.Init("userscript", "stop")
	for _, pid := range pollers(app) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// Defect 8: BusyBox 1.5-1.8 lose a TERM that comes while ash is in
// `wait`. `init stop` must still stop the sh poller, even in the middle
// of a restart (which it lets finish: the restart's script runs to its
// end, the change is committed), and leave no poller. Under every
// BusyBox of the matrix; 1.7.2 is the one that loses the TERM.
func TestStopDuringRestart(t *testing.T) {
	eachBusyBox(t, func(t *testing.T, bb string) {
		n := installedWith(t, bb)
		n.Env = append(n.Env, "USERSCRIPT_POLL=1")
		app := n.AppDir("userscript")
		logOnFail(t, filepath.Join(app, "state"))
		done := filepath.Join(n.Root, "samba.done")
		// samba's restart takes 3 s, and says when it is over
		script := "#!/bin/sh\necho \"S80samba.sh $*\" >>" + filepath.Join(n.Root, firmsim.RestartLog) +
			"\nsleep 3\necho over >>" + done + "\n"
		if err := n.SetROMScript("S80samba.sh", script); err != nil {
			t.Fatal(err)
		}
		if err := n.Boot(firmsim.ServicesFirst); err != nil {
			t.Fatal(err)
		}
		pidFile := filepath.Join(app, "state", "poll.pid")
		if !eventually(hang, func() bool { _, err := os.Stat(pidFile); return err == nil }) {
			t.Fatal("no poller after boot")
		}
		poller := readPid(t, pidFile)
		os.Remove(done)
		n.ClearCalls()
		writeFile(t, filepath.Join(app, "conf.d", "smb.conf"), "[global]\n\tworkgroup = EDITED\n")
		if !eventually(hang, func() bool { return len(n.Restarts()) > 0 }) {
			t.Fatal("the edit's restart did not begin")
		}
		out, err := initRun(t, n, n.Root, filepath.Join(app, "init"), "stop")
		if err != nil {
			t.Fatalf("init stop: %v\n%s", err, out)
		}
		if !eventually(hang, func() bool { return !alive(poller) && len(pollers(app)) == 0 }) {
			t.Fatalf("init stop left the poller: %v", pollers(app))
		}
		if b, _ := os.ReadFile(done); string(b) != "over\n" {
			t.Errorf("the restart was cut short by init stop (samba left stopped)")
		}
		if got, _ := n.Live(firmsim.SmbConf); got != "[global]\n\tworkgroup = EDITED\n" {
			t.Errorf("live smb.conf after the stop:\n%s", got)
		}
		meta, _ := os.ReadFile(filepath.Join(app, "state", "gen", "000001", "meta.json"))
		if !strings.Contains(string(meta), `"result": "ok"`) {
			t.Errorf("the change was not committed (the stop cut the transaction short):\n%s", meta)
		}
	})
}

// Defect 8 for the supervisor of the Go daemon: under BusyBox 1.7.2's
// ash (it runs `init supervise`), a TERM during its `wait` for the daemon
// is lost; init stop must still end both, and the supervisor must not
// start the daemon again.
func TestStopSupervisorTermLost(t *testing.T) {
	eachBusyBox(t, func(t *testing.T, bb string) {
		n, err := firmsim.New(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if err := n.UseBusyBox(bb); err != nil {
			t.Fatal(err)
		}
		if err := n.Install(dist(t, "amd64")); err != nil {
			t.Fatal(err)
		}
		if d := os.Getenv("USERSCRIPT_TEST_PACKAGE"); d != "" {
			overlayEngine(t, d, n.AppDir("userscript"))
		}
		t.Cleanup(func() { n.Shutdown() })
		app := n.AppDir("userscript")
		writeFile(t, filepath.Join(app, "userscript.toml"), daemonSettings)
		logOnFail(t, filepath.Join(app, "state"))
		if err := n.Boot(firmsim.ServicesFirst); err != nil {
			t.Fatal(err)
		}
		daemon := runningDaemon(t, app, 0, hang)
		sup := readPid(t, filepath.Join(app, "state", "supervise.pid"))
		out, err := initRun(t, n, n.Root, filepath.Join(app, "init"), "stop")
		if err != nil {
			t.Fatalf("init stop: %v\n%s", err, out)
		}
		if !eventually(hang, func() bool { return !alive(sup) && !alive(daemon) }) {
			t.Fatalf("after init stop: supervisor %d alive %v, daemon %d alive %v", sup, alive(sup), daemon, alive(daemon))
		}
		// With its supervisor gone, nothing can start the daemon again.
		if !eventually(hang, func() bool { return len(supervisors(app)) == 0 && len(daemons(app)) == 0 }) {
			t.Errorf("after init stop: supervisors %v, daemons %v", supervisors(app), daemons(app))
		}
		// It ended by itself (not killed: a KILL leaves no line).
		log, _ := os.ReadFile(filepath.Join(app, "state", "log"))
		if !strings.Contains(string(log), fmt.Sprintf("supervisor stopped pid=%d", sup)) {
			t.Errorf("the supervisor did not end by itself (killed?): no \"supervisor stopped pid=%d\" in state/log", sup)
		}
	})
}
