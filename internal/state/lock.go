package state

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A Lock is state/lock.d, held by one apply at a time across both
// engines: a directory made with mkdir holding the holder's pid. A lock
// whose holder is gone is stale and is taken over.
type Lock struct{ dir string }

// ErrLocked is returned when another apply holds the lock for too long.
var ErrLocked = errors.New("another apply is running")

// Acquire takes the lock in stateDir, waiting until ctx ends.
func Acquire(ctx context.Context, stateDir string) (*Lock, error) {
	if err := os.MkdirAll(stateDir, 0o755); err != nil {
		return nil, err
	}
	dir := filepath.Join(stateDir, "lock.d")
	for {
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			pid := []byte(strconv.Itoa(os.Getpid()) + "\n")
			if err := os.WriteFile(filepath.Join(dir, "pid"), pid, 0o644); err != nil {
				os.RemoveAll(dir)
				return nil, err
			}
			return &Lock{dir: dir}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("%s: %w", dir, err)
		}
		holder, alive := holderOf(dir)
		if !alive {
			// Stale: the holder died. Take it over by removing it; if
			// another process was faster, the next Mkdir tells.
			os.RemoveAll(dir)
			continue
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%s: %w (pid %d); try again when it has finished", dir, ErrLocked, holder)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// holderOf reads the pid in a lock dir. A lock dir without a pid file
// may be being made right now: it counts as alive unless it is old.
func holderOf(dir string) (int, bool) {
	data, err := os.ReadFile(filepath.Join(dir, "pid"))
	if err != nil {
		fi, serr := os.Stat(dir)
		return 0, serr == nil && time.Since(fi.ModTime()) < 10*time.Second
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 {
		return 0, false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return pid, false
	}
	// After a reboot the pid may belong to some other program now: only
	// one of the engines counts as a holder.
	cmd, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return pid, true // no /proc to tell: trust the pid
	}
	return pid, bytes.Contains(cmd, []byte("userscript")) || bytes.Contains(cmd, []byte("engine.sh"))
}

// Release gives the lock back.
func (l *Lock) Release() error {
	return os.RemoveAll(l.dir)
}

// A DaemonLock makes sure one daemon runs per app dir: an flock on
// state/daemon.lock (released by the kernel when the daemon dies) and its
// pid in state/daemon.pid for `init stop` and `init status`.
type DaemonLock struct {
	f   *os.File
	pid string
}

// LockDaemon takes the daemon lock of stateDir, or says who holds it.
func LockDaemon(stateDir string) (*DaemonLock, error) {
	if err := os.MkdirAll(stateDir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(stateDir, "daemon.lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		pid, _ := os.ReadFile(filepath.Join(stateDir, "daemon.pid"))
		return nil, fmt.Errorf("a userscript daemon is already running for this app dir (pid %s)", strings.TrimSpace(string(pid)))
	}
	l := &DaemonLock{f: f, pid: filepath.Join(stateDir, "daemon.pid")}
	if err := os.WriteFile(l.pid, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		l.Release()
		return nil, err
	}
	return l, nil
}

// Release ends the lock and removes the pid file.
func (l *DaemonLock) Release() {
	os.Remove(l.pid)
	l.f.Close()
}
