package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/nas-userscript/userscript/internal/system"
)

// Local runs the page's tests on this machine's disks.
type Local struct {
	Sys system.System
	// Dir is the folder on the disk under test, a device path (resolved
	// under the root). Dir2 is a second disk for S3 and USB a USB disk;
	// when empty they are looked up in /proc/mounts.
	Dir, Dir2, USB string
	Size           int64
	Runs           int
	Tests          []string // the names asked for; none: every test that is not "named"
	Meta           Meta
	Out            io.Writer // each test as it runs, skips, warnings
}

// A disk is one folder under test and the bench folder made in it.
type disk struct {
	dev, real string // the folder, as a device path and under the root
	mount     Mount
	name      string // under /sys/block, "" when unknown
	bench     path2  // userscript-bench.PID, once made
	prepared  map[string]bool
}

// path2 is one path both ways: as shown (device path) and as used.
type path2 struct{ dev, real string }

func (d *disk) file(name string) path2 {
	return path2{dev: path.Join(d.bench.dev, name), real: filepath.Join(d.bench.real, name)}
}

// localRun is the state of one Local.Run.
type localRun struct {
	*Local
	disks    map[role]*disk
	report   *Report
	cacheOK  bool // drop_caches works
	cacheMsg bool // its warning was given
}

func (lr *localRun) disk(r role) *disk { return lr.disks[r] }

func (lr *localRun) say(format string, args ...any) { fmt.Fprintf(lr.Out, format+"\n", args...) }

func (lr *localRun) warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	lr.report.Warnings = append(lr.report.Warnings, msg)
	lr.say("warning: %s", msg)
}

func (lr *localRun) skip(test, format string, args ...any) {
	reason := fmt.Sprintf(format, args...)
	lr.report.Skipped = append(lr.report.Skipped, Skip{Test: test, Reason: reason})
	lr.say("%s: skipped: %s", test, reason)
}

// Run runs the tests: every test Runs times, interleaved (run 1 of every
// test, then run 2 ...), so a slow drift of the NAS shows as spread rather
// than as a difference between tests. It returns what ran; an error when
// the run could not start, was interrupted, or a test failed (the others
// still ran). The bench folders are removed however it ends.
func (l *Local) Run(ctx context.Context) (*Report, error) {
	lr := &localRun{Local: l, disks: map[role]*disk{}, report: &Report{Meta: l.Meta, Size: l.Size, Runs: l.Runs}}
	tests, err := lr.plan()
	if err != nil {
		return nil, err
	}
	lr.alignment()
	defer lr.cleanup()
	if err := lr.setup(ctx, &tests); err != nil {
		return nil, err
	}
	var failed []string
	for n := 1; n <= l.Runs; n++ {
		for i := 0; i < len(tests); i++ {
			rs, err := tests[i].run(ctx, lr, n)
			if ctx.Err() != nil {
				return nil, fmt.Errorf("interrupted: the bench folders were removed, no results written: %w", ctx.Err())
			}
			if err != nil {
				lr.skip(tests[i].name, "failed: %v", err)
				failed = append(failed, tests[i].name)
				tests = slices.Delete(tests, i, i+1)
				i--
				continue
			}
			lr.report.Results = append(lr.report.Results, rs...)
		}
	}
	if len(failed) > 0 {
		return lr.report, fmt.Errorf("%s failed (see above); the other tests ran", strings.Join(failed, ", "))
	}
	return lr.report, nil
}

// plan picks the tests and the disks they need; a test whose program or
// disk is missing is skipped with the reason.
func (lr *localRun) plan() ([]localTest, error) {
	for _, name := range lr.Tests {
		if !slices.Contains(TestNames(), name) {
			return nil, fmt.Errorf("unknown test %q: the tests are %s", name, strings.Join(TestNames(), ", "))
		}
	}
	mounts, _ := readMounts(lr.Sys)
	main := lr.newDisk(mounts, lr.Dir)
	lr.disks[onMain] = main
	var out []localTest
	for _, t := range localTests() {
		if !lr.wanted(t) {
			continue
		}
		if missing := missingTool(t); missing != "" {
			lr.skip(t.name, "%s not found on this device", missing)
			continue
		}
		if why := lr.findDisks(t, mounts, main); why != "" {
			lr.skip(t.name, "%s", why)
			continue
		}
		out = append(out, t)
	}
	return out, nil
}

// missingTool is the first program t needs that is not in PATH: its
// tool, and sync when it writes to a disk.
func missingTool(t localTest) string {
	tools := []string{t.tool}
	if t.writes {
		tools = append(tools, "sync")
	}
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			return tool
		}
	}
	return ""
}

func (lr *localRun) wanted(t localTest) bool {
	if len(lr.Tests) == 0 {
		return !t.named
	}
	return slices.ContainsFunc(lr.Tests, func(n string) bool { return selects(n, t) })
}

// findDisks makes sure the second and USB disks a test needs are known:
// given, or found in /proc/mounts. It returns why not.
func (lr *localRun) findDisks(t localTest, mounts []Mount, main *disk) string {
	for _, r := range t.disks {
		if lr.disks[r] != nil {
			continue
		}
		given, what := lr.Dir2, "a second disk (--dir2 DIR)"
		if r == onUSB {
			given, what = lr.USB, "a USB disk (--usb DIR)"
		}
		if given == "" {
			given = findMount(lr.Sys, mounts, main, r == onUSB)
		}
		if given == "" {
			return "needs " + what + "; none is mounted"
		}
		lr.disks[r] = lr.newDisk(mounts, given)
	}
	return ""
}

func (lr *localRun) newDisk(mounts []Mount, dev string) *disk {
	d := &disk{dev: path.Clean(dev), real: lr.Sys.Root(dev), prepared: map[string]bool{}}
	d.mount, _ = mountOf(mounts, d.dev)
	d.name = diskOf(lr.Sys, d.mount.Source)
	return d
}

// findMount finds a writable disk other than main's: a USB one, or (usb
// false) one that is not on USB.
func findMount(sys system.System, mounts []Mount, main *disk, usb bool) string {
	for _, m := range mounts {
		name := diskOf(sys, m.Source)
		if name == "" || name == main.name || !m.ReadWrite || m.Point == "/" || strings.HasPrefix(m.Point, "/boot") {
			continue
		}
		if isUSB(sys, name) == usb {
			return m.Point
		}
	}
	return ""
}

// setup checks the free space of each filesystem the tests write to and
// makes each disk's bench folder; a second or USB disk that fails drops
// the tests that need it, the main disk refuses the run.
func (lr *localRun) setup(ctx context.Context, tests *[]localTest) error {
	if err := lr.checkSpace(tests); err != nil {
		return err
	}
	for _, r := range []role{onMain, onSecond, onUSB} {
		if !usesRole(*tests, r) {
			continue
		}
		err := lr.makeBench(lr.disks[r])
		if err == nil {
			continue
		}
		if r == onMain {
			return err
		}
		lr.dropRole(tests, r, err)
	}
	return ctx.Err()
}

func usesRole(tests []localTest, r role) bool {
	return slices.ContainsFunc(tests, func(t localTest) bool { return slices.Contains(t.disks, r) })
}

func (lr *localRun) dropRole(tests *[]localTest, r role, err error) {
	*tests = slices.DeleteFunc(*tests, func(t localTest) bool {
		if slices.Contains(t.disks, r) {
			lr.skip(t.name, "%v", err)
			return true
		}
		return false
	})
}

// checkSpace adds up, per filesystem, every file the planned tests keep
// there at once (the runs are interleaved: S1's and S2's files, the USB
// disk's, all stay to the end) and the largest copy made and removed
// within one test, and wants that plus one test size to spare free. The
// disks are grouped by filesystem, so --dir2 or --usb on the data disk
// count together. The main disk's filesystem is checked last, after the
// tests of a full second or USB disk were dropped.
func (lr *localRun) checkSpace(tests *[]localTest) error {
	groups := map[string][]role{}
	var keys []string
	for _, r := range []role{onUSB, onSecond, onMain} {
		if !usesRole(*tests, r) {
			continue
		}
		k := lr.fsKey(lr.disks[r])
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], r)
	}
	slices.SortStableFunc(keys, func(a, b string) int {
		return btoi(slices.Contains(groups[a], onMain)) - btoi(slices.Contains(groups[b], onMain))
	})
	for _, k := range keys {
		rs := groups[k]
		err := lr.spaceFor(*tests, rs)
		if err == nil {
			continue
		}
		if slices.Contains(rs, onMain) {
			return err
		}
		for _, r := range rs {
			lr.dropRole(tests, r, err)
		}
	}
	return nil
}

// spaceFor checks one filesystem, holding the disks rs.
func (lr *localRun) spaceFor(tests []localTest, rs []role) error {
	d := lr.disks[rs[len(rs)-1]] // main, when it is one of them
	keptFiles, copies := map[kept]bool{}, 0
	for _, t := range tests {
		n := 0
		for _, k := range t.keeps {
			switch {
			case !slices.Contains(rs, k.on):
			case k.copy:
				n++
			default:
				keptFiles[k] = true
			}
		}
		copies = max(copies, n)
	}
	need := int64(len(keptFiles)+copies) * lr.Size
	free, err := lr.Sys.Free(d.real)
	if err != nil {
		return fmt.Errorf("%s: cannot tell the free space (%v): refusing to write", d.dev, err)
	}
	if free < need+lr.Size {
		return fmt.Errorf("%s: %d MiB free, the tests keep up to %d MiB here at once, plus %d MiB to spare: use a smaller --size or fewer tests", d.dev, free/MiB, need/MiB, lr.Size/MiB)
	}
	return nil
}

// fsKey names the filesystem holding d: its device number where the
// system tells it, else its mount point from /proc/mounts, else itself.
func (lr *localRun) fsKey(d *disk) string {
	if fi, err := lr.Sys.Lstat(d.real); err == nil {
		if dev, ok := fileDevice(fi); ok {
			return "dev " + strconv.FormatUint(dev, 10)
		}
	}
	if d.mount.Point != "" {
		return "mount " + d.mount.Point
	}
	return "folder " + d.real
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// makeBench makes a fresh bench folder on d (mode 0700: a share's users
// cannot plant anything in it); checkSpace has checked the space.
func (lr *localRun) makeBench(d *disk) error {
	fi, err := lr.Sys.Lstat(d.real)
	if err != nil || !fi.IsDir() {
		return fmt.Errorf("%s: not a folder: give a folder on the disk to test", d.dev)
	}
	lr.removeStale(d)
	free, err := lr.Sys.Free(d.real)
	if err != nil {
		return fmt.Errorf("%s: cannot tell the free space (%v): refusing to write", d.dev, err)
	}
	name := "userscript-bench." + strconv.Itoa(os.Getpid())
	real := filepath.Join(d.real, name)
	if err := os.Mkdir(real, 0o700); err != nil {
		return fmt.Errorf("%s: %w", path.Join(d.dev, name), err)
	}
	d.bench = path2{dev: path.Join(d.dev, name), real: real}
	lr.say("%s: bench folder %s (%s, %s, %d MiB free)", d.dev, d.bench.dev, orDash(d.mount.Source), orDash(d.mount.FSType), free/MiB)
	return nil
}

// removeStale removes bench folders left by a run that was killed
// (their process is gone); links and files of that name are left alone.
func (lr *localRun) removeStale(d *disk) {
	entries, _ := lr.Sys.ReadDir(d.real)
	for _, e := range entries {
		pid, ok := strings.CutPrefix(e.Name(), "userscript-bench.")
		if !ok || !e.IsDir() || e.Type()&os.ModeSymlink != 0 {
			continue
		}
		if n, err := strconv.Atoi(pid); err != nil || processAlive(n) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(d.real, e.Name())); err == nil {
			lr.say("%s: removed %s, left by an interrupted bench", d.dev, e.Name())
		}
	}
}

// cleanup removes every bench folder this run made.
func (lr *localRun) cleanup() {
	for _, d := range lr.disks {
		if d.bench.real != "" {
			if err := os.RemoveAll(d.bench.real); err != nil {
				lr.say("warning: %s: %v; remove it by hand", d.bench.dev, err)
			}
		}
	}
}

// alignment reports every partition's alignment (and keeps it).
func (lr *localRun) alignment() {
	parts, err := Alignment(lr.Sys)
	if err != nil {
		lr.say("partition alignment: not checked: %v", err)
		return
	}
	lr.report.Partition = parts
	if len(parts) == 0 {
		lr.say("partition alignment: no partitioned disk in /sys/block")
	}
	for _, p := range parts {
		lr.say("partition %s: %s", p.Name, p.Advice)
	}
}

// prepare writes a test's input file when no earlier test did (not
// measured).
func (lr *localRun) prepare(ctx context.Context, d *disk, name string) error {
	if d.prepared[name] {
		return nil
	}
	f := d.file(name)
	lr.say("preparing %s (%d MiB, not measured)", f.dev, lr.Size/MiB)
	ex := lr.run(ctx, []string{"dd", "if=/dev/zero", "of=" + f.real, "bs=1M", "count=" + strconv.FormatInt(lr.Size/MiB, 10)})
	if !ex.OK() {
		return fmt.Errorf("dd of=%s: %s", f.dev, failure(ex))
	}
	d.prepared[name] = true
	return nil
}

// timed runs argv and times it. A write (out is its file) includes the
// final sync, and its progress is shown on a terminal.
func (lr *localRun) timed(ctx context.Context, n int, test string, argv, shown []string, out *path2) (Result, error) {
	cmd := strings.Join(shown, " ")
	if out != nil {
		cmd += "; sync"
	}
	lr.say("%s run %d/%d: %s", test, n, lr.Runs, cmd)
	stop := func() {}
	if out != nil {
		stop = meter(lr.Out, test, lr.Size, fileSize(out.real))
	}
	started := lr.Sys.Now()
	ex := lr.run(ctx, argv)
	if ex.OK() && out != nil {
		ex = lr.run(ctx, []string{"sync"})
	}
	elapsed := lr.Sys.Now().Sub(started).Seconds()
	stop()
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if !ex.OK() {
		return Result{}, fmt.Errorf("%s: %s", strings.Join(ex.Argv, " "), failure(ex))
	}
	return Result{Time: started, Test: test, Run: n, Seconds: elapsed, Command: cmd}, nil
}

// finish completes a result with the run's metadata and its rate, and
// tells the owner.
func (lr *localRun) finish(r Result) Result {
	r.Device, r.Engine, r.Version, r.Generation = lr.Meta.Device, lr.Meta.Engine, lr.Meta.Version, lr.Meta.Generation
	r.MBPerS = Rate(r.Bytes, r.Seconds)
	lr.say("  %s run %d: %.2f MB/s (%d MiB in %.3f s)", r.Test, r.Run, r.MBPerS, r.Bytes/MiB, r.Seconds)
	return r
}

func failure(ex system.Exec) string {
	if ex.Err != nil {
		return ex.Err.Error()
	}
	return fmt.Sprintf("exit %d: %s", ex.ExitCode, lastLine(ex.Output))
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func fileSize(name string) func() int64 {
	return func() int64 {
		fi, err := os.Stat(name)
		if err != nil {
			return 0
		}
		return fi.Size()
	}
}

var errNoStatfs = errors.New("not supported on this system")

// run runs argv through the System seam, its output kept in a scratch
// file for the messages (hdparm's timings, a failure's last line).
func (lr *localRun) run(ctx context.Context, argv []string) system.Exec {
	dir, err := lr.Sys.MkdirTemp("userscript-bench-out-")
	if err != nil {
		return lr.Sys.Run(ctx, system.Command{Argv: argv})
	}
	defer lr.Sys.RemoveAll(dir)
	return lr.Sys.Run(ctx, system.Command{Argv: argv, Output: filepath.Join(dir, "out")})
}
