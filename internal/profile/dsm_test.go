package profile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nas-userscript/userscript/internal/system"
)

func TestParseDSMVersion(t *testing.T) {
	tests := []struct {
		in   string
		want DSMVersion
		err  string
	}{
		{"majorversion=\"7\"\nminorversion=\"2\"\nbuildphase=\"GM\"\nbuildnumber=\"64570\"\n", DSMVersion{7, 2, 64570}, ""},
		{"majorversion=6\nminorversion=2\nbuildnumber=25556\n", DSMVersion{6, 2, 25556}, ""},
		{"majorversion=\"4\"\r\nbuildnumber=\"3202\"\r\n", DSMVersion{4, 0, 3202}, ""},
		{"buildnumber=\"3202\"\n", DSMVersion{}, "no majorversion= line"},
		{"majorversion=\"5\"\n", DSMVersion{}, "no buildnumber= line"},
		{"majorversion=\"seven\"\nbuildnumber=\"1\"\n", DSMVersion{}, `majorversion="seven" is not a number`},
		{"majorversion=\"1\"\nbuildnumber=\"1\"\n", DSMVersion{}, "DSM versions start at 2"},
		{"", DSMVersion{}, "no majorversion= line"},
	}
	for _, tt := range tests {
		got, err := ParseDSMVersion([]byte(tt.in))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseDSMVersion(%q) = %v, %v; want error %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseDSMVersion(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	if s := (DSMVersion{7, 2, 64570}).String(); s != "7.2-64570" {
		t.Errorf("String() = %q", s)
	}
}

// dsmRoot is a device root whose /etc.defaults/VERSION says version
// (none when version is "").
func dsmRoot(t *testing.T, version string) system.System {
	t.Helper()
	root := t.TempDir()
	if version != "" {
		p := filepath.Join(root, "etc.defaults", "VERSION")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(version), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return system.NewReal(root)
}

// TestDSMProfileFollowsVersion proves the dsm profile takes its paths and
// restart commands from the device's /etc.defaults/VERSION, exactly as the
// sh engine gets them rendered: DSM 2-5 without the file (a PC, or the
// sh package's build), DSM 6 and DSM 7 by majorversion. The facts are the
// public ones docs/DSM.md cites: DSM 6's Samba is synoservice's samba
// (never smbd) and its rc scripts are in rc.sysv, NFS is reloaded with
// exportfs -ra on DSM 6 and 7, DSM 7's testparm is SMBService's.
func TestDSMProfileFollowsVersion(t *testing.T) {
	tests := []struct {
		version string
		want    string
	}{
		{"", `profile dsm
target exports /etc/exports exports nfs - 0644
target smb.conf /usr/syno/etc/smb.conf testparm samba nonempty,checked 0644
service nfs 60 /usr/syno/etc/rc.sysv/S83nfsd.sh restart
fallback nfs /usr/syno/etc.defaults/rc.sysv/S83nfsd.sh restart
fallback nfs /usr/syno/etc.defaults/rc.d/S83nfsd.sh restart
fallback nfs /usr/syno/etc/rc.d/S83nfsd.sh restart
health nfs 3 - 2049
service samba 60 /usr/syno/etc/rc.sysv/S80samba.sh restart
fallback samba /usr/syno/etc.defaults/rc.sysv/S80samba.sh restart
fallback samba /usr/syno/etc.defaults/rc.d/S80samba.sh restart
fallback samba /usr/syno/etc/rc.d/S80samba.sh restart
health samba 3 smbd 445,139
tool testparm /usr/bin/testparm
`},
		{"majorversion=\"5\"\nminorversion=\"2\"\nbuildnumber=\"5967\"\n", `profile dsm
target exports /etc/exports exports nfs - 0644
target smb.conf /usr/syno/etc/smb.conf testparm samba nonempty,checked 0644
service nfs 60 /usr/syno/etc/rc.sysv/S83nfsd.sh restart
fallback nfs /usr/syno/etc.defaults/rc.sysv/S83nfsd.sh restart
fallback nfs /usr/syno/etc.defaults/rc.d/S83nfsd.sh restart
fallback nfs /usr/syno/etc/rc.d/S83nfsd.sh restart
health nfs 3 - 2049
service samba 60 /usr/syno/etc/rc.sysv/S80samba.sh restart
fallback samba /usr/syno/etc.defaults/rc.sysv/S80samba.sh restart
fallback samba /usr/syno/etc.defaults/rc.d/S80samba.sh restart
fallback samba /usr/syno/etc/rc.d/S80samba.sh restart
health samba 3 smbd 445,139
tool testparm /usr/bin/testparm
`},
		{"majorversion=\"6\"\nminorversion=\"2\"\nbuildnumber=\"25556\"\n", `profile dsm
target exports /etc/exports exports nfs - 0644
target smb.conf /etc/samba/smb.conf testparm samba nonempty,checked,globalonly 0644
target smb.share.conf /etc/samba/smb.share.conf - samba - 0644
service nfs 60 /usr/sbin/exportfs -ra
fallback nfs /usr/syno/etc/rc.sysv/S83nfsd.sh restart
fallback nfs /usr/syno/etc.defaults/rc.sysv/S83nfsd.sh restart
fallback nfs /usr/syno/etc.defaults/rc.d/S83nfsd.sh restart
fallback nfs /usr/syno/etc/rc.d/S83nfsd.sh restart
health nfs 3 - 2049
service samba 60 /usr/syno/etc/rc.sysv/S80samba.sh restart
fallback samba /usr/syno/etc.defaults/rc.sysv/S80samba.sh restart
fallback samba /usr/syno/etc.defaults/rc.d/S80samba.sh restart
fallback samba /usr/syno/etc/rc.d/S80samba.sh restart
fallback samba /usr/syno/sbin/synoservice --restart samba
health samba 3 smbd 445,139
tool testparm /usr/bin/testparm
`},
		{"majorversion=\"7\"\nminorversion=\"2\"\nbuildnumber=\"64570\"\n", `profile dsm
target exports /etc/exports exports nfs - 0644
target smb.conf /etc/samba/smb.conf testparm samba nonempty,checked,globalonly 0644
target smb.share.conf /etc/samba/smb.share.conf - samba - 0644
service nfs 60 /usr/sbin/exportfs -ra
fallback nfs /usr/bin/systemctl restart nfs-server.service
health nfs 3 - 2049
service samba 60 /usr/bin/systemctl restart pkg-synosamba-smbd.service pkg-synosamba-nmbd.service
fallback samba /usr/syno/bin/synopkg restart SMBService
health samba 3 smbd 445,139
tool testparm /var/packages/SMBService/target/usr/bin/testparm
tool testparm /usr/bin/testparm
`},
	}
	for _, tt := range tests {
		p, err := ForDevice("dsm", dsmRoot(t, tt.version))
		if err != nil {
			t.Fatalf("VERSION %q: %v", tt.version, err)
		}
		var b strings.Builder
		if err := p.WriteShell(&b); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); got != tt.want {
			t.Errorf("VERSION %q renders:\n%s\nwant:\n%s", tt.version, got, tt.want)
		}
		for _, s := range p.Services {
			if s.Name == "samba" && (s.Process != "smbd" || len(s.Ports) != 2) {
				t.Errorf("VERSION %q: samba health %q %v, want smbd on 445/139", tt.version, s.Process, s.Ports)
			}
		}
	}
}

// TestForDeviceErrors proves a broken VERSION is an error naming the file
// and what to do, and that other profiles never read it.
func TestForDeviceErrors(t *testing.T) {
	dev := dsmRoot(t, "majorversion=\"x\"\nbuildnumber=\"1\"\n")
	_, err := ForDevice("dsm", dev)
	if err == nil || !strings.Contains(err.Error(), filepath.Join("etc.defaults", "VERSION")) || !strings.Contains(err.Error(), "userscript.toml") {
		t.Errorf("broken VERSION: err = %v, want one naming the file and userscript.toml", err)
	}
	if p, err := ForDevice("nas4220b", dev); err != nil || p.Name != "nas4220b" {
		t.Errorf("nas4220b with a broken VERSION: %v, %v", p, err)
	}
	if _, err := ForDevice("nosuch", dev); err == nil {
		t.Error("an unknown profile is no error")
	}
	v, ok, err := DetectDSM(dsmRoot(t, ""))
	if ok || err != nil {
		t.Errorf("no VERSION: DetectDSM = %v, %v, %v; want not a DSM, no error", v, ok, err)
	}
}

// TestDSMRestartOnDevice proves the dsm profile restarts Samba with the
// rc script the device has, from the first of the rc folders DSM 6, 5
// and 2-4 used: DSM 5's etc.defaults/rc.d before DSM 4's rc.d, the other
// places kept as fallbacks after it.
func TestDSMRestartOnDevice(t *testing.T) {
	dev := dsmRoot(t, "majorversion=\"5\"\nbuildnumber=\"5967\"\n")
	for _, rel := range []string{"usr/syno/etc.defaults/rc.d/S80samba.sh", "usr/syno/etc/rc.d/S80samba.sh"} {
		p := dev.Root("/" + rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p, err := ForDevice("dsm", dev)
	if err != nil {
		t.Fatal(err)
	}
	s := p.Services["samba"]
	if got, want := strings.Join(s.Restart, " "), "/usr/syno/etc.defaults/rc.d/S80samba.sh restart"; got != want {
		t.Errorf("samba restart %q, want %q", got, want)
	}
	if len(s.Fallbacks) != 1 || s.Fallbacks[0][0] != "/usr/syno/etc/rc.d/S80samba.sh" {
		t.Errorf("samba fallbacks %q, want DSM 4's rc.d after it", s.Fallbacks)
	}
}
