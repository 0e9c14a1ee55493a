package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/nas-userscript/userscript/internal/firmsim"
	"github.com/nas-userscript/userscript/internal/needtool"
	"github.com/nas-userscript/userscript/internal/systest"
)

// A Scenario is one parsed testdata/scenarios file.
type Scenario struct {
	Name        string
	Profile     string
	Validators  []string
	Unsupported map[string]string // engine → reason
	// Diverge names what the engines may leave differently (a key prefix
	// of Final → why); everything else must be byte for byte the same.
	Diverge map[string]string
	Lines   []Line
	Files   map[string][]byte
	order   []string
}

// A Line is one command of the script.
type Line struct {
	N      int    // line number in the file
	Engine string // "" for both
	Neg    bool
	Args   []string
}

// Load parses a scenario file.
func Load(path string) (*Scenario, error) {
	ar, err := txtar.ParseFile(path)
	if err != nil {
		return nil, err
	}
	sc := &Scenario{
		Name:        strings.TrimSuffix(filepath.Base(path), ".txtar"),
		Profile:     "nas4220b",
		Unsupported: map[string]string{},
		Diverge:     map[string]string{},
		Files:       map[string][]byte{},
	}
	for _, f := range ar.Files {
		sc.Files[f.Name] = f.Data
		sc.order = append(sc.order, f.Name)
	}
	for i, text := range strings.Split(string(ar.Comment), "\n") {
		text = strings.TrimSpace(text)
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		ln := Line{N: i + 1}
		if strings.HasPrefix(text, "[") {
			end := strings.Index(text, "]")
			if end < 0 {
				return nil, fmt.Errorf("%s:%d: unclosed [", path, ln.N)
			}
			ln.Engine = text[1:end]
			text = strings.TrimSpace(text[end+1:])
		}
		if strings.HasPrefix(text, "! ") {
			ln.Neg = true
			text = strings.TrimSpace(text[2:])
		}
		if f := strings.Fields(text); len(f) > 0 && f[0] == "unsupported" {
			if len(f) < 3 {
				return nil, fmt.Errorf("%s:%d: unsupported ENGINE REASON", path, ln.N)
			}
			sc.Unsupported[f[1]] = strings.Join(f[2:], " ")
			continue
		}
		ln.Args, err = words(text)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, ln.N, err)
		}
		if ln.Args[0] == "diverge" {
			if len(ln.Args) < 3 {
				return nil, fmt.Errorf("%s:%d: diverge KEY REASON", path, ln.N)
			}
			sc.Diverge[ln.Args[1]] = strings.Join(ln.Args[2:], " ")
			continue
		}
		switch ln.Args[0] {
		case "profile":
			sc.Profile = ln.Args[1]
		case "validators":
			sc.Validators = ln.Args[1:]
		default:
			sc.Lines = append(sc.Lines, ln)
		}
	}
	return sc, nil
}

// words splits a line on spaces; 'single quotes' group.
func words(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	in, have := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			in, have = !in, true
		case r == ' ' && !in:
			if have {
				out = append(out, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteRune(r)
			have = true
		}
	}
	if in {
		return nil, fmt.Errorf("unclosed quote")
	}
	if have {
		out = append(out, cur.String())
	}
	return out, nil
}

// An Engine applies conf.d once in a prepared world.
type Engine interface {
	Name() string
	// Prepare sets up the app dir for this engine (the sh engine's lib/).
	Prepare(w *World) error
	// Apply runs one apply and returns its exit code and output.
	Apply(w *World) (int, string, error)
	// Rollback runs `rollback [GEN]` (GEN "" is the previous one).
	Rollback(w *World, gen string) (int, string, error)
}

// A World is one run of a scenario: a device root and an app dir
// (firmsim.Device).
type World struct {
	*firmsim.Device
	BusyBox string // the BusyBox binary ("" is Debian's)
	// Port and Proc are the port and the process name of the fake daemon
	// the scenario's `service` line runs ($PORT and $PROC in its files).
	Port    int
	Proc    string
	Daemon  string // the fakedaemon binary (FakeDaemon)
	sc      *Scenario
	stamps  map[string]os.FileInfo
	pidFile string
	mounts  []string   // what fulldisk mounted
	clients []net.Conn // the sessions `connect` opened
}

// FakeDaemon is the fakedaemon binary the `service` line runs; the test
// builds it once (firmsim.BuildTool).
var FakeDaemon string

// Run runs sc against engine with Debian's BusyBox as a subtest-ready
// function.
func Run(t *testing.T, sc *Scenario, e Engine) *World {
	t.Helper()
	return RunWith(t, sc, e, "")
}

// RunWith runs sc against engine with the BusyBox binary bb ("" is
// Debian's) and returns the world as the scenario left it.
func RunWith(t *testing.T, sc *Scenario, e Engine, bb string) *World {
	t.Helper()
	name := strings.SplitN(e.Name(), "-", 2)[0]
	if reason, ok := sc.Unsupported[name]; ok {
		t.Skipf("unsupported: %s — %s (declared in testdata/scenarios/%s.txtar)", name, reason, sc.Name)
	}
	w, err := newWorld(t.TempDir(), sc, bb)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.stopDaemon)
	t.Cleanup(w.unmountAll)
	if err := e.Prepare(w); err != nil {
		t.Fatal(err)
	}
	for _, ln := range sc.Lines {
		if ln.Engine != "" && ln.Engine != name {
			continue
		}
		if err := w.exec(e, ln); errors.Is(err, errNeedRoot) {
			needtool.Optional(t, fmt.Sprintf("%s.txtar:%d: %s %v", sc.Name, ln.N, ln.Args[0], err), false)
		} else if err != nil {
			if os.Getenv("SCENARIO_DEBUG") != "" {
				lg, _ := os.ReadFile(filepath.Join(w.App, "state", "log"))
				t.Logf("state/log:\n%s", lg)
			}
			t.Fatalf("%s.txtar:%d: %s: %v", sc.Name, ln.N, strings.Join(ln.Args, " "), err)
		}
	}
	return w
}

func newWorld(dir string, sc *Scenario, bb string) (*World, error) {
	dev, err := firmsim.NewDevice(dir, firmsim.DeviceSpec{Profile: sc.Profile, BusyBox: bb, Validators: sc.Validators})
	if err != nil {
		return nil, err
	}
	w := &World{
		Device:  dev,
		BusyBox: bb,
		sc:      sc,
		stamps:  map[string]os.FileInfo{},
		pidFile: filepath.Join(dir, "daemon.pid"),
	}
	if w.Port, err = firmsim.FreePort(); err != nil {
		return nil, err
	}
	w.Proc = fmt.Sprintf("fd%d", w.Port)
	if data, ok := sc.Files["userscript.toml"]; ok {
		if err := os.MkdirAll(w.App, 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(w.App, "userscript.toml"), w.expand(data), 0o644); err != nil {
			return nil, err
		}
	}
	if err := w.restoreRoot(); err != nil {
		return nil, err
	}
	for _, name := range sc.order {
		if strings.HasPrefix(name, "conf.d/") {
			if err := w.write(name, sc.Files[name], 0o644); err != nil {
				return nil, err
			}
		}
	}
	return w, nil
}

// restoreRoot writes the archive's root/... files, as the ROM restore at boot.
func (w *World) restoreRoot() error {
	for _, name := range w.sc.order {
		if strings.HasPrefix(name, "root/") {
			p := w.path(name)
			os.Remove(p)
			if err := w.write(name, w.sc.Files[name], 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// path maps a scenario path to the world.
func (w *World) path(p string) string {
	switch {
	case strings.HasPrefix(p, "root/"):
		return filepath.Join(w.Root, strings.TrimPrefix(p, "root/"))
	case strings.HasPrefix(p, "conf.d/"), strings.HasPrefix(p, "state/"):
		return filepath.Join(w.App, p)
	}
	return filepath.Join(w.Dir, p)
}

func (w *World) write(p string, data []byte, mode os.FileMode) error {
	full := w.path(p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	return systest.WriteFile(full, w.expand(data), mode)
}

// expand puts the world's fake daemon port and process name for $PORT
// and $PROC.
func (w *World) expand(data []byte) []byte {
	s := strings.ReplaceAll(string(data), "$PORT", strconv.Itoa(w.Port))
	s = strings.ReplaceAll(s, "$ROOT", w.Root)
	return []byte(strings.ReplaceAll(s, "$PROC", w.Proc))
}

func (w *World) file(name string) ([]byte, error) {
	b, ok := w.sc.Files[name]
	if !ok {
		return nil, fmt.Errorf("no file %q in the scenario", name)
	}
	return b, nil
}

func (w *World) exec(e Engine, ln Line) error {
	a := ln.Args
	need := func(n int) error {
		if len(a) != n+1 {
			return fmt.Errorf("want %d arguments", n)
		}
		return nil
	}
	switch a[0] {
	case "apply":
		os.Remove(filepath.Join(w.Root, firmsim.RestartLog))
		code, out, err := e.Apply(w)
		if err != nil {
			return err
		}
		if len(a) > 1 {
			want, _ := strconv.Atoi(a[1])
			if code != want {
				return fmt.Errorf("exit %d, want %d\n%s", code, want, out)
			}
		}
		return nil
	case "cmp":
		if err := need(2); err != nil {
			return err
		}
		want, err := w.file(a[2])
		if err != nil {
			return err
		}
		got, err := os.ReadFile(w.path(a[1]))
		if err != nil {
			return err
		}
		if !bytes.Equal(got, want) {
			return fmt.Errorf("%s differs from %s\n--- got ---\n%q\n--- want ---\n%q", a[1], a[2], got, want)
		}
		return nil
	case "cp", "cpwin", "cputf16", "cputf16be":
		if err := need(2); err != nil {
			return err
		}
		data, err := w.file(a[1])
		if err != nil {
			return err
		}
		switch a[0] {
		case "cpwin":
			data = append([]byte("\xef\xbb\xbf"), bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))...)
		case "cputf16", "cputf16be":
			data = utf16Notepad(string(data), a[0] == "cputf16be")
		}
		os.Remove(w.path(a[2]))
		return w.write(a[2], data, 0o644)
	case "rm":
		return os.RemoveAll(w.path(a[1]))
	case "mkdir":
		return os.MkdirAll(w.path(a[1]), 0o755)
	case "mkfifo":
		if err := os.MkdirAll(filepath.Dir(w.path(a[1])), 0o755); err != nil {
			return err
		}
		return syscall.Mkfifo(w.path(a[1]), 0o644)
	case "symlink":
		if err := need(2); err != nil {
			return err
		}
		return os.Symlink(a[2], w.path(a[1]))
	case "sparse":
		if err := need(2); err != nil {
			return err
		}
		size, err := parseSize(a[2])
		if err != nil {
			return err
		}
		f, err := os.Create(w.path(a[1]))
		if err != nil {
			return err
		}
		defer f.Close()
		return f.Truncate(size)
	case "status":
		return w.checkStatus(a[1], strings.Join(a[2:], " "))
	case "cmpstatus":
		if err := need(2); err != nil {
			return err
		}
		return w.cmpStatus(a[1], a[2])
	case "grep":
		return w.grep(ln.Neg, a[1:])
	case "exists":
		_, err := os.Lstat(w.path(a[1]))
		if (err == nil) == ln.Neg {
			if ln.Neg {
				return fmt.Errorf("%s exists", a[1])
			}
			return err
		}
		return nil
	case "restarts":
		got := w.restarts()
		want := slices.Clone(a[1:])
		sort.Strings(got)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			return fmt.Errorf("restarts %q, want %q", got, want)
		}
		return nil
	case "stamp":
		fi, err := os.Lstat(w.path(a[1]))
		if err != nil {
			return err
		}
		w.stamps[a[1]] = fi
		return nil
	case "unchanged":
		old, ok := w.stamps[a[1]]
		if !ok {
			return fmt.Errorf("no stamp for %s", a[1])
		}
		fi, err := os.Lstat(w.path(a[1]))
		if err != nil {
			return err
		}
		if !os.SameFile(old, fi) || !old.ModTime().Equal(fi.ModTime()) || old.Size() != fi.Size() {
			return fmt.Errorf("%s was rewritten", a[1])
		}
		return nil
	case "reboot":
		return w.restoreRoot()
	case "fulldisk":
		return w.fillDisk()
	case "rollback":
		gen, want := "", 0
		if len(a) > 1 && a[1] != "-" {
			gen = a[1]
		}
		if len(a) > 2 {
			want, _ = strconv.Atoi(a[2])
		}
		os.Remove(filepath.Join(w.Root, firmsim.RestartLog))
		code, out, err := e.Rollback(w, gen)
		if err != nil {
			return err
		}
		if code != want {
			return fmt.Errorf("exit %d, want %d\n%s", code, want, out)
		}
		return nil
	case "service":
		if len(a) == 3 && a[2] == "sessions" {
			return w.fakeService(a[1], true)
		}
		if err := need(1); err != nil {
			return err
		}
		return w.fakeService(a[1], false)
	case "connect":
		return w.connect()
	case "start":
		if len(a) == 4 && a[2] == "late" {
			return w.startService(a[1], a[3])
		}
		if err := need(1); err != nil {
			return err
		}
		return w.startService(a[1], "")
	case "chmod":
		if err := need(2); err != nil {
			return err
		}
		m, err := strconv.ParseUint(a[1], 8, 32)
		if err != nil {
			return err
		}
		return os.Chmod(w.path(a[2]), os.FileMode(m))
	case "mode":
		if err := need(2); err != nil {
			return err
		}
		fi, err := os.Lstat(w.path(a[1]))
		if err != nil {
			return err
		}
		if got := fmt.Sprintf("%04o", fi.Mode().Perm()); got != a[2] {
			return fmt.Errorf("%s has mode %s, want %s", a[1], got, a[2])
		}
		return nil
	}
	return fmt.Errorf("unknown command %q", a[0])
}

// grep is testscript's grep: [-count=N] PATTERN PATH. PATH has a line
// matching PATTERN (exactly N matches with -count), or, negated, none (a
// missing PATH has none).
func (w *World) grep(neg bool, args []string) error {
	want := 0
	if len(args) > 0 && strings.HasPrefix(args[0], "-count=") {
		n, err := strconv.Atoi(strings.TrimPrefix(args[0], "-count="))
		if err != nil || n < 1 || neg {
			return fmt.Errorf("bad %s: want a number of at least 1, and no !", args[0])
		}
		want, args = n, args[1:]
	}
	if len(args) != 2 {
		return fmt.Errorf("usage: grep [-count=N] PATTERN PATH")
	}
	re, err := regexp.Compile("(?m)" + args[0])
	if err != nil {
		return err
	}
	data, err := os.ReadFile(w.path(args[1]))
	if err != nil && !neg {
		return err
	}
	switch n := len(re.FindAllIndex(data, -1)); {
	case neg && n > 0, !neg && n == 0:
		return fmt.Errorf("match is %v\n%s", !neg, data)
	case want > 0 && n != want:
		return fmt.Errorf("%d matches, want %d\n%s", n, want, data)
	}
	return nil
}

// statusText reads conf.d/NAME.status and checks that it is CRLF text.
func (w *World) statusText(name string) (string, error) {
	data, err := os.ReadFile(filepath.Join(w.App, "conf.d", name+".status"))
	if err != nil {
		return "", err
	}
	text := string(data)
	if !strings.HasSuffix(text, "\r\n") || strings.Count(text, "\n") != strings.Count(text, "\r\n") {
		return "", fmt.Errorf("conf.d/%s.status: not CRLF\n%q", name, text)
	}
	return text, nil
}

func (w *World) checkStatus(name, word string) error {
	text, err := w.statusText(name)
	if err != nil {
		return err
	}
	first, _, _ := strings.Cut(text, "\r\n")
	if first != "status: "+word {
		return fmt.Errorf("conf.d/%s.status: first line %q, want %q\n%s", name, first, "status: "+word, text)
	}
	return nil
}

// cmpStatus compares conf.d/NAME.status, read as LF text without its
// time: line, with the archive's FILE.
func (w *World) cmpStatus(name, file string) error {
	want, err := w.file(file)
	if err != nil {
		return err
	}
	text, err := w.statusText(name)
	if err != nil {
		return err
	}
	var got []string
	for _, l := range strings.SplitAfter(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if !strings.HasPrefix(l, "time: ") {
			got = append(got, l)
		}
	}
	if g := strings.Join(got, ""); g != string(want) {
		return fmt.Errorf("conf.d/%s.status differs from %s\n--- got ---\n%s--- want ---\n%s", name, file, g, want)
	}
	return nil
}

func (w *World) restarts() []string {
	b, err := os.ReadFile(filepath.Join(w.Root, firmsim.RestartLog))
	if err != nil {
		return nil
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

func parseSize(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n * mult, err
}
