package validate

import (
	"bytes"
	"context"
	"fmt"
	"github.com/nas-userscript/userscript/internal/exports"
	"os"
	"path/filepath"
	"testing"
)

// TestExports runs the parser and the real exportfs -ra (nfs-utils 2.6)
// in a private mount namespace, and proves how each exports file is
// judged, and that exportfs saw the candidate (a missing directory is
// something only exportfs finds).
func TestExports(t *testing.T) {
	needTool(t, "exportfs")
	needRoot(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "with space")
	for _, d := range []string{a, b} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	both := "parser + exportfs -ra"
	tool := "exports " + both
	for _, tc := range []struct {
		name, conf string
		strict     bool
		want       want
	}{
		{"the seed's export and a quoted path are accepted by both",
			fmt.Sprintf("# NAS\n%s 192.168.178.0/255.255.255.0(rw,no_root_squash,no_all_squash,async)\n\"%s\" *(ro,no_subtree_check) 2001:db8::/64(rw,no_subtree_check)\n", a, b), false,
			want{validated: true, tool: tool}},
		{"a missing directory is a warning with our line (exportfs skips it; the disk may come later)",
			fmt.Sprintf("%s *(ro)\n\n%s/missing *(ro)\n", a, dir), false,
			want{validated: true, tool: tool, warnings: []string{fmt.Sprintf("line 3: exportfs: Failed to stat %s/missing: No such file or directory (NFS skips this export until the folder exists)", dir)}}},
		{"a misspelt option is refused by the parser; exportfs does not run",
			fmt.Sprintf("%s *(rw,asnyc)\n", a), false,
			want{validated: true, refused: true, tool: "exports parser", reason: `line 1: unknown option "asnyc"`}},
		{"the space before ( is a warning exportfs accepts",
			fmt.Sprintf("%s 10.1.2.3 (rw,sync)\n", a), false,
			want{validated: true, tool: tool, warnings: []string{`line 1: space between "10.1.2.3" and "(rw,sync)": exportfs reads two clients, 10.1.2.3 with default options (read-only) and (rw,sync) for everyone; remove the space`}}},
		{"strict refuses the warning",
			fmt.Sprintf("%s 10.1.2.3 (rw,sync)\n", a), true,
			want{validated: true, refused: true, tool: tool, reason: `line 1: space between "10.1.2.3" and "(rw,sync)"`,
				warnings: []string{`line 1: space between "10.1.2.3" and "(rw,sync)": exportfs reads two clients, 10.1.2.3 with default options (read-only) and (rw,sync) for everyone; remove the space`}}},
		{"a host name that does not resolve here is a note, not a refusal",
			fmt.Sprintf("%s\tnosuchhost.invalid(ro)\n", a), true,
			want{validated: true, tool: tool, note: "line 1: exportfs cannot resolve client nosuchhost.invalid"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			etab, _ := os.ReadFile("/var/lib/nfs/etab")
			exports, _ := os.ReadFile("/etc/exports")
			r := Check(context.Background(), Exports, candidate(t, "exports", tc.conf), Options{Strict: tc.strict})
			tc.want.check(t, r)
			if r.Tool == tool && (len(r.Execs) != 1 || r.Execs[0].Argv[1] != "-ra") {
				t.Errorf("execs %+v, want one exportfs -ra", r.Execs)
			}
			if after, _ := os.ReadFile("/var/lib/nfs/etab"); !bytes.Equal(after, etab) {
				t.Errorf("the real /var/lib/nfs/etab changed")
			}
			if after, _ := os.ReadFile("/etc/exports"); !bytes.Equal(after, exports) {
				t.Errorf("the real /etc/exports changed")
			}
		})
	}
}

// TestExportsWithoutNamespace proves that where no private namespace can
// be made, the parser's verdict stands and says so.
func TestExportsWithoutNamespace(t *testing.T) {
	good := candidate(t, "exports", "/srv *(ro)\n")
	want{validated: true, tool: "exports parser", note: "exportfs -ra not run (unshare: permission denied)"}.check(t,
		Check(context.Background(), Exports, good, Options{noNamespace: true}))
	bad := candidate(t, "exports", "/srv *(ro,bogus)\n")
	want{validated: true, refused: true, tool: "exports parser", reason: `line 1: unknown option "bogus"`}.check(t,
		Check(context.Background(), Exports, bad, Options{noNamespace: true}))
}

// TestExportfsVerdict proves how exportfs's messages are sorted: the
// file's problems refuse, the host's (no nfsd, a read-only /var/lib/nfs)
// only leave the parser's verdict.
func TestExportfsVerdict(t *testing.T) {
	entries, _ := exports.Parse([]byte("/a 10.0.0.1(ro)\n\n/b *(rw,reexport=none)\n"))
	for _, tc := range []struct {
		name, stderr string
		code         int
		want         want
	}{
		{"a keyword this exportfs does not know refuses, at our line",
			"exportfs: /etc/exports:2: unknown keyword \"reexport=none\"\n", 1,
			want{validated: true, refused: true, tool: "exports parser + exportfs -ra", reason: `line 3: exportfs: /etc/exports:2: unknown keyword "reexport=none"`}},
		{"nfsservctl missing on a new kernel is the host's problem",
			"exportfs: /a: Function not implemented\n", 1,
			want{validated: true, tool: "exports parser", note: "Function not implemented"}},
		{"a read-only /var/lib/nfs is the host's problem",
			"exportfs: could not open /var/lib/nfs/.etab.lock for locking: errno 30 (Read-only file system)\nexportfs: can't lock /var/lib/nfs/etab for writing\n", 1,
			want{validated: true, tool: "exports parser", note: "cannot check the file on this host"}},
		{"an unknown message with exit 0 is a note",
			"exportfs: something new\n", 0,
			want{validated: true, tool: "exports parser + exportfs -ra", note: "something new"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := output{Exec: Exec{Argv: []string{"/usr/sbin/exportfs", "-ra"}, ExitCode: tc.code}, stderr: []byte(tc.stderr)}
			tc.want.check(t, exportfsVerdict(Result{Validated: true, Tool: "exports parser"}, out, entries))
		})
	}
}
