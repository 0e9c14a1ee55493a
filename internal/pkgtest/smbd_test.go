package pkgtest

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nas-userscript/userscript/internal/firmsim"
)

// TestSmbdServesUserShare proves the change reaches a real Samba: after a
// simulated boot with a conf.d/smb.conf that adds a share, the smbd that
// S80samba.sh restarted lists that share to smbclient.
func TestSmbdServesUserShare(t *testing.T) {
	needRoot(t)
	need(t, "smbd", "smbclient", "busybox")
	n := installed(t)
	smbd, err := n.UseSmbd()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(smbd.Stop)
	share := filepath.Join(n.Mnt, "public", "tuned")
	conf := "[global]\r\n" + smbd.Global() +
		"\tgetwd cache = yes\r\n\tuse sendfile = yes\r\n" +
		"[tuned]\r\n\tpath = " + share + "\r\n\tguest ok = yes\r\n\tcomment = added by conf.d\r\n"
	writeFile(t, filepath.Join(n.AppDir("userscript"), "conf.d", "smb.conf"), conf)
	writeFile(t, filepath.Join(share, "hello.txt"), "hello\n")

	if err := n.Boot(firmsim.ServicesFirst); err != nil {
		t.Fatal(err)
	}
	if err := smbd.WaitListening(20 * time.Second); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("smbclient", "-N", "-L", "127.0.0.1", "-p", strconv.Itoa(smbd.Port)).CombinedOutput()
	if err != nil {
		t.Fatalf("smbclient -L: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "tuned") {
		t.Fatalf("smbclient -L does not list the share from conf.d:\n%s", out)
	}
}
