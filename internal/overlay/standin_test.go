package overlay

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestMain lets the test binary stand in for a daemon: started with
// STANDIN_LISTEN set, it serves TCP there (see standin).
func TestMain(m *testing.M) {
	if addr := os.Getenv("STANDIN_LISTEN"); addr != "" {
		standin(addr, os.Getenv("STANDIN_ACCEPTS"))
		return
	}
	// The fault tests make removing a scratch folder fail on purpose: their
	// folders go with this private temporary folder.
	tmp, err := os.MkdirTemp("", "overlay-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("TMPDIR", tmp)
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

// standin listens on addr and accepts connections; with accepts N > 0
// it exits after the N-th (a daemon that binds, then dies).
func standin(addr, accepts string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "standin:", err)
		os.Exit(1)
	}
	n, _ := strconv.Atoi(accepts)
	for i := 1; ; i++ {
		c, err := ln.Accept()
		if err != nil {
			os.Exit(1)
		}
		c.Close()
		if n > 0 && i >= n {
			os.Exit(0)
		}
	}
}

// daemonScript is an rc.d-style restart script for the stand-in %s: it
// stops the daemon it started before (unless ROOT/nostop exists), then
// starts a new one in the background without redirecting its output,
// listening on the address in ROOT/listen and exiting after as many
// connections as ROOT/accepts says (0: never).
const daemonScript = `#!/bin/sh
R=${0%%/bin/restart}
echo "restart $*" >> "$R/restarts.log"
[ -e "$R/nostop" ] && exit 0
pidf=$R/daemon.pid
if [ -f "$pidf" ]; then
	read -r p < "$pidf"
	kill "$p" 2>/dev/null
	while kill -0 "$p" 2>/dev/null; do sleep 0.05; done
fi
read -r listen < "$R/listen"
accepts=0
[ -f "$R/accepts" ] && read -r accepts < "$R/accepts"
STANDIN_LISTEN=$listen STANDIN_ACCEPTS=$accepts "$R/sbin/%s" &
echo $! > "$pidf"
exit 0
`

// useDaemon makes service svc a stand-in daemon with a process name of
// its own, serving on host:port, and starts it. It returns the name.
func (f *fixture) useDaemon(t *testing.T, host string) (name string, port int) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The process is named after the link it is started by (the
	// kernel takes the name of the path given to exec).
	name = fmt.Sprintf("sd%d", rand.IntN(1e9))
	os.MkdirAll(filepath.Join(f.root, "sbin"), 0o755)
	if err := os.Symlink(exe, filepath.Join(f.root, "sbin", name)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/proc", filepath.Join(f.root, "proc")); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Skipf("cannot listen on %s here: %v", host, err)
	}
	port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	f.put(t, "listen", net.JoinHostPort(host, strconv.Itoa(port)))
	f.setRestart(t, fmt.Sprintf(daemonScript, name))
	svc := f.eng.Profile.Services["svc"]
	svc.Process, svc.Ports, svc.Timeout = name, []int{port}, 5*time.Second
	f.eng.Profile.Services["svc"] = svc
	t.Cleanup(func() {
		if data, err := os.ReadFile(filepath.Join(f.root, "daemon.pid")); err == nil {
			if pid, err := strconv.Atoi(string(trimNL(data))); err == nil {
				if p, err := os.FindProcess(pid); err == nil {
					p.Kill()
				}
			}
		}
	})
	f.runRestart(t)
	f.waitServing(t, net.JoinHostPort(host, strconv.Itoa(port)))
	return name, port
}

func trimNL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// runRestart runs the restart script once, as the firmware's boot would.
func (f *fixture) runRestart(t *testing.T) {
	t.Helper()
	x := f.eng.restart(t.Context(), "svc")
	if !x.OK() {
		t.Fatalf("starting the stand-in: %+v", x)
	}
	os.Remove(filepath.Join(f.root, "restarts.log"))
}

func (f *fixture) waitServing(t *testing.T, addr string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stand-in does not serve on %s", addr)
		}
	}
}
