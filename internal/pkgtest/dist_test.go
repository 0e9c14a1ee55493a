package pkgtest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

type entry struct {
	hdr  *tar.Header
	data []byte
}

func readArchive(t *testing.T, path string) []entry {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var out []entry
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, entry{h, data})
	}
}

func targets(t *testing.T) []string {
	m, err := filepath.Glob(filepath.Join(repoRoot, "build", "*", "vars"))
	if err != nil || len(m) == 0 {
		t.Fatalf("no build/*/vars: %v", err)
	}
	var out []string
	for _, p := range m {
		out = append(out, filepath.Base(filepath.Dir(p)))
	}
	sort.Strings(out)
	return out
}

// TestDistReproducible proves that `make dist` twice from the same tree
// gives byte-identical archives, one per build/ target, each laid out as
// the package contract says.
func TestDistReproducible(t *testing.T) {
	tgs := targets(t)
	for _, want := range []string{"armv4", "armv7", "dsm5", "dsm6", "dsm7"} {
		if !contains(tgs, want) {
			t.Errorf("build/%s is missing", want)
		}
	}
	a := makeDist(t, t.TempDir(), tgs...)
	b := makeDist(t, t.TempDir(), tgs...)
	for _, tg := range tgs {
		da, _ := os.ReadFile(a[tg])
		db, _ := os.ReadFile(b[tg])
		if !bytes.Equal(da, db) {
			t.Errorf("%s: two builds differ", filepath.Base(a[tg]))
		}
		if strings.HasSuffix(a[tg], ".spk") {
			checkSPK(t, tg, a[tg]) // dsm_spk_test.go
			continue
		}
		checkLayout(t, tg, readArchive(t, a[tg]))
	}
}

func checkLayout(t *testing.T, target string, ents []entry) {
	t.Helper()
	names := map[string]entry{}
	var order []string
	for _, e := range ents {
		h := e.hdr
		if !strings.HasPrefix(h.Name, "userscript/") {
			t.Errorf("%s: %s is outside the one top folder userscript/", target, h.Name)
		}
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" && h.Uname != "root" {
			t.Errorf("%s: %s: owner %d/%d %q, want 0/0", target, h.Name, h.Uid, h.Gid, h.Uname)
		}
		if !h.ModTime.Equal(ents[0].hdr.ModTime) {
			t.Errorf("%s: %s: mtime %v differs from %v", target, h.Name, h.ModTime, ents[0].hdr.ModTime)
		}
		names[h.Name] = e
		order = append(order, h.Name)
	}
	if !sort.StringsAreSorted(order) {
		t.Errorf("%s: entries are not sorted: %v", target, order)
	}
	for _, want := range []string{
		"userscript/init", "userscript/lib/engine.sh", "userscript/lib/profile",
		"userscript/lib/sources.sh", "userscript/lib/targets.sh", "userscript/lib/tuning.sh",
		"userscript/lib/kernel.sh", "userscript/lib/tunestate.sh",
		"userscript/lib/service.sh", "userscript/lib/health.sh", "userscript/lib/listen.sh",
		"userscript/lib/merge.sh", "userscript/lib/mergefrag.sh", "userscript/lib/mergebase.sh",
		"userscript/lib/settings", "userscript/lib/version", "userscript/userscript.toml.example",
		"userscript/conf.d/README.txt", "userscript/conf.d/examples/smb.conf",
		"userscript/conf.d/examples/proftpd.conf", "userscript/conf.d/examples/exports",
		"userscript/LICENSE", "userscript/THIRD_PARTY_LICENSES.txt",
	} {
		if _, ok := names[want]; !ok {
			t.Errorf("%s: %s is missing", target, want)
		}
	}
	// The owner's settings are never shipped: a newer package unpacked
	// over an older one must not overwrite them.
	if _, ok := names["userscript/userscript.toml"]; ok {
		t.Errorf("%s: ships userscript.toml, which an upgrade would overwrite", target)
	}
	// conf.d/README.txt: English, then German, CRLF for Notepad.
	if r, ok := names["userscript/conf.d/README.txt"]; ok {
		text := string(r.data)
		if strings.Count(text, "\n") != strings.Count(text, "\r\n") || !strings.Contains(text, "# conf.d — your own configuration files") || !strings.Contains(text, "# conf.d — Ihre eigenen Konfigurationsdateien") {
			t.Errorf("%s: conf.d/README.txt is not the English and German text with CRLF", target)
		}
	}
	if v, ok := names["userscript/lib/version"]; ok && string(v.data) != version(t)+"\n" {
		t.Errorf("%s: lib/version %q, want the VERSION file's %q", target, v.data, version(t))
	}
	for _, exe := range []string{"userscript/init", "userscript/lib/engine.sh"} {
		if e, ok := names[exe]; ok && e.hdr.Mode&0o111 == 0 {
			t.Errorf("%s: %s is not executable", target, exe)
		}
	}
	bin, hasBin := names["userscript/bin/userscript"]
	if (target == "armv4") == hasBin {
		t.Errorf("%s: bin/userscript present = %v", target, hasBin)
	}
	if hasBin && !bytes.HasPrefix(bin.data, []byte("\x7fELF")) {
		t.Errorf("%s: bin/userscript is not an ELF file", target)
	}
	wantProfile := map[string]string{"armv4": "nas4220b", "armv7": "bananapi"}[target]
	if p, ok := names["userscript/lib/profile"]; ok && wantProfile != "" &&
		!strings.HasPrefix(string(p.data), "profile "+wantProfile+"\n") {
		t.Errorf("%s: lib/profile is not %s:\n%s", target, wantProfile, p.data)
	}
}

// TestArmv4NeedsOnlySh proves the armv4 archive holds nothing but sh: no
// ELF file anywhere and every script starts with #!/bin/sh. (That the sh
// engine then runs with only the allowed applets on PATH is what the boot
// tests and the scenario suite do.)
func TestArmv4NeedsOnlySh(t *testing.T) {
	for _, e := range readArchive(t, dist(t, "armv4")) {
		if e.hdr.Typeflag != tar.TypeReg {
			continue
		}
		if bytes.HasPrefix(e.data, []byte("\x7fELF")) {
			t.Errorf("%s is an ELF file", e.hdr.Name)
		}
		if bytes.HasPrefix(e.data, []byte("#!")) {
			first, _, _ := bytes.Cut(e.data, []byte("\n"))
			if string(first) != "#!/bin/sh" {
				t.Errorf("%s: shebang %q, want #!/bin/sh", e.hdr.Name, first)
			}
		}
		if e.hdr.Mode&0o111 != 0 && !bytes.HasPrefix(e.data, []byte("#!/bin/sh\n")) {
			t.Errorf("%s is executable but not a /bin/sh script", e.hdr.Name)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// version is the VERSION file: the release's semantic version.
func version(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "VERSION"))
	if err != nil {
		t.Fatal(err)
	}
	v := strings.TrimSpace(string(b))
	if !regexp.MustCompile(`^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`).MatchString(v) {
		t.Fatalf("VERSION %q is not a semantic version", v)
	}
	return v
}
