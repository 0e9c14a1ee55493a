package merge

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	file := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v: run go test ./internal/merge/ -update to write it", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: merge differs from the golden file (-update rewrites it)\ngot:\n%s", file, got)
	}
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// tool finds a validator; without it the test is skipped, or fails
// when CI=true, where every validator must be installed.
func tool(t *testing.T, name, pkg string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, dir := range []string{"/usr/sbin", "/usr/local/sbin", "/sbin"} {
		if p := filepath.Join(dir, name); isExecutable(p) {
			return p
		}
	}
	unavailable(t, "%s not found (Debian package %s): not validated", name, pkg)
	return ""
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// unavailable skips the test, or fails it under CI=true.
func unavailable(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true: "+format, args...)
	}
	t.Skipf(format, args...)
}

// testparm proves that Samba accepts text: testparm -s exits 0 and
// reports no unknown parameter and no badly formed line.
func testparm(t *testing.T, text []byte) {
	t.Helper()
	bin := tool(t, "testparm", "samba")
	file := filepath.Join(t.TempDir(), "smb.conf")
	if err := os.WriteFile(file, text, 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "-s", file)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("testparm -s refuses the merged smb.conf: %v\n%s\n%s", err, stderr.String(), text)
	}
	for _, bad := range []string{"Unknown parameter", "badly formed", "Ignoring"} {
		if strings.Contains(stderr.String(), bad) {
			t.Errorf("testparm -s: %q in its report:\n%s", bad, stderr.String())
		}
	}
}

// proftpdScript runs proftpd -t in a private mount namespace with empty
// /run and /var/log, so that the files it makes there (proftpd.delay,
// its logs) vanish with it.
const proftpdScript = `mount -t tmpfs none /run && mount -t tmpfs none /var/log && mkdir /var/log/proftpd && exec "$1" -t -c "$2"`

// proftpdCheck proves that proftpd accepts text: proftpd -t -c FILE exits 0.
func proftpdCheck(t *testing.T, text []byte) {
	t.Helper()
	bin := tool(t, "proftpd", "proftpd-core")
	unshare := tool(t, "unshare", "util-linux")
	file := filepath.Join(t.TempDir(), "proftpd.conf")
	if err := os.WriteFile(file, text, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-m"}
	if os.Geteuid() != 0 {
		args = []string{"-r", "-m"} // a user namespace makes the mounts possible
	}
	args = append(args, "sh", "-c", proftpdScript, "sh", bin, file)
	out, err := exec.Command(unshare, args...).CombinedOutput()
	if err != nil && strings.Contains(string(out), "unshare:") {
		unavailable(t, "cannot make a private mount namespace for proftpd -t: %s", out)
	}
	if err != nil {
		t.Fatalf("proftpd -t refuses the merged proftpd.conf: %v\n%s\n%s", err, out, text)
	}
}
