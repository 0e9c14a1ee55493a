package vm

import (
	"context"
	"strconv"
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
	// The unit waits at boot for the file servers userscript restarts:
	// one still starting would be taken for one that is down (a cut
	// found it: an smb.conf smbd cannot serve with went live as OK).
	after, _, err := b.M.Exec(ctx, "systemctl show -p After --value userscript.service")
	if err != nil || !strings.Contains(after, "smbd.service") || !strings.Contains(after, "proftpd.service") {
		t.Fatalf("userscript.service is not ordered after smbd.service and proftpd.service: After=%s %v", after, err)
	}
	return b
}

// sdFtp is the firmware box's proftpd.conf with Debian's home folders.
var sdFtp = strings.Replace(mustFw("fw/proftpd.conf"), "DefaultRoot /mnt/ide1/public", "DefaultRoot ~", 1)

func sdCutBox(b *SystemdBox) *cutBox {
	merge := func(v int) string {
		return "[global]\nserver string = NAS " + marker(v) + "\n\n[cut]\npath = /srv\ncomment = " + marker(v) + "\nguest ok = yes\n"
	}
	ftp := func(v int) string {
		return strings.Replace(sdFtp, `"IB-NAS4220-B"`, `"`+marker(v)+`"`, 1)
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
	runCuts(t, "systemd box", func(ctx context.Context) *cutBox { return sdCutBox(sdBox(t, ctx)) })
}

// TestSystemdReboots: the same proof on the systemd box with the Go
// engine.
func TestSystemdReboots(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	b := sdBox(t, ctx)
	rebootProof(t, ctx, rebootBox{
		m: func() *Machine { return b.M }, app: SdApp, reboot: b.Reboot,
		smbConf: "/etc/samba/smb.conf", exports: "/etc/exports",
		share: "/srv", exportsWord: "OK",
		ftpConf: strings.Replace(sdFtp, "IB-NAS4220-B", "tuned by userscript", 1),
		// /etc keeps the applied files: nothing to restart.
		bootRestarts: "",
		uninstall:    func(ctx context.Context) (string, error) { return b.M.Run(ctx, SdApp+"/bin/userscript uninstall") },
	})
}

// TestSystemdSpeed measures the Go engine's apply on the systemd box:
// the three targets put back as the distribution ships them (what a
// firmware restore or a package upgrade does), then `userscript apply`
// (three targets written and validated, three services restarted and
// proved) against three cp of the same files, three rounds, and the
// box's boot (kernel start to systemd's FinishTimestampMonotonic) for
// scale: at boot the Go engine finds /etc as it left it and writes
// nothing. It prints numbers; it asserts none.
func TestSystemdSpeed(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	b := sdBox(t, ctx)
	targets := "/etc/samba/smb.conf /etc/proftpd/proftpd.conf /etc/exports"
	if out, err := b.M.Run(ctx, "mkdir -p /root/orig && cp -p "+targets+" /root/orig/"); err != nil {
		t.Fatal(out, err)
	}
	files := map[string]string{
		"smb.conf.merge": "[global]\nserver string = speed\n",
		"proftpd.conf":   strings.Replace(sdFtp, "IB-NAS4220-B", "speed", 1),
		"exports":        "/srv 10.0.2.0/24(ro,no_subtree_check)\n",
	}
	for name, body := range files {
		if err := b.M.Save(ctx, SdApp+"/conf.d/"+name, body); err != nil {
			t.Fatal(err)
		}
	}
	for _, tg := range []string{"smb.conf", "proftpd.conf", "exports"} {
		waitStatus(t, ctx, b.M, SdApp, tg, "OK")
	}
	fin, err := b.M.Run(ctx, "systemctl show -P FinishTimestampMonotonic")
	if err != nil {
		t.Fatal(err)
	}
	bootUs, _ := strconv.ParseFloat(strings.TrimSpace(fin), 64)
	for i := 1; i <= 3; i++ {
		out, err := b.M.Run(ctx, `set -e
systemctl stop userscript
cp /root/orig/smb.conf /etc/samba/smb.conf; cp /root/orig/proftpd.conf /etc/proftpd/proftpd.conf; cp /root/orig/exports /etc/exports
sync
cat /proc/uptime /proc/stat >/run/a0
`+SdApp+`/bin/userscript apply >/run/apply.out 2>&1
cat /proc/uptime /proc/stat >/run/a1
cp /etc/samba/smb.conf /run/c1; cp /etc/proftpd/proftpd.conf /run/c2; cp /etc/exports /run/c3
cat /proc/uptime /proc/stat >/run/cpdone
systemctl start userscript`)
		if err != nil {
			t.Fatal(out, err)
		}
		read := func(name string) mark {
			s, _, err := b.M.Read(ctx, "/run/"+name)
			if err != nil {
				t.Fatal(err)
			}
			return parseMark(t, s)
		}
		a0, a1, cp := read("a0"), read("a1"), read("cpdone")
		t.Logf("round %d: userscript apply (3 targets written, 3 services restarted and proved) %.0f ms, %d processes; 3 cp %.0f ms, %d processes; kernel start to systemd's boot finished %.0f ms (the apply would be %.0f%% of it)",
			i, a1.ms-a0.ms, a1.procs-a0.procs-1, cp.ms-a1.ms, cp.procs-a1.procs-1, bootUs/1000, 100*(a1.ms-a0.ms)/(bootUs/1000))
	}
}
