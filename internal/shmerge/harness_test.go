package shmerge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/nas-userscript/userscript/internal/firmsim"
	"github.com/nas-userscript/userscript/internal/merge"
)

// A shell is one BusyBox build merge.sh runs under.
type shell struct {
	name string // "debian", "1_00" …
	sh   string // its ash
	path string // PATH: the allowed applets only
}

// A mergeCase is one merge: a format as merge_file names it
// ("smb.conf" or "keyvalue"), the base, the fragment and its name.
type mergeCase struct {
	name       string
	format     string
	base, frag string
	fragName   string
}

// A result is what one engine gives for a case.
type result struct {
	out      string // the merged file
	refused  string // the refusal ("" when merged)
	warnings string // one a line
	wrote    bool   // sh: OUT exists
	stderr   string // sh: what it said (nothing)
}

// goFormat is internal/merge's name for a merge_file format.
var goFormat = map[string]string{"smb.conf": merge.Samba, "keyvalue": merge.KeyValue}

// goMerge is the reference: what the Go engine gives.
func goMerge(c mergeCase) result {
	out, warnings, err := merge.MergeWarn(goFormat[c.format], []byte(c.base), []byte(c.frag), c.fragName)
	if err != nil {
		return result{refused: err.Error()}
	}
	return result{out: string(out), warnings: strings.Join(warnings, "\n"), wrote: true}
}

// shells are the BusyBox builds found: Debian's, then the old ones.
func shells(t *testing.T) []shell {
	t.Helper()
	dir := t.TempDir()
	var out []shell
	bb, err := exec.LookPath("busybox")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("busybox is not installed (apt-get install busybox)")
		}
		t.Skip("busybox is not installed (apt-get install busybox)")
	}
	out = append(out, makeShell(t, dir, "debian", bb))
	old := oldBusyBoxDir()
	for _, tag := range firmsim.OldBusyBoxTags {
		bin, err := filepath.Abs(filepath.Join(old, tag, "busybox"))
		if err == nil {
			_, err = os.Stat(bin)
		}
		if err != nil {
			t.Logf("BusyBox %s not found (%v): set USERSCRIPT_OLD_BUSYBOX to the folder of the old builds", tag, err)
			continue
		}
		out = append(out, makeShell(t, dir, tag, bin))
	}
	return out
}

// oldBusyBoxDir is where the old static BusyBox builds are.
func oldBusyBoxDir() string {
	if d := os.Getenv("USERSCRIPT_OLD_BUSYBOX"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "shared", "busybox-old")
}

// makeShell links the allowed applets (with "[") and sh to busybox bin.
func makeShell(t *testing.T, dir, name, bin string) shell {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, a := range append([]string{"sh"}, firmsim.AllowedApplets...) {
		if err := os.Symlink(bin, filepath.Join(path, a)); err != nil {
			t.Fatal(err)
		}
	}
	return shell{name: name, sh: filepath.Join(path, "sh"), path: path}
}

// driver runs merge_file on every case listed, each in a subshell, and
// keeps what it gives in the case's folder.
const driver = `set -u
. "$1"
cd "$2" || exit 1
while read -r n fmt name; do
	(
		merge_file "$fmt" "$n/base" "$n/frag" "$name" "$n/out"
		rc=$?
		cat >"$n/rc" <<EOF
$rc
EOF
		cat >"$n/reason" <<EOF
$REASON
EOF
		cat >"$n/warnings" <<EOF
$MERGE_WARNINGS
EOF
	) 2>"$n/stderr"
done <list
`

// shMerge runs the cases under sh and returns what each gave.
func shMerge(t *testing.T, sh shell, cases []mergeCase) []result {
	t.Helper()
	dir := t.TempDir()
	var list strings.Builder
	for i, c := range cases {
		d := filepath.Join(dir, strconv.Itoa(i))
		writeFile(t, filepath.Join(d, "base"), c.base)
		writeFile(t, filepath.Join(d, "frag"), c.frag)
		fmt.Fprintf(&list, "%d %s %s\n", i, c.format, c.fragName)
	}
	writeFile(t, filepath.Join(dir, "list"), list.String())
	writeFile(t, filepath.Join(dir, "driver.sh"), driver)
	lib := libPath(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, sh.sh, filepath.Join(dir, "driver.sh"), lib, dir)
	cmd.Env = []string{"PATH=" + sh.path, "LC_ALL=C", "ENGINE_DIR=" + filepath.Dir(lib)}
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("%s: the driver: %v\n%s", sh.name, err, out)
	}
	res := make([]result, len(cases))
	for i := range cases {
		res[i] = readResult(t, filepath.Join(dir, strconv.Itoa(i)))
	}
	return res
}

// libPath is merge.sh; the parts it sources lie next to it (ENGINE_DIR).
// They are read here so that go test's cache knows the results depend
// on them (the shell that runs them is not watched).
func libPath(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "package", "lib"))
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{"mergefrag.sh", "mergebase.sh"} {
		readFile(t, filepath.Join(dir, part))
	}
	lib := filepath.Join(dir, "merge.sh")
	readFile(t, lib)
	return lib
}

// readResult reads what the driver kept of one case.
func readResult(t *testing.T, d string) result {
	t.Helper()
	r := result{stderr: readFile(t, filepath.Join(d, "stderr"))}
	rcText, err := os.ReadFile(filepath.Join(d, "rc"))
	if err != nil {
		r.refused = "the subshell stopped before merge_file returned"
		return r
	}
	rc := strings.TrimSpace(string(rcText))
	r.warnings = strings.TrimSuffix(readFile(t, filepath.Join(d, "warnings")), "\n")
	out, err := os.ReadFile(filepath.Join(d, "out"))
	switch {
	case err == nil:
		r.out, r.wrote = string(out), true
	case !errors.Is(err, os.ErrNotExist):
		t.Fatal(err)
	}
	if rc != "0" {
		r.refused = strings.TrimSuffix(readFile(t, filepath.Join(d, "reason")), "\n")
		if r.refused == "" {
			r.refused = "status " + rc + " without a REASON"
		}
	}
	return r
}

// compare runs the cases under every shell and reports each one where
// sh does not give what Go gives.
func compare(t *testing.T, cases []mergeCase) {
	t.Helper()
	t.Parallel() // beside the other sets: an old BusyBox emulated takes minutes on one
	var outside int
	cases, outside = exactOnly(cases)
	want := make([]result, len(cases))
	refused, warned := 0, 0
	for i, c := range cases {
		want[i] = goMerge(c)
		if want[i].refused != "" {
			refused++
		}
		if want[i].warnings != "" {
			warned++
		}
	}
	t.Logf("%d cases: %d refused, %d with warnings; %d left out, outside what sh does byte for byte (TestDeviations)",
		len(cases), refused, warned, outside)
	for _, sh := range shells(t) {
		t.Run("busybox-"+sh.name, func(t *testing.T) {
			t.Parallel()
			got := shMerge(t, sh, cases)
			bad := 0
			for i, c := range cases {
				if msg := differ(want[i], got[i]); msg != "" {
					if bad++; bad <= 5 {
						t.Errorf("%s: %s\nbase %q\nfrag %q", c.name, msg, c.base, c.frag)
					}
				}
			}
			if bad > 5 {
				t.Errorf("%d cases differ in all", bad)
			}
		})
	}
}

// exactOnly keeps the cases whose bytes sh reads as Go does: no NUL,
// and beyond ASCII only printable UTF-8 letters that are lower case
// already and not white space (docs/FORMATS.md, "What the sh engine
// does differently").
func exactOnly(cases []mergeCase) (kept []mergeCase, outside int) {
	for _, c := range cases {
		if exact(c.base) && exact(c.frag) && exact(c.fragName) {
			kept = append(kept, c)
		} else {
			outside++
		}
	}
	return kept, outside
}

func exact(s string) bool {
	for _, r := range s {
		switch {
		case r == 0:
			return false
		case r < utf8.RuneSelf:
		case r == utf8.RuneError, !unicode.IsPrint(r), unicode.IsSpace(r), unicode.ToLower(r) != r:
			return false
		}
	}
	return true
}

// differ says how got differs from want, or "".
func differ(want, got result) string {
	switch {
	case got.stderr != "":
		return fmt.Sprintf("sh said %q", got.stderr)
	case want.refused != "" && got.refused != want.refused:
		return fmt.Sprintf("refusal\n sh %q\n go %q", got.refused, want.refused)
	case want.refused != "" && got.wrote:
		return "refused, but wrote OUT"
	case want.refused != "":
		return ""
	case got.refused != "":
		return fmt.Sprintf("sh refused: %q", got.refused)
	case got.out != want.out:
		return fmt.Sprintf("output\n sh %q\n go %q", got.out, want.out)
	case got.warnings != want.warnings:
		return fmt.Sprintf("warnings\n sh %q\n go %q", got.warnings, want.warnings)
	}
	return ""
}

func writeFile(t *testing.T, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// again adds, for every case Go merges, the case of merging its result
// again: what an apply after the first gives.
func again(cases []mergeCase) []mergeCase {
	out := cases
	for _, c := range cases {
		if r := goMerge(c); r.refused == "" && r.out != c.base {
			c.name += " (merged again)"
			c.base = r.out
			out = append(out, c)
		}
	}
	return out
}
