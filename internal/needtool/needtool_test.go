package needtool

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type fakeT struct{ skipped, failed string }

func (f *fakeT) Skip(args ...any)  { f.skipped = args[0].(string) }
func (f *fakeT) Fatal(args ...any) { f.failed = args[0].(string) }

// A missing tool skips with its reason and is counted; under CI=true it
// fails instead; the summary and the file make test reads say how many
// were skipped for what.
func TestMissingToolCountedOrFatal(t *testing.T) {
	t.Setenv("CI", "")
	mu.Lock()
	skips = map[string]int{}
	mu.Unlock()
	for range 2 {
		f := &fakeT{}
		Tool(f, "sh", "no-such-tool-userscript")
		if f.skipped != "no-such-tool-userscript not installed (make deps installs it)" || f.failed != "" {
			t.Fatalf("skipped %q, failed %q", f.skipped, f.failed)
		}
	}
	if got := Summary(); len(got) != 1 || got[0] != "2 skipped: no-such-tool-userscript not installed (make deps installs it)" {
		t.Errorf("Summary = %q", got)
	}
	dir := t.TempDir()
	t.Setenv(skipsEnv, dir)
	if err := record(Summary()); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) != 1 {
		t.Fatalf("files %v", files)
	}
	data, _ := os.ReadFile(files[0])
	if !strings.HasPrefix(string(data), "2 skipped: no-such-tool") {
		t.Errorf("recorded %q", data)
	}
	record(nil)
	if _, err := os.Stat(files[0]); err == nil {
		t.Error("a run without skips left the old record")
	}

	t.Setenv("CI", "true")
	f := &fakeT{}
	Tool(f, "no-such-tool-userscript")
	if f.failed == "" || !strings.Contains(f.failed, "CI=true: no-such-tool-userscript not installed") {
		t.Errorf("under CI: failed %q, skipped %q", f.failed, f.skipped)
	}
	mu.Lock()
	skips = map[string]int{}
	mu.Unlock()
}
