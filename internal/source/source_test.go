package source

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/nas-userscript/userscript/internal/system"
)

func TestNormalize(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"empty", "", ""},
		{"lf", "a\nb\n", "a\nb\n"},
		{"crlf", "a\r\nb\r\n", "a\nb\n"},
		{"bom and crlf", "\xef\xbb\xbfa\r\nb", "a\nb\n"},
		{"no final newline", "a", "a\n"},
		{"cr at end of text", "a\r", "a\n"},
		{"cr inside a line kept", "a\rb\n", "a\rb\n"},
		{"bom only", "\xef\xbb\xbf", ""},
		{"bom not at start kept", "a\xef\xbb\xbf\n", "a\xef\xbb\xbf\n"},
	}
	for _, tt := range tests {
		if got := string(Normalize([]byte(tt.in))); got != tt.want {
			t.Errorf("%s: Normalize(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
}

func TestConcat(t *testing.T) {
	tests := []struct{ base, add, want string }{
		{"", "x\n", "x\n"},
		{"a\n", "x\n", "a\nx\n"},
		{"a", "x\n", "a\nx\n"},
	}
	for _, tt := range tests {
		if got := string(Concat([]byte(tt.base), []byte(tt.add))); got != tt.want {
			t.Errorf("Concat(%q, %q) = %q, want %q", tt.base, tt.add, got, tt.want)
		}
	}
}

// FuzzNormalize: normalising is idempotent, leaves no CRLF and no BOM at
// the start, and ends non-empty text with a newline.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"", "a\r\n", "\xef\xbb\xbf[global]\r\n\tx = 1\r\n", "a\r\r\n", "\r", "\xef\xbb\xbf\xef\xbb\xbf"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		once := Normalize(in)
		twice := Normalize(once)
		if !bytes.Equal(once, twice) {
			t.Fatalf("not idempotent: %q -> %q -> %q", in, once, twice)
		}
		if bytes.Contains(once, []byte("\r\n")) {
			t.Fatalf("CRLF left in %q", once)
		}
		if len(once) > 0 && once[len(once)-1] != '\n' {
			t.Fatalf("no final newline in %q", once)
		}
	})
}

func TestIgnoredAndSplit(t *testing.T) {
	ignored := []string{".smb.conf.swp", "~$smb.conf", "smb.conf~", "smb.conf.tmp", "x.swp", "smb.conf.status", "README.md", "examples", ".captured", ".~lock.smb.conf#", "smb.conf~RF1a2b.TMP"}
	for _, n := range ignored {
		if !Ignored(n) {
			t.Errorf("Ignored(%q) = false", n)
		}
	}
	for _, n := range []string{"smb.conf", "exports.add", "smb.conf.merge", "passwd"} {
		if Ignored(n) {
			t.Errorf("Ignored(%q) = true", n)
		}
	}
	split := map[string][2]string{
		"smb.conf":       {"smb.conf", Replace},
		"smb.conf.add":   {"smb.conf", Add},
		"smb.conf.merge": {"smb.conf", Merge},
		"exports":        {"exports", Replace},
	}
	for in, want := range split {
		if tgt, kind := Split(in); tgt != want[0] || kind != want[1] {
			t.Errorf("Split(%q) = %q, %q; want %q, %q", in, tgt, kind, want[0], want[1])
		}
	}
}

// Scan reads regular files and refuses, without reading or blocking,
// symlinks, FIFOs, folders and oversized files.
func TestScanRefusesUnsafeFiles(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("TOPSECRET\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "smb.conf"), []byte("\xef\xbb\xbf[global]\r\n"), 0o644)
	os.Symlink(secret, filepath.Join(dir, "exports"))
	syscall.Mkfifo(filepath.Join(dir, "proftpd.conf"), 0o644)
	os.Mkdir(filepath.Join(dir, "vsftpd.conf"), 0o755)
	big, _ := os.Create(filepath.Join(dir, "big.conf"))
	big.Truncate(2 << 30) // a 2 GiB sparse file
	big.Close()

	set, err := Scan(system.NewReal("/"), dir, func(string) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"smb.conf":     "",
		"exports":      "is a symlink",
		"proftpd.conf": "not a regular file",
		"vsftpd.conf":  "is a folder",
		"big.conf":     "over the limit",
	}
	for name, wantErr := range want {
		srcs := set.ByTarget[name]
		ok := len(srcs) == 1 && srcs[0].Kind == Replace
		var src Source
		if ok {
			src = srcs[0]
		}
		if !ok {
			t.Errorf("%s: not scanned", name)
			continue
		}
		if wantErr == "" {
			if src.Err != nil || string(src.Data) != "[global]\n" {
				t.Errorf("%s: got %q, %v", name, src.Data, src.Err)
			}
			continue
		}
		if src.Err == nil || !strings.Contains(src.Err.Error(), wantErr) {
			t.Errorf("%s: err = %v, want %q", name, src.Err, wantErr)
		}
		if bytes.Contains(src.Data, []byte("TOPSECRET")) {
			t.Errorf("%s: read through a link", name)
		}
	}
}
