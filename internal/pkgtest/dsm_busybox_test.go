package pkgtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nas-userscript/userscript/internal/firmsim"
)

// TestDSM5OldBusyBox proves the DSM 2-5 package works where DSM 2-5 put
// it: its Package Center scripts, init and the sh engine under BusyBox
// 1.00, 1.2.0 and 1.7.2 (the sh engine's test matrix) and Debian's, each
// with a PATH holding only that BusyBox's applets (the engine's allowed
// ones). Install makes the share, the poller applies an edit in it, and
// uninstall gives DSM's smb.conf back and leaves conf.d.
func TestDSM5OldBusyBox(t *testing.T) {
	for _, tag := range append(append([]string{}, oldBusyBoxTags...), "debian") {
		t.Run(tag, func(t *testing.T) {
			t.Parallel()
			spk := dist(t, "dsm5")
			d := newDSM(t, "5.2-5967")
			if tag != "debian" {
				d.Bin, d.Shell = oldBusyBoxPath(t, tag)
			}
			app := d.App()
			logOnFail(t, filepath.Join(app, "state"))
			stock, _ := d.Live(firmsim.DSMSmbConf(5))
			if err := d.Boot(); err != nil {
				t.Fatal(err)
			}
			if err := d.Install(spk); err != nil {
				t.Fatalf("install: %v", err)
			}
			writeFile(t, filepath.Join(app, "conf.d", "smb.conf"), userSmbConf)
			waitLive(t, d, strings.ReplaceAll(userSmbConf, "\r\n", "\n"))
			sambaRestarted(t, d)
			if code, out := d.Status("userscript"); code != 0 {
				t.Fatalf("status %d %q, want 0", code, out)
			}
			if err := d.Uninstall("userscript"); err != nil {
				t.Fatalf("uninstall: %v", err)
			}
			if got, _ := d.Live(firmsim.DSMSmbConf(5)); got != stock {
				t.Errorf("after uninstall, live smb.conf:\n%s\nwant DSM's own:\n%s", got, stock)
			}
			if src, _ := os.ReadFile(filepath.Join(app, "conf.d", "smb.conf")); string(src) != userSmbConf {
				t.Errorf("uninstall changed conf.d/smb.conf: %q", src)
			}
			if !eventually(dsmWait, func() bool { return len(pollers(app)) == 0 }) {
				t.Errorf("pollers left after uninstall: %v", pollers(app))
			}
		})
	}
}
