package vm

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/nas-userscript/userscript/internal/firmsim"
	"github.com/nas-userscript/userscript/internal/needtool"
)

func TestMain(m *testing.M) { needtool.Main(m) }

var shared struct {
	once sync.Once
	img  *Image
	dist string
	err  error
}

// setup returns the image and a folder holding the armv4 and amd64
// packages, built once per test binary. The machines boot only under
// `make vmtest` (USERSCRIPT_VMTEST=1): each boot takes tens of seconds.
func setup(t *testing.T) (*Image, string) {
	t.Helper()
	if os.Getenv("USERSCRIPT_VMTEST") == "" {
		t.Skip("the test machines boot only under make vmtest (USERSCRIPT_VMTEST=1): minutes each")
	}
	needtool.Root(t)
	needtool.Tool(t, "qemu-system-x86_64", "mmdebstrap", "mke2fs")
	shared.once.Do(func() {
		shared.img, shared.err = BuildImage(context.Background())
		if shared.err != nil {
			return
		}
		shared.dist, shared.err = os.MkdirTemp("", "vmdist")
		if shared.err != nil {
			return
		}
		top := filepath.Join(srcDir(), "..", "..")
		cmd := exec.Command("make", "-C", top, "--no-print-directory", "dist", "TARGETS=armv4 amd64", "DIST="+shared.dist, "CLI_TARGETS=")
		if out, err := cmd.CombinedOutput(); err != nil {
			shared.err = &buildError{err, string(out)}
		}
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.img, shared.dist
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return "make dist: " + e.err.Error() + ": " + e.out }

// pkg is the one package of dist for target.
func pkg(t *testing.T, dist, target string) string {
	m, _ := filepath.Glob(filepath.Join(dist, "userscript-*-"+target+".tgz"))
	if len(m) != 1 {
		t.Fatalf("no %s package in %s: %v", target, dist, m)
	}
	return m[0]
}

// busybox100 is the static BusyBox 1.00 the firmware box's shells run.
func busybox100(t *testing.T) string {
	p := filepath.Join(firmsim.OldBusyBoxDir(), "1_00", "busybox")
	if _, err := os.Stat(p); err != nil {
		// as in make test: skipped in a clone without ../shared beside it
		needtool.Optional(t, "BusyBox 1.00 not found ("+p+"; USERSCRIPT_BUSYBOX_OLD names its folder): the firmware box runs every shell under it", firmsim.OldBusyBoxRequired())
	}
	return p
}
