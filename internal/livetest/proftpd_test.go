package livetest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nas-userscript/userscript/internal/firmsim"
)

// banner connects like an FTP client and returns the server's greeting.
func banner(port int) (string, error) {
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 2*time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(3 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	fmt.Fprintf(c, "QUIT\r\n")
	return strings.TrimSpace(line), err
}

func greets(port int, want string) (bool, string) {
	b, err := banner(port)
	if err != nil {
		return false, err.Error()
	}
	return strings.HasPrefix(b, "220 ") && strings.Contains(b, want), b
}

// The same three cases as for Samba, with ProFTPD: a tuning edit goes
// live, a typo is refused by proftpd -t, and a config that moves the
// daemon off its port is rolled back.
func TestProftpdLive(t *testing.T) {
	need(t, "proftpd", "busybox")
	nas, err := firmsim.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	port, err := nas.UseProftpd()
	if err != nil {
		t.Fatal(err)
	}
	stub := filepath.Join(nas.Root, firmsim.RCDir, "S91proftpd.sh")
	t.Cleanup(func() { exec.Command("sh", stub, "stop").Run() })
	if err := nas.RunServices("start"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "proftpd greets", func() (bool, string) { return greets(port, "") })

	app := filepath.Join(nas.Root, firmsim.AppsDir, "userscript")
	writeFile(t, filepath.Join(app, "userscript.toml"), fmt.Sprintf(`profile = "nas4220b"
[services.proftpd]
ports = [%d]
process = ""
timeout = "8s"
`, port))
	writeFile(t, filepath.Join(app, "conf.d/README.md"), "sources go here\n")
	startDaemon(t, nas.Root, app)
	live := filepath.Join(nas.Root, firmsim.ProftpdConf)
	addFile := filepath.Join(app, "conf.d/proftpd.conf.add")

	// 1. The seed's tuning plus a greeting we can see from a client.
	writeFile(t, addFile, "IdentLookups off\nUseReverseDNS off\nServerIdent on \"tuned by userscript\"\n")
	eventually(t, "the new greeting", func() (bool, string) { return greets(port, "tuned by userscript") })
	eventually(t, "status OK", func() (bool, string) { w := statusWord(app, "proftpd.conf"); return w == "OK", w })

	// 2. A typo in a directive: proftpd -t refuses it with its line.
	before := readFile(t, live)
	writeFile(t, addFile, "IdentLookups off\nUseReverseDNSS off\n")
	eventually(t, "status REFUSED", func() (bool, string) { w := statusWord(app, "proftpd.conf"); return w == "REFUSED", w })
	if readFile(t, live) != before {
		t.Fatal("a refused source changed the live proftpd.conf")
	}
	st := readFile(t, filepath.Join(app, "conf.d/proftpd.conf.status"))
	if !strings.Contains(st, "UseReverseDNSS") {
		t.Errorf("status does not name the bad directive:\n%s", st)
	}
	if ok, b := greets(port, "tuned by userscript"); !ok {
		t.Fatalf("proftpd stopped serving after a refused edit: %s", b)
	}

	// 3. A whole new proftpd.conf that passes proftpd -t but listens
	// elsewhere (ProFTPD keeps the first Port, so it takes a replacement):
	// rejected and rolled back to the tuned file.
	other, _ := firmsim.FreePort()
	moved := strings.Replace(before, fmt.Sprintf("Port %d", port), fmt.Sprintf("Port %d", other), 1)
	writeFile(t, filepath.Join(app, "conf.d/proftpd.conf"), moved)
	os.Remove(addFile)
	eventually(t, "status REJECTED", func() (bool, string) { w := statusWord(app, "proftpd.conf"); return w == "REJECTED", w })
	if got := readFile(t, live); got != before {
		t.Fatalf("live proftpd.conf after the rollback:\n%s", got)
	}
	eventually(t, "the old greeting again", func() (bool, string) { return greets(port, "tuned by userscript") })
}
