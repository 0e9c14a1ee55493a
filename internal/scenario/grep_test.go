package scenario

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nas-userscript/userscript/internal/firmsim"
)

// The DSL's grep takes testscript's order, [-count=N] PATTERN PATH: the
// old PATH PATTERN order fails, -count counts matches, ! holds for a
// file that is missing.
func TestGrepOrder(t *testing.T) {
	dir := t.TempDir()
	w := &World{Device: &firmsim.Device{Dir: dir, Root: filepath.Join(dir, "root"), App: filepath.Join(dir, "app")}}
	os.MkdirAll(filepath.Join(w.App, "conf.d"), 0o755)
	os.WriteFile(filepath.Join(w.App, "conf.d", "a.status"), []byte("status: OK\r\nsetting: x\r\nsetting: y\r\n"), 0o644)
	for _, c := range []struct {
		neg  bool
		args []string
		ok   bool
	}{
		{false, []string{"^status: OK\r$", "conf.d/a.status"}, true},
		{false, []string{"conf.d/a.status", "^status: OK\r$"}, false},
		{false, []string{"-count=2", "^setting: ", "conf.d/a.status"}, true},
		{false, []string{"-count=3", "^setting: ", "conf.d/a.status"}, false},
		{false, []string{"-count=0", "^setting: ", "conf.d/a.status"}, false},
		{true, []string{"-count=2", "^setting: ", "conf.d/a.status"}, false},
		{true, []string{"^status: OK", "conf.d/a.status"}, false},
		{true, []string{"REFUSED", "conf.d/a.status"}, true},
		{true, []string{"REFUSED", "conf.d/missing.status"}, true},
		{false, []string{"REFUSED", "conf.d/missing.status"}, false},
		{false, []string{"^status"}, false},
	} {
		if err := w.grep(c.neg, c.args); (err == nil) != c.ok {
			t.Errorf("neg=%v grep %q: %v, want ok=%v", c.neg, c.args, err, c.ok)
		}
	}
}
