package livetest

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nas-userscript/userscript/internal/firmsim"
)

// shares lists the disk shares smbd serves on port, as smbclient sees
// them.
func shares(port int) (string, error) {
	out, err := exec.Command("smbclient", "-L", "//127.0.0.1", "-p", fmt.Sprint(port), "-N", "-g").CombinedOutput()
	return string(out), err
}

func serves(port int, share string) (bool, string) {
	out, err := shares(port)
	return err == nil && strings.Contains(out, "Disk|"+share+"|"), out
}

// A share added in conf.d goes live while smbd runs; a broken edit is
// refused and smbd keeps serving; an edit that passes testparm but leaves
// smbd unable to serve is rolled back and marked REJECTED.
func TestSambaLive(t *testing.T) {
	need(t, "smbd", "smbclient", "testparm")
	nas, err := firmsim.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	smbd, err := nas.UseSmbd()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(smbd.Stop)
	if err := nas.RunServices("start"); err != nil {
		t.Fatal(err)
	}
	if err := smbd.WaitListening(20e9); err != nil {
		t.Fatal(err)
	}
	app := filepath.Join(nas.Root, firmsim.AppsDir, "userscript")
	writeFile(t, filepath.Join(app, "userscript.toml"), fmt.Sprintf(`profile = "nas4220b"
[services.samba]
ports = [%d]
process = ""
timeout = "8s"
`, smbd.Port))
	writeFile(t, filepath.Join(app, "conf.d/README.md"), "sources go here\n")
	startDaemon(t, nas.Root, app)
	live := filepath.Join(nas.Root, firmsim.SmbConf)
	addFile := filepath.Join(app, "conf.d/smb.conf.add")

	// 1. A new share, saved while everything runs.
	writeFile(t, addFile, "\n[media]\n\tpath = "+nas.Mnt+"\n\tguest ok = yes\n")
	eventually(t, "smbclient lists [media]", func() (bool, string) { return serves(smbd.Port, "media") })
	eventually(t, "status OK", func() (bool, string) { w := statusWord(app, "smb.conf"); return w == "OK", w })

	// 2. A broken section header: refused, the old config keeps serving.
	before := readFile(t, live)
	writeFile(t, addFile, "\n[media\n\tpath = /tmp\n")
	eventually(t, "status REFUSED", func() (bool, string) { w := statusWord(app, "smb.conf"); return w == "REFUSED", w })
	if readFile(t, live) != before {
		t.Fatal("a refused source changed the live smb.conf")
	}
	if ok, out := serves(smbd.Port, "media"); !ok {
		t.Fatalf("smbd stopped serving after a refused edit:\n%s", out)
	}

	// 3. Valid for testparm, but smbd moves off its port: health fails,
	// the previous file comes back and smbd serves it again.
	other, _ := firmsim.FreePort()
	writeFile(t, addFile, fmt.Sprintf("\n[media]\n\tpath = %s\n\tguest ok = yes\n[global]\n\tsmb ports = %d\n[media2]\n\tpath = /tmp\n", nas.Mnt, other))
	eventually(t, "status REJECTED", func() (bool, string) { w := statusWord(app, "smb.conf"); return w == "REJECTED", w })
	if got := readFile(t, live); got != before {
		t.Fatalf("live smb.conf after the rollback:\n%s\nwant:\n%s", got, before)
	}
	eventually(t, "smbd serves the old config again", func() (bool, string) { return serves(smbd.Port, "media") })
	if ok, _ := serves(smbd.Port, "media2"); ok {
		t.Fatal("the rejected share is served")
	}
	st := readFile(t, filepath.Join(app, "conf.d/smb.conf.status"))
	if !strings.Contains(st, "did not prove healthy") || !strings.Contains(st, fmt.Sprint(smbd.Port)) {
		t.Errorf("status does not say why:\n%s", st)
	}
}
