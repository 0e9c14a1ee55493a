package bench

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

// need skips when a tool is missing, except in CI (.ci/run installs it),
// and when not root (the daemons need it).
func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err == nil {
			continue
		}
		if _, err := os.Stat("/usr/sbin/" + tool); err == nil {
			continue
		}
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed; .ci/run must install it", tool)
		}
		t.Skipf("%s is not installed", tool)
	}
	if os.Geteuid() != 0 {
		t.Skip("real daemons need root here")
	}
}

func sbin(tool string) string {
	if p, err := exec.LookPath(tool); err == nil {
		return p
	}
	return "/usr/sbin/" + tool
}

// startDaemon runs argv in the foreground until the test ends.
func startDaemon(t *testing.T, log string, argv ...string) {
	t.Helper()
	f, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		f.Close()
		if t.Failed() {
			out, _ := os.ReadFile(log)
			t.Logf("%s:\n%s", argv[0], out)
		}
	})
}

// openDir is a folder a daemon's unprivileged user may write to: in
// /var/tmp, as the tests' own temporary folder may be private (make test
// makes it with mktemp -d, mode 0700: proftpd's nobody could not reach
// a folder in it).
func openDir(t *testing.T) string {
	t.Helper()
	parent := ""
	if fi, err := os.Stat("/var/tmp"); err == nil && fi.IsDir() {
		parent = "/var/tmp"
	}
	dir, err := os.MkdirTemp(parent, "bench-share-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	return dir
}

// startSmbd runs a real smbd on a free loopback port, as the project's
// other tests do (firmsim.Smbd's [global] settings), sharing dir as
// [bench] for user root with password pw. It returns the port.
func startSmbd(t *testing.T, dir string) int {
	t.Helper()
	port, err := firmsim.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	s := &firmsim.Smbd{Port: port, Dir: t.TempDir()}
	for _, d := range []string{"run", "lock", "state", "cache", "private", "ncalrpc"} {
		os.MkdirAll(filepath.Join(s.Dir, d), 0o755)
	}
	conf := filepath.Join(s.Dir, "smb.conf")
	share := "[bench]\n\tpath = " + dir + "\n\tread only = no\n\tvalid users = root\n"
	if err := os.WriteFile(conf, []byte("[global]\n"+s.Global()+share), 0o644); err != nil {
		t.Fatal(err)
	}
	pw := exec.Command("smbpasswd", "-c", conf, "-s", "-a", "root")
	pw.Stdin = strings.NewReader("pw\npw\n")
	if out, err := pw.CombinedOutput(); err != nil {
		t.Fatalf("smbpasswd: %v: %s", err, out)
	}
	startDaemon(t, filepath.Join(s.Dir, "smbd.out"), sbin("smbd"), "-F", "--no-process-group", "--debug-stdout", "-s", conf)
	if err := s.WaitListening(20 * time.Second); err != nil {
		t.Fatal(err)
	}
	return port
}

// startProftpd runs a real proftpd on a free loopback port whose
// anonymous login may write to dir. It returns the port.
func startProftpd(t *testing.T, dir string) int {
	t.Helper()
	port, err := firmsim.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	run := t.TempDir()
	conf := filepath.Join(run, "proftpd.conf")
	err = os.WriteFile(conf, []byte(fmt.Sprintf(`ServerName "bench"
ServerType standalone
DefaultServer on
DefaultAddress 127.0.0.1
SocketBindTight on
UseIPv6 off
UseReverseDNS off
UseFtpUsers off
Port %d
User nobody
Group nogroup
PidFile %s/proftpd.pid
ScoreboardFile %s/proftpd.scoreboard
DelayTable none
WtmpLog off
TransferLog none
<Anonymous %s>
	User nobody
	Group nogroup
	UserAlias anonymous nobody
	RequireValidShell off
	AllowOverwrite on
	<Limit WRITE>
		AllowAll
	</Limit>
</Anonymous>
`, port, run, run, dir)), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	startDaemon(t, filepath.Join(run, "proftpd.out"), sbin("proftpd"), "-n", "-c", conf)
	deadline := time.Now().Add(20 * time.Second)
	for {
		if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second); err == nil {
			line, _ := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if strings.HasPrefix(line, "220") {
				return port
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("proftpd does not greet on port %d", port)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
