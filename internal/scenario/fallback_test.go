package scenario

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nas-userscript/userscript/internal/firmsim"
	"github.com/nas-userscript/userscript/internal/systest"
)

// The sh engine's restart fallbacks (lib/profile's fallback lines, the
// dsm profile's rc folders and DSM 7's synopkg), under every BusyBox of
// the matrix: a restart whose program is not on the device is skipped,
// one that fails is followed by the next, the same program in another
// folder is not run twice, the first that succeeds ends it. A `checked`
// smb.conf is checked by the testparm a `tool` line names, and refused
// when there is none (that apply under Debian's BusyBox only: two
// applies under an emulated old one take minutes on a busy machine).
func TestShRestartFallbacks(t *testing.T) {
	eachBusyBox(t, func(t *testing.T, bb string) {
		w := shWorldWith(t, bb)
		host := hostBusyBox(t)
		log := filepath.Join(w.Root, firmsim.RestartLog)
		fail := fmt.Sprintf("#!%s sh\necho \"${0##*/} $*\" >>'%s'\nexit 5\n", host, log)
		ok := fmt.Sprintf("#!%s sh\necho \"${0##*/} $*\" >>'%s'\n", host, log)
		for rel, body := range map[string]string{"sbin/failing": fail, "opt/failing": fail, "sbin/works": ok, "opt/tp/testparm": "#!" + host + " sh\nexit 0\n"} {
			os.MkdirAll(filepath.Dir(filepath.Join(w.Root, rel)), 0o755)
			if err := systest.WriteFile(filepath.Join(w.Root, rel), []byte(body), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		os.Remove(filepath.Join(w.Bin, "testparm"))
		prof := "profile test\n" +
			"target smb.conf /system/hddapp/etc/samba/smb.conf testparm samba nonempty,checked 0644\n" +
			"service samba 60 /nowhere/restart samba\n" +
			"fallback samba /sbin/failing one\nfallback samba /opt/failing again\nfallback samba /sbin/works two\nfallback samba /sbin/works never\n" +
			"health samba 0 - -\n"
		profPath := filepath.Join(w.App, "lib", "profile")
		if err := os.WriteFile(profPath, []byte(prof), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(w.App, "conf.d", "smb.conf"), []byte("[global]\n\tworkgroup = MINE\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if bb == host {
			if code, out, err := (ShEngine{}).Apply(w); err != nil || code == 0 {
				t.Fatalf("apply without testparm: exit %d, %v\n%s", code, err, out)
			}
			if text, err := w.statusText("smb.conf"); err != nil || !strings.Contains(text, "status: REFUSED") || !strings.Contains(text, "testparm is not on this device") {
				t.Errorf("without testparm, smb.conf.status (%v):\n%s\nwant REFUSED: testparm is not on this device", err, text)
			}
		}
		if err := os.WriteFile(profPath, []byte(prof+"tool testparm /opt/tp/testparm\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, out, err := (ShEngine{}).Apply(w); err != nil || code != 0 {
			t.Fatalf("apply: exit %d, %v\n%s", code, err, out)
		}
		if text, _ := w.statusText("smb.conf"); !strings.Contains(text, "status: OK") {
			t.Errorf("with the profile's testparm, smb.conf.status:\n%s\nwant OK", text)
		}
		got, _ := os.ReadFile(log)
		if want := "failing one\nworks two\n"; string(got) != want {
			t.Errorf("restarts:\n%s\nwant:\n%s", got, want)
		}
	})
}
