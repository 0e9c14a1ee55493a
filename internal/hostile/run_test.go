package hostile

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nas-userscript/userscript/internal/firmsim"
	"github.com/nas-userscript/userscript/internal/needtool"
)

var (
	resultsMu sync.Mutex
	results   = map[string]string{}
)

// TestHostile runs every case on the Go engine and on the sh engine under
// each BusyBox of the matrix (Debian's, 1.00, 1.2.0, 1.7.2).
func TestHostile(t *testing.T) {
	needTool(t, "busybox")
	type run struct{ name, eng, bb string }
	bbs, missing := firmsim.BusyBoxes()
	runs := []run{{"go", "go", bbs[0].Path}}
	for _, bb := range bbs {
		name := "sh"
		if bb.Tag != "debian" {
			name = "sh-" + bb.Tag
		}
		runs = append(runs, run{name, "sh", bb.Path})
	}
	if len(cases) < 25 {
		t.Errorf("the corpus has %d cases; keep at least 25", len(cases))
	}
	t.Cleanup(func() {
		var keys []string
		for k := range results {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		for _, k := range keys {
			fmt.Fprintf(&b, "%-36s %s\n", k, results[k])
		}
		t.Logf("results:\n%s", b.String())
	})
	for i := range cases {
		c := &cases[i]
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			finals := map[string]map[string]string{}
			t.Cleanup(func() { compareEngines(t, c, finals) })
			for _, r := range runs {
				t.Run(r.name, func(t *testing.T) {
					t.Parallel()
					if final := runCase(t, c, r.eng, r.bb); final != nil {
						mu.Lock()
						finals[r.name] = final
						mu.Unlock()
					}
				})
			}
			for tag, why := range missing {
				t.Run("sh-"+tag, func(t *testing.T) { needtool.Optional(t, why, firmsim.OldBusyBoxRequired()) })
			}
		})
	}
}

// compareEngines: where both engines held every invariant, they must also
// agree: the same targets, the same status files, the same words (OK and
// NOT VALIDATED count as one: the Go engine also finds validators in the
// sbin folders, the sh engine only on PATH).
func compareEngines(t *testing.T, c *hcase, finals map[string]map[string]string) {
	for name, s := range finals {
		if name != "go" {
			compareTwo(t, c, name, finals["go"], s)
		}
	}
}

func compareTwo(t *testing.T, c *hcase, name string, g, s map[string]string) {
	if g == nil || s == nil || c.random {
		return
	}
	keys := map[string]bool{}
	for k := range g {
		keys[k] = true
	}
	for k := range s {
		keys[k] = true
	}
	var diffs []string
	for k := range keys {
		if g[k] != s[k] {
			diffs = append(diffs, fmt.Sprintf("%s: go %q, sh %q", k, clip(g[k]), clip(s[k])))
		}
	}
	sort.Strings(diffs)
	switch {
	case len(diffs) > 0 && c.diverge != "":
		resultsMu.Lock()
		results[c.name+" (go/"+name+")"] = "KNOWN DIVERGENCE: " + strings.Join(diffs, "; ")
		resultsMu.Unlock()
		t.Logf("KNOWN DIVERGENCE: %s\n%s", c.diverge, strings.Join(diffs, "\n"))
	case len(diffs) > 0:
		t.Errorf("the Go engine and %s disagree:\n%s", name, strings.Join(diffs, "\n"))
	case c.diverge != "":
		t.Errorf("marked KNOWN DIVERGENCE, but the engines agree now: remove the mark (%s)", c.diverge)
	}
}

// final is what an engine left: the targets and the status words.
func (w *world) final() map[string]string {
	m := map[string]string{}
	for name, rel := range targetPaths {
		// Each engine runs in its own folder: a path to it in a target
		// (an include) is the same path for both.
		m["target "+name] = strings.ReplaceAll(w.read(w.rootf(rel)), w.dir, "<world>")
	}
	es, _ := os.ReadDir(filepath.Join(w.app, "conf.d"))
	for _, e := range es {
		if name, ok := strings.CutSuffix(e.Name(), ".status"); ok && e.Type().IsRegular() {
			word := w.statusWord(name)
			if word == "OK" || word == "NOT VALIDATED" {
				word = "OK or NOT VALIDATED"
			}
			m["status "+name] = word
		}
	}
	return m
}

// runCase runs one case on one engine; it returns what the engine left
// when every invariant held.
func runCase(t *testing.T, c *hcase, eng, bb string) map[string]string {
	record := func(s string) {
		resultsMu.Lock()
		results[c.name+"/"+t.Name()[strings.LastIndex(t.Name(), "/")+1:]] = s
		resultsMu.Unlock()
	}
	if c.only != "" && c.only != eng {
		record("SKIP: " + c.onlyWhy)
		t.Skipf("%s engine only: %s", c.only, c.onlyWhy)
	}
	if eng == "go" && goBuildErr != nil {
		t.Fatal(goBuildErr)
	}
	for _, v := range c.validators {
		needTool(t, v)
	}
	if c.root {
		need(t, os.Geteuid() == 0, "needs root (mknod)")
	}
	w := newWorld(t, c, eng, bb)
	if c.setup != nil {
		c.setup(w)
	}
	w.out, w.took = "", 0
	w.before = w.snapshot()
	if c.act != nil {
		c.act(w)
	} else {
		w.apply()
	}
	w.checkInvariants()
	if c.valid != "none" {
		w.checkValid()
	}
	if c.check != nil {
		c.check(w)
	}
	summary := fmt.Sprintf("exit %d, %v, %s", w.code, w.took.Round(time.Millisecond), w.statuses())
	if len(w.problems) == 0 {
		record("ok: " + summary)
		if bug := c.bug[eng]; bug != "" {
			t.Errorf("marked KNOWN BUG, but every invariant holds now: remove the mark (%s)", bug)
		}
		t.Log(summary)
		return w.final()
	}
	msg := fmt.Sprintf("%s engine, %s:\n%s\n--- output ---\n%s\n--- state/log ---\n%s", eng, summary,
		strings.Join(w.problems, "\n"), w.out, tail(w.log(), 3000))
	if bug := c.bug[eng]; bug != "" {
		record("KNOWN BUG: " + summary)
		t.Skipf("KNOWN BUG: %s\n%s", bug, msg)
	}
	record(fmt.Sprintf("FAIL (%d): %s", len(w.problems), summary))
	t.Error(msg)
	return nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// statuses lists the status words in conf.d: NAME=WORD, at most 8.
func (w *world) statuses() string {
	es, _ := os.ReadDir(filepath.Join(w.app, "conf.d"))
	var out []string
	n := 0
	for _, e := range es {
		name, ok := strings.CutSuffix(e.Name(), ".status")
		if !ok || !e.Type().IsRegular() {
			continue
		}
		if n++; n > 8 {
			continue
		}
		out = append(out, fmt.Sprintf("%q=%s", name, w.statusWord(name)))
	}
	if n > 8 {
		out = append(out, fmt.Sprintf("... %d status files", n))
	}
	return strings.Join(out, " ")
}
