package state

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/nas-userscript/userscript/internal/system"
)

// A lock being made by another apply (its aside folder made, its pid not
// written yet) is left alone: removing it made that apply fail with
// "no such file or directory".
func TestAcquireLeavesLockBeingMade(t *testing.T) { leavesMaking(t, false) }

// The same while its pid file is being written: created, still empty.
// Taken for a lock with a garbage pid, it was removed under the other
// apply (the concurrent script of the CLI suite failed so, now and then).
func TestAcquireLeavesPidBeingWritten(t *testing.T) { leavesMaking(t, true) }

func leavesMaking(t *testing.T, emptyPid bool) {
	dir := t.TempDir()
	making := filepath.Join(dir, "lock.d.new-123")
	if err := os.Mkdir(making, 0o755); err != nil {
		t.Fatal(err)
	}
	if emptyPid {
		if err := os.WriteFile(filepath.Join(making, "pid"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l, err := Acquire(context.Background(), system.NewReal(""), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if _, err := os.Stat(making); err != nil {
		t.Errorf("the other apply's lock in the making was removed: %v", err)
	}
}

// A lock left with our own pid in it (the pid reused after a reboot)
// that this process does not hold is stale.
func TestAcquireOwnPidIsStale(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "lock.d"), 0o755)
	os.WriteFile(filepath.Join(dir, "lock.d/pid"), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	l, err := Acquire(ctx, system.NewReal(""), dir)
	if err != nil {
		t.Fatalf("a lock with our own pid that we do not hold: %v", err)
	}
	l.Release()
}

// Many applies at once: each gets the lock in turn, none fails, and
// never two hold it together.
func TestAcquireTogether(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	holders, most := 0, 0
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, err := Acquire(context.Background(), system.NewReal(""), dir)
			if err != nil {
				errs <- err
				return
			}
			mu.Lock()
			holders++
			most = max(most, holders)
			mu.Unlock()
			time.Sleep(time.Millisecond)
			mu.Lock()
			holders--
			mu.Unlock()
			l.Release()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if most != 1 {
		t.Errorf("%d held the lock at once", most)
	}
}
