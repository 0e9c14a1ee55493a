package overlay

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nas-userscript/userscript/internal/history"
	"github.com/nas-userscript/userscript/internal/state"
	"github.com/nas-userscript/userscript/internal/system"
	"github.com/nas-userscript/userscript/internal/systest"
)

// setRestart replaces the fixture's restart script.
func (f *fixture) setRestart(t *testing.T, script string) {
	t.Helper()
	p := filepath.Join(f.root, "bin/restart")
	tmp := p + ".new"
	if err := systest.WriteFile(tmp, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
}

// daemonPid reads the pid a restart script left in ROOT/NAME and makes
// sure the process is killed when the test ends.
func (f *fixture) daemonPid(t *testing.T, name string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(f.root, name))
	if err != nil {
		t.Fatalf("the restart script did not record its daemon: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	return pid
}

func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) == 0 || fields[0] != "Z"
}

// A stock rc.d script starts its daemon in the background without
// redirecting its output, so the daemon inherits the script's stdout and
// stderr. The restart is over when the script exits: the daemon holding
// the output open is neither waited for nor killed, and the restart
// counts as done.
func TestRestartWithDaemonHoldingOutput(t *testing.T) {
	f := newFixture(t)
	f.setRestart(t, "#!/bin/sh\nR=${0%/bin/restart}\necho \"restart $*\" >> \"$R/restarts.log\"\n"+
		"echo starting the daemon\nsleep 300 &\necho $! > \"$R/daemon.pid\"\nexit 0\n")
	f.put(t, "etc/c.conf", "rom\n")
	f.source(t, "c.conf", "mine\n")
	res, err := f.eng.Apply(context.Background())
	pid := f.daemonPid(t, "daemon.pid")
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	if res.Generation == nil || res.Generation.Result != history.OK {
		t.Fatalf("generation = %+v, want ok", res.Generation)
	}
	if !alive(pid) {
		t.Errorf("the daemon the script started was killed")
	}
	st, _ := os.ReadFile(filepath.Join(f.app, "conf.d/c.conf.status"))
	if !strings.Contains(string(st), "status: NOT VALIDATED") {
		t.Errorf("status:\n%s", st)
	}
}

// A restart that does not finish in time ends the script, never the
// daemon it already started.
func TestRestartTimeoutSparesDaemon(t *testing.T) {
	f := newFixture(t)
	svc := f.eng.Profile.Services["other"]
	svc.Timeout = time.Second
	f.eng.Profile.Services["other"] = svc
	f.setRestart(t, "#!/bin/sh\nR=${0%/bin/restart}\necho \"restart $*\" >> \"$R/restarts.log\"\n"+
		"sleep 300 &\necho $! > \"$R/daemon.pid\"\nexec sleep 300\n")
	f.put(t, "etc/c.conf", "rom\n")
	f.source(t, "c.conf", "mine\n")
	res, err := f.eng.Apply(context.Background())
	pid := f.daemonPid(t, "daemon.pid")
	if err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("apply: %v, want a timeout", err)
	}
	if res.Generation == nil || res.Generation.Result == history.OK {
		t.Fatalf("generation = %+v, want not ok", res.Generation)
	}
	if !alive(pid) {
		t.Errorf("the timeout killed the daemon the script had started")
	}
}

// The generation (pending, with what it replaces) is on disk before the
// first target is written: a kill at any moment after that leaves a
// journal that recovery can undo.
func TestJournalBeforeWrite(t *testing.T) {
	f, faulty := crashFixture(t)
	live := filepath.Join(f.root, "etc/a.conf")
	checked := false
	faulty.Fail = func(s systest.Step) error {
		if s.Name != live || checked {
			return nil
		}
		checked = true
		gens, err := f.eng.History().List()
		if err != nil || len(gens) == 0 {
			t.Errorf("target written before any generation was recorded (%v)", err)
			return nil
		}
		g := gens[len(gens)-1]
		if g.Result != history.Pending || g.ID != 2 {
			t.Errorf("newest generation before the write: %d %s, want 2 pending", g.ID, g.Result)
		}
		found := false
		for _, file := range g.Files {
			found = found || file.Name == "a.conf" && file.Hash == state.Hash([]byte("new a\n"))
		}
		if !found {
			t.Errorf("the pending generation does not hold the new a.conf: %+v", g.Files)
		}
		return nil
	}
	f.source(t, "a.conf", "new a\n")
	if _, err := f.eng.Apply(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !checked {
		t.Fatal("the target was never written")
	}
}

// After REJECTED and a reboot (the firmware restores its ROM file), the
// boot puts back the last committed generation, not the ROM file and not
// the rejected source; and a boot that applies what is already committed
// records no new generation.
func TestBootRestoresCommitted(t *testing.T) {
	f := newFixture(t)
	f.put(t, "etc/c.conf", "rom\n")
	f.source(t, "c.conf", "good\n")
	ctx := context.Background()
	if _, err := f.eng.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	// The next source makes the service fail its restart: rejected.
	f.setRestart(t, "#!/bin/sh\nR=${0%/bin/restart}\necho \"restart $*\" >> \"$R/restarts.log\"\ngrep -q bad \"$R/etc/c.conf\" && exit 1\nexit 0\n")
	f.source(t, "c.conf", "bad\n")
	res, err := f.eng.Apply(ctx)
	if err == nil || res.Generation == nil || res.Generation.Result != history.Rejected {
		t.Fatalf("bad source: %v %+v", err, res.Generation)
	}
	if got := f.live(t, "etc/c.conf"); got != "good\n" {
		t.Fatalf("after the rejection live = %q", got)
	}
	gens, _ := f.eng.History().List()
	for boot := 0; boot < 25; boot++ {
		f.put(t, "etc/c.conf", "rom\n") // the firmware restores its ROM file
		if _, err := f.eng.Apply(ctx); err != nil {
			t.Fatalf("boot %d: %v", boot, err)
		}
		if got := f.live(t, "etc/c.conf"); got != "good\n" {
			t.Fatalf("boot %d: live = %q, want the last committed generation", boot, got)
		}
	}
	after, _ := f.eng.History().List()
	if len(after) != len(gens) {
		t.Errorf("25 boots recorded %d new generations, want none", len(after)-len(gens))
	}
	st, _ := os.ReadFile(filepath.Join(f.app, "conf.d/c.conf.status"))
	if !strings.Contains(string(st), "status: REJECTED") || !strings.Contains(string(st), "generation 1") {
		t.Errorf("status after the boots does not say the rejected source stays out and generation 1 is live:\n%s", st)
	}
}

// A boot that applies the content already committed adds no generation,
// so reboots never prune the history an owner may want to roll back to.
func TestBootsKeepHistory(t *testing.T) {
	f := newFixture(t)
	f.eng.Profile.Targets[2].Validator = "fake"
	f.put(t, "etc/c.conf", "rom\n")
	ctx := context.Background()
	for i, s := range []string{"one\n", "two\n"} {
		f.source(t, "c.conf", s)
		if _, err := f.eng.Apply(ctx); err != nil {
			t.Fatalf("apply %d: %v", i, err)
		}
	}
	checks := len(f.checks)
	for boot := 0; boot < 10; boot++ {
		f.put(t, "etc/c.conf", "rom\n")
		if _, err := f.eng.Apply(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(f.checks) - checks; n != 0 {
		t.Errorf("the boots validated the committed content %d times: it was validated when it was committed", n)
	}
	gens, _ := f.eng.History().List()
	if len(gens) != 2 || gens[0].ID != 1 {
		t.Fatalf("history after 10 boots: %d generations (keep %d)", len(gens), f.eng.Keep)
	}
	if got := f.live(t, "etc/c.conf"); got != "two\n" {
		t.Errorf("live = %q", got)
	}
	if got := strings.Count(f.restarts(), "\n"); got != 12 {
		t.Errorf("%d restarts, want one per apply and boot (12)", got)
	}
}

var _ system.System = (*system.Real)(nil)
