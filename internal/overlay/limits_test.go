package overlay

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/nas-userscript/userscript/internal/system"
)

// readCounter counts the bytes read from files under dir.
type readCounter struct {
	system.System
	dir   string
	mu    sync.Mutex
	bytes int
}

func (r *readCounter) ReadFile(name string) ([]byte, error) {
	data, err := r.System.ReadFile(name)
	if strings.HasPrefix(name, r.dir) {
		r.mu.Lock()
		r.bytes += len(data)
		r.mu.Unlock()
	}
	return data, err
}

// Files in conf.d that name no target (photos dropped into the wrong
// folder) are never read: an apply's memory is bounded by its targets,
// not by what lies in conf.d.
func TestJunkInConfDNotRead(t *testing.T) {
	f := newFixture(t)
	junk := bytes.Repeat([]byte("x"), 900<<10)
	for i := 0; i < 20; i++ {
		os.WriteFile(filepath.Join(f.app, "conf.d", "IMG_"+string(rune('a'+i))+".jpg"), junk, 0o644)
	}
	f.put(t, "etc/c.conf", "rom\n")
	f.source(t, "c.conf", "mine\n")
	rc := &readCounter{System: f.eng.Sys, dir: filepath.Join(f.app, "conf.d") + "/"}
	f.eng.Sys = rc
	if _, err := f.eng.Apply(context.Background()); err != nil {
		t.Fatal(err)
	}
	if rc.bytes > 64<<10 {
		t.Errorf("read %d bytes from conf.d for one 5-byte source", rc.bytes)
	}
	if _, err := os.Stat(filepath.Join(f.app, "conf.d/IMG_a.jpg.status")); err != nil {
		t.Errorf("the junk file got no UNKNOWN status: %v", err)
	}
}

// A target that would be over 1 MiB (a big base and an .add) is refused
// with a reason that says so, and a live file over 1 MiB is named as the
// problem: neither leaves the target stuck without a clear status.
func TestTargetOverLimit(t *testing.T) {
	f := newFixture(t)
	f.put(t, "etc/c.conf", strings.Repeat("# rom\n", (1<<20)/6-10))
	f.source(t, "c.conf.add", strings.Repeat("# mine\n", 100))
	f.eng.Apply(context.Background())
	st, _ := os.ReadFile(filepath.Join(f.app, "conf.d/c.conf.status"))
	if !strings.Contains(string(st), "status: REFUSED") || !strings.Contains(string(st), "over 1 MiB") {
		t.Errorf("status of a target over 1 MiB:\n%s", st)
	}
	f.put(t, "etc/c.conf", strings.Repeat("# rom\n", (1<<20)/6+10))
	f.eng.Apply(context.Background())
	st, _ = os.ReadFile(filepath.Join(f.app, "conf.d/c.conf.status"))
	if !strings.Contains(string(st), "status: REFUSED") || !strings.Contains(string(st), "the live file is over 1 MiB") {
		t.Errorf("status of a live file over 1 MiB:\n%s", st)
	}
}

// fullDisk is a data disk with no room left for the owner.
type fullDisk struct{ system.System }

func (fullDisk) Free(string) (int64, error) { return 4096, nil }

// On a full data disk a source may have been cut short while it was
// copied in: nothing new is applied and the status says why; content
// already committed is still put back at boot.
func TestDataDiskFull(t *testing.T) {
	f := newFixture(t)
	f.put(t, "etc/c.conf", "rom\n")
	f.source(t, "c.conf", "good\n")
	if _, err := f.eng.Apply(context.Background()); err != nil {
		t.Fatal(err)
	}
	real := f.eng.Sys
	f.eng.Sys = fullDisk{real}
	f.source(t, "c.conf", "cut sh")
	_, err := f.eng.Apply(context.Background())
	if err == nil || !strings.Contains(err.Error(), "data disk full") {
		t.Fatalf("apply on a full disk: %v", err)
	}
	if got := f.live(t, "etc/c.conf"); got != "good\n" {
		t.Errorf("live = %q: a source copied onto a full disk went live", got)
	}
	st, _ := os.ReadFile(filepath.Join(f.app, "conf.d/c.conf.status"))
	if !strings.Contains(string(st), "status: FAILED") || !strings.Contains(string(st), "data disk full") {
		t.Errorf("status:\n%s", st)
	}
	// A reboot with the disk still full: the committed content comes back.
	f.source(t, "c.conf", "good\n")
	f.put(t, "etc/c.conf", "rom\n")
	if _, err := f.eng.Apply(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := f.live(t, "etc/c.conf"); got != "good\n" {
		t.Errorf("after a reboot on a full disk live = %q, want the committed content", got)
	}
}

// A write killed half-way (a power cut, SIGKILL during a rollback) leaves
// its hidden staging file beside the target; a write of that target
// removes it, and an apply that writes nothing removes it too (the kill
// loop found one left after its last run).
func TestTornTargetStagingSwept(t *testing.T) {
	f := newFixture(t)
	f.put(t, "etc/c.conf", "rom\n")
	f.source(t, "c.conf", "mine\n")
	if _, err := f.eng.Apply(context.Background()); err != nil {
		t.Fatal(err)
	}
	torn := filepath.Join(f.root, "etc", ".c.conf.userscript-1234")
	other := filepath.Join(f.root, "etc", ".d.conf.userscript-1234")
	os.WriteFile(torn, []byte("mi"), 0o644)
	os.WriteFile(other, []byte("not ours to judge"), 0o644)
	if _, err := f.eng.Apply(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(torn); err == nil {
		t.Errorf("the torn staging file of c.conf was left: %s", torn)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("a staging name of no target was removed: %v", err)
	}
}
