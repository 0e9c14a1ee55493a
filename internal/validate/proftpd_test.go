//go:build linux

package validate

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A small proftpd.conf with the seed's tuning for the IcyBox.
const proftpdGood = `ServerName "nas"
ServerType standalone
Port 2121
User nobody
Group nogroup
# Tuning Einstellungen
<IfModule mod_ident.c>
  IdentLookups off
</IfModule>
UseReverseDNS off
WtmpLog off
ListOptions "-l"
DenyFilter \*.*/
<Global>
  AllowOverwrite on
  AllowRetrieveRestart on
  AllowStoreRestart on
</Global>
`

// TestProftpd runs the real proftpd -t (ProFTPD 1.3.8) and proves how
// each kind of proftpd.conf is judged.
func TestProftpd(t *testing.T) {
	needTool(t, "proftpd")
	needRoot(t)
	debian, err := os.ReadFile("/etc/proftpd/proftpd.conf")
	if err != nil && os.Getenv("CI") != "" {
		t.Fatalf("Debian's proftpd.conf: %v", err)
	}
	tool := "proftpd -t"
	for _, tc := range []struct {
		name, conf string
		strict     bool
		want       want
	}{
		{"a small config with the seed's tuning is accepted", proftpdGood, false,
			want{validated: true, tool: tool}},
		{"Debian's own proftpd.conf is accepted", string(debian), false,
			want{validated: true, tool: tool}},
		{"an unknown directive is refused with its line and proftpd's suggestions", "ServerName \"x\"\n<Global>\n  FooBar on\n</Global>\n", false,
			want{validated: true, refused: true, tool: tool, reason: "line 3: unknown configuration directive 'FooBar' (did you mean "}},
		{"an unknown user is refused with its line", "ServerName \"x\"\nUser nosuchuser-userscript\n", false,
			want{validated: true, refused: true, tool: tool, reason: "line 2: User: Unknown user 'nosuchuser-userscript'"}},
		{"an unclosed section is refused at the line that opens it", "ServerName \"x\"\n<Directory /tmp>\n  AllowOverwrite on\n<Limit WRITE>\n  DenyAll\n</Limit>\n", false,
			want{validated: true, refused: true, tool: tool, reason: "line 2: unclosed configuration section <Directory /tmp>"}},
		{"a message without a line number gets the line of its directive", "ServerName \"x\"\nSystemLog /nonexistent/userscript/log\n", false,
			want{validated: true, refused: true, tool: tool, reason: "line 2: unable to open SystemLog '/nonexistent/userscript/log'"}},
		{"a missing Include is a warning with its line", "ServerName \"x\"\nInclude /nonexistent-userscript.conf\n", false,
			want{validated: true, tool: tool, warnings: []string{"line 2: unable to include '/nonexistent-userscript.conf': No such file or directory"}}},
		{"strict refuses the warning", "ServerName \"x\"\nInclude /nonexistent-userscript.conf\n", true,
			want{validated: true, refused: true, tool: tool, reason: "line 2: unable to include",
				warnings: []string{"line 2: unable to include '/nonexistent-userscript.conf': No such file or directory"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.conf == "" {
				t.Skip("no /etc/proftpd/proftpd.conf here")
			}
			r := Check(context.Background(), Proftpd, candidate(t, "proftpd.conf", tc.conf), Options{Strict: tc.strict})
			tc.want.check(t, r)
			if len(r.Execs) != 1 || !slices.Equal(r.Execs[0].Argv[1:3], []string{"-t", "-c"}) {
				t.Errorf("execs %+v, want one proftpd -t -c", r.Execs)
			}
		})
	}
}

// runEntry is what a file in /run looked like.
type runEntry struct {
	ino   uint64
	mtime syscall.Timespec
}

func snapshotRun(t *testing.T) map[string]runEntry {
	t.Helper()
	m := map[string]runEntry{}
	for _, d := range runDirs {
		names, _ := os.ReadDir(d)
		for _, n := range names {
			var st syscall.Stat_t
			p := filepath.Join(d, n.Name())
			if strings.HasPrefix(n.Name(), "proftpd") && syscall.Lstat(p, &st) == nil {
				m[p] = runEntry{st.Ino, st.Mtim}
			}
		}
	}
	return m
}

func sameRun(t *testing.T, before, after map[string]runEntry) {
	t.Helper()
	for _, d := range runDiff(before, after) {
		t.Error(d)
	}
}

func runDiff(before, after map[string]runEntry) []string {
	var diffs []string
	for p, a := range after {
		b, ok := before[p]
		switch {
		case !ok:
			diffs = append(diffs, p+" is new after Check")
		case a != b:
			diffs = append(diffs, p+" was changed by Check")
		}
	}
	return diffs
}

// TestProftpdLeavesRunAlone proves that proftpd -t, which as root writes
// /run/proftpd.delay and /run/proftpd.sock, leaves no new or changed
// proftpd.* file in /run after Check. The first part proves the check can
// fail: in the private namespace, proftpd -t does write both files.
func TestProftpdLeavesRunAlone(t *testing.T) {
	needTool(t, "proftpd")
	needRoot(t)
	prog, _ := lookPath("proftpd")
	path := candidate(t, "proftpd.conf", proftpdGood)

	var inside []string
	err := isolated(func() error { return shadowRunDirs(path, []byte(proftpdGood)) }, func() {
		run(context.Background(), Options{}, path, []string{prog, "-t", "-c", path})
		names, _ := os.ReadDir("/run")
		for _, n := range names {
			inside = append(inside, n.Name())
		}
	})
	if err != nil {
		t.Fatalf("private namespace: %v", err)
	}
	for _, f := range []string{"proftpd.delay", "proftpd.sock"} {
		if !slices.Contains(inside, f) {
			t.Errorf("proftpd -t did not write /run/%s in the namespace (saw %q): the test below proves nothing", f, inside)
		}
	}

	// Other proftpd -t runs on this machine (the sh engine's, in tests
	// running alongside) may touch /run at any moment: a Check that leaks
	// changes /run every time, so it is enough that one of three
	// attempts leaves /run as it was.
	var diffs []string
	for attempt := 0; attempt < 3; attempt++ {
		before := snapshotRun(t)
		r := Check(context.Background(), Proftpd, path, Options{})
		if !r.Validated || r.Refused {
			t.Fatalf("%+v", r)
		}
		if diffs = runDiff(before, snapshotRun(t)); len(diffs) == 0 {
			return
		}
		time.Sleep(time.Second)
	}
	t.Errorf("every attempt changed /run: %v", diffs)
}

// TestProftpdWithoutNamespace proves the fallback when unshare(2) is not
// permitted: proftpd -t does not run when proftpd files are in /run (a
// running proftpd's, maybe), or runs and its new files are removed; either
// way /run has no new or changed proftpd file afterwards.
func TestProftpdWithoutNamespace(t *testing.T) {
	needTool(t, "proftpd")
	needRoot(t)
	before := snapshotRun(t)
	r := Check(context.Background(), Proftpd, candidate(t, "proftpd.conf", proftpdGood), Options{noNamespace: true})
	sameRun(t, before, snapshotRun(t))
	if len(before) > 0 {
		want{tool: "proftpd -t", reason: "not validated: no private /run for proftpd -t"}.check(t, r)
		return
	}
	want{validated: true, tool: "proftpd -t", note: "without a private /run"}.check(t, r)
}

// TestRemoveNewFiles proves the fallback's clean-up removes only the
// proftpd files that appeared, never one that was there before.
func TestRemoveNewFiles(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	link := filepath.Join(t.TempDir(), "run-link")
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	touch := func(p string) {
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	touch(filepath.Join(a, "proftpd.delay"))
	if err := os.Mkdir(filepath.Join(b, "proftpd"), 0o755); err != nil {
		t.Fatal(err)
	}
	dirs := []string{a, link, b}
	before := proftpdFiles(dirs)
	touch(filepath.Join(a, "proftpd.sock"))
	touch(filepath.Join(b, "proftpd.scoreboard"))
	touch(filepath.Join(b, "other.pid"))
	got := removeNewFiles(dirs, before)
	want := []string{filepath.Join(a, "proftpd.sock"), filepath.Join(b, "proftpd.scoreboard")}
	if !slices.Equal(got, want) {
		t.Errorf("removed %q, want %q", got, want)
	}
	for _, p := range []string{filepath.Join(a, "proftpd.delay"), filepath.Join(b, "proftpd"), filepath.Join(b, "other.pid")} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// TestProftpdCandidateUnderRun proves a candidate staged under /run is
// still found by proftpd -t behind the private /run, and that the staged
// file itself is left as it was.
func TestProftpdCandidateUnderRun(t *testing.T) {
	needTool(t, "proftpd")
	needRoot(t)
	dir, err := os.MkdirTemp("/run", "userscript-test-")
	if err != nil {
		t.Skipf("cannot stage under /run: %v", err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "proftpd.conf")
	if err := os.WriteFile(path, []byte("ServerName \"x\"\nFooBar on\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := Check(context.Background(), Proftpd, path, Options{})
	want{validated: true, refused: true, tool: "proftpd -t", reason: "line 2: unknown configuration directive 'FooBar'"}.check(t, r)
	if got, err := os.ReadFile(path); err != nil || string(got) != "ServerName \"x\"\nFooBar on\n" {
		t.Errorf("staged file now %q, %v", got, err)
	}
}
