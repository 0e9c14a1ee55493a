package scenario

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nas-userscript/userscript/internal/firmsim"
	"github.com/nas-userscript/userscript/internal/systest"
	"github.com/nas-userscript/userscript/internal/watch"
)

// counting makes every applet of w's PATH a wrapper that appends its name
// to the returned file before it runs (sleep as sleep:SECONDS): the
// processes the sh engine starts, counted.
func counting(t *testing.T, w *World) string {
	t.Helper()
	count := filepath.Join(w.Dir, "execs")
	host, err := exec.LookPath("busybox")
	if err != nil {
		t.Skip("busybox not found")
	}
	bb := w.BusyBox
	if bb == "" {
		bb = host
	}
	ents, _ := os.ReadDir(w.Bin)
	for _, e := range ents {
		p := filepath.Join(w.Bin, e.Name())
		os.Remove(p)
		name := e.Name()
		if name == "sleep" {
			// sleep:N: the poll's sleep (N is the poll interval) tells
			// itself apart from a watchdog's (sleep 1).
			name = "sleep:$1"
		}
		// Each line: the process's start time (clock ticks since boot,
		// /proc/PID/stat field 22) and its name; a wrapper may append its
		// line after a later process did (a watchdog's sleep under load).
		body := fmt.Sprintf("#!%s sh\nst() { set -- $1; shift 19; ST=$1; }\nread -r s </proc/$$/stat\nst \"${s##*) }\"\necho \"$ST %s\" >>%s\nexec %s %s \"$@\"\n", host, name, count, bb, e.Name())
		if err := systest.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return count
}

// execs lists the names counting recorded, in the order the processes
// started.
func execs(count string) []string {
	data, _ := os.ReadFile(count)
	type run struct {
		start int
		name  string
	}
	var runs []run
	for _, l := range strings.Split(string(data), "\n") {
		start, name, ok := strings.Cut(l, " ")
		if n, err := strconv.Atoi(start); ok && err == nil {
			runs = append(runs, run{n, name})
		}
	}
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].start < runs[j].start })
	names := make([]string, len(runs))
	for i, r := range runs {
		names[i] = r.name
	}
	return names
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	limit := 60 * time.Second * time.Duration(firmsim.AnySlowdown())
	for deadline := time.Now().Add(limit); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, limit)
		}
	}
}

// pollSleep is how a poll's sleep shows in the count: the poll interval
// of startPoller (2 s) is not a watchdog's (1 s).
const pollSleep = "sleep:2"

// startPoller runs the sh engine's poll loop (every 2 seconds) in w and
// stops it when the test ends.
func startPoller(t *testing.T, w *World) { startPollerEvery(t, w, 2) }

// startPollerEvery runs the sh engine's poll loop in w, polling every
// secs seconds, and stops it when the test ends.
func startPollerEvery(t *testing.T, w *World, secs int, env ...string) {
	t.Helper()
	cmd := exec.Command(w.Shell, filepath.Join(w.App, "lib", "engine.sh"), "poll")
	cmd.Env = append(append(w.Env(), fmt.Sprintf("USERSCRIPT_POLL=%d", secs)), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
}

func shWorld(t *testing.T) *World { return shWorldWith(t, "") }

// shWorldWith is shWorld under the BusyBox binary bb ("" is Debian's).
func shWorldWith(t *testing.T, bb string) *World {
	t.Helper()
	needTool(t, "busybox")
	sc := &Scenario{Name: "poll", Profile: "nas4220b", Files: map[string][]byte{
		"root/system/hddapp/etc/samba/smb.conf": []byte("[global]\n\tworkgroup = ROM\n"),
	}, order: []string{"root/system/hddapp/etc/samba/smb.conf"}}
	w, err := newWorld(t.TempDir(), sc, bb)
	if err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join("..", "..", "package", "lib")
	if d := os.Getenv("USERSCRIPT_TEST_LIB"); d != "" {
		lib = d
	}
	if err := (ShEngine{Lib: lib}).Prepare(w); err != nil {
		t.Fatal(err)
	}
	return w
}

// Defect 1: once an edit is applied, an idle poll costs two processes
// (one ls, one sleep) and applies nothing: reading a source must not make
// the next poll see a change (the disk can spin down). Under every
// BusyBox of the matrix: before 1.2 a `[` or an echo would be a process
// of its own.
func TestShIdlePollAppliesNothing(t *testing.T) {
	t.Parallel()
	bbs, missing := firmsim.BusyBoxes()
	for _, bb := range bbs {
		t.Run(bb.Tag, func(t *testing.T) {
			t.Parallel()
			idlePoll(t, shWorldWith(t, bb.Path))
		})
	}
	for tag, why := range missing {
		t.Run(tag, func(t *testing.T) { skipMissing(t, why) })
	}
}

func idlePoll(t *testing.T, w *World) {
	count := counting(t, w)
	startPoller(t, w)
	os.WriteFile(filepath.Join(w.App, "conf.d", "smb.conf"), []byte("[global]\n\tworkgroup = MINE\n"), 0o644)
	status := filepath.Join(w.App, "conf.d", "smb.conf.status")
	waitFor(t, "the edit applied", func() bool { _, err := os.Stat(status); return err == nil })
	n := len(execs(count))
	sleeps := func() int {
		c := 0
		for _, x := range execs(count)[n:] {
			if x == pollSleep {
				c++
			}
		}
		return c
	}
	waitFor(t, "seven polls", func() bool { return sleeps() >= 7 })
	got := execs(count)[n:]
	// Until the second poll's sleep the apply may still be ending: its
	// watchdog (a subshell that sleeps a second at a time) ends on its
	// own, and under load its last sleep starts after the first poll's.
	for i, seen := 0, 0; i < len(got) && seen < 2; i++ {
		if got[i] == pollSleep {
			seen++
		}
		got[i] = ""
	}
	for _, x := range got {
		if x != "" && x != "ls" && x != pollSleep {
			t.Fatalf("an idle poll ran %s; all it ran: %v", x, got)
		}
	}
}

// Defect 5: a source still being copied (it changes from one poll to the
// next) is applied only once it has stayed the same for a poll: never
// half of it.
func TestShHalfCopiedNotApplied(t *testing.T) {
	w := shWorld(t)
	count := counting(t, w)
	startPoller(t, w)
	waitFor(t, "the poller's first poll", func() bool {
		return strings.Contains(strings.Join(execs(count), " "), pollSleep)
	})
	src := filepath.Join(w.App, "conf.d", "smb.conf")
	full := "[global]\n\tworkgroup = MINE\n\tserver string = the whole file\n"
	half := full[:len(full)/2]
	lsCount := func() int { return strings.Count(" "+strings.Join(execs(count), " ")+" ", " "+pollSleep+" ") }
	// Written while the poller sleeps; appended to once the poll after
	// that sleep (which saw the half file) has ended.
	n := lsCount()
	waitFor(t, "a poll's sleep", func() bool { return lsCount() > n })
	n = lsCount()
	os.WriteFile(src, []byte(half), 0o644)
	waitFor(t, "a poll of the half file", func() bool { return lsCount() > n })
	f, _ := os.OpenFile(src, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(full[len(half):])
	f.Close()
	live := filepath.Join(w.Root, "system/hddapp/etc/samba/smb.conf")
	waitFor(t, "the whole file applied", func() bool { b, _ := os.ReadFile(live); return string(b) == full })
	waitFor(t, "its restart", func() bool { return len(w.restarts()) > 0 })
	n = lsCount()
	waitFor(t, "two more polls", func() bool { return lsCount() >= n+2 })
	if got := w.restarts(); len(got) != 1 {
		t.Errorf("restarts %q: the half-copied file went live too", got)
	}
}

// Issue 21, defect 9: a copy still in progress is not applied. Over
// Wi-Fi a piece of a copy can come seconds late, and the file stays the
// same over a poll meanwhile; smbd keeps it open for writing the whole
// time. The poller applies no source some process has open for writing
// (it looks in /proc/*/fd), however long it waits; once it is closed,
// the whole file goes live, and Samba restarts once.
func TestShOpenForWritingNotApplied(t *testing.T) {
	w := shWorld(t)
	if err := os.Symlink("/proc", filepath.Join(w.Root, "proc")); err != nil {
		t.Fatal(err)
	}
	count := counting(t, w)
	startPoller(t, w)
	polls := func() int { return strings.Count(" "+strings.Join(execs(count), " ")+" ", " "+pollSleep+" ") }
	waitFor(t, "the poller's first poll", func() bool { return polls() > 0 })
	src := filepath.Join(w.App, "conf.d", "smb.conf")
	full := "[global]\n\tworkgroup = MINE\n\tserver string = the whole file\n"
	half := full[:len(full)/2]
	f, err := os.OpenFile(src, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(half)
	n := polls()
	waitFor(t, "four polls of the half file, open for writing", func() bool { return polls() >= n+4 })
	live := filepath.Join(w.Root, "system/hddapp/etc/samba/smb.conf")
	if b, _ := os.ReadFile(live); string(b) != "[global]\n\tworkgroup = ROM\n" {
		t.Errorf("a file still open for writing went live: %q", b)
	}
	f.WriteString(full[len(half):])
	f.Close()
	waitFor(t, "the whole file applied", func() bool { b, _ := os.ReadFile(live); return string(b) == full })
	waitFor(t, "its restart", func() bool { return len(w.restarts()) > 0 })
	n = polls()
	waitFor(t, "two more polls", func() bool { return polls() >= n+2 })
	if got := w.restarts(); len(got) != 1 {
		t.Errorf("restarts %q, want one", got)
	}
}

// Defect 9's bound: a file that stays open for writing is applied once
// the poller waited USERSCRIPT_WRITING_MAX seconds (10 minutes on a NAS),
// and its status says so, in the Go watcher's words (this world has no
// testparm: the status word is NOT VALIDATED).
func TestShOpenForWritingTooLongSaysSo(t *testing.T) {
	eachBusyBox(t, func(t *testing.T, bb string) {
		w := shWorldWith(t, bb)
		if err := os.Symlink("/proc", filepath.Join(w.Root, "proc")); err != nil {
			t.Fatal(err)
		}
		count := counting(t, w)
		startPollerEvery(t, w, 2, "USERSCRIPT_WRITING_MAX=5")
		waitFor(t, "the poller's first poll", func() bool { return strings.Contains(strings.Join(execs(count), " "), pollSleep) })
		src := filepath.Join(w.App, "conf.d", "smb.conf")
		body := "[global]\n\tworkgroup = NEVERCLOSED\n"
		f, err := os.OpenFile(src, os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		f.WriteString(body)
		live := filepath.Join(w.Root, "system/hddapp/etc/samba/smb.conf")
		logf := filepath.Join(w.App, "state", "log")
		waitFor(t, "the poller waiting for the copy", func() bool { b, _ := os.ReadFile(logf); return strings.Contains(string(b), "open for writing") })
		if b, _ := os.ReadFile(live); string(b) == body {
			t.Errorf("applied at once, while open for writing")
		}
		waitFor(t, "the file applied after the bound", func() bool { b, _ := os.ReadFile(live); return string(b) == body })
		want := "note: " + watch.WritingNote("smb.conf", 5*time.Second)
		waitFor(t, "its status", func() bool { b, _ := os.ReadFile(src + ".status"); return strings.Contains(string(b), "\nnote: ") })
		if st, _ := os.ReadFile(src + ".status"); !strings.Contains(string(st), "generation: 1") || !strings.Contains(string(st), want) {
			t.Errorf("status does not say generation 1 is live with %q:\n%s", want, st)
		}
		if b, _ := os.ReadFile(logf); !strings.Contains(string(b), "still open for writing") {
			t.Errorf("no warning in state/log:\n%s", b)
		}
	})
}
