package doctor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nas-userscript/userscript/internal/overlay"
	"github.com/nas-userscript/userscript/internal/profile"
	"github.com/nas-userscript/userscript/internal/source"
	"github.com/nas-userscript/userscript/internal/system"
)

// Who can write the app folder through the live smb.conf: the share
// whose path holds it decides, [global] sets the defaults, Samba's
// synonyms count.
func TestShareExposure(t *testing.T) {
	const app = "/mnt/ide1/public/applications/userscript"
	tests := []struct {
		name, conf, want string
		risky            bool
	}{
		{"stock IcyBox: guests write public", "[global]\n\tmap to guest = Bad User\n[public]\n\tpath = /mnt/ide1/public\n\tread only = no\n\tguest ok = yes\n",
			"the app folder is in the share [public] (path /mnt/ide1/public): GUESTS CAN WRITE IT (guest ok = yes, read only = no)", true},
		{"synonyms: public, writeable", "[public]\n\tpath = /mnt/ide1/public/\n\tpublic = yes\n\twriteable = yes\n", "GUESTS CAN WRITE IT", true},
		{"global default", "[global]\n\tguest ok = yes\n\tread only = no\n[p]\n\tpath = /mnt/ide1\n", "GUESTS CAN WRITE IT", true},
		{"write list names the guest", "[public]\n\tpath = /mnt/ide1/public\n\tguest ok = yes\n\twrite list = @users, nobody\n", "GUESTS CAN WRITE IT", true},
		{"users only", "[public]\n\tpath = /mnt/ide1/public\n\tread only = no\n", "every user the share lets in can write it (guest ok = no, read only = no)", false},
		{"read-only", "[public]\n\tpath = /mnt/ide1/public\n\tguest ok = yes\n", "read-only over the network (guest ok = yes, read only = yes)", false},
		{"write list", "[public]\n\tpath = /mnt/ide1/public\n\twrite list = admin\n", "the users of its write list can write it", false},
		{"the most specific share", "[all]\n\tpath = /mnt/ide1\n\tguest ok = yes\n\tread only = no\n[apps]\n\tpath = /mnt/ide1/public/applications\n", "[apps]", false},
		{"switched off", "[public]\n\tpath = /mnt/ide1/public\n\tavailable = no\n\tguest ok = yes\n\tread only = no\n", "switched off", false},
		{"no share holds it", "[media]\n\tpath = /mnt/ide1/media\n\tguest ok = yes\n\tread only = no\n", "no share of the live smb.conf holds the app folder (" + app + ")", false},
		{"a path with macros is skipped", "[homes]\n\tpath = %H\n\tread only = no\n", "no share", false},
		{"a prefix is not a parent", "[pub]\n\tpath = /mnt/ide1/pub\n\tguest ok = yes\n\tread only = no\n", "no share", false},
		{"continued lines", "[public]\n\tpath = \\\n\t/mnt/ide1/public\n\tguest ok = yes\n\tread only = no\n", "GUESTS CAN WRITE IT", true},
	}
	for _, tt := range tests {
		got, risky := shareExposure([]byte(tt.conf), app)
		if !strings.Contains(got, tt.want) || risky != tt.risky {
			t.Errorf("%s: %q, %v; want %q, %v", tt.name, got, risky, tt.want, tt.risky)
		}
	}
}

func TestOrigin(t *testing.T) {
	s := func(kind string) source.Source { return source.Source{Kind: kind} }
	for want, srcs := range map[string][]source.Source{
		"firmware":              nil,
		"replaced":              {s(source.Replace)},
		"merged":                {s(source.Merge)},
		"added":                 {s(source.Add)},
		"replaced+merged+added": {s(source.Add), s(source.Replace), s(source.Merge)},
	} {
		if got := Origin(srcs); got != want {
			t.Errorf("Origin = %q, want %q", got, want)
		}
	}
}

// The report of an IB-NAS4220-B whose public share lets guests write the
// app folder: every part an owner needs is there, and DOCTOR.txt is
// CRLF text rewritten only when more than its time and free space
// changed.
func TestCheckAndWrite(t *testing.T) {
	root := t.TempDir()
	app := filepath.Join(root, "mnt/ide1/public/applications/userscript")
	write := func(p, s string) {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "system/hddapp/etc/samba/smb.conf"), "[public]\n\tpath = /mnt/ide1/public\n\tguest ok = yes\n\tread only = no\n")
	write(filepath.Join(root, "etc/exports"), "")
	write(filepath.Join(app, "conf.d/exports.add"), "/srv *(ro)\n")
	write(filepath.Join(app, "conf.d/smb (2).conf"), "x\n")
	write(filepath.Join(app, "conf.d/SMB.CONF"), "x\n")
	write(filepath.Join(app, "conf.d/Thumbs.db"), "x")
	write(filepath.Join(app, "conf.d/sysctl.conf"), "vm.x = 1\n")
	p, _ := profile.Builtin("nas4220b")
	eng := &overlay.Engine{Sys: system.NewReal(root), Profile: p, App: app}
	r := Check(context.Background(), eng, Info{Version: "1.2.3", ProfileFrom: "--profile"})
	text := string(r.Render("\n"))
	for _, want := range []string{
		"engine: Go engine, userscript 1.2.3 (",
		"profile: nas4220b (--profile), IcyBox IB-NAS4220-B",
		"state: applying conf.d",
		"  exports (/etc/exports): added from conf.d/exports.add",
		"  smb.conf (/system/hddapp/etc/samba/smb.conf): firmware",
		"  sysctl.conf: kernel tuning from conf.d/sysctl.conf",
		"  samba: ", // healthy or not depends on this machine
		"free on the data disk",
		"the app folder is in the share [public] (path /mnt/ide1/public): GUESTS CAN WRITE IT",
		"anyone who can write conf.d can change what runs as root on this NAS",
		`  "smb (2).conf": not used; did you mean smb.conf? (Windows added a number to a second file of the same name): rename it to smb.conf, or delete it`,
		`  "SMB.CONF": not used; did you mean smb.conf? (names are case-sensitive on the NAS): rename it to smb.conf, or delete it; see conf.d/SMB.CONF.status`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the report lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "Thumbs.db") {
		t.Errorf("Thumbs.db is listed:\n%s", text)
	}

	path := filepath.Join(app, "conf.d", source.DoctorFile)
	if err := Write(eng.Sys, path, r, false); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if strings.Count(string(data), "\n") != strings.Count(string(data), "\r\n") || !strings.HasPrefix(string(data), "userscript doctor\r\n") {
		t.Fatalf("DOCTOR.txt is not CRLF text:\n%q", data)
	}
	fi, _ := os.Stat(path)
	r.Time = r.Time.Add(3600e9)
	r.Disk = "1 GB free on the data disk"
	Write(eng.Sys, path, r, false)
	if fi2, _ := os.Stat(path); !os.SameFile(fi, fi2) {
		t.Error("rewritten though only the time and the free space changed")
	}
	Write(eng.Sys, path, r, true)
	if fi2, _ := os.Stat(path); os.SameFile(fi, fi2) {
		t.Error("not rewritten at a start")
	}
}
