package firmsim

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/nas-userscript/userscript/internal/needtool"
)

// OldBusyBoxTags are the old BusyBox builds the sh engine is tested
// under, besides Debian's: 2005-2007 releases, as on the firmware of the
// devices it is for. USERSCRIPT_BUSYBOX_OLD_TAGS (space-separated) may
// name fewer, for a machine that runs them emulated (scripts/busybox-old.sh);
// "none" names none (a quick run while working).
var OldBusyBoxTags = oldTags()

func oldTags() []string {
	tags := strings.Fields(os.Getenv("USERSCRIPT_BUSYBOX_OLD_TAGS"))
	if len(tags) == 1 && tags[0] == "none" {
		return nil
	}
	if len(tags) > 0 {
		return tags
	}
	return []string{"1_00", "1_2_0", "1_7_2"}
}

// A BusyBox is one BusyBox binary of the test matrix.
type BusyBox struct {
	Tag  string // "debian" or an OldBusyBoxTags entry
	Path string // the binary
}

// OldBusyBoxDir is the folder holding TAG/busybox for every old tag:
// USERSCRIPT_BUSYBOX_OLD, else ../shared/busybox-old beside the module
// (where the workplace and CI put it).
func OldBusyBoxDir() string {
	if d := os.Getenv("USERSCRIPT_BUSYBOX_OLD"); d != "" {
		return d
	}
	top, err := moduleRoot()
	if err != nil {
		return ""
	}
	return filepath.Join(filepath.Dir(top), "shared", "busybox-old")
}

// OldBusyBoxRequired is true when USERSCRIPT_BUSYBOX_OLD names the folder
// of the old builds: then a missing one is a test failure, not a skip.
// (They are not in the repository: a clone without ../shared beside it
// has none, and the tests under them are skipped, counted in make test's
// summary; .ci/run sets USERSCRIPT_BUSYBOX_OLD when they are there.)
func OldBusyBoxRequired() bool { return os.Getenv("USERSCRIPT_BUSYBOX_OLD") != "" }

// BusyBoxes is the test matrix: Debian's busybox, then every old build
// that is there. missing names the old builds that are not, with why
// (see OldBusyBoxRequired).
func BusyBoxes() (bbs []BusyBox, missing map[string]string) {
	missing = map[string]string{}
	if p, err := exec.LookPath("busybox"); err == nil {
		bbs = append(bbs, BusyBox{Tag: "debian", Path: p})
	} else {
		missing["debian"] = "busybox not found (apt-get install busybox)"
	}
	dir := OldBusyBoxDir()
	for _, tag := range OldBusyBoxTags {
		p := filepath.Join(dir, tag, "busybox")
		if fi, err := os.Stat(p); err != nil || fi.Mode()&0o111 == 0 {
			missing[tag] = fmt.Sprintf("old BusyBox %s not found at %s (set USERSCRIPT_BUSYBOX_OLD to the folder holding %s/busybox)", tag, p, tag)
			continue
		}
		if why := oldBusyBoxRuns(p); why != "" {
			missing[tag] = fmt.Sprintf("old BusyBox %s at %s %s", tag, p, why)
			continue
		}
		bbs = append(bbs, BusyBox{Tag: tag, Path: p})
	}
	return bbs, missing
}

var runsChecked sync.Map // binary → why it does not run here ("" when it does)

// oldBusyBoxRuns says why the old build bb cannot run the tests here, or
// "". A kernel without i386 support runs it under qemu-i386 (make deps
// registers it); there, on ext4, its 32-bit readdir cannot hold the
// folder offsets the 64-bit kernel gives qemu and every listing comes
// out empty: the tests' folders must be on a tmpfs (make test sets
// TMPDIR so).
func oldBusyBoxRuns(bb string) string {
	if why, ok := runsChecked.Load(bb); ok {
		return why.(string)
	}
	why := ""
	dir, err := os.MkdirTemp("", "busybox-probe")
	if err == nil {
		defer os.RemoveAll(dir)
		err = os.WriteFile(filepath.Join(dir, "probe"), nil, 0o644)
	}
	if err != nil {
		return "cannot be checked: " + err.Error()
	}
	out, err := exec.Command(bb, "ls", dir).Output()
	switch {
	case err != nil:
		why = fmt.Sprintf("does not run here (%v): a kernel without i386 support needs qemu-i386 for it: run make deps (scripts/busybox-old.sh)", err)
	case strings.TrimSpace(string(out)) != "probe":
		why = fmt.Sprintf("lists no files in %s (run under qemu-i386, its readdir cannot hold ext4's folder offsets): run the tests with TMPDIR on a tmpfs, as make test does", os.TempDir())
	}
	runsChecked.Store(bb, why)
	return why
}

// EachBusyBox runs f for every BusyBox of the matrix (Debian's and the
// old ones), in parallel; a missing old one is a visible skip (a failure
// when OldBusyBoxRequired).
func EachBusyBox(t *testing.T, f func(t *testing.T, bb string)) {
	needtool.Tool(t, "busybox")
	bbs, missing := BusyBoxes()
	for _, bb := range bbs {
		t.Run(bb.Tag, func(t *testing.T) {
			t.Parallel()
			f(t, bb.Path)
		})
	}
	for tag, why := range missing {
		t.Run(tag, func(t *testing.T) { needtool.Optional(t, why, OldBusyBoxRequired()) })
	}
}

// Slowdown is how many times longer an old BusyBox build bb takes than
// a native one: 8 where it runs under qemu-i386 (scripts/busybox-old.sh;
// some 70 ms a process), else 1. Tests scale the bounds they set to
// tell a hang from a slow run by it; "" and Debian's busybox are native.
func Slowdown(bb string) int {
	if bb == "" || !strings.Contains(bb, OldBusyBoxDir()) {
		return 1
	}
	return AnySlowdown()
}

// AnySlowdown is Slowdown of the old builds: for a bound that waits for
// a condition (it costs nothing when the condition comes soon) in tests
// that may run under them.
func AnySlowdown() int {
	if _, err := os.Stat("/proc/sys/fs/binfmt_misc/qemu-i386"); err != nil {
		return 1
	}
	return 8
}
