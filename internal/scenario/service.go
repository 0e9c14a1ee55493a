package scenario

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/nas-userscript/userscript/internal/firmsim"
	"github.com/nas-userscript/userscript/internal/systest"
)

// fakeService makes the restart script of service name run a real
// daemon: the fakedaemon listening on 127.0.0.1:$PORT, through a link
// named $PROC (unique to the world, so parallel worlds never see each
// other's processes). A restart stops it and starts a new one, unless
// the service's live file holds the word BAD: then the script exits 0
// and no daemon comes up, as with a config the daemon dies of. The
// world's root/proc becomes the host's /proc, where both engines look
// for processes and listening sockets.
//
// While root/kill-engine is there, a restart (after it stopped the
// daemon, before it starts one) sends the signal named in it to the
// engine that runs it, once. With KILL it exits too: the engine dies with
// the service down (a script that went on would start a daemon whenever
// it got there, beside the next engine's restart); with any other signal
// it goes on.
//
// With sessions (`service NAME sessions`) the daemon serves as Samba 3's
// smbd does: a process of its own per connection, which outlives the
// master's restart until its client disconnects (see `connect`).
func (w *World) fakeService(name string, sessions bool) error {
	svc, ok := w.Profile.Services[name]
	if !ok {
		return fmt.Errorf("no service %q in profile %s", name, w.Profile.Name)
	}
	if FakeDaemon == "" {
		return fmt.Errorf("the test built no fakedaemon (scenario.FakeDaemon)")
	}
	var files []string
	for _, t := range w.Profile.Targets {
		if t.Service == name {
			files = append(files, shq(filepath.Join(w.Root, t.Path)))
		}
	}
	link := filepath.Join(w.Dir, "daemons", w.Proc)
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		return err
	}
	if err := os.Symlink(FakeDaemon, link); err != nil {
		return err
	}
	kill := shq(filepath.Join(w.Root, "kill-engine"))
	script := fmt.Sprintf(`#!/bin/sh
echo "%s $*" >>%s
%s stop %s
case $1 in stop) exit 0 ;; esac
if [ -f %s ]; then
	read -r sig <%s
	rm -f %s
	p=$PPID
	while [ "$p" -gt 1 ]; do
		case $(tr '\000' ' ' </proc/$p/cmdline) in *engine.sh\ apply* | *userscript*\ apply* | *engine.sh\ rollback* | *userscript*\ rollback*) kill -$sig $p ;; esac
		read -r _ _ _ p _ </proc/$p/stat
	done
	case $sig in KILL) exit 0 ;; esac
fi
for f in %s; do
	while read -r l; do
		case $l in *BAD*) exit 0 ;; esac
	done <"$f"
done
%s %d %s%s ${LATE:+late=$LATE} </dev/null >/dev/null 2>&1 &
exit 0
`, filepath.Base(svc.Restart[0]), shq(filepath.Join(w.Root, firmsim.RestartLog)), shq(link), shq(w.pidFile),
		kill, kill, kill, strings.Join(files, " "), shq(link), w.Port, shq(w.pidFile), map[bool]string{true: " sessions"}[sessions])
	p := filepath.Join(w.Root, svc.Restart[0])
	if err := systest.WriteFile(p, []byte(script), 0o755); err != nil {
		return err
	}
	proc := filepath.Join(w.Root, "proc")
	if _, err := os.Lstat(proc); err != nil {
		return os.Symlink("/proc", proc)
	}
	return nil
}

// startService runs the service's script with start, as the firmware's
// boot does, and waits until its daemon listens. With late (a duration)
// its daemon runs at once but listens only that long after, and the
// start does not wait for it: a boot that is still starting the service.
func (w *World) startService(name, late string) error {
	svc, ok := w.Profile.Services[name]
	if !ok {
		return fmt.Errorf("no service %q", name)
	}
	cmd := exec.Command(filepath.Join(w.Root, svc.Restart[0]), "start")
	cmd.Env = w.Env()
	if late != "" {
		cmd.Env = append(cmd.Env, "LATE="+late)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%v: %s", err, out)
	}
	if late != "" {
		return w.awaitProcess()
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if c, err := dialPort(w.Port); err == nil {
			c.Close()
			return nil
		}
	}
	return fmt.Errorf("the daemon of %s does not listen on port %d", name, w.Port)
}

// awaitProcess waits until the world's daemon has written its pid file:
// its process runs.
func (w *World) awaitProcess() error {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if data, err := os.ReadFile(w.pidFile); err == nil && len(data) > 0 {
			return nil
		}
	}
	return fmt.Errorf("the daemon wrote no pid file %s", w.pidFile)
}

// connect opens a client session to the world's fake daemon (started
// with sessions) and waits until its session process runs; the session
// lasts until the world ends, longer than any timeout of an apply.
func (w *World) connect() error {
	c, err := w.dialDaemon(10 * time.Second)
	if err != nil {
		return err
	}
	w.clients = append(w.clients, c)
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err != nil {
		return fmt.Errorf("no session process answered: %v (was the service started with sessions?)", err)
	}
	return nil
}

// dialDaemon connects to the world's fake daemon, trying again while it
// refuses (a restart starts it in the background) until wait ends.
func (w *World) dialDaemon(wait time.Duration) (net.Conn, error) {
	deadline := time.Now().Add(wait)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", w.Port), time.Second)
		if err == nil || time.Now().After(deadline) {
			return c, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stopDaemon ends the world's fake daemon, if one runs, and its
// sessions.
func (w *World) stopDaemon() {
	for _, c := range w.clients {
		c.Close()
	}
	data, err := os.ReadFile(w.pidFile)
	if err != nil {
		return
	}
	var pid int
	if _, err := fmt.Sscan(string(data), &pid); err == nil && pid > 0 {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

func shq(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func dialPort(port int) (interface{ Close() error }, error) {
	return net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
}
