package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nas-userscript/userscript/internal/profile"
)

// The shipped example must load: every option in it is commented, and
// uncommenting all of them must give known keys.
func TestExampleLoads(t *testing.T) {
	data, err := os.ReadFile("../../userscript.toml.example")
	if err != nil {
		t.Fatal(err)
	}
	var un []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "# ") && (strings.Contains(l, " = ") || strings.HasPrefix(l, "# [")) {
			un = append(un, strings.TrimPrefix(l, "# "))
		}
	}
	// "remove" and the full target conflict only semantically; load both
	// halves separately so every key is checked.
	text := strings.Join(un, "\n")
	text = strings.Replace(text, "[targets.exports]\nremove = true", "", 1)
	dir := t.TempDir()
	p := filepath.Join(dir, "userscript.toml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(p)
	if err != nil {
		t.Fatalf("uncommented example: %v", err)
	}
	prof, _ := profile.Builtin("nas4220b")
	if _, err := s.Apply(prof); err != nil {
		t.Fatalf("uncommented example does not apply to nas4220b: %v", err)
	}
	if _, ok := prof.Target("rsyncd.conf"); !ok {
		t.Error("example target rsyncd.conf was not added")
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct{ name, toml, want string }{
		{"keep zero", "keep = 0\n", "keep at least 1"},
		{"syntax", "profile = \n", "userscript.toml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "userscript.toml")
			os.WriteFile(p, []byte(tt.toml), 0o644)
			_, err := Load(p)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Load = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestApplyRefusesEscapes(t *testing.T) {
	tests := []struct{ name, toml, want string }{
		{"dotdot", "[targets.x]\npath = \"/etc/../root/x\"\n", "not clean"},
		{"relative", "[targets.x]\npath = \"etc/x\"\n", "not absolute"},
		{"proc", "[targets.x]\npath = \"/proc/sys/kernel/x\"\n", "under /proc"},
		{"name with slash", "[targets.\"../x\"]\npath = \"/etc/x\"\n", "name may hold only"},
		{"undefined service", "[targets.x]\npath = \"/etc/x\"\nservice = \"nope\"\n", "service \"nope\" is not defined"},
		{"bad validator", "[targets.x]\npath = \"/etc/x\"\nvalidator = \"magic\"\n", "unknown validator"},
		{"new target without path", "[targets.x]\nservice = \"samba\"\n", "needs a path"},
		{"bad timeout", "[services.samba]\ntimeout = \"soon\"\n", "timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "userscript.toml")
			os.WriteFile(p, []byte(tt.toml), 0o644)
			s, err := Load(p)
			if err != nil {
				t.Fatal(err)
			}
			prof, _ := profile.Builtin("nas4220b")
			_, err = s.Apply(prof)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Apply = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// An unknown key is named and ignored: the other settings still hold.
func TestUnknownKeys(t *testing.T) {
	p := filepath.Join(t.TempDir(), "userscript.toml")
	os.WriteFile(p, []byte("profil = \"x\"\nkeep = 5\n[services.samba]\nrestrt = [\"x\"]\n"), 0o644)
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if s.Keep != 5 || len(s.Unknown) != 2 || !strings.Contains(s.Unknown[0], "unknown key profil") || !strings.Contains(s.Unknown[1], "services.samba.restrt") {
		t.Errorf("keep %d, unknown %q", s.Keep, s.Unknown)
	}
}
