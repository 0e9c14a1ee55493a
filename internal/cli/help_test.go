package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// Every command, and userscript itself, answers -h and --help alike: its
// help on stdout, nothing on stderr, exit 0.
func TestHelpFlags(t *testing.T) {
	run := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := Main(args, &out, &errOut, "test")
		return code, out.String(), errOut.String()
	}
	cases := [][]string{nil}
	for _, c := range commands() {
		cases = append(cases, []string{c.name})
	}
	for _, prefix := range cases {
		name := strings.Join(prefix, " ")
		codeH, outH, errH := run(append(prefix, "-h")...)
		codeHelp, outHelp, errHelp := run(append(prefix, "--help")...)
		if codeH != 0 || codeHelp != 0 || errH != "" || errHelp != "" {
			t.Errorf("userscript %s -h: exit %d, stderr %q; --help: exit %d, stderr %q", name, codeH, errH, codeHelp, errHelp)
		}
		if outH != outHelp {
			t.Errorf("userscript %s: -h and --help differ:\n%s\n---\n%s", name, outH, outHelp)
		}
		want := "usage: userscript [--root DIR]"
		if name != "" {
			want = "usage: userscript [global flags] " + name
		}
		if !strings.HasPrefix(outH, want) {
			t.Errorf("userscript %s -h:\n%s", name, outH)
		}
	}
	// A wrong flag is a usage error that says where to look.
	code, _, errOut := run("apply", "--nope")
	if code != exitUsage || !strings.Contains(errOut, "userscript apply -h tells more") {
		t.Errorf("apply --nope: exit %d, %q", code, errOut)
	}
}

// The copy of the binary that init runs (APP/state/run/userscript) finds
// the app dir as bin/userscript does.
func TestAppOf(t *testing.T) {
	for exe, want := range map[string]string{
		"/x/app/bin/userscript":       "/x/app",
		"/x/app/state/run/userscript": "/x/app",
		"/x/app/run/userscript":       "/x/app",
	} {
		if got := appOf(filepath.FromSlash(exe)); got != filepath.FromSlash(want) {
			t.Errorf("appOf(%s) = %s, want %s", exe, got, want)
		}
	}
}
