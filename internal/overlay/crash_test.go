package overlay

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/nas-userscript/userscript/internal/systest"
)

// Every change an apply makes (targets, state, history, status files)
// is failed in turn — before it happens, torn half-way (a staging file
// left), or after it (a failed sync of its folder) — with each error a
// disk can give. After each, every target is either its old or its new
// content, no staging file is left, the history is readable, and the
// next apply converges: the new content live, and nothing more to do
// after that.
//
// Each step gets one of the errors in turn; USERSCRIPT_CRASH_FULL=1 runs
// every error at every step.
func TestCrashConsistency(t *testing.T) {
	faults := []error{syscall.ENOSPC, syscall.EIO, syscall.EXDEV, syscall.EBUSY}
	steps := countSteps(t)
	if steps < 20 {
		t.Fatalf("only %d write steps in an apply: the fault hook is not reached", steps)
	}
	cases := 0
	full := os.Getenv("USERSCRIPT_CRASH_FULL") == "1"
	for k := 1; k <= steps; k++ {
		for i, fault := range faults {
			if !full && i != k%len(faults) {
				continue
			}
			name := fmt.Sprintf("step%d/%v", k, fault)
			t.Run(name, func(t *testing.T) {
				f, faulty := crashFixture(t)
				faulty.Fail = func(s systest.Step) error {
					if s.N == k {
						return fault
					}
					return nil
				}
				f.source(t, "a.conf", "new a\n")
				f.source(t, "b.conf.add", "new b\n")
				f.eng.Apply(context.Background()) // may fail: that is the point
				faulty.Fail = nil
				checkEither(t, f, "etc/a.conf", "old a\n", "new a\n")
				checkEither(t, f, "etc/b.conf", "rom b\nold b\n", "rom b\nnew b\n")
				if _, err := f.eng.History().List(); err != nil {
					t.Errorf("history unreadable: %v", err)
				}
				if _, err := f.eng.Apply(context.Background()); err != nil {
					t.Fatalf("apply after the fault: %v", err)
				}
				checkNoStaging(t, f)
				if got := f.live(t, "etc/a.conf"); got != "new a\n" {
					t.Errorf("a.conf did not converge: %q", got)
				}
				if got := f.live(t, "etc/b.conf"); got != "rom b\nnew b\n" {
					t.Errorf("b.conf did not converge (double append?): %q", got)
				}
				res, err := f.eng.Apply(context.Background())
				if err != nil || res.Generation != nil {
					t.Errorf("third apply still changed something: %v %+v", err, res.Generation)
				}
			})
			cases++
		}
	}
	t.Logf("%d write steps, %d faults, %d cases (all pairs: %v)", steps, len(faults), cases, full)
}

// crashFixture is a fixture with a.conf and b.conf applied once, its
// System wrapped in a Faulty that does not fail yet.
func crashFixture(t *testing.T) (*fixture, *systest.Faulty) {
	t.Helper()
	f := newFixture(t)
	f.put(t, "etc/a.conf", "rom a\n")
	f.put(t, "etc/b.conf", "rom b\n")
	f.source(t, "a.conf", "old a\n")
	f.source(t, "b.conf.add", "old b\n")
	if _, err := f.eng.Apply(context.Background()); err != nil {
		t.Fatal(err)
	}
	faulty := &systest.Faulty{System: f.eng.Sys}
	f.eng.Sys = faulty
	return f, faulty
}

func countSteps(t *testing.T) int {
	f, faulty := crashFixture(t)
	n := 0
	faulty.Fail = func(systest.Step) error { n++; return nil }
	f.source(t, "a.conf", "new a\n")
	f.source(t, "b.conf.add", "new b\n")
	if _, err := f.eng.Apply(context.Background()); err != nil {
		t.Fatal(err)
	}
	return n
}

func checkEither(t *testing.T, f *fixture, rel string, old, new string) {
	t.Helper()
	got := f.live(t, rel)
	if got != old && got != new {
		t.Errorf("%s is neither old nor new: %q", rel, got)
	}
}

func checkNoStaging(t *testing.T, f *fixture) {
	t.Helper()
	for _, dir := range []string{filepath.Join(f.root, "etc"), filepath.Join(f.app, "conf.d")} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.Contains(e.Name(), ".userscript-") {
				t.Errorf("staging file left: %s/%s", dir, e.Name())
			}
		}
	}
	err := filepath.WalkDir(filepath.Join(f.app, "state"), func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".userscript-") {
			return errors.New("staging file left: " + p)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}
