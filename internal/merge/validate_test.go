package merge

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nas-userscript/userscript/internal/needtool"
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
	needtool.Missing(t, fmt.Sprintf("%s not installed (Debian package %s; make deps installs it)", name, pkg))
	return ""
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// unavailable skips the test, or fails it under CI=true.
func unavailable(t *testing.T, format string, args ...any) {
	t.Helper()
	needtool.Missing(t, fmt.Sprintf(format, args...))
}

func TestMain(m *testing.M) { needtool.Main(m) }

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
	if problem := proftpdRun(t, text); problem != "" {
		t.Fatalf("proftpd -t refuses the merged proftpd.conf: %s\n%s", problem, text)
	}
}

// proftpdRun runs proftpd -t on text and returns what it says when it
// refuses it, "" when it accepts it.
func proftpdRun(t *testing.T, text []byte) string {
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
		return fmt.Sprintf("%v: %s", err, out)
	}
	return ""
}

// sambaDump is what testparm -s -v says Samba reads from a file: every
// global parameter in [global], and in each share what differs from it.
type sambaDump struct {
	sections map[string]map[string]string // lower-case section → parameter → value
	stderr   string
}

// get is the value Samba uses for param in section: the share's own,
// else the global one.
func (d sambaDump) get(section, param string) string {
	if v, ok := d.sections[strings.ToLower(section)][param]; ok {
		return v
	}
	return d.sections["global"][param]
}

// sambaEffective runs testparm -s -v on text and reads its dump; it
// fails the test when testparm refuses the file.
func sambaEffective(t *testing.T, text []byte) sambaDump {
	t.Helper()
	d, err := sambaRead(tool(t, "testparm", "samba"), t.TempDir(), text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	return d
}

// sambaRead runs testparm -s -v on text, written in dir.
func sambaRead(bin, dir string, text []byte) (sambaDump, error) {
	file := filepath.Join(dir, "smb.conf")
	if err := os.WriteFile(file, text, 0o644); err != nil {
		return sambaDump{}, err
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "-s", "-v", file)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return sambaDump{}, fmt.Errorf("testparm -s refuses the smb.conf: %v\n%s", err, stderr.String())
	}
	d := sambaDump{sections: map[string]map[string]string{}, stderr: stderr.String()}
	var cur map[string]string
	for _, l := range strings.Split(stdout.String(), "\n") {
		switch {
		case strings.HasPrefix(l, "[") && strings.HasSuffix(l, "]"):
			cur = map[string]string{}
			d.sections[strings.ToLower(l[1:len(l)-1])] = cur
		case cur != nil && strings.HasPrefix(l, "\t"):
			k, v, _ := strings.Cut(strings.TrimSpace(l), " = ")
			cur[strings.TrimSuffix(k, " =")] = v
		}
	}
	return d, nil
}

// exportfsScript runs exportfs -ra in a private mount namespace on the
// candidate bound over /etc/exports, with empty /var/lib/nfs and
// /etc/exports.d, as internal/validate does.
const exportfsScript = `mount --bind "$2" /etc/exports && mount -t tmpfs none /var/lib/nfs && { [ ! -d /etc/exports.d ] || mount -t tmpfs none /etc/exports.d; } && exec "$1" -ra`

// exportfsQuiet are the lines exportfs -ra prints about this host, not
// the file: folders and host names missing here, and its advice.
var exportfsQuiet = regexp.MustCompile(`^$|Failed to stat|Failed to resolve|Neither 'subtree_check' or 'no_subtree_check'|Assuming default behaviour|this default has changed`)

// exportfsCheck proves that exportfs -ra finds nothing wrong in text:
// every line it prints is about a folder or host missing here.
func exportfsCheck(t *testing.T, text []byte) {
	t.Helper()
	if problem := exportfsRun(t, text); problem != "" {
		t.Fatalf("exportfs -ra: %s\n%s", problem, text)
	}
}

// exportfsRun runs exportfs -ra on text and returns what it finds wrong
// in it, "" when nothing.
func exportfsRun(t *testing.T, text []byte) string {
	t.Helper()
	bin := tool(t, "exportfs", "nfs-kernel-server")
	unshare := tool(t, "unshare", "util-linux")
	if os.Geteuid() != 0 {
		unavailable(t, "exportfs -ra needs root (a private mount namespace over /etc/exports)")
	}
	for _, need := range []string{"/etc/exports", "/var/lib/nfs"} {
		if _, err := os.Stat(need); err != nil {
			unavailable(t, "exportfs -ra needs %s to mount over: %v", need, err)
		}
	}
	file := filepath.Join(t.TempDir(), "exports")
	if err := os.WriteFile(file, text, 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ := exec.Command(unshare, "-m", "sh", "-c", exportfsScript, "sh", bin, file).CombinedOutput()
	if bytes.Contains(out, []byte("unshare:")) || bytes.HasPrefix(out, []byte("mount:")) {
		unavailable(t, "cannot make a private mount namespace for exportfs -ra: %s", out)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.TrimSpace(strings.TrimPrefix(l, "exportfs:")); !exportfsQuiet.MatchString(l) {
			return l + "\n" + string(out)
		}
	}
	return ""
}
