package bench

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
)

// Each partition's start comes from /sys/block under the root: 63 (the
// old DOS default) is flagged with the advice, 8 is 4 KiB-aligned only,
// 2048 and 4096 are aligned to 1 MiB.
func TestAlignment(t *testing.T) {
	n := newFakeNAS(t)
	parts, err := Alignment(n.sys)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Partition{}
	for _, p := range parts {
		got[p.Name] = p
	}
	if len(got) != 4 {
		t.Fatalf("partitions %+v, want sda1 sdb1 sdc1 sdd1", parts)
	}
	if p := got["sda1"]; p.Aligned4K || p.Start != 63 || !strings.HasPrefix(p.Advice, "NOT ALIGNED") || !strings.Contains(p.Advice, "sector 2048") {
		t.Errorf("sda1: %+v", p)
	}
	if p := got["sdc1"]; !p.Aligned4K || p.Aligned1M || !strings.Contains(p.Advice, "4 KiB") {
		t.Errorf("sdc1: %+v", p)
	}
	if p := got["sdb1"]; !p.Aligned1M || !strings.HasPrefix(p.Advice, "aligned") {
		t.Errorf("sdb1: %+v", p)
	}
}

// Start sectors beyond 32 bits (a 4 TB disk) are judged right.
func TestJudgeLargeStart(t *testing.T) {
	if p := judge("sda", "sda9", 7814035456); !p.Aligned1M {
		t.Errorf("%+v", p)
	}
	if p := judge("sda", "sda9", 7814035457); p.Aligned4K {
		t.Errorf("%+v", p)
	}
}

// The disk of a folder is the longest mount point above it; the second
// and USB disks are found among the other writable disk mounts (the
// read-only CD and the root are never picked).
func TestMounts(t *testing.T) {
	n := newFakeNAS(t)
	ms, err := readMounts(n.sys)
	if err != nil {
		t.Fatal(err)
	}
	m, ok := mountOf(ms, "/mnt/ide1/public/x")
	if !ok || m.Source != "/dev/sda1" || m.FSType != "ext3" {
		t.Errorf("mountOf /mnt/ide1/public/x = %+v", m)
	}
	if m, _ := mountOf(ms, "/mnt/ide10"); m.Point != "/" {
		t.Errorf("mountOf /mnt/ide10 = %+v, want the root", m)
	}
	main := &disk{name: diskOf(n.sys, "/dev/sda1")}
	if main.name != "sda" || diskOf(n.sys, "/dev/sdc") != "sdc" || diskOf(n.sys, "tmpfs") != "" {
		t.Errorf("diskOf: %q", main.name)
	}
	if got := findMount(n.sys, ms, main, false); got != "/mnt/ide2" {
		t.Errorf("second disk %q, want /mnt/ide2", got)
	}
	if got := findMount(n.sys, ms, main, true); got != "/mnt/usb disk" {
		t.Errorf("USB disk %q, want /mnt/usb disk", got)
	}
}

// On kernels before 2.6.25 /sys/block/sdX is a folder, and its device
// link tells the USB disk.
func TestUSBOldKernel(t *testing.T) {
	n := newFakeNAS(t)
	n.write(t, "/sys/block/sde/size", "100\n")
	n.write(t, "/sys/devices/pci0/usb2/2-1/host3/target3:0:0/3:0:0:0/vendor", "IBM\n")
	if err := os.Symlink("../../devices/pci0/usb2/2-1/host3/target3:0:0/3:0:0:0", n.path("/sys/block/sde/device")); err != nil {
		t.Fatal(err)
	}
	if !isUSB(n.sys, "sde") || isUSB(n.sys, "sda") || !isUSB(n.sys, "sdc") {
		t.Error("USB detection")
	}
}

// A test that writes needs sync as well: without it, skipped.
func TestLocalNeedsSync(t *testing.T) {
	onlyTools(t, "dd", "cp")
	n := newFakeNAS(t)
	var out bytes.Buffer
	rep, err := newLocal(n, &out, "S1", "ZeroNull").Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Skipped) != 1 || rep.Skipped[0].Test != "S1" || rep.Skipped[0].Reason != "sync not found on this device" || len(rep.Results) != 2 {
		t.Errorf("%+v", rep)
	}
}
