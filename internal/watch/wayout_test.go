package watch

import (
	"os"
	"testing"

	"github.com/fsnotify/fsnotify"
)

// The owner's off switch and the way out of safe mode are edits that
// start an apply (deleting them must apply conf.d at once); the
// engines' own DOCTOR.txt and the files Explorer leaves are not.
func TestClassifyReservedNames(t *testing.T) {
	n := newNAS(t)
	w := &Watcher{Engine: n.eng}
	for name, want := range map[string]kind{
		"DISABLE": relevant, "DISABLE.txt": relevant, "disable.txt": relevant, "SAFE-MODE": relevant,
		"DOCTOR.txt": ignore, "Thumbs.db": ignore, "desktop.ini": ignore, "._a.conf": ignore, "a.conf": relevant,
	} {
		for _, op := range []fsnotify.Op{fsnotify.Create, fsnotify.Remove} {
			if got := w.classify(fsnotify.Event{Name: n.conf(name), Op: op}); got != want {
				t.Errorf("%s %v: %v, want %v", name, op, got, want)
			}
		}
	}
}

// With conf.d/DISABLE the daemon applies no edit; deleting it applies
// the edit at once.
func TestDisableWhileRunning(t *testing.T) {
	n := newNAS(t)
	os.WriteFile(n.conf("DISABLE"), nil, 0o644)
	n.start(fast)
	os.WriteFile(n.conf("a.conf"), []byte("mine\n"), 0o644)
	n.waitStopped()
	if got := n.live(); got != "rom\n" || n.restarts() != 0 {
		t.Fatalf("applied while DISABLE exists: live %q, %d restarts", got, n.restarts())
	}
	os.Remove(n.conf("DISABLE"))
	n.waitLive("mine\n")
}
