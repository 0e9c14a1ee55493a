package scenario

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/nas-userscript/userscript/internal/firmsim"
	"github.com/nas-userscript/userscript/internal/needtool"
)

var (
	goBin      string // the Go engine, built once
	goBuildErr error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "userscript-scenario-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	goBin, goBuildErr = firmsim.BuildEngine(dir)
	code := needtool.Run(m)
	os.RemoveAll(dir)
	os.Exit(code)
}

func needTool(t *testing.T, name string) {
	t.Helper()
	needtool.Tool(t, name)
}

// TestScenarios runs every testdata/scenarios file against both engines.
func TestScenarios(t *testing.T) {
	needTool(t, "busybox")
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "scenarios", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	sort.Strings(files)
	lib := filepath.Join("..", "..", "package", "lib")
	for _, f := range files {
		sc, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(sc.Name, func(t *testing.T) {
			for _, v := range sc.Validators {
				needTool(t, v)
			}
			t.Run("sh", func(t *testing.T) {
				t.Parallel()
				Run(t, sc, ShEngine{Lib: lib})
			})
			t.Run("go", func(t *testing.T) {
				t.Parallel()
				if _, ok := sc.Unsupported["go"]; !ok && goBuildErr != nil {
					t.Fatal(goBuildErr)
				}
				Run(t, sc, GoEngine{Bin: goBin})
			})
		})
	}
}

// TestUnsupportedListed logs every scenario an engine skips, so a skip is
// never silent.
func TestUnsupportedListed(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "scenarios", "*.txtar"))
	for _, f := range files {
		sc, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		for engine, reason := range sc.Unsupported {
			if engine != "sh" && engine != "go" {
				t.Errorf("%s: unsupported names unknown engine %q", sc.Name, engine)
			}
			t.Logf("%s: unsupported on %s: %s", sc.Name, engine, reason)
		}
	}
}
