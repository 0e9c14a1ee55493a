package pkgtest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nas-userscript/userscript/internal/firmsim"
)

// TestDSMSmbConfNeedsTestparm proves that on a DiskStation without
// testparm where the dsm profile looks for it, an smb.conf is refused
// and the live one left alone, never applied unchecked: with the sh
// engine (DSM 5) and the Go engine (DSM 6).
func TestDSMSmbConfNeedsTestparm(t *testing.T) {
	for _, tc := range []struct{ target, version string }{
		{"dsm5", "5.2-5967"},
		{"dsm6", "6.2-25556"},
	} {
		t.Run(tc.target, func(t *testing.T) {
			t.Parallel()
			spk := dist(t, tc.target)
			d := newDSM(t, tc.version)
			app := d.App()
			logOnFail(t, filepath.Join(app, "state"))
			if err := os.Remove(filepath.Join(d.Root, firmsim.DSMTestparm(d.Major))); err != nil {
				t.Fatal(err)
			}
			stock, _ := d.Live(firmsim.DSMSmbConf(d.Major))
			if err := d.Boot(); err != nil {
				t.Fatal(err)
			}
			if err := d.Install(spk); err != nil {
				t.Fatalf("install: %v", err)
			}
			d.ClearCalls()
			writeFile(t, filepath.Join(app, "conf.d", "smb.conf"), userSmbConf)
			p := filepath.Join(app, "conf.d", "smb.conf.status")
			refused := func() bool {
				b, _ := os.ReadFile(p)
				return strings.HasPrefix(string(b), "status: REFUSED") && strings.Contains(string(b), "testparm is not on this device")
			}
			if !eventually(dsmWait, refused) {
				b, _ := os.ReadFile(p)
				t.Fatalf("smb.conf.status:\n%s\nwant REFUSED: testparm is not on this device", b)
			}
			if got, _ := d.Live(firmsim.DSMSmbConf(d.Major)); got != stock {
				t.Errorf("live smb.conf changed without testparm:\n%s", got)
			}
			samba, _ := firmsim.DSMRestarts(d.Major)
			if slices.Contains(d.Calls(), samba) {
				t.Errorf("calls %q: Samba restarted for a refused smb.conf", d.Calls())
			}
		})
	}
}

// TestDSMShareConf proves the DSM 6 and 7 split of smb.conf ([global])
// and smb.share.conf (the shares, which DSM writes from its share
// database at every boot and share edit): a conf.d/smb.conf with a share
// section gets a status note saying where shares go, and a
// conf.d/smb.share.conf is put back over DSM's after a share edit in
// Control Panel and after a reboot.
func TestDSMShareConf(t *testing.T) {
	spk := dist(t, "dsm6")
	d := newDSM(t, "6.2-25556")
	app := d.App()
	logOnFail(t, filepath.Join(app, "state"))
	if err := d.Boot(); err != nil {
		t.Fatal(err)
	}
	if err := d.Install(spk); err != nil {
		t.Fatalf("install: %v", err)
	}
	withShare := "[global]\n\tworkgroup = OWNER\n[public]\n\tpath = /volume1/public\n"
	writeFile(t, filepath.Join(app, "conf.d", "smb.conf"), withShare)
	p := filepath.Join(app, "conf.d", "smb.conf.status")
	noted := func() bool {
		b, _ := os.ReadFile(p)
		return strings.Contains(string(b), "has share sections ([public])") && strings.Contains(string(b), "conf.d/smb.share.conf")
	}
	if !eventually(dsmWait, noted) {
		b, _ := os.ReadFile(p)
		t.Fatalf("smb.conf.status:\n%s\nwant a note on the share section [public]", b)
	}

	shares := "[public]\n\tpath=/volume1/public\n\tbrowseable=yes\n\twritable=yes\n\tstrict sync = no\n"
	writeFile(t, filepath.Join(app, "conf.d", "smb.share.conf"), shares)
	back := func() bool { got, _ := d.Live(firmsim.DSMShareConf); return got == shares }
	if !eventually(dsmWait, back) {
		got, _ := d.Live(firmsim.DSMShareConf)
		t.Fatalf("live smb.share.conf:\n%s\nwant:\n%s", got, shares)
	}
	if err := d.EditShare("media", "/volume1/media"); err != nil {
		t.Fatal(err)
	}
	if !eventually(dsmWait, back) {
		got, _ := d.Live(firmsim.DSMShareConf)
		t.Fatalf("after a share edit in Control Panel, live smb.share.conf:\n%s\nwant the owner's again:\n%s", got, shares)
	}
	// DSM's new file, with the new share, is kept for the owner to take
	// over.
	kept := func() bool {
		for _, dir := range []string{".firmware", ".captured"} {
			m, _ := filepath.Glob(filepath.Join(app, "conf.d", dir, "smb.share.conf*"))
			for _, f := range m {
				if b, _ := os.ReadFile(f); strings.Contains(string(b), "[media]") {
					return true
				}
			}
		}
		return false
	}
	if !eventually(dsmWait, kept) {
		t.Errorf("DSM's new smb.share.conf (with [media]) is kept nowhere in conf.d/.firmware or .captured")
	}
	if err := d.Reboot(); err != nil {
		t.Fatal(err)
	}
	if !eventually(dsmWait, back) {
		got, _ := d.Live(firmsim.DSMShareConf)
		t.Fatalf("after a reboot, live smb.share.conf:\n%s\nwant the owner's again:\n%s", got, shares)
	}
}

// TestDSM6ARMv5 proves the DSM 6 package serves an ARMv5 DiskStation
// (88f6281, DSM 6.2 on Linux 2.6.32, older than the 3.2 Go needs): the
// install puts no Go engine in the share, the sh engine applies the
// owner's smb.conf with DSM 6's paths and restarts Samba with DSM 6's
// rc script.
func TestDSM6ARMv5(t *testing.T) {
	spk := dist(t, "dsm6")
	d := newDSM(t, "6.2-25556")
	d.Platform = "88f6281"
	app := d.App()
	logOnFail(t, filepath.Join(app, "state"))
	writeFile(t, filepath.Join(d.Root, "proc", "sys", "kernel", "osrelease"), "2.6.32.12\n")
	if err := d.Boot(); err != nil {
		t.Fatal(err)
	}
	if err := d.Install(spk); err != nil {
		t.Fatalf("install: %v", err)
	}
	if _, err := os.Stat(filepath.Join(app, "bin", "userscript")); err == nil {
		t.Error("the install put the Go engine on a 2.6.32 kernel")
	}
	d.ClearCalls()
	writeFile(t, filepath.Join(app, "conf.d", "smb.conf"), userSmbConf)
	waitLive(t, d, strings.ReplaceAll(userSmbConf, "\r\n", "\n"))
	sambaRestarted(t, d)
	checkedByTestparm(t, d)
	if len(pollers(app)) == 0 {
		t.Errorf("no sh engine poller runs")
	}
}
