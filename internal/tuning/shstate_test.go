package tuning

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/nas-userscript/userscript/internal/firmsim"
	"github.com/nas-userscript/userscript/internal/needtool"
	"github.com/nas-userscript/userscript/internal/system"
)

// saveSh remembers each PATH FILE VALUE of its arguments with the sh
// engine's prev_add, in the order given, or with "load" reads
// state/tuning.json with tune_load; then it writes state/tuning.json
// anew with tune_save (package/lib/tunestate.sh; chars from common.sh).
// The write itself is a plain mv here: the checks before it are not what
// this is about.
const saveSh = `set -u
WORK=$1 STATE=$2 LIB=$3
shift 3
. "$LIB/common.sh"
. "$LIB/tunestate.sh"
put_file() { mv -f -- "$1" "$2"; }
log() { :; }
chars
: >"$WORK/tu.prev"
if [ "${1:-}" = load ]; then
	tune_load
	rm "$STATE/tuning.json"
	shift
fi
while [ $# -gt 0 ]; do
	prev_add "$1" "$2" "$3"
	shift 3
done
tune_save
`

// TestShStateSameBytes holds the sh engine's state/tuning.json to the Go
// tuner's, byte for byte, under every BusyBox of the matrix: the same
// values, remembered in another order (byte order, not the order
// added), with every character the two escape; and the sh engine reads
// the Go tuner's file and writes it again unchanged. Before control
// bytes and U+2028 were escaped, the sh engine wrote them raw: a file
// Go's json cannot read. The scenario suite holds
// the engines to one file on whole applies (testdata/scenarios/tuning*.txtar
// compare state/tuning.json with one expected file for both); this
// covers the escapes and orders those leave out.
func TestShStateSameBytes(t *testing.T) {
	prev := previous{}
	var args []string
	for _, e := range []struct{ path, file, value string }{
		{"/sys/module/x/parameters/y", "tuning.conf", `<none> & "q" \ end`},
		{"/proc/sys/net/ipv4/tcp_rmem", "sysctl.conf", "4096\t131072\t6291456"},
		{"/proc/irq/9/smp_affinity", "tuning.conf", "1"},
		{"/proc/irq/10/smp_affinity", "tuning.conf", "f"},
		{"/sys/Block/sda/queue/scheduler", "tuning.conf", "noop [cfq]"},
		{"/sys/block/sda/queue/scheduler", "tuning.conf", "cr\rnl\nend"},
		{"/proc/sys/kernel/hostname", "sysctl.conf", "ünïcode"},
		{"/proc/sys/kernel/x", "sysctl.conf", "ctl\x01 ls\u2028"},
	} {
		prev[e.path] = struct {
			File  string `json:"file"`
			Value string `json:"value"`
		}{e.file, e.value}
		args = append(args, e.path, e.file, e.value)
	}
	bbs, missing := firmsim.BusyBoxes()
	for _, bb := range bbs {
		t.Run(bb.Tag, func(t *testing.T) {
			for _, c := range []struct {
				name string
				prev previous
				args []string
			}{{"empty", previous{}, nil}, {"values", prev, args}} {
				goFile := goSave(t, c.prev)
				if sh := shSave(t, bb.Path, "", c.args); sh != goFile {
					t.Errorf("%s: the sh engine wrote\n%s\nthe Go tuner\n%s", c.name, sh, goFile)
				}
				if sh := shSave(t, bb.Path, goFile, []string{"load"}); sh != goFile {
					t.Errorf("%s: the sh engine read the Go tuner's\n%s\nand wrote\n%s", c.name, goFile, sh)
				}
			}
		})
	}
	for tag, why := range missing {
		t.Run(tag, func(t *testing.T) { needtool.Optional(t, why, firmsim.OldBusyBoxRequired()) })
	}
}

func goSave(t *testing.T, prev previous) string {
	t.Helper()
	tu := &Tuner{Sys: system.NewReal(""), StateDir: t.TempDir()}
	if err := tu.save(prev); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(tu.prevPath())
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// shSave runs saveSh with args in a state folder holding seed as
// tuning.json ("": none) and returns the tuning.json it leaves.
func shSave(t *testing.T, busybox, seed string, args []string) string {
	t.Helper()
	dir := t.TempDir()
	path, shell, err := firmsim.AppletsOf(busybox, filepath.Join(dir, "bin"))
	if err != nil {
		t.Fatal(err)
	}
	work, state := filepath.Join(dir, "work"), filepath.Join(dir, "state")
	os.MkdirAll(work, 0o755)
	os.MkdirAll(state, 0o755)
	if seed != "" {
		os.WriteFile(filepath.Join(state, "tuning.json"), []byte(seed), 0o644)
	}
	lib, _ := filepath.Abs(filepath.Join("..", "..", "package", "lib"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, shell, append([]string{"-c", saveSh, "sh", work, state, lib}, args...)...)
	cmd.Env = []string{"PATH=" + path, "LC_ALL=C"}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tune_save: %v\n%s", err, out)
	}
	data, err := os.ReadFile(filepath.Join(state, "tuning.json"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
