package pkgtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/nas-userscript/userscript/internal/firmsim"
)

// The old BusyBox builds of the sh engine's test matrix (ARCHITECTURE.md): the
// folder holding TAG/busybox and path.sh, from USERSCRIPT_BUSYBOX_OLD or
// the workplace's ../shared/busybox-old next to the source tree.
var oldBusyBoxTags = firmsim.OldBusyBoxTags

func oldBusyBoxDir() string {
	if d := os.Getenv("USERSCRIPT_BUSYBOX_OLD"); d != "" {
		return d
	}
	d, _ := filepath.Abs(filepath.Join(repoRoot, "..", "shared", "busybox-old"))
	return d
}

// oldBusyBox is the old BusyBox binary TAG, or "" when it is not here.
func oldBusyBox(tag string) string {
	bb := filepath.Join(oldBusyBoxDir(), tag, "busybox")
	if fi, err := os.Stat(bb); err != nil || fi.Mode()&0o111 == 0 {
		return ""
	}
	return bb
}

// oldBusyBoxPath makes a PATH folder holding only the applets of the old
// BusyBox TAG (its path.sh) and returns it and its sh; it skips the test
// when the build is not here.
func oldBusyBoxPath(t *testing.T, tag string) (bin, shell string) {
	t.Helper()
	if oldBusyBox(tag) == "" {
		t.Skipf("old BusyBox %s not found in %s (set USERSCRIPT_BUSYBOX_OLD)", tag, oldBusyBoxDir())
	}
	out, err := exec.Command("sh", filepath.Join(oldBusyBoxDir(), "path.sh"), tag, filepath.Join(t.TempDir(), "bb")).Output()
	if err != nil {
		t.Fatalf("path.sh %s: %v", tag, err)
	}
	bin = strings.TrimSpace(string(out))
	return bin, filepath.Join(bin, "sh")
}

// newDSM is a simulated DiskStation running DSM version, polling every
// second where the sh engine runs, shut down when the test ends.
func newDSM(t *testing.T, version string) *firmsim.DSM {
	t.Helper()
	need(t, "busybox")
	d, err := firmsim.NewDSM(t.TempDir(), version)
	if err != nil {
		t.Fatal(err)
	}
	d.Env = append(d.Env, "USERSCRIPT_POLL=1")
	t.Cleanup(func() { d.Shutdown() })
	return d
}

var (
	newerMu    sync.Mutex
	newerCache map[string]string
)

// newerDist returns target's package built again as the next release: the
// same tree with the build number one higher (SPK_VERSION) and another
// version name, for the upgrade tests. All three are built at once.
func newerDist(t *testing.T, target string) string {
	t.Helper()
	newerMu.Lock()
	defer newerMu.Unlock()
	if newerCache == nil {
		s, err := firmsim.ReadSPK(dist(t, "dsm7"))
		if err != nil {
			t.Fatal(err)
		}
		feature, build, _ := strings.Cut(s.INFO["version"], "-")
		n, err := strconv.Atoi(build)
		if err != nil {
			t.Fatalf("INFO version %q", s.INFO["version"])
		}
		vars := []string{"VERSION=next-release", "SPK_VERSION=" + feature + "-" + strconv.Itoa(n+1)}
		newerCache = makeDistVars(t, filepath.Join(distBase, "newer"), vars, "dsm5", "dsm6", "dsm7")
	}
	return newerCache[target]
}

// steps is what Package Center ran since step from: "script STATUS" each.
func steps(d *firmsim.DSM, from int) []string {
	var out []string
	for _, s := range d.Steps[from:] {
		out = append(out, strings.TrimSpace(s.Script+" "+s.Status))
	}
	return out
}
