package pkgtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

var examples = filepath.Join(repoRoot, "conf.d", "examples")

// TestExamplesValid proves the shipped examples pass the real validators:
// smb.conf and the firmware's smb.conf + smb.conf.add with testparm -s,
// proftpd.conf with proftpd -t.
func TestExamplesValid(t *testing.T) {
	t.Run("smb.conf", func(t *testing.T) {
		need(t, "testparm")
		testparm(t, filepath.Join(examples, "smb.conf"))
	})
	t.Run("smb.conf.add", func(t *testing.T) {
		need(t, "testparm")
		add, err := os.ReadFile(filepath.Join(examples, "smb.conf.add"))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), "smb.conf")
		writeFile(t, p, "[global]\n\tworkgroup = WORKGROUP\n[public]\n\tpath = /tmp\n"+string(add))
		testparm(t, p)
	})
	t.Run("proftpd.conf", func(t *testing.T) {
		need(t, "proftpd")
		p, _ := filepath.Abs(filepath.Join(examples, "proftpd.conf"))
		if out, err := exec.Command("proftpd", "-t", "-c", p).CombinedOutput(); err != nil {
			t.Fatalf("proftpd -t: %v\n%s", err, out)
		}
	})
}

func testparm(t *testing.T, path string) {
	t.Helper()
	out, err := exec.Command("testparm", "-s", path).CombinedOutput()
	if err != nil {
		t.Fatalf("testparm -s %s: %v\n%s", path, err, out)
	}
}
