package vm

import (
	"archive/tar"
	"bytes"
	"context"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/nas-userscript/userscript/internal/firmsim"
)

//go:embed fw
var fwFiles embed.FS

// Paths in the firmware box. The guest's agent runs outside the firmware
// root, which is mounted at FwRoot; FwApp is the app dir seen from
// inside it.
const (
	FwRoot = "/mnt"
	FwApp  = "/mnt/ide1/public/applications/userscript"
	// DataOptions are the data disk's mount options: ext3 as on the
	// device, journal in ordered mode (the 2.6.15 default).
	DataOptions = "data=ordered"
	// FwSettings is the owner's userscript.toml on the firmware box: a
	// poll every 2 s instead of 5, and 30 s instead of 60 for Samba to
	// prove healthy: a config smbd cannot serve with waits that long
	// before it is rolled back, a good one proves healthy well within
	// it. Both shorten what the tests wait for.
	FwSettings = "poll_interval = \"2s\"\n\n[services.samba]\ntimeout = \"30s\"\n"
)

// A FirmwareBox is the IB-NAS4220-B path: Debian's kernel, the
// firmware's root restored from a ROM tarball at every boot, an ext3
// data disk at /mnt/ide1 holding the armv4 package, the firmware's rc
// and every shell after it BusyBox 1.00 with only the allowed applets.
type FirmwareBox struct {
	Dir   string
	Image *Image
	Data  string // the data disk (ext3), kept across boots and cuts
	Tools string // the run's disk: the guest program, boot script, ROM
	M     *Machine
}

// NewFirmwareBox lays out the disks: busybox is the BusyBox 1.00 binary,
// pkg the armv4 package (.tgz), unpacked into public/applications as the
// web GUI does.
func NewFirmwareBox(dir string, img *Image, busybox, pkg string) (*FirmwareBox, error) {
	b := &FirmwareBox{Dir: dir, Image: img, Data: filepath.Join(dir, "data.img"), Tools: filepath.Join(dir, "tools.img")}
	tools := filepath.Join(dir, "tools")
	if err := os.MkdirAll(tools, 0o755); err != nil {
		return nil, err
	}
	if err := BuildGuest(tools); err != nil {
		return nil, err
	}
	boot, _ := fwFiles.ReadFile("fw/boot.sh")
	files := map[string]string{
		"boot":         "#!/bin/sh\nexec /run/tools/guest init /run/tools/boot.sh\n",
		"boot.sh":      string(boot),
		"agent":        "#!/bin/sh\nexec /run/tools/guest agent\n",
		"data-options": DataOptions + "\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(tools, name), []byte(body), 0o755); err != nil {
			return nil, err
		}
	}
	rom, err := ROM(busybox)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(tools, "rom.tar"), rom, 0o644); err != nil {
		return nil, err
	}
	if err := MakeDisk(b.Tools, "ext2", 64, tools, "vmtools"); err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	apps := filepath.Join(data, "public", "applications")
	if err := os.MkdirAll(apps, 0o777); err != nil {
		return nil, err
	}
	if out, err := exec.Command("tar", "-xzf", pkg, "-C", apps).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("unpack %s: %v: %s", pkg, err, out)
	}
	if _, err := os.Stat(filepath.Join(apps, "userscript", "init")); err != nil {
		return nil, fmt.Errorf("%s: no userscript/init in it", pkg)
	}
	if err := os.WriteFile(filepath.Join(apps, "userscript", "userscript.toml"), []byte(FwSettings), 0o644); err != nil {
		return nil, err
	}
	return b, MakeDisk(b.Data, "ext3", 128, data, "ide1")
}

// ROM is the firmware's root as a tarball: BusyBox (bb) with the allowed
// applets in /bin, the system files and rc.d scripts of fw/, and the
// folders the daemons use; /usr is Debian's, mounted by boot.sh.
func ROM(bb string) ([]byte, error) {
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	t0 := time.Unix(0, 0)
	dir := func(name string, mode int64) {
		w.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: mode, ModTime: t0})
	}
	link := func(name, to string) {
		w.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: name, Linkname: to, Mode: 0o777, ModTime: t0})
	}
	file := func(name string, body []byte, mode int64) {
		w.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Size: int64(len(body)), Mode: mode, ModTime: t0})
		w.Write(body)
	}
	for _, d := range []string{"bin", "sbin", "etc", "usr", "proc", "sys", "dev", "run", "var", "var/lib",
		"var/log", "var/cache", "mnt", "mnt/ide1", "root", "system", "system/hddapp", "system/hddapp/etc",
		"system/hddapp/etc/samba", "system/hddapp/etc/rc.d"} {
		dir(d, 0o755)
	}
	dir("tmp", 0o1777)
	link("lib", "usr/lib")
	link("lib64", "usr/lib64")
	link("var/run", "../run")
	body, err := os.ReadFile(bb)
	if err != nil {
		return nil, fmt.Errorf("BusyBox 1.00: %w", err)
	}
	file("bin/busybox", body, 0o755)
	for _, a := range append([]string{"sh"}, firmsim.AllowedApplets...) {
		link("bin/"+a, "busybox")
	}
	// The validators the firmware has (firmsim puts them on PATH too).
	link("bin/testparm", "/usr/bin/testparm")
	link("bin/proftpd", "/usr/sbin/proftpd")
	file("etc/exports", nil, 0o644)
	// Samba's RPC helper (samba-dcerpcd: share lists) reads the default
	// config path, not smbd's -s.
	dir("etc/samba", 0o755)
	link("etc/samba/smb.conf", "/"+firmsim.SmbConf)
	file("etc/hosts", []byte("127.0.0.1 localhost nas\n"), 0o644)
	err = fs.WalkDir(fwFiles, "fw", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, _ := fwFiles.ReadFile(p)
		rel := strings.TrimPrefix(p, "fw/")
		switch {
		case rel == "boot.sh":
		case rel == "smb.conf":
			file(firmsim.SmbConf, body, 0o644)
		case rel == "proftpd.conf":
			file(firmsim.ProftpdConf, body, 0o644)
		case strings.HasPrefix(rel, "rc.d/"):
			file(firmsim.RCDir+"/"+strings.TrimPrefix(rel, "rc.d/"), body, 0o755)
		default:
			file("etc/"+rel, body, 0o755)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Boot starts the box from its disks (the root a snapshot: nothing the
// guest writes to it outlives qemu, as the ROM is restored anyway) and
// waits for the agent; the firmware's rc may still be running.
func (b *FirmwareBox) Boot(ctx context.Context) error {
	m, err := Start(ctx, Config{
		Dir: b.Dir, Image: b.Image,
		Append:   "root=/dev/vda ro console=ttyS0 init=/sbin/vm-init net.ifnames=0 panic=1 mitigations=off",
		Drives:   []Drive{{Path: b.Image.Root, Snapshot: true}, {Path: b.Data}, {Path: b.Tools}},
		Forwards: []int{445, 21, 2049},
		// One core, as the IB-NAS4220-B's ARM.
		CPUs: 1,
	})
	if err != nil {
		return err
	}
	b.M = m
	return m.WaitAgent(ctx)
}

// WaitBooted waits until the firmware's rc has run every application's
// init start.
func (b *FirmwareBox) WaitBooted(ctx context.Context) error {
	if _, err := b.M.Run(ctx, "@wait "+FwRoot+"/tmp/boot.done"); err != nil {
		return fmt.Errorf("the firmware's rc did not finish: %w; console: %s", err, b.M.Tail())
	}
	return nil
}

// Fw runs script inside the firmware root under its BusyBox 1.00 with
// only its applets on PATH, as the firmware's own scripts run.
func (b *FirmwareBox) Fw(ctx context.Context, script string) (string, error) {
	return b.M.Run(ctx, "HD_MNT_POINT=/mnt/ide1 PATH=/bin exec /usr/sbin/chroot "+FwRoot+" /bin/sh -c "+quote(script))
}

// Shutdown is an orderly power-off: the applications' init stop, the
// services stopped, the data disk written and unmounted.
func (b *FirmwareBox) Shutdown(ctx context.Context) error {
	b.M.Run(ctx, "/usr/sbin/chroot "+FwRoot+" /bin/sh /etc/rc.shutdown >/dev/console 2>&1")
	b.M.Exec(ctx, "sync; umount "+FwRoot+"/mnt/ide1; echo o >/proc/sysrq-trigger")
	return b.M.Wait(ctx)
}

// Reboot is Shutdown, then Boot and WaitBooted.
func (b *FirmwareBox) Reboot(ctx context.Context) error {
	if err := b.Shutdown(ctx); err != nil {
		return err
	}
	if err := b.Boot(ctx); err != nil {
		return err
	}
	return b.WaitBooted(ctx)
}

// quote makes s one word for a POSIX shell.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
