package scenario

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nas-userscript/userscript/internal/firmsim"
)

// trimScript logs 100 lines of growing length (6 to 600 bytes of / : -,
// the characters ash escapes in a quoted word) one log_flush each: the
// path of every status file, the log and DOCTOR.txt, which trim the
// text's last newline before they echo it.
const trimScript = `LIB=$1
STATE=$2
NOW=2026-01-01T00:00:00Z
LOG_CHECKED=yes
. "$LIB/common.sh"
NL='
'
s=
n=0
while :; do
	case $n in 100) break ;; esac
	n=$((n + 1))
	s="${s}a/b:c-"
	LOG_HOLD=yes
	log INFO "$s" n=$n
	log_flush
done
`

// TestLongTextsWhole proves that a long text the engine trims of its last
// newline is written whole under every BusyBox: the old ashes (1.00,
// 1.2.0 and 1.7.2 alike) cut the end of `echo "${LOGBUF%"$NL"}"` once
// the text was a few hundred bytes (a status ended "…the live file was
// not"); about 31 of these 100 lines lost their end under each on the
// old lib.
func TestLongTextsWhole(t *testing.T) {
	needTool(t, "busybox")
	lib, err := filepath.Abs(filepath.Join("..", "..", "package", "lib"))
	if err != nil {
		t.Fatal(err)
	}
	if d := os.Getenv("USERSCRIPT_TEST_LIB"); d != "" {
		lib = d
	}
	bbs, missing := firmsim.BusyBoxes()
	for _, bb := range bbs {
		t.Run(bb.Tag, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path, shell, err := firmsim.AppletsOf(bb.Path, dir)
			if err != nil {
				t.Fatal(err)
			}
			state := filepath.Join(dir, "state")
			os.Mkdir(state, 0o755)
			cmd := exec.Command(shell, "-c", trimScript, "sh", lib, state)
			cmd.Env = []string{"PATH=" + path}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			f, err := os.Open(filepath.Join(state, "log"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 1<<20)
			n := 0
			for sc.Scan() {
				n++
				want := fmt.Sprintf("2026-01-01T00:00:00Z INFO %s n=%d", strings.Repeat("a/b:c-", n), n)
				if sc.Text() != want {
					t.Errorf("line %d (%d bytes) was cut: ends %q", n, len(want), tail(sc.Text(), 20))
				}
			}
			if n != 100 {
				t.Errorf("%d lines, want 100", n)
			}
		})
	}
	for tag, why := range missing {
		t.Run(tag, func(t *testing.T) { skipMissing(t, why) })
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// newlineTrim is ${NAME%...NL...} and its kin: a trim whose pattern holds
// a newline variable.
var newlineTrim = regexp.MustCompile(`\$\{[A-Za-z_][A-Za-z0-9_]*(%%|%|##|#)[^}]*NL[^}]*\}`)

// assignments is what may stand before such a trim in its command:
// only assignments (NAME=... NAME=...), or `case`: there ash expands
// without the escapes that 1.00 mishandles.
var assignments = regexp.MustCompile(`^(case|([A-Za-z_][A-Za-z0-9_]*=[^ ]*\s+)*[A-Za-z_][A-Za-z0-9_]*=("[^"]*|[^ ]*))$`)

// inArgument reports whether the trim at i of line is part of a command's
// arguments: what stands before it in its command (after the last `) `,
// `; `, `&& ` or `|| `) is not only assignments.
func inArgument(line string, i int) bool {
	before := line[:i]
	for _, sep := range []string{") ", "; ", "&& ", "|| "} {
		if j := strings.LastIndex(before, sep); j >= 0 {
			before = before[j+len(sep):]
		}
	}
	return !assignments.MatchString(strings.TrimSpace(before))
}

// TestNoNewlineTrimInArguments finds every trim of a newline in a
// command's argument in the sh engine (the form BusyBox 1.00 cuts;
// see TestLongTextsWhole): trim in an assignment, then use the variable.
func TestNoNewlineTrimInArguments(t *testing.T) {
	lib := filepath.Join("..", "..", "package", "lib")
	if d := os.Getenv("USERSCRIPT_TEST_LIB"); d != "" {
		lib = d // an older sh engine
	}
	files, _ := filepath.Glob(filepath.Join(lib, "*.sh"))
	files = append(files, filepath.Join(lib, "..", "init"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "#") {
				continue
			}
			for _, m := range newlineTrim.FindAllStringIndex(line, -1) {
				if !inArgument(line, m[0]) {
					continue
				}
				t.Errorf("%s:%d: a newline trimmed in a command's argument (BusyBox 1.00 cuts long texts there; trim in an assignment): %s", filepath.Base(f), i+1, strings.TrimSpace(line))
			}
		}
	}
}
