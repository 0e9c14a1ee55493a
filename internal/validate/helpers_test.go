package validate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nas-userscript/userscript/internal/needtool"
	"github.com/nas-userscript/userscript/internal/systest"
)

// needTool skips a test when a validator is not installed, except in CI
// (CI=true), where .ci/run installs them and a missing one must fail.
func needTool(t *testing.T, name string) {
	t.Helper()
	needtool.Tool(t, name)
}

func TestMain(m *testing.M) { needtool.Main(m) }

// needRoot skips a test that needs root (proftpd -t as root, mount
// namespaces), except in CI.
func needRoot(t *testing.T) {
	t.Helper()
	needtool.Root(t)
}

// candidate writes content to a staged file and returns its path.
func candidate(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// checkResult compares the parts of a Result a test cares about.
type want struct {
	validated, refused bool
	tool               string
	reason             string   // a prefix of Reason ("" means Reason must be empty)
	warnings           []string // exactly these, in order
	note               string   // a substring of one of the Notes, if set
}

func (w want) check(t *testing.T, r Result) {
	t.Helper()
	if r.Validated != w.validated || r.Refused != w.refused {
		t.Errorf("validated=%v refused=%v, want %v %v (reason %q)", r.Validated, r.Refused, w.validated, w.refused, r.Reason)
	}
	if w.tool != "" && r.Tool != w.tool {
		t.Errorf("tool %q, want %q", r.Tool, w.tool)
	}
	if w.reason == "" && r.Reason != "" || !strings.HasPrefix(r.Reason, w.reason) {
		t.Errorf("reason %q, want it to start with %q", r.Reason, w.reason)
	}
	if !slices.Equal(r.Warnings, w.warnings) {
		t.Errorf("warnings %q, want %q", r.Warnings, w.warnings)
	}
	if w.note != "" && !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, w.note) }) {
		t.Errorf("notes %q, want one containing %q", r.Notes, w.note)
	}
	for _, x := range r.Execs {
		if len(x.Argv) == 0 || !filepath.IsAbs(x.Argv[0]) {
			t.Errorf("exec %q: argv[0] is not a resolved program", x.Argv)
		}
	}
}

// TestNotInstalled proves a missing validator leaves the candidate not
// validated (not refused) and runs nothing; exports still gets our parser.
func TestNotInstalled(t *testing.T) {
	missing := func(string) (string, error) { return "", errors.New("not found") }
	opt := Options{LookPath: missing, Strict: true}
	for _, tc := range []struct {
		kind, content string
		want          want
	}{
		{Testparm, "[global]\n", want{reason: "not validated: testparm not found"}},
		{Proftpd, "ServerName x\n", want{reason: "not validated: proftpd not found"}},
		{Exports, "/srv *(ro)\n", want{validated: true, tool: "exports parser", note: "exportfs not found"}},
		{"", "x", want{reason: "not validated: no validator for this target"}},
		{"samba", "x", want{reason: "not validated: no validator for this target"}},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			r := Check(context.Background(), tc.kind, candidate(t, "f", tc.content), opt)
			tc.want.check(t, r)
			if len(r.Execs) != 0 {
				t.Errorf("ran %v", r.Execs)
			}
		})
	}
}

// TestUnreadableCandidate proves a candidate that is missing is refused,
// never applied.
func TestUnreadableCandidate(t *testing.T) {
	for _, kind := range []string{Testparm, Proftpd, Exports} {
		r := Check(context.Background(), kind, filepath.Join(t.TempDir(), "gone"), Options{})
		if !r.Refused || !strings.Contains(r.Reason, "cannot read the candidate") {
			t.Errorf("%s: %+v", kind, r)
		}
	}
}

// TestTimeout proves a validator that does not answer is killed after
// Options.Timeout and refuses the candidate: what hangs the validator
// would hang the service too, so it is never applied unchecked.
func TestTimeout(t *testing.T) {
	hang := filepath.Join(t.TempDir(), "hang")
	if err := systest.WriteFile(hang, []byte("#!/bin/sh\nexec sleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	opt := Options{Timeout: 300 * time.Millisecond, LookPath: func(string) (string, error) { return hang, nil }}
	start := time.Now()
	r := Check(context.Background(), Testparm, candidate(t, "smb.conf", "[global]\n"), opt)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %s", took)
	}
	want{tool: "testparm -s", refused: true, reason: "testparm -s did not answer within 300ms, so the file was not applied: does it include a FIFO, a device or a file on a disk that is not there?"}.check(t, r)
	if len(r.Execs) != 1 || r.Execs[0].ExitCode != -1 || !r.Execs[0].TimedOut {
		t.Errorf("execs %+v", r.Execs)
	}
}

// TestTestparmIncludesFIFO proves the real testparm, hung on an include
// of a FIFO nobody writes to, is ended after the timeout and the
// candidate refused.
func TestTestparmIncludesFIFO(t *testing.T) {
	needTool(t, "testparm")
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	r := Check(context.Background(), Testparm, candidate(t, "smb.conf", "[global]\ninclude = "+fifo+"\n"), Options{Timeout: time.Second})
	if !r.Refused || !strings.Contains(r.Reason, "did not answer within 1s") {
		t.Fatalf("%+v", r)
	}
}
