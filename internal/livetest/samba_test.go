package livetest

import (
	"fmt"
	"net"
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
	need(t, "smbd", "smbclient", "testparm", "busybox")
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

// The owner restricts Samba to one address of the device (interfaces +
// bind interfaces only, as for the LAN): the health check dials the
// address the new smb.conf names, so the valid change is applied and not
// REJECTED for no longer answering on 127.0.0.1.
func TestSambaBoundToAddress(t *testing.T) {
	need(t, "smbd", "smbclient", "testparm", "busybox")
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
	writeFile(t, filepath.Join(app, "userscript.toml"), fmt.Sprintf("profile = \"nas4220b\"\n[services.samba]\nports = [%d]\nprocess = \"\"\ntimeout = \"15s\"\nsettle = \"1s\"\n", smbd.Port))
	bound := strings.Replace(smbd.Global(), "interfaces = lo", "interfaces = 127.0.0.2/8", 1)
	writeFile(t, filepath.Join(app, "conf.d/smb.conf"), "[global]\n"+bound+"\n[media]\n\tpath = "+nas.Mnt+"\n\tguest ok = yes\n")
	out, err := exec.Command(userscript, "--root", nas.Root, "--app", app, "apply").CombinedOutput()
	if err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	if w := statusWord(app, "smb.conf"); w != "OK" {
		t.Fatalf("status %s\n%s", w, readFile(t, filepath.Join(app, "conf.d/smb.conf.status")))
	}
	lst, err := exec.Command("smbclient", "-L", "//127.0.0.2", "-p", fmt.Sprint(smbd.Port), "-N", "-g").CombinedOutput()
	if err != nil || !strings.Contains(string(lst), "Disk|media|") {
		t.Errorf("smbd does not serve [media] on 127.0.0.2: %v\n%s", err, lst)
	}
	if c, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", fmt.Sprint(smbd.Port))); err == nil {
		c.Close()
		t.Errorf("smbd still answers on 127.0.0.1: the test proves nothing")
	}
}
