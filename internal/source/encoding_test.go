package source

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/nas-userscript/userscript/internal/system"
)

// utf16File is text as Notepad's "Unicode" (LE) or "Unicode big endian"
// save writes it: a byte order mark, then two bytes a character.
func utf16File(text string, big bool) []byte {
	out := []byte{0xFF, 0xFE}
	if big {
		out = []byte{0xFE, 0xFF}
	}
	for _, u := range utf16.Encode([]rune(text)) {
		if big {
			out = append(out, byte(u>>8), byte(u))
		} else {
			out = append(out, byte(u), byte(u>>8))
		}
	}
	return out
}

func TestDecode(t *testing.T) {
	text := "[global]\r\n\tserver string = Büro NAS 🐧\r\n"
	tests := []struct {
		name    string
		in      []byte
		want    string
		enc     string
		wantErr string
	}{
		{"utf-16 le", utf16File(text, false), text, UTF16LE, ""},
		{"utf-16 be", utf16File(text, true), text, UTF16BE, ""},
		{"utf-8 passes", []byte(text), text, "", ""},
		{"utf-8 bom passes (Normalize drops it)", []byte("\xef\xbb\xbfa\n"), "\xef\xbb\xbfa\n", "", ""},
		{"odd length", append(utf16File("ab", false), 'c'), "", UTF16LE, "cut short"},
		{"half surrogate", append(utf16File("a", false), 0x00, 0xD8), "", UTF16LE, "broken character"},
		{"NUL character", utf16File("a\x00b", false), "", UTF16LE, "NUL characters"},
		{"NUL without mark", []byte("a\x00b\x00"), "", "", "holds NUL bytes"},
	}
	for _, tt := range tests {
		got, enc, err := Decode(tt.in)
		switch {
		case tt.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: err = %v, want %q", tt.name, err, tt.wantErr)
			}
		case err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case string(got) != tt.want:
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
		if enc != tt.enc {
			t.Errorf("%s: encoding %q, want %q", tt.name, enc, tt.enc)
		}
	}
}

// A Notepad "Unicode" save in conf.d is read as the UTF-8 text it holds,
// CRLF and all normalised, and names the encoding it was converted from;
// it was refused as "NUL bytes" before.
func TestScanConvertsUTF16(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "smb.conf"), utf16File("[global]\r\n\tworkgroup = BÜRO\r\n", false), 0o644)
	os.WriteFile(filepath.Join(dir, "exports"), utf16File("/srv *(ro)\r\n", true), 0o644)
	set, err := Scan(system.NewReal("/"), dir, func(string) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][2]string{
		"smb.conf": {"[global]\n\tworkgroup = BÜRO\n", UTF16LE},
		"exports":  {"/srv *(ro)\n", UTF16BE},
	} {
		var src Source
		if srcs := set.ByTarget[name]; len(srcs) == 1 {
			src = srcs[0]
		}
		if src.Err != nil || !bytes.Equal(src.Data, []byte(want[0])) || src.Encoding != want[1] {
			t.Errorf("%s: %q, %q, %v; want %q, %q", name, src.Data, src.Encoding, src.Err, want[0], want[1])
		}
	}
	if got := EncodingNote("smb.conf", UTF16LE); got != "conf.d/smb.conf: saved as UTF-16 LE; converted to UTF-8" {
		t.Errorf("EncodingNote = %q", got)
	}
}

// FuzzDecode: Decode never panics, and what it accepts is valid UTF-8
// without NUL; UTF-8 text without NUL passes unchanged.
func FuzzDecode(f *testing.F) {
	for _, s := range [][]byte{nil, []byte("a\r\n"), utf16File("[global]\r\n", false), utf16File("x", true), {0xFF, 0xFE, 0x00, 0xD8}, {0xFE, 0xFF, 0}} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, enc, err := Decode(in)
		if err != nil {
			return
		}
		if enc != "" && !utf8.Valid(out) || bytes.IndexByte(out, 0) >= 0 {
			t.Fatalf("Decode(%q) = %q (%s)", in, out, enc)
		}
		if enc == "" && !bytes.Equal(out, in) {
			t.Fatalf("text without a mark changed: %q -> %q", in, out)
		}
	})
}
