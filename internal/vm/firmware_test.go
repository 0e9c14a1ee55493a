package vm

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestFirmwarePowerCuts cuts the power of the firmware box (powerCuts).
func TestFirmwarePowerCuts(t *testing.T) {
	runCuts(t, "firmware box", func(ctx context.Context) *cutBox { return fwCutBox(fwBox(t, ctx)) })
}

// TestFirmwareReboots: the box comes up as the device does; conf.d (a
// .merge, an .add, replacements, sysctl.conf, tuning.conf) is live after
// every real reboot, each service restarted once, statuses true, the
// history unchanged by reboots; real clients through the forwards (SMB,
// FTP) and the guest's NFS client see the edits; a config smbd cannot
// serve with is REJECTED; uninstall puts the kernel's values back. Each
// reboot's apply is timed (fwSpeed).
func TestFirmwareReboots(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	b := fwBox(t, ctx)
	firmwareUp(t, ctx, b)
	rebootProof(t, ctx, rebootBox{
		m: func() *Machine { return b.M }, app: FwRoot + FwApp, reboot: b.Reboot,
		smbConf: FwRoot + "/system/hddapp/etc/samba/smb.conf", exports: FwRoot + "/etc/exports",
		share: "/mnt/ide1/public", exportsWord: "NOT VALIDATED",
		ftpConf: strings.Replace(mustFw("fw/proftpd.conf"), "IB-NAS4220-B", "tuned by userscript", 1),
		// The ROM put every target back: each service once.
		bootRestarts: "nfs proftpd samba",
		speed:        func(i int) { fwSpeed(t, ctx, b, i) },
		uninstall:    func(ctx context.Context) (string, error) { return b.Fw(ctx, "/bin/sh "+FwApp+"/init uninstall") },
	})
}

// fwBox boots a fresh firmware box and waits for its rc to finish.
func fwBox(t *testing.T, ctx context.Context) *FirmwareBox {
	img, dist := setup(t)
	b, err := NewFirmwareBox(t.TempDir(), img, busybox100(t), pkg(t, dist, "armv4"))
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Boot(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("console:\n%s", b.M.Tail())
		}
		b.M.Kill()
	})
	if err := b.WaitBooted(ctx); err != nil {
		t.Fatal(err)
	}
	return b
}

// firmwareUp checks that the firmware box came up as the device does:
// the daemons of rc.d serving, the data disk ext3 at /mnt/ide1, the sh
// engine's poller running under the ROM's BusyBox 1.00, the share
// listed by smbclient through the forward.
func firmwareUp(t *testing.T, ctx context.Context, b *FirmwareBox) {
	ps, err := b.M.Run(ctx, "ps -eo args")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"/usr/sbin/smbd", "proftpd: (accepting connections)", "/usr/sbin/rpc.mountd", "[nfsd]", "lib/engine.sh poll"} {
		if !strings.Contains(ps, d) {
			t.Errorf("no %q after boot:\n%s", d, ps)
		}
	}
	mounts, _ := b.M.Run(ctx, "cat /proc/mounts")
	if !strings.Contains(mounts, "/dev/vdb "+FwRoot+"/mnt/ide1 ext3 rw,relatime,data=ordered") {
		t.Errorf("the data disk is not ext3 at /mnt/ide1:\n%s", mounts)
	}
	exe, err := b.M.Run(ctx, "readlink /proc/$(cat "+FwRoot+FwApp+"/state/poll.pid)/exe")
	if err != nil || strings.TrimSpace(exe) != FwRoot+"/bin/busybox" {
		t.Errorf("the poller runs %q (%v), not the ROM's BusyBox", exe, err)
	}
	if l := smbclient(t, b.M, FwRoot+FwApp); !strings.Contains(l, "public") {
		t.Errorf("smbclient -L does not list the share public:\n%s", l)
	}
}

// fwCutBox is the firmware box as the power-cut loop sees it.
func fwCutBox(b *FirmwareBox) *cutBox {
	merge := func(v int) string {
		return "[global]\nserver string = NAS " + marker(v) + "\n\n[cut]\npath = /mnt/ide1/public\ncomment = " + marker(v) + "\nguest ok = yes\n"
	}
	ftp := func(v int) string {
		fw, _ := fwFiles.ReadFile("fw/proftpd.conf")
		return strings.Replace(string(fw), `"IB-NAS4220-B"`, `"`+marker(v)+`"`, 1)
	}
	return &cutBox{
		name:   "firmware box",
		m:      func() *Machine { return b.M },
		boot:   b.Boot,
		booted: b.WaitBooted,
		app:    FwRoot + FwApp,
		live: map[string]string{
			"smb.conf":     FwRoot + "/system/hddapp/etc/samba/smb.conf",
			"proftpd.conf": FwRoot + "/system/hddapp/etc/proftpd.conf",
		},
		precut: "/run/precut",
		sources: map[string][2]string{
			"smb.conf.merge": {merge(0), merge(1)},
			"proftpd.conf":   {ftp(0), ftp(1)},
		},
		bad: [2]string{"smb.conf.merge", "[global]\ninterfaces = 10.9.9.9/24\nbind interfaces only = yes\nserver string = unservable\n"},
	}
}

// fwSpeed prints what reboot i's apply cost on the firmware box
// (BusyBox 1.00, the ROM restored: every target written, its service
// restarted, the kernel settings applied) against three cp in the same
// guest, and its share of the whole boot. It asserts nothing.
func fwSpeed(t *testing.T, ctx context.Context, b *FirmwareBox, i int) {
	read := func(name string) mark {
		s, _, err := b.M.Read(ctx, FwRoot+"/tmp/"+name)
		if err != nil {
			t.Fatal(err)
		}
		return parseMark(t, s)
	}
	rc0, apps0, done := read("boot.rc0"), read("boot.apps0"), read("boot.done")
	// Three cp of the same files, in the firmware root, under the same
	// BusyBox; the marks cost one cat each, as in rc.
	out, err := b.Fw(ctx, "cat /proc/uptime /proc/stat >/tmp/cp0; cp /system/hddapp/etc/samba/smb.conf /tmp/a; cp /system/hddapp/etc/proftpd.conf /tmp/b; cp /etc/exports /tmp/c; cat /proc/uptime /proc/stat >/tmp/cp1")
	if err != nil {
		t.Fatal(out, err)
	}
	cp0, cp1 := read("cp0"), read("cp1")
	t.Logf("boot %d: init start (apply: 3 targets written, 3 services restarted, kernel settings; poller started) %.0f ms, %d processes; 3 cp %.0f ms, %d processes; kernel start to rc end %.0f ms, of it the firmware's rc %.0f ms (services %.0f ms); init start is %.0f%% of the boot",
		i, done.ms-apps0.ms, done.procs-apps0.procs-1, cp1.ms-cp0.ms, cp1.procs-cp0.procs-1,
		done.ms, done.ms-rc0.ms, apps0.ms-rc0.ms, 100*(done.ms-apps0.ms)/done.ms)
}

func mustFw(name string) string {
	b, err := fwFiles.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(b)
}
