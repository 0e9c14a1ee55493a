package scenario

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Final is what an engine left, for the contract between the engines:
// every target, every status word, the banner of conf.d/STATUS.html,
// every generation (meta.json with its
// time masked, files/ and prev/) and the state files docs/FORMATS.md
// names (base/, written/, held/), keyed by what they are. OK and NOT
// VALIDATED count as one word: the Go engine validates exports and
// finds validators in the sbin folders, the sh engine does not.
func (w *World) Final() map[string]string {
	m := map[string]string{}
	for _, t := range w.Profile.Targets {
		data, err := os.ReadFile(filepath.Join(w.Root, t.Path))
		if err != nil {
			m["target "+t.Name] = "<none>"
			continue
		}
		m["target "+t.Name] = string(data)
	}
	es, _ := os.ReadDir(filepath.Join(w.App, "conf.d"))
	for _, e := range es {
		name, ok := strings.CutSuffix(e.Name(), ".status")
		if !ok || !e.Type().IsRegular() {
			continue
		}
		word := "<unreadable>"
		if text, err := w.statusText(name); err == nil {
			first, _, _ := strings.Cut(text, "\r\n")
			word = strings.TrimPrefix(first, "status: ")
		}
		if word == "OK" || word == "NOT VALIDATED" {
			word = "OK or NOT VALIDATED"
		}
		m["status "+name] = word
	}
	m["page banner"] = pageBanner(filepath.Join(w.App, "conf.d", "STATUS.html"))
	state := filepath.Join(w.App, "state")
	for _, sub := range []string{"base", "written", "held"} {
		files, _ := os.ReadDir(filepath.Join(state, sub))
		for _, f := range files {
			if data, err := os.ReadFile(filepath.Join(state, sub, f.Name())); err == nil {
				m["state/"+sub+"/"+f.Name()] = string(data)
			}
		}
	}
	gens, _ := os.ReadDir(filepath.Join(state, "gen"))
	for _, g := range gens {
		dir := filepath.Join(state, "gen", g.Name())
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			rel, _ := filepath.Rel(state, p)
			data, _ := os.ReadFile(p)
			if d.Name() == "meta.json" {
				data = reTime.ReplaceAll(data, []byte(`"time": "<masked>",`))
			}
			m["state/"+rel] = string(data)
			return nil
		})
	}
	for k, v := range m {
		m[k] = w.mask(v)
	}
	return m
}

// mask puts $ROOT, $PROC and $PORT for the world's own root, fake daemon
// name and port; the name and port only where they stand as words, never
// inside a hash (port 45181 in "045181a3…" made two equal hashes differ).
func (w *World) mask(v string) string {
	proc := regexp.MustCompile(`\b` + regexp.QuoteMeta(w.Proc) + `\b`)
	port := regexp.MustCompile(`\b` + strconv.Itoa(w.Port) + `\b`)
	v = strings.ReplaceAll(v, w.Root, "$ROOT")
	return port.ReplaceAllLiteralString(proc.ReplaceAllLiteralString(v, "$PROC"), "$PORT")
}

var reTime = regexp.MustCompile(`"time": "[^"]*",`)

var reBanner = regexp.MustCompile(`<p class="banner ([a-z-]+)"`)

// pageBanner is the kind of the banner of conf.d/STATUS.html (all fine,
// something needs you, off, safe mode, disk full): the page's own bytes
// follow from the status files, which the engines word differently
// (internal/statuspage holds the two pages to one another).
func pageBanner(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "<none>"
	}
	if m := reBanner.FindSubmatch(data); m != nil {
		return string(m[1])
	}
	return "<no banner>"
}

// Compare lists where b differs from a, except keys the scenario says
// may differ (its `diverge KEY REASON` lines; KEY is a prefix).
func (sc *Scenario) Compare(a, b map[string]string) []string {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	var diffs []string
	for k := range keys {
		if a[k] == b[k] || sc.diverges(k) {
			continue
		}
		diffs = append(diffs, fmt.Sprintf("%s:\n  go: %q\n  sh: %q", k, clip(a[k]), clip(b[k])))
	}
	sort.Strings(diffs)
	return diffs
}

func (sc *Scenario) diverges(key string) bool {
	for prefix := range sc.Diverge {
		if strings.HasPrefix(key, prefix) {
			return true
		}
	}
	return false
}

func clip(s string) string {
	if len(s) > 600 {
		return s[:600] + "…"
	}
	return s
}
