package vm

import (
	"context"
	"strings"
	"testing"
	"time"
)

// sdBox boots a fresh systemd box and installs userscript on it.
func sdBox(t *testing.T, ctx context.Context) *SystemdBox {
	img, dist := setup(t)
	b, err := NewSystemdBox(t.TempDir(), img, pkg(t, dist, "amd64"))
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
	if out, err := b.Install(ctx); err != nil {
		t.Fatal(err)
	} else {
		t.Logf("install: %s", out)
	}
	if err := b.WaitBooted(ctx); err != nil {
		t.Fatal(err)
	}
	return b
}

func sdCutBox(b *SystemdBox) *cutBox {
	merge := func(v int) string {
		return "[global]\nserver string = NAS " + marker(v) + "\n\n[cut]\npath = /srv\ncomment = " + marker(v) + "\nguest ok = yes\n"
	}
	ftp := func(v int) string {
		fw, _ := fwFiles.ReadFile("fw/proftpd.conf")
		s := strings.Replace(string(fw), `"IB-NAS4220-B"`, `"`+marker(v)+`"`, 1)
		return strings.Replace(s, "DefaultRoot /mnt/ide1/public", "DefaultRoot ~", 1)
	}
	return &cutBox{
		name:   "systemd box",
		m:      func() *Machine { return b.M },
		boot:   b.Boot,
		booted: b.WaitBooted,
		app:    SdApp,
		live: map[string]string{
			"smb.conf":     "/etc/samba/smb.conf",
			"proftpd.conf": "/etc/proftpd/proftpd.conf",
		},
		precut: "/run/precut",
		precutLive: map[string]string{
			"smb.conf":     "/run/precut/live/smb.conf",
			"proftpd.conf": "/run/precut/live/proftpd.conf",
		},
		sources: map[string][2]string{
			"smb.conf.merge": {merge(0), merge(1)},
			"proftpd.conf":   {ftp(0), ftp(1)},
		},
		bad: [2]string{"smb.conf.merge", "[global]\ninterfaces = 10.9.9.9/24\nbind interfaces only = yes\nserver string = unservable\n"},
	}
}

func TestSystemdPowerCuts(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Hour)
	defer cancel()
	b := sdBox(t, ctx)
	c := powerCuts(t, ctx, sdCutBox(b), cutsWanted())
	t.Logf("systemd box %s", c)
	for _, p := range c.problems {
		t.Error(p)
	}
}

// TestSystemdReboots: the same proof on the systemd box with the Go
// engine.
func TestSystemdReboots(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	b := sdBox(t, ctx)
	rebootProof(t, ctx, rebootBox{
		m: func() *Machine { return b.M }, app: SdApp, reboot: b.Reboot,
		smbConf: "/etc/samba/smb.conf", exports: "/etc/exports",
		share: "/srv", exportsWord: "OK",
		uninstall: func(ctx context.Context) (string, error) { return b.M.Run(ctx, SdApp+"/bin/userscript uninstall") },
	})
}
