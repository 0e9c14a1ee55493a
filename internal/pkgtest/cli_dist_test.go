package pkgtest

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/nas-userscript/userscript/internal/systest"
)

// TestDistCLI proves `make dist-cli sums`: the command line for the
// owner's PC as a zip for Windows and a tar.gz for macOS and Linux, each
// with the program, README.md and the licences in one folder, named with
// the VERSION; twice built, byte for byte the same; SHA256SUMS lists
// each with its hash; the Linux program says its version.
func TestDistCLI(t *testing.T) {
	need(t, "make", "sha256sum")
	v := version(t)
	pairs := "windows/amd64 darwin/arm64 darwin/amd64 linux/amd64"
	build := func(dir string) {
		cmd := exec.Command("make", "-s", "dist-cli", "sums", "DIST="+dir, "CLI_TARGETS="+pairs)
		cmd.Dir = repoRoot
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("make dist-cli sums: %v\n%s", err, out)
		}
	}
	a, b := t.TempDir(), t.TempDir()
	build(a)
	build(b)
	magic := map[string]string{"windows-amd64": "MZ", "darwin-arm64": "\xcf\xfa\xed\xfe", "darwin-amd64": "\xcf\xfa\xed\xfe", "linux-amd64": "\x7fELF"}
	var sums strings.Builder
	for _, p := range strings.Fields(pairs) {
		osArch := strings.ReplaceAll(p, "/", "-")
		top := "userscript-cli-" + v + "-" + osArch
		name, exe := top+".tar.gz", "userscript"
		if strings.HasPrefix(p, "windows/") {
			name, exe = top+".zip", "userscript.exe"
		}
		da, err := os.ReadFile(filepath.Join(a, name))
		if err != nil {
			t.Fatal(err)
		}
		if db, _ := os.ReadFile(filepath.Join(b, name)); !bytes.Equal(da, db) {
			t.Errorf("%s: two builds differ", name)
		}
		files := unpackCLI(t, name, da)
		for _, f := range []string{exe, "README.md", "LICENSE", "THIRD_PARTY_LICENSES.txt"} {
			if _, ok := files[top+"/"+f]; !ok {
				t.Errorf("%s: %s/%s is missing (has %d files)", name, top, f, len(files))
			}
		}
		if !bytes.HasPrefix(files[top+"/"+exe], []byte(magic[osArch])) {
			t.Errorf("%s: %s is not a %s program", name, exe, osArch)
		}
		sum := sha256.Sum256(da)
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), name)
		if osArch == runtime.GOOS+"-"+runtime.GOARCH {
			prog := filepath.Join(t.TempDir(), "userscript")
			systest.WriteFile(prog, files[top+"/"+exe], 0o755)
			out, err := exec.Command(prog, "version").Output()
			if err != nil || strings.TrimSpace(string(out)) != "userscript "+v {
				t.Errorf("%s version: %q, %v; want userscript %s", name, out, err, v)
			}
		}
	}
	got, _ := os.ReadFile(filepath.Join(a, "SHA256SUMS"))
	for _, line := range strings.SplitAfter(sums.String(), "\n") {
		if line != "" && !strings.Contains(string(got), line) {
			t.Errorf("SHA256SUMS lacks %q:\n%s", line, got)
		}
	}
	cmd := exec.Command("sha256sum", "-c", "SHA256SUMS")
	cmd.Dir = a
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("sha256sum -c SHA256SUMS: %v\n%s", err, out)
	}
}

// unpackCLI returns the files of a .zip or .tar.gz, by name.
func unpackCLI(t *testing.T, name string, data []byte) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	if strings.HasSuffix(name, ".zip") {
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range zr.File {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			files[f.Name], _ = io.ReadAll(rc)
			rc.Close()
		}
		return files
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			files[h.Name], _ = io.ReadAll(tr)
		}
	}
}
