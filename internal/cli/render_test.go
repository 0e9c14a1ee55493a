package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf16"
)

// On Windows the owner's files come from Notepad, perhaps as "Unicode"
// (UTF-16): render reads them as the engine reads conf.d, and -o writes
// the result as plain UTF-8 (PowerShell's > would make it UTF-16 again).
func TestRenderReadsNotepadUnicode(t *testing.T) {
	dir := t.TempDir()
	le := func(s string) []byte {
		out := []byte{0xFF, 0xFE}
		for _, u := range utf16.Encode([]rune(s)) {
			out = append(out, byte(u), byte(u>>8))
		}
		return out
	}
	os.WriteFile(filepath.Join(dir, "base"), le("[global]\r\n\tworkgroup = NAS\r\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "smb.conf.merge"), le("[global]\r\n\tserver string = Büro\r\n"), 0o644)
	out := filepath.Join(dir, "smb.conf")
	var stdout, stderr bytes.Buffer
	code := Main([]string{"render", "--profile", "nas4220b", "--base", filepath.Join(dir, "base"), "-o", out, filepath.Join(dir, "smb.conf.merge")}, &stdout, &stderr, "test")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	got, _ := os.ReadFile(out)
	if want := "[global]\n\tworkgroup = NAS\n\tserver string = Büro\n"; string(got) != want {
		t.Errorf("rendered %q, want %q", got, want)
	}
}
