package bench

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// A disk role: which disk a test reads or writes besides /dev/null and
// /dev/zero.
type role int

const (
	onNone   role = iota
	onMain        // the disk of --dir
	onSecond      // the second disk (S3)
	onUSB         // the USB disk
)

// A localTest is one of the page's test scripts.
type localTest struct {
	name   string
	named  bool   // runs only when named: S2 and UrandomNull take half an hour on the IcyBox
	writes bool   // writes a file to a disk (and syncs)
	tool   string // the program it runs (a write needs sync too)
	disks  []role // every disk it writes to or reads from
	keeps  []kept // the files it leaves (or finds) on the disks
	run    func(ctx context.Context, lr *localRun, run int) ([]Result, error)
}

// A kept file is one a test needs on a disk: kept to the end of the run
// (written, or prepared for reading), or a copy removed right after.
type kept struct {
	on   role
	file string
	copy bool
}

// Files the tests share, in each disk's bench folder.
const (
	mainFile   = "bench.dat"        // S1 writes it; L1Null, L2DD, S3, USB1-out read it
	usbFile    = "bench-usb.dat"    // USBWriteOnly1 writes it; USBReadOnly1, USB1-in read it
	randomFile = "bench-random.dat" // S2
)

// localTests are the page's tests in the order they run.
func localTests() []localTest {
	return []localTest{
		{name: "ZeroNull", tool: "dd", run: func(ctx context.Context, lr *localRun, n int) ([]Result, error) {
			return lr.dd(ctx, n, "ZeroNull", "/dev/zero", "/dev/null", nil, nil)
		}},
		{name: "UrandomNull", named: true, tool: "dd", run: func(ctx context.Context, lr *localRun, n int) ([]Result, error) {
			return lr.dd(ctx, n, "UrandomNull", "/dev/urandom", "/dev/null", nil, nil)
		}},
		{name: "S1", writes: true, tool: "dd", disks: []role{onMain}, keeps: []kept{{onMain, mainFile, false}}, run: func(ctx context.Context, lr *localRun, n int) ([]Result, error) {
			return lr.dd(ctx, n, "S1", "/dev/zero", mainFile, nil, lr.disk(onMain))
		}},
		{name: "L1Null", tool: "cp", disks: []role{onMain}, keeps: []kept{{onMain, mainFile, false}}, run: func(ctx context.Context, lr *localRun, n int) ([]Result, error) {
			return lr.cp(ctx, n, "L1Null", lr.disk(onMain), mainFile, nil)
		}},
		{name: "L2DD", tool: "dd", disks: []role{onMain}, keeps: []kept{{onMain, mainFile, false}}, run: func(ctx context.Context, lr *localRun, n int) ([]Result, error) {
			return lr.dd(ctx, n, "L2DD", mainFile, "/dev/null", lr.disk(onMain), nil)
		}},
		{name: "L3hdparm", tool: "hdparm", disks: []role{onMain}, run: hdparm},
		{name: "S3", writes: true, tool: "cp", disks: []role{onMain, onSecond}, keeps: []kept{{onMain, mainFile, false}, {onSecond, mainFile, true}}, run: func(ctx context.Context, lr *localRun, n int) ([]Result, error) {
			return lr.cp(ctx, n, "S3", lr.disk(onMain), mainFile, lr.disk(onSecond))
		}},
		{name: "USB1-out", writes: true, tool: "cp", disks: []role{onMain, onUSB}, keeps: []kept{{onMain, mainFile, false}, {onUSB, mainFile, true}}, run: func(ctx context.Context, lr *localRun, n int) ([]Result, error) {
			return lr.cp(ctx, n, "USB1-out", lr.disk(onMain), mainFile, lr.disk(onUSB))
		}},
		{name: "USBWriteOnly1", writes: true, tool: "dd", disks: []role{onUSB}, keeps: []kept{{onUSB, usbFile, false}}, run: func(ctx context.Context, lr *localRun, n int) ([]Result, error) {
			return lr.dd(ctx, n, "USBWriteOnly1", "/dev/zero", usbFile, nil, lr.disk(onUSB))
		}},
		{name: "USBReadOnly1", tool: "dd", disks: []role{onUSB}, keeps: []kept{{onUSB, usbFile, false}}, run: func(ctx context.Context, lr *localRun, n int) ([]Result, error) {
			return lr.dd(ctx, n, "USBReadOnly1", usbFile, "/dev/null", lr.disk(onUSB), nil)
		}},
		{name: "USB1-in", writes: true, tool: "cp", disks: []role{onMain, onUSB}, keeps: []kept{{onUSB, usbFile, false}, {onMain, usbFile, true}}, run: func(ctx context.Context, lr *localRun, n int) ([]Result, error) {
			return lr.cp(ctx, n, "USB1-in", lr.disk(onUSB), usbFile, lr.disk(onMain))
		}},
		{name: "S2", named: true, writes: true, tool: "dd", disks: []role{onMain}, keeps: []kept{{onMain, randomFile, false}}, run: func(ctx context.Context, lr *localRun, n int) ([]Result, error) {
			return lr.dd(ctx, n, "S2", "/dev/urandom", randomFile, nil, lr.disk(onMain))
		}},
	}
}

// TestNames are the names `bench run` accepts: a name selects the tests
// called so and its variants (USB1 selects USB1-out and USB1-in).
func TestNames() []string {
	var names []string
	for _, t := range localTests() {
		names = append(names, t.name)
	}
	return append(names, "USB1")
}

// selects reports whether the name the owner gave picks test t.
func selects(name string, t localTest) bool {
	return name == t.name || strings.HasPrefix(t.name, name+"-")
}

// dd runs `dd if=IN of=OUT bs=1M count=N` (a file name is in its disk's
// bench folder). A read is `dd if=FILE of=/dev/null` as on the page (dd's
// default block size), after the caches were dropped; a write includes
// the final sync.
func (lr *localRun) dd(ctx context.Context, n int, test, in, out string, from, to *disk) ([]Result, error) {
	inPath, outPath := path2{dev: in, real: in}, path2{dev: out, real: out}
	if from != nil {
		inPath = from.file(in)
		if err := lr.prepare(ctx, from, in); err != nil {
			return nil, err
		}
		lr.dropCaches(ctx)
	}
	if to != nil {
		outPath = to.file(out)
	}
	argv := []string{"dd", "if=" + inPath.real, "of=" + outPath.real}
	shown := []string{"dd", "if=" + inPath.dev, "of=" + outPath.dev}
	if from == nil {
		count := "count=" + strconv.FormatInt(lr.Size/MiB, 10)
		argv = append(argv, "bs=1M", count)
		shown = append(shown, "bs=1M", count)
	}
	var written *path2
	if to != nil {
		written = &outPath
	}
	res, err := lr.timed(ctx, n, test, argv, shown, written)
	if err != nil {
		return nil, err
	}
	if to != nil {
		to.prepared[out] = true
	}
	res.Bytes = lr.Size
	res.Source, res.Destination, res.Filesystem = endpoints(in, from, out, to)
	return []Result{lr.finish(res)}, nil
}

// cp runs `cp FILE DIR/` (or to /dev/null when to is nil), after the
// caches were dropped; a copy to a disk includes the final sync and its
// copy is removed afterwards.
func (lr *localRun) cp(ctx context.Context, n int, test string, from *disk, name string, to *disk) ([]Result, error) {
	if err := lr.prepare(ctx, from, name); err != nil {
		return nil, err
	}
	lr.dropCaches(ctx)
	src := from.file(name)
	dst := path2{dev: "/dev/null", real: "/dev/null"}
	if to != nil {
		dst = to.file(name)
		defer lr.Sys.Remove(dst.real)
	}
	var written *path2
	if to != nil {
		written = &dst
	}
	res, err := lr.timed(ctx, n, test, []string{"cp", src.real, dst.real}, []string{"cp", src.dev, dst.dev}, written)
	if err != nil {
		return nil, err
	}
	res.Bytes = lr.Size
	res.Source, res.Destination, res.Filesystem = endpoints(name, from, "/dev/null", to)
	return []Result{lr.finish(res)}, nil
}

// endpoints are a result's source and destination (a device, or
// /dev/zero, /dev/null) and the filesystem(s) the test used.
func endpoints(in string, from *disk, out string, to *disk) (src, dst, fs string) {
	src, dst = in, out
	var fss []string
	if from != nil {
		src = from.mount.Source
		fss = append(fss, from.mount.FSType)
	}
	if to != nil {
		dst = to.mount.Source
		fss = append(fss, to.mount.FSType)
	}
	fs = strings.Join(fss, "->")
	return orDash(src), orDash(dst), orDash(fs)
}

var hdparmLine = regexp.MustCompile(`Timing (cached|buffer-cache|buffered disk) reads:\s+([0-9.]+)\s+MB in\s+([0-9.]+)\s+seconds`)

// hdparm runs `hdparm -tT DISK` and gives two results: L3hdparm (buffered
// disk reads, the disk's speed) and L3hdparm-cache (cached reads, the
// memory and CPU); hdparm's MB are 2^20 bytes.
func hdparm(ctx context.Context, lr *localRun, n int) ([]Result, error) {
	d := lr.disk(onMain)
	dev := d.mount.Source
	if d.name != "" {
		dev = "/dev/" + d.name
	}
	if !strings.HasPrefix(dev, "/dev/") {
		return nil, fmt.Errorf("%s is not on a disk (%s)", d.dev, orDash(dev))
	}
	argv := []string{"hdparm", "-tT", lr.Sys.Root(dev)}
	lr.say("L3hdparm run %d/%d: hdparm -tT %s", n, lr.Runs, dev)
	started := lr.Sys.Now()
	ex := lr.run(ctx, argv)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !ex.OK() {
		return nil, fmt.Errorf("hdparm -tT %s: %s", dev, failure(ex))
	}
	var out []Result
	for _, m := range hdparmLine.FindAllStringSubmatch(ex.Output, -1) {
		mb, _ := strconv.ParseFloat(m[2], 64)
		secs, _ := strconv.ParseFloat(m[3], 64)
		test := "L3hdparm"
		if m[1] != "buffered disk" {
			test = "L3hdparm-cache"
		}
		bytes := int64(math.Round(mb * MiB))
		out = append(out, lr.finish(Result{Time: started, Test: test, Run: n, Bytes: bytes, Seconds: secs,
			Command: "hdparm -tT " + dev, Source: dev, Destination: "-", Filesystem: "-"}))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("hdparm -tT %s: no timing in its output: %s", dev, lastLine(ex.Output))
	}
	return out, nil
}
