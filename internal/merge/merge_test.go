package merge

import (
	"bytes"
	"strings"
	"testing"
)

// A mergeCase is a base, a fragment and the file the merge must give.
type mergeCase struct {
	name, base, frag, want string
}

// fragName names the fragment of a format in errors and origins.
var fragName = map[string]string{
	Samba: "smb.conf.merge", ProFTPD: "proftpd.conf.merge", Exports: "exports.merge", KeyValue: "sysctl.conf.merge",
}

// runMerges proves each case's result, and that merging the fragment
// again changes nothing.
func runMerges(t *testing.T, format string, cases []mergeCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := mustMerge(t, format, []byte(c.base), []byte(c.frag)); string(got) != c.want {
				t.Errorf("merge:\n--- got\n%s--- want\n%s---", got, c.want)
			}
		})
	}
}

// mustMerge merges and proves the merge idempotent and its result
// parsed back losslessly.
func mustMerge(t *testing.T, format string, base, frag []byte) []byte {
	t.Helper()
	got, err := Merge(format, base, frag, fragName[format])
	if err != nil {
		t.Fatalf("merge: %v", err)
	}
	again, err := Merge(format, got, frag, fragName[format])
	if err != nil {
		t.Fatalf("second merge: %v", err)
	}
	if !bytes.Equal(again, got) {
		t.Errorf("merging twice differs from merging once:\n--- once\n%s--- twice\n%s---", got, again)
	}
	syn, _ := syntaxFor(format)
	if r := render(syn.parse(string(got))); r != string(got) {
		t.Errorf("parse is not lossless on the result:\n%q\n%q", got, r)
	}
	return got
}

// An errCase is a fragment that must be refused with a message
// containing want.
type errCase struct {
	name, frag, want string
}

func runErrors(t *testing.T, format string, cases []errCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Merge(format, []byte("x\n"), []byte(c.frag), fragName[format])
			if err == nil {
				t.Fatalf("merge accepted %q", c.frag)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not say %q", err, c.want)
			}
		})
	}
}

func TestFormatFor(t *testing.T) {
	tests := []struct {
		target, format string
		ok             bool
	}{
		{"smb.conf", Samba, true},
		{"/system/hddapp/etc/samba/smb.conf", Samba, true},
		{"SMB.CONF", Samba, true},
		{"rsyncd.conf", Samba, true},
		{"proftpd.conf", ProFTPD, true},
		{"exports", Exports, true},
		{"nas.exports", Exports, true},
		{"sysctl.conf", KeyValue, true},
		{"vsftpd.conf", KeyValue, true},
		{"minidlna.conf", KeyValue, true},
		{"hosts", "", false},
		{"passwd", "", false},
		{"fstab", "", false},
		{"crontab", "", false},
		{"resolv.conf", "", false},
		{"S80samba.sh", "", false},
		{"rc.local", "", false},
		{"php.ini", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		format, ok := FormatFor(tt.target)
		if format != tt.format || ok != tt.ok {
			t.Errorf("FormatFor(%q) = %q, %v; want %q, %v", tt.target, format, ok, tt.format, tt.ok)
		}
	}
}

// A fragment's mistakes refuse it with their line, whatever the base.
func TestFragmentMistakes(t *testing.T) {
	if _, err := Merge(Samba, nil, []byte(sambaSeed), "smb.conf.merge"); err != nil {
		t.Errorf("the seeds' fragment: %v", err)
	}
	_, err := Merge(ProFTPD, nil, []byte("<Global>\n"), "proftpd.conf.merge")
	if err == nil || err.Error() != "proftpd.conf.merge line 1: <Global> is not closed: add </Global>" {
		t.Errorf("unclosed block: %v", err)
	}
}

func TestUnknownFormat(t *testing.T) {
	if _, err := Merge("ini", nil, nil, "x.merge"); err == nil || !strings.Contains(err.Error(), `unknown merge format "ini"`) {
		t.Errorf("Merge with an unknown format: %v", err)
	}
}

// TestParseLossless proves every parser gives back the real-world files
// byte for byte.
func TestParseLossless(t *testing.T) {
	for _, tt := range []struct{ format, file string }{
		{Samba, "debian-smb.conf"},
		{Samba, "firmware-smb.conf"},
		{ProFTPD, "debian-proftpd.conf"},
		{ProFTPD, "proftpd-standalone.conf"},
		{ProFTPD, "firmware-proftpd.conf"},
		{Exports, "debian-exports"},
		{KeyValue, "debian-sysctl.conf"},
	} {
		syn, _ := syntaxFor(tt.format)
		text := string(readTestdata(t, tt.file))
		if got := render(syn.parse(text)); got != text {
			t.Errorf("%s: render(parse(x)) != x", tt.file)
		}
	}
}
