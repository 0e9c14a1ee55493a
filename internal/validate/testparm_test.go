package validate

import (
	"context"
	"strings"
	"testing"
)

// The seed's tuning for the IcyBox (NAS-4220 wiki, "Tuningeinstellungen
// in der smb.conf"), with a share.
const seedGlobal = `[global]
getwd cache = yes
dead time = 5
log level = 1
read raw = yes
write raw = yes
oplocks = yes
max xmit = 65535
use sendfile = yes
`

const seedShare = `
[public]
path = /tmp
read only = no
`

// TestTestparm runs the real testparm -s (Samba 4.17 on Debian 12) and
// proves how each kind of smb.conf is judged, with line numbers found in
// the file (testparm prints none).
func TestTestparm(t *testing.T) {
	needTool(t, "testparm")
	tool := "testparm -s"
	for _, tc := range []struct {
		name, conf string
		strict     bool
		want       want
	}{
		{"seed tuning is accepted without warnings", seedGlobal + seedShare, false,
			want{validated: true, tool: tool}},
		{"a broken section header is refused with its line", "[global]\nlog level = 1\n\n[public\npath = /tmp\n", false,
			want{validated: true, refused: true, tool: tool, reason: `line 4: bad section header "[public": no closing "]"`}},
		{"the broken header is found after a continued line", "[global]\n  comment = a \\\n   long one\n# [not a section\n[share\n", false,
			want{validated: true, refused: true, tool: tool, reason: "line 5: bad section header"}},
		{"unknown parameters are warnings with their lines", seedGlobal + "lpq cache time = 30\nread size = 1\n" + seedShare, false,
			want{validated: true, tool: tool, warnings: []string{`line 11: Unknown parameter encountered: "read size"`}}},
		{"strict refuses unknown parameters", seedGlobal + "lpq cache time = 30\nread size = 1\n" + seedShare, true,
			want{validated: true, refused: true, tool: tool, reason: `line 11: Unknown parameter encountered: "read size" (refused: strict`,
				warnings: []string{`line 11: Unknown parameter encountered: "read size"`}}},
		{"write cache size is gone from 4.17: unknown, not deprecated", "[global]\nwrite cache size = 65535\n", false,
			want{validated: true, tool: tool, warnings: []string{`line 2: Unknown parameter encountered: "write cache size"`}}},
		{"a deprecated option is a warning with its line", "[global]\n\tlog level = 1\n\tsyslog = 0\n", false,
			want{validated: true, tool: tool, warnings: []string{`line 3: The "syslog" option is deprecated`}}},
		{"names match without case and spaces; a repeated one gets each line", "[global]\nRead  Size = 2\n[a]\npath = /tmp\nreadsize = 3\n", false,
			want{validated: true, tool: tool, warnings: []string{`line 2: Unknown parameter encountered: "Read Size"`, `line 5: Unknown parameter encountered: "readsize"`}}},
		{"a bad boolean is refused with its line", "[global]\nlog level = 1\n[share]\npath = /tmp\nread only = maybe\n", false,
			want{validated: true, refused: true, tool: tool, reason: "line 5: read only = maybe: value is not boolean"}},
		{"a bad size is refused with its line", "[global]\nmax xmit = abc\n", false,
			want{validated: true, refused: true, tool: tool, reason: "line 2: max xmit = abc: value is not a valid size specifier"}},
		{"an invalid enum value is refused with its line", "[global]\nlog level = 1\nsecurity = bogus\n", false,
			want{validated: true, refused: true, tool: tool, reason: `line 3: invalid value "bogus" for parameter "security"`}},
		{"a parameter without a name is refused", "[global]\n= value\n", false,
			want{validated: true, refused: true, tool: tool, reason: "line 2: parameter without a name"}},
		{"an empty section name is refused", "[global]\n[]\npath = /tmp\n", false,
			want{validated: true, refused: true, tool: tool, reason: "line 2: No service name in service entry"}},
		{"a missing state directory is the host's problem, not the file's", "[global]\nstate directory = /nonexistent/userscript-state\n", true,
			want{tool: tool, reason: "not validated: testparm cannot run on this host: state directory /nonexistent/userscript-state does not exist"}},
		{"a missing lock directory is only a note", "[global]\nlock directory = /nonexistent/userscript-lock\n", true,
			want{validated: true, tool: tool, note: "lock directory /nonexistent/userscript-lock does not exist"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Check(context.Background(), Testparm, candidate(t, "smb.conf", tc.conf), Options{Strict: tc.strict})
			tc.want.check(t, r)
			if len(r.Execs) != 1 || r.Execs[0].Argv[1] != "-s" {
				t.Errorf("execs %+v, want one testparm -s", r.Execs)
			}
		})
	}
}

// TestSmbConfLines proves the line finder reads smb.conf as Samba does.
func TestSmbConfLines(t *testing.T) {
	conf := parseSmbConf([]byte("; comment\n[global]\n  Log   Level = 1 \\\n  2\n\n\tread size=1\n[share]\nREAD SIZE = 2\n"))
	seen := map[string]int{}
	for _, tc := range []struct {
		name string
		line int
	}{{"log level", 3}, {"readsize", 6}, {"read size", 8}, {"read size", 0}, {"nothing", 0}} {
		if got := conf.lineOf(tc.name, seen); got != tc.line {
			t.Errorf("lineOf(%q) = %d, want %d", tc.name, got, tc.line)
		}
	}
	if p, ok := conf.paramWithValue("1 2"); !ok || p.line != 3 {
		t.Errorf("continued value: %+v %v", p, ok)
	}
	if conf.syntax != "" {
		t.Errorf("syntax %q", conf.syntax)
	}
	if got := parseSmbConf([]byte("[a]\n x = 1\n[b\n")).syntax; !strings.HasPrefix(got, "line 3: ") {
		t.Errorf("syntax %q", got)
	}
}

// TestTestparmInclude proves a problem in an included file refuses the
// candidate without blaming one of its lines, and an unknown parameter
// there is a warning that does not quote the other file (it could be
// /etc/shadow: the status file is on the share).
func TestTestparmInclude(t *testing.T) {
	needTool(t, "testparm")
	inc := candidate(t, "broken.conf", "[global]\nlpq cache = 30\n[broken\n")
	r := Check(context.Background(), Testparm, candidate(t, "smb.conf", "[global]\ninclude = "+inc+"\n"), Options{})
	want{validated: true, refused: true, tool: "testparm -s",
		reason:   "testparm -s: Error loading services (no line of this file is at fault: check the files it includes)",
		warnings: []string{"an included file sets unknown or deprecated parameters (not shown: the file is not yours to read here)"}}.check(t, r)
}

// TestTestparmGlobalInShare proves issue 12, fault 3's message: a global
// parameter Samba reads in a share section ("Global parameter …
// found in service section!", which has no WARNING: prefix) is a
// warning with its line, found after an include of shares too.
func TestTestparmGlobalInShare(t *testing.T) {
	needTool(t, "testparm")
	shares := candidate(t, "shares.conf", "[tank]\n\tpath = /tmp\n")
	tool := "testparm -s"
	for _, tc := range []struct {
		name, conf string
		want       want
	}{
		{"in a share", "[global]\n\tworkgroup = HOME\n[media]\n\tpath = /tmp\n\tworkgroup = MEDIA\n",
			want{validated: true, tool: tool, warnings: []string{
				"line 5: Global parameter workgroup found in service section! (Samba ignores it in a share: move it into [global])"}}},
		{"the issue's repro: after an include that ends in a share", "[global]\n\tworkgroup = HOME\n\tinclude = " + shares + "\n\tsocket options = TCP_NODELAY\n",
			want{validated: true, tool: tool, warnings: []string{
				"line 4: Global parameter socket options found in service section! (it follows the include at line 3, which ends in a share: move it above the include)"}}},
		{"the same name in [global] first", "[global]\n\tsocket options = SO_KEEPALIVE\n\tinclude = " + shares + "\n\tsocket options = TCP_NODELAY\n",
			want{validated: true, tool: tool, warnings: []string{
				"line 4: Global parameter socket options found in service section! (it follows the include at line 3, which ends in a share: move it above the include)"}}},
		{"in the included file", "[global]\n\tworkgroup = HOME\n\tinclude = " + candidate(t, "bad.conf", "[tank]\n\tpath = /tmp\n\tworkgroup = X\n") + "\n",
			want{validated: true, tool: tool, warnings: []string{
				"an included file sets global parameter workgroup in a share section, where Samba ignores it"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Check(context.Background(), Testparm, candidate(t, "smb.conf", tc.conf), Options{})
			tc.want.check(t, r)
		})
	}
}
