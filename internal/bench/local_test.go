package bench

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nas-userscript/userscript/internal/system"
)

func newLocal(n *fakeNAS, out *bytes.Buffer, tests ...string) *Local {
	return &Local{Sys: n.sys, Dir: "/mnt/ide1", Size: MiB, Runs: 2, Tests: tests, Out: out,
		Meta: Meta{Device: DeviceName(n.sys), Engine: "go", Version: "test", Generation: "7"}}
}

// The default tests run for real (dd, cp, sync) on the three disks of
// a fake NAS: one row per test and run, with the devices and filesystems
// from /proc/mounts; a missing hdparm is a skip with its reason; the
// page cache warning is given when drop_caches cannot be written and RAM
// is unknown; every bench folder is gone afterwards.
func TestLocalDefaultRun(t *testing.T) {
	onlyTools(t, "dd", "cp", "sync")
	n := newFakeNAS(t)
	var out bytes.Buffer
	rep, err := newLocal(n, &out).Run(context.Background())
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	want := []string{"ZeroNull", "S1", "L1Null", "L2DD", "S3", "USB1-out", "USBWriteOnly1", "USBReadOnly1", "USB1-in"}
	var got []string
	for _, r := range rep.Results {
		if r.Run == 1 {
			got = append(got, r.Test)
		}
		if r.Bytes != MiB || r.MBPerS <= 0 || r.Device != "IB-NAS4220-B" || r.Generation != "7" || r.Engine != "go" {
			t.Errorf("row %+v", r)
		}
	}
	if !slices.Equal(got, want) || len(rep.Results) != 2*len(want) {
		t.Fatalf("tests %v (%d rows), want %v twice\n%s", got, len(rep.Results), want, out.String())
	}
	rows := map[string]Result{}
	for _, r := range rep.Results {
		rows[r.Test] = r
	}
	for test, w := range map[string][3]string{
		"ZeroNull":     {"/dev/zero", "/dev/null", "-"},
		"S1":           {"/dev/zero", "/dev/sda1", "ext3"},
		"L2DD":         {"/dev/sda1", "/dev/null", "ext3"},
		"S3":           {"/dev/sda1", "/dev/sdb1", "ext3->ext2"},
		"USB1-out":     {"/dev/sda1", "/dev/sdc1", "ext3->vfat"},
		"USBReadOnly1": {"/dev/sdc1", "/dev/null", "vfat"},
		"USB1-in":      {"/dev/sdc1", "/dev/sda1", "vfat->ext3"},
	} {
		r := rows[test]
		if [3]string{r.Source, r.Destination, r.Filesystem} != w {
			t.Errorf("%s: %s -> %s (%s), want %v", test, r.Source, r.Destination, r.Filesystem, w)
		}
	}
	if c := rows["S1"].Command; !strings.HasPrefix(c, "dd if=/dev/zero of=/mnt/ide1/userscript-bench.") || !strings.HasSuffix(c, "/bench.dat bs=1M count=1; sync") {
		t.Errorf("S1 command %q", c)
	}
	if c := rows["L2DD"].Command; !strings.HasSuffix(c, "/bench.dat of=/dev/null") {
		t.Errorf("L2DD command %q: want the page's dd if=FILE of=/dev/null", c)
	}
	if len(rep.Skipped) != 1 || rep.Skipped[0].Test != "L3hdparm" || rep.Skipped[0].Reason != "hdparm not found on this device" {
		t.Errorf("skipped %+v", rep.Skipped)
	}
	if !strings.Contains(out.String(), "L3hdparm: skipped: hdparm not found on this device") {
		t.Errorf("no skip line:\n%s", out.String())
	}
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "reads may come from the page cache") {
		t.Errorf("warnings %q", rep.Warnings)
	}
	for _, d := range []string{"/mnt/ide1", "/mnt/ide2", "/mnt/usb disk"} {
		if left := n.benchFolders(t, d); len(left) > 0 {
			t.Errorf("left behind: %v", left)
		}
	}
}

// Where drop_caches can be written, it is written (after a sync) before
// reads and no warning is given; a file larger than RAM needs no drop.
func TestLocalDropCaches(t *testing.T) {
	onlyTools(t, "dd", "cp", "sync")
	n := newFakeNAS(t)
	n.write(t, "/proc/sys/vm/drop_caches", "")
	var out bytes.Buffer
	rep, err := newLocal(n, &out, "L1Null").Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(n.path("/proc/sys/vm/drop_caches")); string(data) != "3\n" || len(rep.Warnings) > 0 {
		t.Errorf("drop_caches %q, warnings %q", data, rep.Warnings)
	}

	n2 := newFakeNAS(t)
	n2.write(t, "/proc/meminfo", "MemTotal:         512 kB\nMemFree: 100 kB\n")
	out.Reset()
	rep, err = newLocal(n2, &out, "L2DD").Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Warnings) > 0 || !strings.Contains(out.String(), "larger than RAM (0 MiB): reads come from the disk") {
		t.Errorf("warnings %q\n%s", rep.Warnings, out.String())
	}
}

// Tests run only as named: S2 and UrandomNull never by default, USB1
// selects both directions, an unknown name is refused with the list.
func TestLocalSelection(t *testing.T) {
	onlyTools(t, "dd", "cp", "sync")
	n := newFakeNAS(t)
	var out bytes.Buffer
	rep, err := newLocal(n, &out, "S2", "USB1").Run(context.Background())
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	var tests []string
	for _, r := range rep.Results {
		if r.Run == 1 {
			tests = append(tests, r.Test)
		}
	}
	if !slices.Equal(tests, []string{"USB1-out", "USB1-in", "S2"}) {
		t.Errorf("ran %v", tests)
	}
	_, err = newLocal(n, &out, "S4").Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), `unknown test "S4": the tests are ZeroNull, UrandomNull, S1`) {
		t.Errorf("S4: %v", err)
	}
}

// Less than the file S1 keeps plus one test size free: refused before anything is
// written. A second disk that is missing skips S3 with the reason.
func TestLocalRefusals(t *testing.T) {
	onlyTools(t, "dd", "cp", "sync")
	n := newFakeNAS(t)
	var out bytes.Buffer
	l := newLocal(n, &out, "S1")
	l.Size = 1 << 40
	if _, err := l.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "the tests keep up to 1048576 MiB here at once, plus 1048576 MiB to spare: use a smaller --size or fewer tests") {
		t.Errorf("1 TiB: %v", err)
	}
	if left := n.benchFolders(t, "/mnt/ide1"); len(left) > 0 {
		t.Errorf("made %v", left)
	}
	n.write(t, "/proc/self/mounts", "/dev/sda1 /mnt/ide1 ext3 rw 0 0\n")
	rep, err := newLocal(n, &out, "S3", "S1").Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Skipped) != 1 || rep.Skipped[0].Reason != "needs a second disk (--dir2 DIR); none is mounted" {
		t.Errorf("skipped %+v", rep.Skipped)
	}
}

// interrupter is the device, except that the first dd writing into a
// bench folder writes part of its file and then the owner presses
// Ctrl-C: the context ends while dd runs.
type interrupter struct {
	system.System
	cancel context.CancelFunc
}

func (i *interrupter) Run(ctx context.Context, c system.Command) system.Exec {
	argv := c.Argv
	if argv[0] == "dd" && strings.Contains(strings.Join(argv, " "), "userscript-bench.") {
		of := strings.TrimPrefix(argv[2], "of=")
		os.WriteFile(of, make([]byte, 4096), 0o644)
		i.cancel()
		<-ctx.Done()
		return system.Exec{Argv: argv, ExitCode: -1, Err: ctx.Err()}
	}
	return i.System.Run(ctx, c)
}

// Ctrl-C in the middle of a write: the run ends with the context's
// error, no results, and the bench folders removed.
func TestLocalInterrupt(t *testing.T) {
	onlyTools(t, "dd", "cp", "sync")
	n := newFakeNAS(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out bytes.Buffer
	l := newLocal(n, &out, "S1", "S3")
	l.Sys = &interrupter{System: n.sys, cancel: cancel}
	rep, err := l.Run(ctx)
	if !errors.Is(err, context.Canceled) || rep != nil {
		t.Fatalf("%v, %v", rep, err)
	}
	for _, d := range []string{"/mnt/ide1", "/mnt/ide2"} {
		if left := n.benchFolders(t, d); len(left) > 0 {
			t.Errorf("left behind: %v", left)
		}
	}
}

// A bench folder left by a killed run (its pid gone) is removed at the
// next start; a link of that name (planted by a share user) is not
// followed or touched.
func TestLocalStaleFolder(t *testing.T) {
	onlyTools(t, "dd", "cp", "sync")
	n := newFakeNAS(t)
	cmd := exec.Command("dd", "if=/dev/null", "of=/dev/null")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := strconv.Itoa(cmd.Process.Pid)
	stale := filepath.Join(n.path("/mnt/ide1"), "userscript-bench."+dead)
	n.write(t, "/mnt/ide1/userscript-bench."+dead+"/bench.dat", "old")
	victim := t.TempDir()
	os.WriteFile(filepath.Join(victim, "keep"), []byte("x"), 0o644)
	link := filepath.Join(n.path("/mnt/ide1"), "userscript-bench.1")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := newLocal(n, &out, "S1").Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale folder still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(victim, "keep")); err != nil {
		t.Errorf("followed the planted link: %v", err)
	}
	if _, err := os.Lstat(link); err != nil {
		t.Errorf("removed the link: %v", err)
	}
}

// smallDisk is the device with every filesystem reporting free bytes.
type smallDisk struct {
	system.System
	free int64
}

func (s smallDisk) Free(string) (int64, error) { return s.free, nil }

// Defect: S1 S2 USB1 --runs 2 passed the "twice the size free" check
// disk by disk and then filled the data disk: S1's and S2's files, the
// USB disk's file (--usb on the same filesystem) and a copy are kept at
// once. The check adds up everything kept on each filesystem; a plan
// that fits still runs.
func TestLocalFreeSpaceCoversEverythingKept(t *testing.T) {
	onlyTools(t, "dd", "cp", "sync")
	n := newFakeNAS(t)
	os.MkdirAll(n.path("/mnt/ide1/usb"), 0o755)
	var out bytes.Buffer
	l := newLocal(n, &out, "S1", "S2", "USB1")
	l.USB, l.Size = "/mnt/ide1/usb", 4*MiB
	l.Sys = smallDisk{System: n.sys, free: 10 * MiB}
	_, err := l.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "/mnt/ide1: 10 MiB free, the tests keep up to 16 MiB here at once, plus 4 MiB to spare: use a smaller --size or fewer tests") {
		t.Errorf("%v\n%s", err, out.String())
	}
	if strings.Contains(out.String(), " run 1/") {
		t.Errorf("ran anyway:\n%s", out.String())
	}
	if left := n.benchFolders(t, "/mnt/ide1"); len(left) > 0 {
		t.Errorf("made %v", left)
	}
	out.Reset()
	l = newLocal(n, &out, "S1")
	l.Size = 4 * MiB
	l.Sys = smallDisk{System: n.sys, free: 10 * MiB}
	if _, err := l.Run(context.Background()); err != nil {
		t.Errorf("S1 alone, 4 MiB of 10: %v\n%s", err, out.String())
	}
}
