package scenario

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/nas-userscript/userscript/internal/firmsim"
	"github.com/nas-userscript/userscript/internal/needtool"
)

var (
	goBin      string // the Go engine, built once
	goBuildErr error
)

func TestMain(m *testing.M) {
	if os.Getenv("USERSCRIPT_TEST_HOLDER") != "" {
		holderMain()
	}
	dir, err := os.MkdirTemp("", "userscript-scenario-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	goBin, goBuildErr = firmsim.BuildEngine(dir)
	if goBuildErr == nil {
		FakeDaemon, goBuildErr = firmsim.BuildTool(dir, "./internal/firmsim/cmd/fakedaemon")
	}
	code := needtool.Run(m)
	os.RemoveAll(dir)
	os.Exit(code)
}

func needTool(t *testing.T, name string) {
	t.Helper()
	needtool.Tool(t, name)
}

// TestScenarios runs every testdata/scenarios file against the Go engine
// and the sh engine, the sh engine under Debian's BusyBox and each old
// BusyBox (1.00, 1.2.0, 1.7.2), and then holds them to one contract:
// every sh run must leave what the Go engine left (targets, status
// words, generations with their time masked, state/base, written, held),
// byte for byte, except what the scenario declares with `diverge`.
func TestScenarios(t *testing.T) {
	needTool(t, "busybox")
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "scenarios", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	sort.Strings(files)
	lib := filepath.Join("..", "..", "package", "lib")
	if d := os.Getenv("USERSCRIPT_TEST_LIB"); d != "" {
		lib = d // another sh engine (an older one: a test must fail on it first)
	}
	bbs, missing := firmsim.BusyBoxes()
	for _, f := range files {
		sc, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(sc.Name, func(t *testing.T) {
			// Scenarios run beside each other: under an old BusyBox
			// run emulated the sh run of one takes ten times its
			// Go and Debian runs, and would leave a core idle.
			t.Parallel()
			for _, v := range sc.Validators {
				needTool(t, v)
			}
			var mu sync.Mutex
			finals := map[string]map[string]string{}
			keep := func(name string, w *World) {
				mu.Lock()
				finals[name] = w.Final()
				mu.Unlock()
			}
			t.Cleanup(func() { compare(t, sc, finals) })
			t.Run("go", func(t *testing.T) {
				t.Parallel()
				if _, ok := sc.Unsupported["go"]; !ok && goBuildErr != nil {
					t.Fatal(goBuildErr)
				}
				keep("go", Run(t, sc, GoEngine{Bin: goBin}))
			})
			for _, bb := range bbs {
				e := ShEngine{Lib: lib, Tag: bb.Tag}
				t.Run(e.Name(), func(t *testing.T) {
					t.Parallel()
					keep(e.Name(), RunWith(t, sc, e, bb.Path))
				})
			}
			for tag, why := range missing {
				t.Run("sh-"+tag, func(t *testing.T) { skipMissing(t, why) })
			}
		})
	}
}

// skipMissing skips a test for a BusyBox of the matrix that is not on
// this machine, saying why (counted in make test's skip summary); it fails
// when USERSCRIPT_BUSYBOX_OLD says where they should be.
func skipMissing(t *testing.T, why string) {
	t.Helper()
	needtool.Optional(t, why, firmsim.OldBusyBoxRequired())
}

// compare holds every sh run to what the Go engine left.
func compare(t *testing.T, sc *Scenario, finals map[string]map[string]string) {
	g := finals["go"]
	if g == nil || t.Failed() {
		return
	}
	for name, f := range finals {
		if name == "go" {
			continue
		}
		if diffs := sc.Compare(g, f); len(diffs) > 0 {
			t.Errorf("%s left what the Go engine did not (docs/FORMATS.md is the contract):\n%s", name, strings.Join(diffs, "\n"))
		}
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
		for key, reason := range sc.Diverge {
			t.Logf("%s: the engines may differ in %s: %s", sc.Name, key, reason)
		}
	}
}
