package bench

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/nas-userscript/userscript/internal/firmsim"
)

// benchApplets are the programs the sh bench may use beyond the engine's
// applets (firmsim.AllowedApplets); hdparm is left out, so the tests
// also see it missing.
var benchApplets = []string{"dd", "sync", "df"}

// An ash is one BusyBox the sh bench must run under: its sh and a PATH
// folder holding only the allowed applets.
type ash struct {
	name, sh, path string
}

// oldBusyBox is the folder of the static old BusyBox builds: the env
// BUSYBOX_OLD, else ../shared/busybox-old beside the repository.
func oldBusyBox() string {
	if d := os.Getenv("BUSYBOX_OLD"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "shared", "busybox-old")
}

// ashes are BusyBox 1.00, 1.2.0 and 1.7.2 (2004-2007: the NAS-4220's
// era) and Debian's. The old builds have no dd, sync or df: those come
// from Debian's BusyBox, whose dd is only asked what a 2006 dd can do.
// Without the old builds (not beside this repository) only Debian's runs.
func ashes(t *testing.T) []ash {
	t.Helper()
	bb, err := exec.LookPath("busybox")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("busybox is not installed; .ci/run must install it")
		}
		t.Skip("busybox is not installed")
	}
	dir := t.TempDir()
	path, shell, err := firmsim.Applets(filepath.Join(dir, "debian"))
	if err != nil {
		t.Fatal(err)
	}
	out := []ash{{name: "debian", sh: shell, path: path}}
	old := oldBusyBox()
	for _, tag := range firmsim.OldBusyBoxTags {
		p := filepath.Join(dir, tag)
		if err := exec.Command("sh", filepath.Join(old, "path.sh"), tag, p).Run(); err != nil {
			t.Logf("BusyBox %s not found in %s (set BUSYBOX_OLD): testing with Debian's only", tag, old)
			continue
		}
		out = append(out, ash{name: tag, sh: filepath.Join(p, "sh"), path: p})
	}
	for _, a := range out {
		for _, x := range benchApplets {
			os.Remove(filepath.Join(a.path, x))
			if err := os.Symlink(bb, filepath.Join(a.path, x)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out
}

// shApp is an installed package's app dir: lib/ with the sh engine and
// the bench, lib/version, conf.d/.
func shApp(t *testing.T) string {
	t.Helper()
	app := filepath.Join(t.TempDir(), "app")
	lib := filepath.Join(app, "lib")
	for _, d := range []string{lib, filepath.Join(app, "conf.d")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := firmsim.CopyEngine(filepath.Join("..", "..", "package", "lib"), lib); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lib, "version"), []byte("sh-test\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return app
}

// runSh runs argv with a's shell and PATH, the root and the app dir; it
// returns the exit code and the output. The bound is generous: BusyBox
// 1.00 runs under qemu-i386 with every [ a process, and a whole bench
// run took over 2 minutes on a busy 2-core machine (before and after
// the free-space check was added).
func runSh(t *testing.T, a ash, root, app string, argv ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, a.sh, argv...)
	cmd.Env = []string{"PATH=" + a.path, "USERSCRIPT_ROOT=" + root, "USERSCRIPT_APP=" + app}
	cmd.Dir = app
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String()
	case err != nil:
		t.Fatalf("%s %v: %v", a.sh, argv, err)
	}
	return 0, out.String()
}

// results reads the one results file an sh run left in conf.d/.bench.
func results(t *testing.T, app string) ([]Result, []byte) {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(app, "conf.d", ".bench", "*.csv"))
	if len(m) != 1 {
		t.Fatalf("results files %v, want one", m)
	}
	f, err := os.Open(m[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rs, err := ReadCSV(f, m[0])
	if err != nil {
		t.Fatal(err)
	}
	js, err := os.ReadFile(m[0][:len(m[0])-len(".csv")] + ".json")
	if err != nil {
		t.Fatal(err)
	}
	return rs, js
}
