package pkgtest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/nas-userscript/userscript/internal/firmsim"
)

// TestUpgradeKeepsOwnersFiles proves that installing the package again
// over an installed one (what the web GUI's upload does on an upgrade)
// keeps the owner's userscript.toml, conf.d and state/: the package
// ships userscript.toml.example only.
func TestUpgradeKeepsOwnersFiles(t *testing.T) {
	n := installed(t)
	app := n.AppDir("userscript")
	mine := map[string]string{
		"userscript.toml":       "# mine\nkeep = 7\n",
		"conf.d/smb.conf":       "[global]\n\tworkgroup = OWNER\n",
		"conf.d/examples/notes": "my own notes\n",
	}
	for rel, body := range mine {
		writeFile(t, filepath.Join(app, rel), body)
	}
	if err := n.Boot(firmsim.ServicesFirst); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(app, "state", "base", "smb.conf")
	before, err := os.ReadFile(base)
	if err != nil {
		t.Fatalf("no state/base/smb.conf after the first boot: %v", err)
	}
	n.Shutdown()
	if err := n.Install(dist(t, "armv4")); err != nil {
		t.Fatalf("install over the installed package: %v", err)
	}
	for rel, body := range mine {
		if got, _ := os.ReadFile(filepath.Join(app, rel)); string(got) != body {
			t.Errorf("%s after the upgrade: %q, want the owner's %q", rel, got, body)
		}
	}
	if after, err := os.ReadFile(base); err != nil || string(after) != string(before) {
		t.Errorf("state/base/smb.conf after the upgrade: %q, %v; want %q", after, err, before)
	}
}

// TestUpgradeWhileGoEngineRuns proves the design that makes upgrading
// over a running Go engine work: unpacking a package over bin/userscript
// while it runs fails ("text file busy"), but not while the engine runs
// from a copy (state/run/userscript, as init is to run it), and that copy
// finds its app dir on its own.
func TestUpgradeWhileGoEngineRuns(t *testing.T) {
	n, pkg := installedNAS(t)
	app := n.AppDir("userscript")
	writeFile(t, filepath.Join(app, "userscript.toml"), daemonSettings)
	bin := filepath.Join(app, "bin", "userscript")

	// The engine runs from bin/: an upgrade cannot write over it.
	stop := startDaemon(t, n, bin, "USERSCRIPT_APP="+app)
	if err := n.Install(pkg); !errors.Is(err, syscall.ETXTBSY) {
		t.Errorf("install over a running bin/userscript: %v, want text file busy", err)
	}
	stop()

	// The engine runs from a copy in state/run/, without being told the
	// app dir: the upgrade goes through.
	copyBin := filepath.Join(app, "state", "run", "userscript")
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, copyBin, string(data))
	os.Chmod(copyBin, 0o755)
	stop = startDaemon(t, n, copyBin)
	defer stop()
	if err := n.Install(pkg); err != nil {
		t.Errorf("install while the engine runs from state/run: %v", err)
	}
}

// startDaemon starts `PROG run` on the simulated NAS and waits until it
// holds state/daemon.pid (it found the app dir); stop ends it.
func startDaemon(t *testing.T, n *firmsim.NAS, prog string, env ...string) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, prog, "run")
	cmd.Env = append(append(os.Environ(), "USERSCRIPT_ROOT="+n.Root), env...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	pidFile := filepath.Join(n.AppDir("userscript"), "state", "daemon.pid")
	if !eventually(30*time.Second, func() bool { _, err := os.Stat(pidFile); return err == nil }) {
		cancel()
		t.Fatalf("%s run: no state/daemon.pid", prog)
	}
	return func() {
		cancel()
		<-done
		os.Remove(pidFile)
	}
}

// installedNAS is a simulated NAS with the amd64 package installed; pkg
// is that package, to install again.
func installedNAS(t *testing.T) (n *firmsim.NAS, pkg string) {
	t.Helper()
	need(t, "busybox")
	n, err := firmsim.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pkg = dist(t, "amd64")
	if err := n.Install(pkg); err != nil {
		t.Fatal(err)
	}
	return n, pkg
}
