package vm

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

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

// smbclient lists the box's shares through the forward of port 445.
func smbclient(t *testing.T, m *Machine) string {
	out, err := exec.Command("smbclient", "-N", "-L", "127.0.0.1", "-p", strconv.Itoa(m.Port(445)), "-m", "SMB3").CombinedOutput()
	if err != nil {
		t.Fatalf("smbclient -L: %v: %s", err, out)
	}
	return string(out)
}

// TestFirmwareBoots: the firmware box comes up as the device does: the
// daemons of rc.d serving, the data disk ext3 at /mnt/ide1, the sh
// engine's poller running under the ROM's BusyBox 1.00, the share
// listed by smbclient through the forward.
func TestFirmwareBoots(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	b := fwBox(t, ctx)
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
	if l := smbclient(t, b.M); !strings.Contains(l, "public") {
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

func TestFirmwarePowerCuts(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Hour)
	defer cancel()
	b := fwBox(t, ctx)
	c := powerCuts(t, ctx, fwCutBox(b), cutsWanted())
	t.Logf("firmware box %s", c)
	for _, p := range c.problems {
		t.Error(p)
	}
}

// waitStatus waits until conf.d/NAME.status says word.
func waitStatus(t *testing.T, ctx context.Context, m *Machine, app, name, word string) string {
	t.Helper()
	end := time.Now().Add(4 * time.Minute)
	for {
		st, _, err := m.Read(ctx, app+"/conf.d/"+name+".status")
		if err != nil {
			t.Fatal(err)
		}
		if Status(st) == word {
			return st
		}
		if time.Now().After(end) {
			t.Fatalf("%s.status never said %s: %s", name, word, st)
		}
		time.Sleep(time.Second)
	}
}

// kernelTuning is a sysctl.conf and a tuning.conf for the guest's NIC
// and first disk, with values the guest's kernel does not have by
// default; read back from the kernel by kernelValues.
func kernelTuning(t *testing.T, ctx context.Context, m *Machine, nic string) (sysctl, tuning string, want map[string]string) {
	sched, err := m.Run(ctx, "cat /sys/block/vda/queue/scheduler")
	if err != nil {
		t.Fatal(err)
	}
	pick := ""
	for _, s := range strings.Fields(sched) {
		if !strings.HasPrefix(s, "[") {
			pick = s
		}
	}
	want = map[string]string{
		"/proc/sys/net/core/rmem_max":             "4194304",
		"/proc/sys/net/ipv4/tcp_rmem":             "8192\t873800\t4194304",
		"/sys/class/net/" + nic + "/tx_queue_len": "2000",
		"/sys/block/vda/queue/read_ahead_kb":      "1024",
		"/sys/block/vda/queue/scheduler":          "[" + pick + "]",
	}
	sysctl = "net.core.rmem_max = 4194304\nnet.ipv4.tcp_rmem = 8192 873800 4194304\n"
	tuning = "txqueuelen " + nic + " = 2000\nsysfs block/vda/queue/read_ahead_kb = 1024\nsysfs block/vda/queue/scheduler = " + pick + "\n"
	return sysctl, tuning, want
}

// kernelValues reads each kernel file of want and says which differ.
func kernelValues(ctx context.Context, m *Machine, want map[string]string) []string {
	var bad []string
	for p, w := range want {
		got, _, _ := m.Read(ctx, p)
		got = strings.TrimSpace(got)
		if strings.HasPrefix(w, "[") {
			if !strings.Contains(got, w) {
				bad = append(bad, p+": "+got+", want "+w)
			}
		} else if got != w {
			bad = append(bad, p+": "+got+", want "+w)
		}
	}
	return bad
}

// TestFirmwareReboots: conf.d (a .merge, an .add, a replacement,
// sysctl.conf, tuning.conf) is live after every real reboot, statuses
// true, the history unchanged by reboots; smbclient through the forward
// sees the edit; a config smbd cannot serve with is REJECTED.
func TestFirmwareReboots(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	b := fwBox(t, ctx)
	rebootProof(t, ctx, rebootBox{
		m: func() *Machine { return b.M }, app: FwRoot + FwApp, reboot: b.Reboot,
		smbConf: FwRoot + "/system/hddapp/etc/samba/smb.conf", exports: FwRoot + "/etc/exports",
		share: "/mnt/ide1/public", exportsWord: "NOT VALIDATED",
		uninstall: func(ctx context.Context) (string, error) { return b.Fw(ctx, "/bin/sh "+FwApp+"/init uninstall") },
	})
}

// A rebootBox is what rebootProof needs of a box.
type rebootBox struct {
	m                func() *Machine
	app              string
	reboot           func(context.Context) error
	smbConf, exports string // live paths
	share            string // a folder for the shares
	exportsWord      string // the status an exports replacement gets
	uninstall        func(context.Context) (string, error)
}

func rebootProof(t *testing.T, ctx context.Context, b rebootBox) {
	app := b.app
	sysctl, tuning, want := kernelTuning(t, ctx, b.m(), "eth0")
	orig := map[string]string{}
	for p := range want {
		v, _, _ := b.m().Read(ctx, p)
		v = strings.TrimSpace(v)
		if i := strings.Index(v, "["); i >= 0 {
			v = v[i : strings.Index(v, "]")+1]
		}
		orig[p] = v
	}
	files := map[string]string{
		"smb.conf.merge": "[global]\nserver string = tuned by userscript\n\n[tuned]\npath = " + b.share + "\ncomment = added by a merge\nread only = yes\nguest ok = yes\n",
		"smb.conf.add":   "\n[appended]\npath = " + b.share + "\ncomment = added by an add\nguest ok = yes\n",
		"exports":        b.share + " 10.0.2.0/24(ro,no_subtree_check)\n",
		"sysctl.conf":    sysctl,
		"tuning.conf":    tuning,
	}
	for name, body := range files {
		if err := b.m().Save(ctx, app+"/conf.d/"+name, body); err != nil {
			t.Fatal(err)
		}
	}
	check := func(when string) string {
		t.Helper()
		waitStatus(t, ctx, b.m(), app, "smb.conf", "OK")
		waitStatus(t, ctx, b.m(), app, "exports", b.exportsWord)
		waitStatus(t, ctx, b.m(), app, "sysctl", "OK")
		waitStatus(t, ctx, b.m(), app, "tuning", "OK")
		if bad := kernelValues(ctx, b.m(), want); len(bad) > 0 {
			t.Errorf("%s: kernel values: %v", when, bad)
		}
		l := smbclient(t, b.m())
		for _, s := range []string{"tuned", "appended"} {
			if !strings.Contains(l, s) {
				t.Errorf("%s: smbclient -L does not show %q:\n%s", when, s, l)
			}
		}
		smbls(t, b.m(), "tuned")
		live, _, _ := b.m().Read(ctx, b.exports)
		if !strings.Contains(live, "10.0.2.0/24") {
			t.Errorf("%s: exports: %q", when, live)
		}
		gens, err := b.m().Run(ctx, "ls "+app+"/state/gen")
		if err != nil {
			t.Fatal(err)
		}
		return gens
	}
	gens := check("after the edit")
	for i := 1; i <= 2; i++ {
		if err := b.reboot(ctx); err != nil {
			t.Fatal(err)
		}
		when := "after reboot " + strconv.Itoa(i)
		if g := check(when); g != gens {
			t.Errorf("%s: the history changed: %q, was %q", when, g, gens)
		}
	}
	// A config testparm accepts but smbd cannot serve with.
	before, _, _ := b.m().Read(ctx, b.smbConf)
	bad := files["smb.conf.merge"] + "\n[global]\ninterfaces = 10.9.9.9/24\nbind interfaces only = yes\n"
	if err := b.m().Save(ctx, app+"/conf.d/smb.conf.merge", bad); err != nil {
		t.Fatal(err)
	}
	st := waitStatus(t, ctx, b.m(), app, "smb.conf", "REJECTED")
	t.Logf("smb.conf.status:\n%s", st)
	if after, _, _ := b.m().Read(ctx, b.smbConf); after != before {
		t.Errorf("the rejected smb.conf was not rolled back:\n%s", after)
	}
	smbls(t, b.m(), "tuned")
	// uninstall puts the kernel's values back.
	if out, err := b.uninstall(ctx); err != nil {
		t.Fatalf("uninstall: %v: %s", err, out)
	}
	if bad := kernelValues(ctx, b.m(), orig); len(bad) > 0 {
		t.Errorf("after uninstall: %v", bad)
	}
}

// smbls connects to a share through the forward and lists it.
func smbls(t *testing.T, m *Machine, share string) {
	t.Helper()
	out, err := exec.Command("smbclient", "-N", "//127.0.0.1/"+share, "-p", strconv.Itoa(m.Port(445)), "-m", "SMB3", "-c", "ls").CombinedOutput()
	if err != nil {
		t.Errorf("smbclient //127.0.0.1/%s -c ls: %v: %s", share, err, out)
	}
}

// mark is a moment in the guest: its uptime and the count of processes
// its kernel has started (the processes line of /proc/stat).
type mark struct {
	ms    float64
	procs int
}

func parseMark(t *testing.T, text string) mark {
	var m mark
	lines := strings.Split(text, "\n")
	if f := strings.Fields(lines[0]); len(f) > 0 {
		s, _ := strconv.ParseFloat(f[0], 64)
		m.ms = s * 1000
	}
	for _, l := range lines {
		if n, ok := strings.CutPrefix(l, "processes "); ok {
			m.procs, _ = strconv.Atoi(n)
		}
	}
	if m.ms == 0 || m.procs == 0 {
		t.Fatalf("not a mark: %q", text)
	}
	return m
}

// TestFirmwareSpeed measures the boot apply on a real boot of the
// firmware box (BusyBox 1.00, the ROM restored: every target written,
// its service restarted) against three cp in the same guest, and the
// share of the whole boot it takes. It prints numbers; it asserts none.
func TestFirmwareSpeed(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	b := fwBox(t, ctx)
	app := FwRoot + FwApp
	files := map[string]string{
		"smb.conf.merge": "[global]\nserver string = speed\n",
		"proftpd.conf":   strings.Replace(mustFw("fw/proftpd.conf"), "IB-NAS4220-B", "speed", 1),
		"exports":        "/mnt/ide1/public 10.0.2.0/24(ro,no_subtree_check)\n",
	}
	for name, body := range files {
		if err := b.M.Save(ctx, app+"/conf.d/"+name, body); err != nil {
			t.Fatal(err)
		}
	}
	waitStatus(t, ctx, b.M, app, "smb.conf", "OK")
	waitStatus(t, ctx, b.M, app, "proftpd.conf", "OK")
	for i := 0; i < 3; i++ {
		if err := b.Reboot(ctx); err != nil {
			t.Fatal(err)
		}
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
		t.Logf("boot %d: init start (apply, 3 targets written, 3 services restarted, poller started) %.0f ms, %d processes; 3 cp %.0f ms, %d processes; kernel start to rc end %.0f ms, of it the firmware's rc %.0f ms (services %.0f ms); init start is %.0f%% of the boot",
			i+1, done.ms-apps0.ms, done.procs-apps0.procs-1, cp1.ms-cp0.ms, cp1.procs-cp0.procs-1,
			done.ms, done.ms-rc0.ms, apps0.ms-rc0.ms, 100*(done.ms-apps0.ms)/done.ms)
	}
}

func mustFw(name string) string {
	b, err := fwFiles.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(b)
}
