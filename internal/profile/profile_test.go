package profile

import (
	"strings"
	"testing"
)

func TestBuiltinsAreValid(t *testing.T) {
	for _, name := range Names() {
		p, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Check(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		var b strings.Builder
		if err := p.WriteShell(&b); err != nil {
			t.Errorf("%s: WriteShell: %v", name, err)
		}
	}
}

// The nas4220b profile is the test seam (ARCHITECTURE.md, "What must always hold"); the sh
// engine reads exactly this.
func TestNAS4220BContract(t *testing.T) {
	p, _ := Builtin("nas4220b")
	var b strings.Builder
	if err := p.WriteShell(&b); err != nil {
		t.Fatal(err)
	}
	want := `profile nas4220b
target exports /etc/exports exports nfs - 0644
target proftpd.conf /system/hddapp/etc/proftpd.conf proftpd proftpd nonempty 0644
target smb.conf /system/hddapp/etc/samba/smb.conf testparm samba nonempty 0644
service nfs 60 /system/hddapp/etc/rc.d/S85nfs.sh restart
health nfs 3 - 2049
service proftpd 60 /system/hddapp/etc/rc.d/S91proftpd.sh restart
health proftpd 3 proftpd 21
service samba 60 /system/hddapp/etc/rc.d/S80samba.sh restart
health samba 3 smbd 445,139
`
	if got := b.String(); got != want {
		t.Errorf("WriteShell:\n%s\nwant:\n%s", got, want)
	}
}

func TestCheckPath(t *testing.T) {
	tests := []struct {
		path string
		ok   bool
	}{
		{"/etc/exports", true},
		{"/system/hddapp/etc/samba/smb.conf", true},
		{"etc/exports", false},
		{"/etc/../shadow", false},
		{"/etc//exports", false},
		{"/etc/", false},
		{"/", false},
		{"/proc/sys/vm/swappiness", false},
		{"/sys/block/sda/queue/scheduler", false},
		{"/dev/sda", false},
		{"/devices/x", true},
		{"/etc/my file", false},
		{"/etc/a\nb", false},
	}
	for _, tt := range tests {
		if err := CheckPath(tt.path); (err == nil) != tt.ok {
			t.Errorf("CheckPath(%q) = %v, want ok=%v", tt.path, err, tt.ok)
		}
	}
}

func TestCheckName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"smb.conf", true},
		{"exports", true},
		{"vsftpd.conf", true},
		{"", false},
		{".hidden", false},
		{"-rf", false},
		{"a/b", false},
		{"..", false},
		{"x.add", false},
		{"x.merge", false},
		{"x.status", false},
		{"new\nline", false},
		{"sp ace", false},
		{strings.Repeat("a", 65), false},
	}
	for _, tt := range tests {
		if err := CheckName(tt.name); (err == nil) != tt.ok {
			t.Errorf("CheckName(%q) = %v, want ok=%v", tt.name, err, tt.ok)
		}
	}
}

// The units `service install` orders userscript after: those the
// services' systemctl commands restart, with .service added where the
// command leaves it off; an rc script or exportfs names none.
func TestUnits(t *testing.T) {
	p := &Profile{Services: map[string]Service{
		"smb":     {Restart: []string{"/usr/bin/systemctl", "restart", "smbd"}, Fallbacks: [][]string{{"systemctl", "--no-block", "try-restart", "samba-ad-dc.service", "nmbd"}}},
		"proftpd": {Restart: []string{"/usr/bin/systemctl", "restart", "proftpd"}},
		"again":   {Restart: []string{"/bin/systemctl", "reload", "smbd.service"}},
		"nfs":     {Restart: []string{"/usr/sbin/exportfs", "-ra"}},
		"rc":      {Restart: []string{"/etc/rc.d/S80samba.sh", "restart"}},
		"status":  {Restart: []string{"systemctl", "status", "sshd"}},
	}}
	got := strings.Join(p.Units(), " ")
	if want := "nmbd.service proftpd.service samba-ad-dc.service smbd.service"; got != want {
		t.Errorf("Units() = %q, want %q", got, want)
	}
	nas, _ := Builtin("nas4220b")
	if u := nas.Units(); len(u) != 0 {
		t.Errorf("nas4220b (rc scripts): Units() = %v, want none", u)
	}
}
