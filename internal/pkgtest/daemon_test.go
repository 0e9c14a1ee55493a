package pkgtest

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nas-userscript/userscript/internal/firmsim"
)

// daemonSettings makes the amd64 package (built for the bananapi
// profile) manage the simulated IcyBox's files, with a samba that counts
// as healthy as soon as its restart script succeeds (the simulation's rc.d
// scripts start no smbd).
const daemonSettings = `profile = "nas4220b"

[services.samba]
process = ""
ports = []
`

// TestGoDaemonSupervised proves that where the Go binary runs (the amd64
// package on this host), init runs the Go daemon under its supervisor:
// init start → `bin/userscript run` runs (its pid in state/daemon.pid) and
// applies an edit in conf.d within seconds; a second init start starts no
// second supervisor; the daemon killed with -9 → the supervisor starts a
// new one, which applies edits too; init stop → neither supervisor nor
// daemon is left, and their pid files are gone.
func TestGoDaemonSupervised(t *testing.T) {
	need(t, "busybox")
	const wait = 30 * time.Second // a loaded 2-core machine may be slow
	n, err := firmsim.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Install(dist(t, "amd64")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Shutdown() })
	app := n.AppDir("userscript")
	state := filepath.Join(app, "state")
	writeFile(t, filepath.Join(app, "userscript.toml"), daemonSettings)
	smb := filepath.Join(app, "conf.d", "smb.conf")
	writeFile(t, smb, "[global]\n\tworkgroup = BOOT\n")
	logOnFail(t, state)

	if err := n.Boot(firmsim.ServicesFirst); err != nil {
		t.Fatal(err)
	}
	if got, _ := n.Live(firmsim.SmbConf); got != "[global]\n\tworkgroup = BOOT\n" {
		t.Fatalf("after boot, live smb.conf:\n%s", got)
	}
	daemon := runningDaemon(t, app, 0, wait)
	sup := readPid(t, filepath.Join(state, "supervise.pid"))
	if !alive(sup) {
		t.Fatalf("supervisor %d (state/supervise.pid) is not alive", sup)
	}
	applied(t, n, smb, "[global]\n\tworkgroup = EDITED\n", wait)
	out, err := n.Init("userscript", "status")
	if err != nil || !strings.Contains(out, "Go daemon running (pid "+strconv.Itoa(daemon)+")") {
		t.Fatalf("init status (%v) does not name daemon %d:\n%s", err, daemon, out)
	}

	// A second init start leaves the one supervisor and its daemon alone.
	if out, err = n.Init("userscript", "start"); err != nil {
		t.Fatalf("init start again: %v\n%s", err, out)
	}
	if got := supervisors(app); !slices.Equal(got, []int{sup}) {
		t.Fatalf("supervisors %v after a second init start, want only %d", got, sup)
	}
	if got := daemons(app); !slices.Equal(got, []int{daemon}) {
		t.Fatalf("daemons %v after a second init start, want only %d", got, daemon)
	}

	// The daemon dies: the supervisor starts another, which works.
	if err := syscall.Kill(daemon, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	daemon = runningDaemon(t, app, daemon, wait)
	applied(t, n, smb, "[global]\n\tworkgroup = AFTER_KILL\n", wait)
	if !alive(sup) {
		t.Fatalf("supervisor %d died with its daemon", sup)
	}

	// init stop leaves nothing of ours.
	if out, err = n.Init("userscript", "stop"); err != nil {
		t.Fatalf("init stop: %v\n%s", err, out)
	}
	if !eventually(wait, func() bool { return !alive(sup) && !alive(daemon) }) {
		t.Fatalf("after init stop: supervisor %d alive %v, daemon %d alive %v", sup, alive(sup), daemon, alive(daemon))
	}
	if !eventually(wait, func() bool { return len(supervisors(app)) == 0 && len(daemons(app)) == 0 }) {
		t.Fatalf("after init stop: supervisors %v, daemons %v", supervisors(app), daemons(app))
	}
	for _, f := range []string{"supervise.pid", "daemon.pid"} {
		if _, err := os.Stat(filepath.Join(state, f)); err == nil {
			t.Errorf("state/%s is left after init stop", f)
		}
	}
}

// runningDaemon waits until state/daemon.pid names a live daemon other
// than old and returns its pid.
func runningDaemon(t *testing.T, app string, old int, d time.Duration) int {
	t.Helper()
	pidFile := filepath.Join(app, "state", "daemon.pid")
	var pid int
	ok := eventually(d, func() bool {
		b, err := os.ReadFile(pidFile)
		if err != nil {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && pid != old && alive(pid) && slices.Contains(daemons(app), pid)
	})
	if !ok {
		t.Fatalf("no running daemon (other than %d) in state/daemon.pid; daemons %v", old, daemons(app))
	}
	return pid
}

// applied saves body as the source at src and waits until the live
// smb.conf is body.
func applied(t *testing.T, n *firmsim.NAS, src, body string, d time.Duration) {
	t.Helper()
	writeFile(t, src, body)
	if !eventually(d, func() bool { got, _ := n.Live(firmsim.SmbConf); return got == body }) {
		got, _ := n.Live(firmsim.SmbConf)
		t.Fatalf("edit not applied by the daemon within %v; live:\n%s", d, got)
	}
}

// logOnFail prints state/log when the test fails.
func logOnFail(t *testing.T, state string) {
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(state, "log"))
			t.Logf("state/log:\n%s", b)
		}
	})
}

// supervisors returns the pids of the supervisors (`init supervise`)
// running for app, not counting their own short-lived subshells.
func supervisors(app string) []int {
	return topProcs(func(args []string) bool {
		return len(args) >= 2 && args[len(args)-1] == "supervise" && args[len(args)-2] == filepath.Join(app, "init")
	})
}

// daemons returns the pids of the Go daemons (`userscript run`, from
// state/run/userscript as init runs it, or from bin/userscript) running
// for app.
func daemons(app string) []int {
	return topProcs(func(args []string) bool {
		return len(args) >= 2 && (args[0] == filepath.Join(app, "state", "run", "userscript") || args[0] == filepath.Join(app, "bin", "userscript")) && args[len(args)-1] == "run"
	})
}

// topProcs returns the live processes whose argv matches, leaving out
// those whose parent matches too (a shell's subshells).
func topProcs(match func(args []string) bool) []int {
	parent := map[int]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !alive(pid) {
			continue
		}
		b, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if match(strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")) {
			parent[pid] = ppid(pid)
		}
	}
	var pids []int
	for pid, pp := range parent {
		if _, sub := parent[pp]; !sub {
			pids = append(pids, pid)
		}
	}
	slices.Sort(pids)
	return pids
}

// TestInitStopDuringRestart proves that `init stop` (a shutdown, a
// package upgrade) while the daemon is restarting Samba — between its
// stop and its start — does not kill the daemon after the usual grace:
// the restart finishes, and then the daemon ends.
func TestInitStopDuringRestart(t *testing.T) {
	need(t, "busybox")
	const wait = 30 * time.Second
	n, err := firmsim.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Install(dist(t, "amd64")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Shutdown() })
	app := n.AppDir("userscript")
	writeFile(t, filepath.Join(app, "userscript.toml"), daemonSettings)
	logOnFail(t, filepath.Join(app, "state"))
	if err := n.Boot(firmsim.ServicesFirst); err != nil {
		t.Fatal(err)
	}
	daemon := runningDaemon(t, app, 0, wait)
	flag := func(name string) string { return filepath.Join(n.Dir, name) }
	// Only the applets the firmware has: no touch.
	script := "#!/bin/sh\n: >" + flag("stopped") + "\nwhile ! [ -e " + flag("go") + " ]; do sleep 1; done\n: >" + flag("started") + "\n"
	rc := filepath.Join(n.Root, firmsim.RCDir, "S80samba.sh")
	writeFile(t, rc+".new", script)
	os.Chmod(rc+".new", 0o755)
	os.Rename(rc+".new", rc)
	writeFile(t, filepath.Join(app, "conf.d/smb.conf"), "[global]\n\tworkgroup = EDITED\n")
	if !eventually(wait, func() bool { _, err := os.Stat(flag("stopped")); return err == nil }) {
		t.Fatal("the daemon did not restart samba")
	}
	stopped := make(chan error, 1)
	go func() { _, err := n.Init("userscript", "stop"); stopped <- err }()
	// Longer than the 10 s grace: a stop that kills at the grace has
	// done so by now.
	time.Sleep(12 * time.Second)
	if !alive(daemon) {
		t.Fatal("init stop killed the daemon while it restarted samba")
	}
	writeFile(t, flag("go"), "")
	if err := <-stopped; err != nil {
		t.Fatalf("init stop: %v", err)
	}
	if _, err := os.Stat(flag("started")); err != nil {
		t.Fatal("samba was left stopped")
	}
	if alive(daemon) {
		t.Error("the daemon is still running after init stop")
	}
}
