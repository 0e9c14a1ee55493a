package firmsim

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// A Smbd is a real smbd that the simulated S80samba.sh starts, stops and
// restarts, listening on a loopback port with all its folders under the
// NAS's own.
type Smbd struct {
	Port int
	Dir  string // pid, lock, state, cache and private folders, and its log
	nas  *NAS
}

// UseSmbd makes S80samba.sh run a real smbd on a free loopback port. The
// smb.conf it reads must hold Smbd.Global's settings.
func (n *NAS) UseSmbd() (*Smbd, error) {
	bin, err := exec.LookPath("smbd")
	if err != nil {
		if _, serr := os.Stat("/usr/sbin/smbd"); serr != nil {
			return nil, fmt.Errorf("smbd not found (apt-get install samba): %w", err)
		}
		bin = "/usr/sbin/smbd"
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	s := &Smbd{Port: port, Dir: filepath.Join(n.Dir, "samba"), nas: n}
	for _, d := range []string{"run", "lock", "state", "cache", "private", "ncalrpc"} {
		if err := os.MkdirAll(filepath.Join(s.Dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	conf := filepath.Join(n.Root, SmbConf)
	pid := filepath.Join(s.Dir, "stub.pid")
	script := n.daemonScript("S80samba.sh", pid, shQuote(bin)+" -F --no-process-group --debug-stdout -s "+shQuote(conf))
	if err := n.SetROMScript("S80samba.sh", script); err != nil {
		return nil, err
	}
	if err := n.SetROM(SmbConf, "[global]\n"+s.Global()+"\n[public]\n\tpath = "+filepath.Join(n.Mnt, "public")+"\n\tguest ok = yes\n"); err != nil {
		return nil, err
	}
	return s, n.Restore()
}

// Global returns the [global] settings that keep smbd on its loopback port
// and in its own folders (without the [global] line).
func (s *Smbd) Global() string {
	d := func(name string) string { return filepath.Join(s.Dir, name) }
	lines := []string{
		"smb ports = " + strconv.Itoa(s.Port),
		"interfaces = lo",
		"bind interfaces only = yes",
		"disable netbios = yes",
		"server role = standalone server",
		"map to guest = Bad User",
		"load printers = no",
		"printcap name = /dev/null",
		"disable spoolss = yes",
		"pid directory = " + d("run"),
		"lock directory = " + d("lock"),
		"state directory = " + d("state"),
		"cache directory = " + d("cache"),
		"private dir = " + d("private"),
		"ncalrpc dir = " + d("ncalrpc"),
		"log file = " + d("log.%m"),
	}
	return "\t" + strings.Join(lines, "\n\t") + "\n"
}

// WaitListening waits until smbd accepts connections on its port.
func (s *Smbd) WaitListening(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port))
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			out, _ := os.ReadFile(filepath.Join(s.Dir, "log.smbd"))
			return fmt.Errorf("smbd not listening on %s after %v: %v\n%s", addr, timeout, err, tail(string(out), 2000))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Stop stops the smbd the stub started, if any.
func (s *Smbd) Stop() {
	s.nas.run(filepath.Join(s.nas.Root, RCDir, "S80samba.sh"), "stop")
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
