package watch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nas-userscript/userscript/internal/history"
	"github.com/nas-userscript/userscript/internal/overlay"
	"github.com/nas-userscript/userscript/internal/profile"
	"github.com/nas-userscript/userscript/internal/system"
	"github.com/nas-userscript/userscript/internal/systest"
	"github.com/nas-userscript/userscript/internal/validate"
)

// nas is a fake device root and app dir with one target, a.conf, whose
// service's restart script counts its calls, and a running watcher.
type nas struct {
	t         *testing.T
	root, app string
	eng       *overlay.Engine
	mu        sync.Mutex
	applies   int       // applies that wrote a generation
	lastApply time.Time // when the last apply (of any kind) finished
	stopped   int       // applies that applied nothing (conf.d/DISABLE)
	cancel    context.CancelFunc
	done      chan error
	// lock, when set, is the watcher's lock (tests of a busy lock).
	lock func(ctx context.Context) (func(), error)
	// reload, when set, is the watcher's Reload.
	reload func() error
	// logs holds what the watcher logged.
	logs lockedBuffer
	// writingMax, when set, is the watcher's WritingMax.
	writingMax time.Duration
}

// lockedBuffer is a bytes.Buffer the watcher's goroutine writes and a
// test reads.
type lockedBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	return len(p), nil
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

func newNAS(t *testing.T) *nas {
	n := &nas{t: t, root: t.TempDir(), app: t.TempDir()}
	os.MkdirAll(filepath.Join(n.app, "conf.d"), 0o755)
	os.MkdirAll(filepath.Join(n.root, "etc"), 0o755)
	os.MkdirAll(filepath.Join(n.root, "bin"), 0o755)
	os.WriteFile(filepath.Join(n.root, "etc/a.conf"), []byte("rom\n"), 0o644)
	systest.WriteFile(filepath.Join(n.root, "bin/restart"), []byte("#!/bin/sh\nR=${0%/bin/restart}\necho restart >> \"$R/restarts.log\"\n"), 0o755)
	p := &profile.Profile{
		Name:     "test",
		Targets:  []profile.Target{{Name: "a.conf", Path: "/etc/a.conf", Validator: "fake", Service: "svc"}},
		Services: map[string]profile.Service{"svc": {Name: "svc", Restart: []string{"/bin/restart"}, Timeout: 5 * time.Second}},
	}
	n.eng = &overlay.Engine{Sys: system.NewReal(n.root), Profile: p, App: n.app, Keep: 20, CaptureDrift: true,
		Check: func(ctx context.Context, kind, path string, opt validate.Options) validate.Result {
			return validate.Result{Validated: true, Tool: "fake"}
		}}
	return n
}

func (n *nas) start(q Quiet) {
	ctx, cancel := context.WithCancel(context.Background())
	n.cancel, n.done = cancel, make(chan error, 1)
	w := &Watcher{Engine: n.eng, Quiet: q, Log: slog.New(slog.NewTextHandler(&n.logs, nil)), Lock: n.lock, Reload: n.reload, WritingMax: n.writingMax,
		Applied: func(res *overlay.Result, err error) {
			n.mu.Lock()
			defer n.mu.Unlock()
			n.lastApply = time.Now()
			if res != nil && res.Generation != nil {
				n.applies++
			}
			if res != nil && res.Stopped != "" {
				n.stopped++
			}
		}}
	go func() { n.done <- w.Run(ctx) }()
	n.t.Cleanup(func() { cancel(); <-n.done })
	// Its first apply comes after its watches are in place.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		n.mu.Lock()
		first := !n.lastApply.IsZero()
		n.mu.Unlock()
		if first {
			return
		}
		if time.Now().After(deadline) {
			n.t.Fatal("the watcher did not apply within 30 s of starting")
		}
	}
}

// waitStopped waits for an apply that applied nothing (DISABLE) after
// the first one.
func (n *nas) waitStopped() {
	n.t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		n.mu.Lock()
		s := n.stopped
		n.mu.Unlock()
		if s >= 2 {
			return
		}
		if time.Now().After(deadline) {
			n.t.Fatal("no second apply that applied nothing within 30 s")
		}
	}
}

func (n *nas) count() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.applies
}

func (n *nas) restarts() int {
	data, _ := os.ReadFile(filepath.Join(n.root, "restarts.log"))
	return strings.Count(string(data), "restart\n")
}

func (n *nas) live() string {
	data, _ := os.ReadFile(filepath.Join(n.root, "etc/a.conf"))
	return string(data)
}

// waitLive waits until the live file is want and an apply has finished
// (restarts included) since, then for the watcher to be quiet again, so
// a second apply would have shown.
func (n *nas) waitLive(want string) {
	n.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var seen time.Time
	for {
		if seen.IsZero() && n.live() == want {
			seen = time.Now()
		}
		n.mu.Lock()
		last := n.lastApply
		n.mu.Unlock()
		if !seen.IsZero() && last.After(seen.Add(-200*time.Millisecond)) && time.Since(last) > 400*time.Millisecond && n.live() == want {
			return
		}
		if time.Now().After(deadline) {
			n.t.Fatalf("live = %q, want %q (and a finished apply)", n.live(), want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (n *nas) conf(name string) string { return filepath.Join(n.app, "conf.d", name) }

var fast = Quiet{Min: 150 * time.Millisecond, Max: time.Second}

// Every way editors and file copies save a file is seen, and each save is
// applied exactly once (one generation, one restart).
func TestSaveStyles(t *testing.T) {
	n := newNAS(t)
	os.WriteFile(n.conf("a.conf"), []byte("v0\n"), 0o644)
	n.start(fast)
	n.waitLive("v0\n")
	outside := t.TempDir()
	styles := []struct {
		name string
		save func(content string) error
	}{
		{"truncate and write in place", func(c string) error {
			return os.WriteFile(n.conf("a.conf"), []byte(c), 0o644)
		}},
		{"temp file and rename (Samba clients, renameio)", func(c string) error {
			tmp := n.conf("a.conf~RF3c1a.TMP")
			if err := os.WriteFile(tmp, []byte(c), 0o644); err != nil {
				return err
			}
			return os.Rename(tmp, n.conf("a.conf"))
		}},
		{"vim: backup by rename, write new, remove backup", func(c string) error {
			if err := os.Rename(n.conf("a.conf"), n.conf("a.conf~")); err != nil {
				return err
			}
			if err := os.WriteFile(n.conf("a.conf"), []byte(c), 0o644); err != nil {
				return err
			}
			return os.Remove(n.conf("a.conf~"))
		}},
		{"cp", func(c string) error {
			src := filepath.Join(outside, "cp-src")
			os.WriteFile(src, []byte(c), 0o644)
			return exec.Command("cp", src, n.conf("a.conf")).Run()
		}},
		{"mv into place", func(c string) error {
			src := filepath.Join(filepath.Dir(n.conf("x")), ".incoming")
			os.WriteFile(src, []byte(c), 0o644)
			return exec.Command("mv", src, n.conf("a.conf")).Run()
		}},
	}
	for i, s := range styles {
		before, restarts := n.count(), n.restarts()
		content := fmt.Sprintf("v%d\n", i+1)
		if err := s.save(content); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		n.waitLive(content)
		if got := n.count() - before; got != 1 {
			t.Errorf("%s: %d applies, want 1", s.name, got)
		}
		if got := n.restarts() - restarts; got != 1 {
			t.Errorf("%s: %d restarts, want 1", s.name, got)
		}
	}
	// Status files and droppings written into conf.d cause nothing.
	before := n.count()
	os.WriteFile(n.conf("a.conf.status"), []byte("x"), 0o644)
	os.WriteFile(n.conf("~$a.conf"), []byte("x"), 0o644)
	time.Sleep(300 * time.Millisecond)
	if n.count() != before {
		t.Errorf("our own files triggered an apply")
	}
}

// A storm of 1,000 writes in about two seconds gives at most two
// restarts, and the last write wins. On a slow machine the storm can
// last longer; each max-wait (3 s) of storm may then add one apply, and
// no more.
func TestStorm(t *testing.T) {
	n := newNAS(t)
	n.start(Quiet{Min: DefaultMin, Max: DefaultMax})
	start := time.Now()
	for i := 0; i < 1000; i++ {
		os.WriteFile(n.conf("a.conf"), []byte(fmt.Sprintf("v%d\n", i)), 0o644)
		if ahead := time.Until(start.Add(time.Duration(i+1) * 2 * time.Millisecond)); ahead > 0 {
			time.Sleep(ahead)
		}
	}
	took := time.Since(start)
	n.waitLive("v999\n")
	allowed := int(took/DefaultMax) + 1
	if took < 2900*time.Millisecond {
		allowed = 2
	}
	if r := n.restarts(); r > allowed || r < 1 {
		t.Errorf("%d restarts for a storm of %v, want 1 to %d", r, took, allowed)
	}
	t.Logf("storm of 1000 writes in %v: %d restarts", took, n.restarts())
}

// conf.d removed and made again (or the data disk gone and back) is
// watched again; while it is away nothing is given back to the firmware.
func TestConfDirRecreated(t *testing.T) {
	n := newNAS(t)
	os.WriteFile(n.conf("a.conf"), []byte("mine\n"), 0o644)
	n.start(fast)
	n.waitLive("mine\n")
	if err := os.RemoveAll(filepath.Join(n.app, "conf.d")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if n.live() != "mine\n" {
		t.Fatalf("conf.d gone: live = %q, want ours kept", n.live())
	}
	os.Mkdir(filepath.Join(n.app, "conf.d"), 0o755)
	time.Sleep(100 * time.Millisecond)
	os.WriteFile(n.conf("a.conf"), []byte("again\n"), 0o644)
	n.waitLive("again\n")
}

// A target rewritten behind our back is saved to conf.d/.captured and
// ours applied again; one that keeps being rewritten is paused.
func TestDrift(t *testing.T) {
	n := newNAS(t)
	os.WriteFile(n.conf("a.conf"), []byte("mine\n"), 0o644)
	n.start(fast)
	n.waitLive("mine\n")
	os.WriteFile(filepath.Join(n.root, "etc/a.conf"), []byte("gui\n"), 0o644)
	n.waitLive("mine\n")
	captured, _ := filepath.Glob(filepath.Join(n.app, "conf.d/.captured/a.conf.*"))
	if len(captured) != 1 {
		t.Fatalf("captured %v", captured)
	}
	if data, _ := os.ReadFile(captured[0]); string(data) != "gui\n" {
		t.Errorf("captured %q", data)
	}
	// Keep fighting: after DriftLimit more rewrites it stops.
	for i := 0; i < DriftLimit; i++ {
		time.Sleep(time.Second) // distinct capture names
		os.WriteFile(filepath.Join(n.root, "etc/a.conf"), []byte(fmt.Sprintf("gui%d\n", i)), 0o644)
		n.waitLive("mine\n")
	}
	time.Sleep(time.Second)
	os.WriteFile(filepath.Join(n.root, "etc/a.conf"), []byte("gui-last\n"), 0o644)
	time.Sleep(600 * time.Millisecond)
	if n.live() != "gui-last\n" {
		t.Fatalf("still fighting: live = %q", n.live())
	}
	st, _ := os.ReadFile(n.conf("a.conf.status"))
	if !strings.Contains(string(st), "stopped re-applying") {
		t.Errorf("status does not say it stopped:\n%s", st)
	}
	// Saving the source again tries again.
	os.WriteFile(n.conf("a.conf"), []byte("mine2\n"), 0o644)
	n.waitLive("mine2\n")
}

// A generation left pending (killed between writing and proving the
// services healthy) is undone before anything else and marked rejected;
// its source is then applied again as a transaction of its own that must
// prove itself, and the status says what happened.
func TestPendingUndoneAtStart(t *testing.T) {
	n := newNAS(t)
	ctx := context.Background()
	os.WriteFile(n.conf("a.conf"), []byte("good\n"), 0o644)
	if _, err := n.eng.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(n.conf("a.conf"), []byte("interrupted\n"), 0o644)
	if _, err := n.eng.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	g, err := n.eng.History().Get(2)
	if err != nil {
		t.Fatal(err)
	}
	g.Result = history.Pending // as if killed before the health check
	n.eng.History().Update(g)

	n.start(fast)
	g, _ = n.eng.History().Get(2)
	if g.Result != history.Rejected || !strings.Contains(g.Note, "interrupted") {
		t.Errorf("generation 2 is %s (%s), want rejected as interrupted", g.Result, g.Note)
	}
	g3, err := n.eng.History().Get(3)
	if err != nil || g3.Result != history.OK {
		t.Fatalf("generation 3: %+v %v, want the change applied again and proven", g3, err)
	}
	if n.live() != "interrupted\n" {
		t.Errorf("live = %q", n.live())
	}
	st, _ := os.ReadFile(n.conf("a.conf.status"))
	if !strings.Contains(string(st), "status: OK") || !strings.Contains(string(st), "generation 2 was interrupted") {
		t.Errorf("status:\n%s", st)
	}
}

// Edits keep coming while the service takes a second to restart: every
// edit ends up live (the last one wins), and restarts stay bounded by
// the max wait, not by the number of edits.
func TestStormDuringSlowRestart(t *testing.T) {
	n := newNAS(t)
	systest.WriteFile(filepath.Join(n.root, "bin/restart"), []byte("#!/bin/sh\nR=${0%/bin/restart}\nsleep 1\necho restart >> \"$R/restarts.log\"\n"), 0o755)
	n.start(Quiet{Min: 100 * time.Millisecond, Max: time.Second})
	start := time.Now()
	for i := 0; i < 300; i++ {
		os.WriteFile(n.conf("a.conf"), []byte(fmt.Sprintf("v%d\n", i)), 0o644)
		if ahead := time.Until(start.Add(time.Duration(i+1) * 10 * time.Millisecond)); ahead > 0 {
			time.Sleep(ahead)
		}
	}
	took := time.Since(start)
	n.waitLive("v299\n")
	// Each apply takes at least the 1 s restart, and applies do not
	// overlap, so a burst of `took` gives at most took/1s + 2 of them.
	if r, max := n.restarts(), int(took/time.Second)+2; r > max {
		t.Errorf("%d restarts for %v of edits, want at most %d", r, took, max)
	}
	t.Logf("300 edits in %v during 1 s restarts: %d restarts", took, n.restarts())
}

// An edit that finds the lock busy (another apply, a rollback by hand
// that takes long) is not dropped: it is applied once the lock is free.
func TestBusyLockRetried(t *testing.T) {
	RetryMin, RetryMax = 10*time.Millisecond, 50*time.Millisecond
	t.Cleanup(func() { RetryMin, RetryMax = time.Second, 30*time.Second })
	n := newNAS(t)
	var mu sync.Mutex
	busy := false
	refused := 0
	n.lock = func(ctx context.Context) (func(), error) {
		mu.Lock()
		defer mu.Unlock()
		if busy {
			refused++
			return nil, errors.New("another apply is running")
		}
		return func() {}, nil
	}
	os.WriteFile(n.conf("a.conf"), []byte("v0\n"), 0o644)
	n.start(fast)
	n.waitLive("v0\n")
	mu.Lock()
	busy = true
	mu.Unlock()
	os.WriteFile(n.conf("a.conf"), []byte("v1\n"), 0o644)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		r := refused
		mu.Unlock()
		if r >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the watcher tried the busy lock %d times, want at least 3", r)
		}
	}
	mu.Lock()
	busy = false
	mu.Unlock()
	n.waitLive("v1\n")
}

// Issue 21, defect 11: the running daemon reads an edited userscript.toml
// again. A target added there, with its conf.d file saved at the same
// time, is applied without a restart of the daemon (it used to be
// UNKNOWN: "…or add the target to userscript.toml", which the owner had
// just done).
func TestSettingsReloaded(t *testing.T) {
	n := newNAS(t)
	os.WriteFile(filepath.Join(n.root, "etc/b.conf"), []byte("rom b\n"), 0o644)
	var reloads atomic.Int32
	n.reload = func() error {
		reloads.Add(1)
		p := *n.eng.Profile
		p.Targets = append(slices.Clone(p.Targets), profile.Target{Name: "b.conf", Path: "/etc/b.conf", Service: "svc"})
		n.eng.Profile = &p
		return nil
	}
	n.start(Quiet{Min: 50 * time.Millisecond, Max: time.Second})
	os.WriteFile(filepath.Join(n.app, "userscript.toml"), []byte("[targets.\"b.conf\"]\npath = \"/etc/b.conf\"\nservice = \"svc\"\n"), 0o644)
	os.WriteFile(filepath.Join(n.app, "conf.d", "b.conf"), []byte("mine b\n"), 0o644)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		data, _ := os.ReadFile(filepath.Join(n.root, "etc/b.conf"))
		if string(data) == "mine b\n" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("b.conf not applied within 30 s: %q", data)
		}
	}
	if reloads.Load() == 0 {
		t.Error("userscript.toml was not read again")
	}
}

// Issue 21, defect 9: a copy still in progress is not applied. smbd keeps
// a file open for writing for the whole copy, and over Wi-Fi a piece may
// come after the quiet time; the daemon applies no source some process
// has open for writing (it looks in /proc/*/fd), and applies the whole
// file once it is closed.
func TestOpenForWritingWaits(t *testing.T) {
	n := newNAS(t)
	if err := os.Symlink("/proc", filepath.Join(n.root, "proc")); err != nil {
		t.Fatal(err)
	}
	n.start(Quiet{Min: 50 * time.Millisecond, Max: time.Second})
	f, err := os.OpenFile(n.conf("a.conf"), os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("half")
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(n.logs.String(), "open for writing"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the watcher did not wait for the copy:\n%s", n.logs.String())
		}
	}
	if got := n.live(); got != "rom\n" {
		t.Errorf("a file still open for writing went live: %q", got)
	}
	f.WriteString(" and the rest\n")
	f.Close()
	n.waitLive("half and the rest\n")
}

// A file that stays open for writing past the bound is applied as it is
// then, and its status says so: the owner learns why a half file may be
// live (issue 21, defect 9).
func TestOpenForWritingTooLongSaysSo(t *testing.T) {
	n := newNAS(t)
	if err := os.Symlink("/proc", filepath.Join(n.root, "proc")); err != nil {
		t.Fatal(err)
	}
	n.writingMax = 2 * time.Second
	n.start(Quiet{Min: 50 * time.Millisecond, Max: time.Second})
	f, err := os.OpenFile(n.conf("a.conf"), os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString("never closed\n")
	n.waitLive("never closed\n")
	st, _ := os.ReadFile(n.conf("a.conf.status"))
	want := "note: conf.d/a.conf was still open for writing after 2s (a copy that never ended?): applied as it was then; if it is not whole, copy it again"
	if !strings.Contains(string(st), want) {
		t.Errorf("status lacks %q:\n%s", want, st)
	}
	if !strings.Contains(n.logs.String(), "still open for writing") {
		t.Errorf("no warning logged:\n%s", n.logs.String())
	}
}
