package bench

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// L3hdparm runs the real hdparm -tT on a loop device standing in for
// the NAS's disk and turns its two timings into two rows, in 2^20-byte
// MB as hdparm counts them.
func TestLocalHdparm(t *testing.T) {
	if _, err := exec.LookPath("hdparm"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("hdparm is not installed; .ci/run must install it")
		}
		t.Skip("hdparm is not installed")
	}
	// 256 MiB (sparse): hdparm -t reads the whole of a small device, and
	// 16 MiB from the page cache took "0.00 seconds" on an idle machine.
	img := filepath.Join(t.TempDir(), "disk.img")
	if err := os.WriteFile(img, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, 256*MiB); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("losetup", "--find", "--show", img).CombinedOutput()
	if err != nil {
		t.Skipf("no loop device here (needs root and /dev/loop-control): %v: %s", err, out)
	}
	loop := strings.TrimSpace(string(out))
	t.Cleanup(func() { exec.Command("losetup", "-d", loop).Run() })
	name := filepath.Base(loop)

	n := newFakeNAS(t)
	n.write(t, "/proc/self/mounts", loop+" /mnt/ide1 ext3 rw 0 0\n")
	n.write(t, "/sys/block/"+name+"/size", "524288\n")
	if err := os.MkdirAll(n.path("/dev"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(loop, n.path(loop)); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	l := newLocal(n, &buf, "L3hdparm")
	l.Runs = 1
	rep, err := l.Run(context.Background())
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if len(rep.Results) != 2 {
		t.Fatalf("results %+v\n%s", rep.Results, buf.String())
	}
	for i, test := range []string{"L3hdparm-cache", "L3hdparm"} {
		r := rep.Results[i]
		if r.Test != test || r.Bytes < MiB || r.Bytes%MiB != 0 || r.Seconds <= 0 || r.Command != "hdparm -tT "+loop || r.Source != loop {
			t.Errorf("row %d: %+v", i, r)
		}
	}
}

// hdparm's output, old and new: the page's 2008 hdparm says
// "buffer-cache", today's "cached".
func TestHdparmLine(t *testing.T) {
	page := "/dev/hda:\n Timing buffer-cache reads:   280 MB in  2.00 seconds = 140.00 MB/sec\n Timing buffered disk reads:   62 MB in  3.04 seconds =  20.39 MB/sec\n"
	m := hdparmLine.FindAllStringSubmatch(page, -1)
	if len(m) != 2 || m[0][1] != "buffer-cache" || m[1][2] != "62" || m[1][3] != "3.04" {
		t.Fatalf("%q", m)
	}
	if r := Rate(62*MiB, 3.04); r < 20.39 || r > 20.40 {
		t.Errorf("rate %.3f, want hdparm's 20.39", r)
	}
}
