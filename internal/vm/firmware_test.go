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

func TestFirmwareBoots(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	b := fwBox(t, ctx)
	out, err := b.M.Run(ctx, "ps -eo pid,args; ls -la "+FwRoot+FwApp+"/conf.d "+FwRoot+FwApp+"/state; cat "+FwRoot+"/proc/mounts")
	t.Logf("%s %v", out, err)
	if !strings.Contains(out, "smbd") {
		t.Errorf("no smbd after boot")
	}
	t.Log(smbclient(t, b.M))
	t.Log(b.M.Tail())
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
