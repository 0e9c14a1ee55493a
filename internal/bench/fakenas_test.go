package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/nas-userscript/userscript/internal/system"
)

// fakeNAS is a device root laid out like an IcyBox with two internal
// disks and a USB disk: /proc/self/mounts, /sys/block (links into
// /sys/devices, the USB disk's through a usb bus) and the mount points
// as plain folders on the test machine's disk.
type fakeNAS struct {
	root string
	sys  *system.Real
}

func newFakeNAS(t *testing.T) *fakeNAS {
	t.Helper()
	n := &fakeNAS{root: t.TempDir()}
	n.sys = system.NewReal(n.root)
	n.write(t, "/proc/self/mounts", `rootfs / rootfs rw 0 0
/dev/sda1 /mnt/ide1 ext3 rw,noatime 0 0
/dev/sdb1 /mnt/ide2 ext2 rw 0 0
/dev/sdc1 /mnt/usb\040disk vfat rw,fmask=0022 0 0
/dev/sdd1 /mnt/cdrom iso9660 ro 0 0
`)
	n.write(t, "/proc/sys/kernel/hostname", "IB-NAS4220-B\n")
	for _, d := range []struct{ disk, bus, part, start string }{
		{"sda", "pci0/ata1", "sda1", "63"},
		{"sdb", "pci0/ata2", "sdb1", "2048"},
		{"sdc", "pci0/usb1/1-1/1-1:1.0/host2/target2:0:0/2:0:0:0", "sdc1", "8"},
		{"sdd", "pci0/ata3", "sdd1", "4096"},
	} {
		dev := "/sys/devices/" + d.bus + "/block/" + d.disk
		n.write(t, dev+"/"+d.part+"/start", d.start+"\n")
		n.write(t, dev+"/size", "1000000\n")
		rel, _ := filepath.Rel(n.path("/sys/block"), n.path(dev))
		os.MkdirAll(n.path("/sys/block"), 0o755)
		if err := os.Symlink(rel, n.path("/sys/block/"+d.disk)); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"/mnt/ide1", "/mnt/ide2", "/mnt/usb disk", "/mnt/cdrom"} {
		if err := os.MkdirAll(n.path(d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return n
}

func (n *fakeNAS) path(dev string) string { return n.sys.Root(dev) }

func (n *fakeNAS) write(t *testing.T, dev, content string) {
	t.Helper()
	p := n.path(dev)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// benchFolders lists the bench folders left in a disk folder.
func (n *fakeNAS) benchFolders(t *testing.T, dev string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(n.path(dev), "userscript-bench.*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// onlyTools makes PATH hold only the named programs (linked from the
// host), as on a device that lacks the others.
func onlyTools(t *testing.T, tools ...string) {
	t.Helper()
	dir := t.TempDir()
	for _, tool := range tools {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("%s is not installed", tool)
		}
		if err := os.Symlink(p, filepath.Join(dir, tool)); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
}
