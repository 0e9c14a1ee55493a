package pkgtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nas-userscript/userscript/internal/firmsim"
	"github.com/nas-userscript/userscript/internal/needtool"
	"github.com/nas-userscript/userscript/internal/systest"
)

var (
	repoRoot = filepath.Join("..", "..")
	distBase string // per test binary, removed by TestMain

	distMu    sync.Mutex
	distCache = map[string]string{} // target → archive
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "userscript-pkgtest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	distBase = dir
	code := needtool.Run(m)
	os.RemoveAll(dir)
	os.Exit(code)
}

// need skips the test when a tool is missing, or fails it under CI=true.
func need(t *testing.T, tools ...string) {
	t.Helper()
	needtool.Tool(t, tools...)
}

func needRoot(t *testing.T) {
	t.Helper()
	needtool.Root(t)
}

// makeDist runs `make dist` for targets into dir and returns the archives
// (.tgz, or .spk for the Synology targets) by target.
func makeDist(t *testing.T, dir string, targets ...string) map[string]string {
	t.Helper()
	return makeDistVars(t, dir, nil, targets...)
}

// makeDistVars is makeDist with more make variables (NAME=VALUE).
func makeDistVars(t *testing.T, dir string, vars []string, targets ...string) map[string]string {
	t.Helper()
	need(t, "make", "tar", "gzip")
	// CLI_TARGETS= : the PC command line is built by TestDistCLI only.
	args := append([]string{"-s", "dist", "DIST=" + dir, "TARGETS=" + strings.Join(targets, " "), "CLI_TARGETS="}, vars...)
	cmd := exec.Command("make", args...)
	cmd.Dir = repoRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make dist: %v\n%s", err, out)
	}
	got := map[string]string{}
	for _, tg := range targets {
		m, _ := filepath.Glob(filepath.Join(dir, "userscript-*-"+tg+".*"))
		if len(m) != 1 {
			t.Fatalf("make dist: want one archive for %s in %s, got %v", tg, dir, m)
		}
		got[tg] = m[0]
	}
	return got
}

// dist returns the archive for target, building it once per test run.
func dist(t *testing.T, target string) string {
	t.Helper()
	distMu.Lock()
	defer distMu.Unlock()
	if a, ok := distCache[target]; ok {
		return a
	}
	a := makeDist(t, filepath.Join(distBase, target), target)[target]
	distCache[target] = a
	return a
}

// installed returns a simulated IB-NAS4220-B with the armv4 package
// installed, and stops whatever it started when the test ends.
func installed(t *testing.T) *firmsim.NAS {
	t.Helper()
	return installedWith(t, "")
}

// installedWith is installed, with the init scripts run under the BusyBox
// binary bb ("" is Debian's). USERSCRIPT_TEST_PACKAGE names a folder
// holding another init and lib/*.sh (an older sh engine: a test must
// fail on it first) to put over the package's.
func installedWith(t *testing.T, bb string) *firmsim.NAS {
	t.Helper()
	need(t, "busybox")
	n, err := firmsim.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if bb != "" {
		if err := n.UseBusyBox(bb); err != nil {
			t.Fatal(err)
		}
	}
	if err := n.Install(dist(t, "armv4")); err != nil {
		t.Fatal(err)
	}
	if d := os.Getenv("USERSCRIPT_TEST_PACKAGE"); d != "" {
		overlayEngine(t, d, n.AppDir("userscript"))
	}
	t.Cleanup(func() { n.Shutdown() })
	return n
}

// overlayEngine copies src/init and src/lib/*.sh over the app dir's.
func overlayEngine(t *testing.T, src, app string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(src, "lib", "*.sh"))
	files = append(files, filepath.Join(src, "init"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(src, f)
		if err := systest.WriteFile(filepath.Join(app, rel), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := systest.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// alive reports whether pid is a live process (a zombie is not).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndex(s, ")")
	return i < 0 || !strings.HasPrefix(s[i+1:], " Z")
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return pid
}

// pollers returns the pids of the sh pollers running for app (not
// counting the poller's own short-lived subshells).
func pollers(app string) []int {
	return topProcs(func(args []string) bool {
		return len(args) >= 2 && args[len(args)-1] == "poll" && args[len(args)-2] == filepath.Join(app, "lib", "engine.sh")
	})
}

func ppid(pid int) int {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	s := string(b)
	i := strings.LastIndex(s, ")")
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

// eventually polls cond every 100ms until it holds or d passes (d times
// firmsim.AnySlowdown: old BusyBox may run emulated).
func eventually(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d * time.Duration(firmsim.AnySlowdown()))
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return cond()
}
