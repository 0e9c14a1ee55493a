package source

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nas-userscript/userscript/internal/system"
)

var known = []string{"exports", "proftpd.conf", "smb.conf"}

// Meant finds the name Windows and macOS owners meant: hidden .txt
// extensions, copies and duplicates, upper case.
func TestMeant(t *testing.T) {
	tests := []struct{ name, meant, why string }{
		{"smb.conf.txt", "smb.conf", "hides known extensions"},
		{"smb.conf.add.txt", "smb.conf.add", ".txt"},
		{"SMB.CONF", "smb.conf", "case-sensitive"},
		{"Smb.Conf.Merge", "smb.conf.merge", "case-sensitive"},
		{"smb (2).conf", "smb.conf", "added a number"},
		{"smb.conf (2)", "smb.conf", "added a number"},
		{"smb.conf - Copy", "smb.conf", "copy Windows made"},
		{"smb - Copy.conf", "smb.conf", "copy Windows made"},
		{"smb.conf - Kopie", "smb.conf", "copy Windows made"},
		{"smb.conf - Copy (2)", "smb.conf", "copy Windows made"},
		{"Copy of smb.conf", "smb.conf", "copy Windows made"},
		{"smb copy.conf", "smb.conf", "copy macOS made"},
		{"smb 2.conf", "smb.conf", "macOS added a number"},
		{"EXPORTS.TXT", "exports", "case-sensitive"},
		{"exports - Copy.txt", "exports", "copy Windows made"},
		// Nothing to guess.
		{"smb.conf", "", ""},
		{"foo.conf", "", ""},
		{"smb.cnf", "", ""},
		{".txt", "", ""},
		{"notes.txt", "", ""},
	}
	for _, tt := range tests {
		meant, why := Meant(tt.name, known)
		if meant != tt.meant || !strings.Contains(why, tt.why) {
			t.Errorf("Meant(%q) = %q, %q; want %q, containing %q", tt.name, meant, why, tt.meant, tt.why)
		}
	}
}

// What Explorer and Finder leave, and the reserved names, are never
// sources.
func TestIgnoredDroppingsAndReserved(t *testing.T) {
	for _, n := range []string{"Thumbs.db", "thumbs.db", "desktop.ini", "Desktop.ini", ".DS_Store", "._smb.conf",
		"DISABLE", "DISABLE.txt", "disable.TXT", "SAFE-MODE", "DOCTOR.txt"} {
		if !Ignored(n) {
			t.Errorf("Ignored(%q) = false", n)
		}
	}
	for _, n := range []string{"DISABLED", "SAFE-MODE.conf", "smb.conf"} {
		if Reserved(n) {
			t.Errorf("Reserved(%q) = true", n)
		}
	}
	dir := t.TempDir()
	for _, n := range []string{"Thumbs.db", "desktop.ini", "DISABLE", "DOCTOR.txt", "smb.conf"} {
		os.WriteFile(filepath.Join(dir, n), []byte("x\n"), 0o644)
	}
	set, err := Scan(system.NewReal("/"), dir, func(string) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	if got := set.Targets(); len(got) != 1 || got[0] != "smb.conf" {
		t.Errorf("Scan found %v, want only smb.conf", got)
	}
}
