package statuspage

import (
	"path/filepath"
	"sort"
	"strings"

	"github.com/nas-userscript/userscript/internal/source"
	"github.com/nas-userscript/userscript/internal/system"
)

// Limits on what the page reads: a file over them is left out (conf.d
// is on a share anyone may write; the engines write far less).
const (
	maxText  = 64 << 10  // a status file, DOCTOR.txt, SAFE-MODE
	maxChart = 256 << 10 // the chart in conf.d/.bench
	maxGens  = 10        // generations shown
	maxCSV   = 10        // result files linked
)

// State is what the page shows, read from disk.
type State struct {
	Disable  string // the name of conf.d/DISABLE as it is there, or ""
	Safe     string // the name of conf.d/SAFE-MODE, or ""
	SafeWhy  string // its why: line
	Rows     []Row
	Gens     []Gen // newest first
	Findings []string
	Chart    string // the name of the newest .svg in conf.d/.bench
	ChartSVG []byte
	CSV      []string // newest first
}

// A Row is one status file.
type Row struct {
	Name                                      string // the status file's name without .status
	Word, File, Reason, Line, Gen, Time, Todo string
	Held                                      bool
}

// A Gen is one generation's meta.json, as text.
type Gen struct {
	ID, Time, Kind, Result, Note, Changed, Restarted, Rejected string
}

type entry struct {
	name    string
	regular bool
	dir     bool
	size    int64
}

// list returns the entries of dir with safe names (and .bench), sorted
// by name; nothing when dir is not there.
func list(sys system.System, dir string) []entry {
	es, err := sys.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []entry
	for _, e := range es {
		n := e.Name()
		if !safeName(n) && n != ".bench" {
			continue
		}
		en := entry{name: n, regular: e.Type().IsRegular(), dir: e.IsDir()}
		if en.regular {
			if fi, err := e.Info(); err == nil {
				en.size = fi.Size()
			}
		}
		out = append(out, en)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// safeName is the sh engine's safe_name: letters, digits and . _ -,
// not starting with - or a dot.
func safeName(n string) bool {
	if n == "" || n[0] == '-' || n[0] == '.' {
		return false
	}
	for _, r := range n {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// lines splits data as the sh engine's read loop does: at "\n", one CR
// dropped from each line's end, a last line without "\n" left out.
func lines(data []byte) []string {
	parts := strings.Split(string(data), "\n")
	parts = parts[:len(parts)-1]
	for i, l := range parts {
		parts[i] = strings.TrimSuffix(l, "\r")
	}
	return parts
}

// Read reads the state the page shows from the app dir.
func Read(sys system.System, app string) *State {
	s := &State{}
	conf := filepath.Join(app, "conf.d")
	held := map[string]bool{}
	for _, e := range list(sys, filepath.Join(app, "state", "held")) {
		if e.regular {
			held[e.name] = true
		}
	}
	var doctor, bench bool
	for _, e := range list(sys, conf) {
		switch {
		case source.IsDisable(e.name):
			if s.Disable == "" {
				s.Disable = e.name
			}
		case strings.EqualFold(e.name, source.SafeMode):
			s.Safe = e.name
			if e.regular && e.size <= maxText {
				s.SafeWhy = safeWhy(sys, filepath.Join(conf, e.name))
			}
		case e.name == source.DoctorFile:
			doctor = e.regular && e.size <= maxText
		case e.name == ".bench":
			bench = e.dir
		case strings.HasSuffix(e.name, ".status") && e.regular && e.size <= maxText:
			if r, ok := readRow(sys, filepath.Join(conf, e.name)); ok {
				r.Name = strings.TrimSuffix(e.name, ".status")
				r.Held = held[r.Name]
				s.Rows = append(s.Rows, r)
			}
		}
	}
	s.Gens = readGens(sys, filepath.Join(app, "state", "gen"))
	if doctor {
		s.Findings = findings(sys, filepath.Join(conf, source.DoctorFile))
	}
	if bench {
		readBench(sys, filepath.Join(conf, ".bench"), s)
	}
	return s
}

func safeWhy(sys system.System, path string) string {
	data, _ := sys.ReadFile(path)
	for _, l := range lines(data) {
		if v, ok := strings.CutPrefix(l, "why: "); ok {
			return v
		}
	}
	return ""
}

// readRow reads a status file: its first line is status: WORD; of the
// other keys the last one wins.
func readRow(sys system.System, path string) (Row, bool) {
	var r Row
	data, err := sys.ReadFile(path)
	if err != nil {
		return r, false
	}
	ls := lines(data)
	if len(ls) == 0 || !strings.HasPrefix(ls[0], "status: ") {
		return r, false
	}
	r.Word = strings.TrimPrefix(ls[0], "status: ")
	for _, l := range ls[1:] {
		for _, kv := range []struct {
			key string
			v   *string
		}{{"file: ", &r.File}, {"reason: ", &r.Reason}, {"line: ", &r.Line}, {"generation: ", &r.Gen}, {"time: ", &r.Time}, {"what to do: ", &r.Todo}} {
			if v, ok := strings.CutPrefix(l, kv.key); ok {
				*kv.v = v
			}
		}
	}
	return r, true
}

// readGens reads the newest generations, newest first.
func readGens(sys system.System, dir string) []Gen {
	var ids []string
	for _, e := range list(sys, dir) {
		if e.dir && len(e.name) == 6 && strings.Trim(e.name, "0123456789") == "" {
			ids = append(ids, e.name)
		}
	}
	var gens []Gen
	for i := len(ids) - 1; i >= 0 && len(gens) < maxGens; i-- {
		data, err := sys.ReadFile(filepath.Join(dir, ids[i], "meta.json"))
		if err != nil {
			continue
		}
		if g, ok := readMeta(data); ok {
			gens = append(gens, g)
		}
	}
	return gens
}

// readMeta reads the lines of meta.json the page shows, as text (the
// layout history.Marshal writes: one key a line).
func readMeta(data []byte) (Gen, bool) {
	var g Gen
	for _, l := range lines(data) {
		switch {
		case strings.HasPrefix(l, `  "id": `):
			g.ID = strings.TrimSuffix(strings.TrimPrefix(l, `  "id": `), ",")
		case strings.HasPrefix(l, `  "time": "`):
			g.Time = showTime(strVal(l, "time"))
		case strings.HasPrefix(l, `  "kind": "`):
			g.Kind = strVal(l, "kind")
		case strings.HasPrefix(l, `  "result": "`):
			g.Result = strVal(l, "result")
		case strings.HasPrefix(l, `  "note": "`):
			g.Note = strVal(l, "note")
		case strings.HasPrefix(l, `  "changed": [`):
			g.Changed = listVal(l, "changed")
		case strings.HasPrefix(l, `  "restarted": [`):
			g.Restarted = listVal(l, "restarted")
		case strings.HasPrefix(l, `  "rejected": [`):
			g.Rejected = listVal(l, "rejected")
		}
	}
	return g, g.ID != ""
}

func strVal(l, key string) string {
	return strings.TrimSuffix(strings.TrimPrefix(l, `  "`+key+`": "`), `",`)
}

// listVal is a one-line list of names without its brackets and quotes.
func listVal(l, key string) string {
	v := strings.TrimSuffix(strings.TrimPrefix(l, `  "`+key+`": [`), `],`)
	return strings.ReplaceAll(v, `"`, "")
}

// showTime turns 2026-12-02T12:30:00Z into 2026-12-02 12:30:00 UTC.
func showTime(t string) string {
	if i := strings.Index(t, "T"); i >= 0 {
		t = t[:i] + " " + t[i+1:]
	}
	if v, ok := strings.CutSuffix(t, "Z"); ok {
		t = v + " UTC"
	}
	return t
}

// findings are the lines of DOCTOR.txt that need the owner: a service
// that does not answer, guests (or everyone) can write conf.d, a file in
// conf.d that is not used.
func findings(sys system.System, path string) []string {
	data, _ := sys.ReadFile(path)
	var out []string
	section := ""
	for _, l := range lines(data) {
		if item, ok := strings.CutPrefix(l, "  "); ok {
			if needs(section, item) {
				out = append(out, item)
			}
			continue
		}
		if l != "" && !strings.HasPrefix(l, " ") && strings.HasSuffix(l, ":") {
			section = l
		}
	}
	return out
}

func needs(section, item string) bool {
	switch section {
	case "services:":
		return strings.Contains(item, "NOT SERVING")
	case "who can write conf.d:":
		return strings.Contains(item, "GUESTS CAN WRITE IT") || strings.Contains(item, "is writable by everyone")
	case "files in conf.d that are not used:":
		return true
	}
	return false
}

// readBench finds the newest chart (.svg) and the newest results (.csv).
func readBench(sys system.System, dir string, s *State) {
	var csv []string
	for _, e := range list(sys, dir) {
		switch {
		case !e.regular:
		case strings.HasSuffix(e.name, ".csv"):
			csv = append(csv, e.name)
		case strings.HasSuffix(e.name, ".svg") && e.size <= maxChart:
			s.Chart = e.name
		}
	}
	for i := len(csv) - 1; i >= 0 && len(s.CSV) < maxCSV; i-- {
		s.CSV = append(s.CSV, csv[i])
	}
	if s.Chart != "" {
		data, err := sys.ReadFile(filepath.Join(dir, s.Chart))
		if err != nil {
			s.Chart = ""
			return
		}
		s.ChartSVG = data
	}
}
