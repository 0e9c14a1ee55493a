package needtool

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// Dirs a daemon's tools are often in, though a user's PATH lacks them.
var sbin = []string{"/usr/sbin", "/sbin", "/usr/local/sbin"}

// A T is the part of a test this package uses: *testing.T and
// testscript's T both are one.
type T interface {
	Skip(args ...any)
	Fatal(args ...any)
}

var (
	mu    sync.Mutex
	skips = map[string]int{} // reason → count
)

// Look finds a tool on PATH or in the sbin directories; "" when it is
// not installed.
func Look(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, dir := range sbin {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// Tool returns the path of each tool the test needs (in order); when one
// is missing the test is skipped (failed under CI=true).
func Tool(t T, names ...string) []string {
	if h, ok := t.(interface{ Helper() }); ok {
		h.Helper()
	}
	var paths []string
	for _, n := range names {
		p := Look(n)
		if p == "" {
			Missing(t, n+" not installed (make deps installs it)")
		}
		paths = append(paths, p)
	}
	return paths
}

// Have reports whether every tool is installed, for a caller that skips
// by itself (testscript's `[!need:testparm] skip`): a missing one is
// counted as a skip, and under CI=true it is an error.
func Have(names ...string) (bool, error) {
	os.Getenv(skipsEnv)
	for _, n := range names {
		if Look(n) != "" {
			continue
		}
		reason := n + " not installed (make deps installs it)"
		if os.Getenv("CI") == "true" {
			return false, fmt.Errorf("CI=true: %s; CI must provide it (.ci/run runs make deps as root)", reason)
		}
		mu.Lock()
		skips[reason]++
		mu.Unlock()
		return false, nil
	}
	return true, nil
}

// Root skips a test that needs root, or fails it under CI=true.
func Root(t T) {
	if os.Geteuid() != 0 {
		Missing(t, "needs root")
	}
}

// Missing skips the test for reason — something this machine lacks —
// and counts it; under CI=true it fails the test.
func Missing(t T, reason string) {
	if h, ok := t.(interface{ Helper() }); ok {
		h.Helper()
	}
	os.Getenv(skipsEnv) // read inside the test: part of go test's cache key
	if os.Getenv("CI") == "true" {
		t.Fatal("CI=true: " + reason + "; CI must provide it (.ci/run runs make deps as root)")
		return
	}
	mu.Lock()
	skips[reason]++
	mu.Unlock()
	t.Skip(reason)
}

// Optional skips the test for reason, something a machine may lack
// without a tool to install (the old BusyBox builds that lie beside the
// clone, not in it): counted in the summary as Missing does, and a skip
// under CI=true too, since CI may not have it. When required (the
// developer or CI pointed at where it should be), it fails instead.
func Optional(t T, reason string, required bool) {
	if h, ok := t.(interface{ Helper() }); ok {
		h.Helper()
	}
	os.Getenv(skipsEnv)
	if required {
		t.Fatal(reason)
		return
	}
	mu.Lock()
	skips[reason]++
	mu.Unlock()
	t.Skip(reason)
}

const skipsEnv = "USERSCRIPT_SKIPS"

// Main runs the tests of m (see Run) and exits with their code.
func Main(m *testing.M) { os.Exit(Run(m)) }

// Run runs the tests of m (a *testing.M), then prints the skips, one
// line per reason, and records them for `make test`; it returns m's exit
// code.
func Run(m interface{ Run() int }) int {
	code := m.Run()
	lines := Summary()
	for _, l := range lines {
		fmt.Println("needtool:", l)
	}
	if err := record(lines); err != nil {
		fmt.Fprintln(os.Stderr, "needtool:", err)
	}
	return code
}

// Summary is one line per reason: "3 skipped: testparm not installed".
func Summary() []string {
	mu.Lock()
	defer mu.Unlock()
	var lines []string
	for reason, n := range skips {
		lines = append(lines, fmt.Sprintf("%d skipped: %s", n, reason))
	}
	sort.Strings(lines)
	return lines
}

// record writes the summary to USERSCRIPT_SKIPS/<package>, or removes an
// old one when nothing was skipped.
func record(lines []string) error {
	dir := os.Getenv(skipsEnv)
	if dir == "" {
		return nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	name := filepath.Join(dir, strings.NewReplacer("/", "_", "\\", "_", ":", "_").Replace(wd))
	if len(lines) == 0 {
		os.Remove(name)
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(name, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}
