package state

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/nas-userscript/userscript/internal/system"
)

// A Lock is state/lock.d, held by one apply at a time across both
// engines: a directory made with mkdir holding the holder's pid. A lock
// whose holder is gone is stale and is taken over. Every access goes
// through the System seam.
type Lock struct {
	sys system.System
	dir string
}

// ErrLocked is returned when another apply holds the lock for too long.
var ErrLocked = errors.New("another apply is running")

// turns serialises the applies of this process per lock dir (a daemon
// and, in tests, many engines share a pid): whoever has the turn is the
// only one here that can hold the lock, so a lock holding our own pid
// found then was left by an earlier process with our pid (before a
// reboot), and is stale.
var turns = struct {
	sync.Mutex
	dirs map[string]chan struct{}
}{dirs: map[string]chan struct{}{}}

func turn(dir string) chan struct{} {
	turns.Lock()
	defer turns.Unlock()
	c, ok := turns.dirs[dir]
	if !ok {
		c = make(chan struct{}, 1)
		turns.dirs[dir] = c
	}
	return c
}

// staleAfter is how long a lock (or a lock being made) may lack its pid
// before it counts as left by an engine killed while taking it.
const staleAfter = 5 * time.Second

// Acquire takes the lock in stateDir, waiting until ctx ends.
func Acquire(ctx context.Context, sys system.System, stateDir string) (*Lock, error) {
	if err := sys.MkdirAll(stateDir, 0o755); err != nil {
		return nil, lockError(stateDir, err)
	}
	l := &Lock{sys: sys, dir: filepath.Join(stateDir, "lock.d")}
	mine := turn(l.dir)
	select {
	case mine <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: %w (in this process); try again when it has finished", l.dir, ErrLocked)
	}
	if err := l.acquire(ctx); err != nil {
		<-mine
		return nil, err
	}
	return l, nil
}

func (l *Lock) acquire(ctx context.Context) error {
	l.removeHalfMade()
	var empty time.Time // since when the lock has had no pid
	for {
		err := l.take()
		if err == nil {
			return nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return lockError(l.dir, err)
		}
		holder, alive, known := l.holderOf(l.dir)
		switch {
		case known && !alive:
			// Stale: the holder died. Take it over; if another process
			// was faster, the next take tells.
			l.takeOver(holder)
			continue
		case !known && empty.IsZero():
			empty = time.Now()
		case !known && time.Since(empty) > staleAfter:
			// The sh engine makes the dir, then writes its pid: killed
			// in between, it leaves a lock without a pid for good.
			l.takeOver(0)
			continue
		case known:
			empty = time.Time{}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w (pid %d); try again when it has finished", l.dir, ErrLocked, holder)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// takeOver removes the stale lock whose holder was pid (0: none). It is
// moved aside first and only removed when it still is that lock: another
// apply may have taken the stale lock over and made its own meanwhile,
// which is put back.
func (l *Lock) takeOver(pid int) {
	aside := fmt.Sprintf("%s.stale-%d", l.dir, os.Getpid())
	l.sys.RemoveAll(aside)
	if l.sys.Rename(l.dir, aside) != nil {
		return
	}
	if now, _, _ := l.holderOf(aside); now != pid {
		if l.sys.Rename(aside, l.dir) == nil {
			return
		}
	}
	l.sys.RemoveAll(aside)
}

// lockError names a lock that cannot be made for a reason of the disk:
// a full or read-only data disk is not "another apply".
func lockError(dir string, err error) error {
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return fmt.Errorf("%s: data disk full: %w; free some space on it", dir, err)
	case errors.Is(err, syscall.EROFS):
		return fmt.Errorf("%s: the data disk is read-only: %w", dir, err)
	}
	return fmt.Errorf("%s: %w", dir, err)
}

// removeHalfMade removes the aside folders of engines killed while taking
// the lock: those whose pid is gone, or that have had none for a while.
// One being made right now has no pid yet and is young: it stays.
func (l *Lock) removeHalfMade() {
	ents, _ := l.sys.ReadDir(filepath.Dir(l.dir))
	base := filepath.Base(l.dir)
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), base+".new-") && !strings.HasPrefix(e.Name(), base+".stale-") {
			continue
		}
		o := filepath.Join(filepath.Dir(l.dir), e.Name())
		_, alive, known := l.holderOf(o)
		fi, err := l.sys.Lstat(o)
		if err != nil || known && alive || !known && time.Since(fi.ModTime()) < staleAfter {
			continue
		}
		l.sys.RemoveAll(o)
	}
}

// take makes the lock dir with our pid already in it: the dir is made
// aside and renamed into place, so a lock of ours never lacks its pid.
func (l *Lock) take() error {
	tmp, err := l.aside()
	if err != nil {
		return err
	}
	defer l.sys.RemoveAll(tmp)
	if err := l.sys.WriteFile(filepath.Join(tmp, "pid"), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		return err
	}
	if _, err := l.sys.Lstat(l.dir); err == nil {
		return fs.ErrExist
	}
	// rename(2) onto an existing empty dir would replace it, so the Lstat
	// above keeps a lock the sh engine is making; a non-empty one makes
	// the rename fail with ENOTEMPTY or EEXIST.
	if err := l.sys.Rename(tmp, l.dir); err != nil {
		if errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
			return fs.ErrExist
		}
		return err
	}
	return nil
}

// asides numbers the folders a lock is made in, in this process.
var asides atomic.Int64

// aside makes a new folder lock.d.new-PID-N beside the lock, where the
// lock is made before it is renamed into place.
func (l *Lock) aside() (string, error) {
	for {
		tmp := fmt.Sprintf("%s.new-%d-%d", l.dir, os.Getpid(), asides.Add(1))
		err := l.sys.Mkdir(tmp, 0o755)
		if !errors.Is(err, fs.ErrExist) {
			return tmp, err
		}
	}
}

// holderOf reads the pid in a lock dir. known is false when there is no
// pid (yet); alive tells whether that pid is one of the engines.
func (l *Lock) holderOf(dir string) (pid int, alive, known bool) {
	data, err := l.sys.ReadFile(filepath.Join(dir, "pid"))
	if err != nil || len(data) == 0 {
		return 0, false, false // none yet, or being written
	}
	pid, err = strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 {
		return 0, false, true
	}
	if pid == os.Getpid() {
		// We have the turn (see turns): not ours, so left from before.
		return pid, false, true
	}
	if !l.sys.Alive(pid) {
		return pid, false, true
	}
	return pid, l.isEngine(pid), true
}

// shells are the programs (comm) that run the sh engine.
var shells = []string{"sh", "ash", "bash", "dash", "hush", "busybox"}

// isEngine tells whether the live pid is one of the engines: after a
// reboot its number may belong to anything, a thread of the new daemon
// (its id answers kill -0 and shows the daemon's command line) or an
// editor open on a file of conf.d. An engine is a process, not a thread
// (its Tgid is its pid), whose program is the Go engine (userscript) or
// a shell running lib/engine.sh. The sh engine's is_ours is the same
// test. The processes are this machine's: its own /proc, not the device
// root's.
func (l *Lock) isEngine(pid int) bool {
	st, err := l.sys.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return true // no /proc to tell: trust the pid
	}
	var name string
	for _, line := range strings.Split(string(st), "\n") {
		k, v, _ := strings.Cut(line, ":")
		v = strings.TrimSpace(v)
		switch k {
		case "Name":
			name = v
		case "Tgid":
			if v != strconv.Itoa(pid) {
				return false
			}
		}
	}
	if name == "userscript" {
		return true
	}
	if !slices.Contains(shells, name) {
		return false
	}
	// The arguments run together, as the sh engine reads them.
	cmd, _ := l.sys.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return bytes.Contains(bytes.ReplaceAll(cmd, []byte{0}, nil), []byte("lib/engine.sh"))
}

// Release gives the lock back.
func (l *Lock) Release() error {
	err := l.sys.RemoveAll(l.dir)
	<-turn(l.dir)
	return err
}

// A DaemonLock makes sure one daemon runs per app dir: an flock on
// state/daemon.lock (released by the kernel when the daemon dies) and its
// pid in state/daemon.pid for `init stop` and `init status`.
type DaemonLock struct {
	sys system.System
	f   io.Closer
	pid string
}

// LockDaemon takes the daemon lock of stateDir, or says who holds it.
func LockDaemon(sys system.System, stateDir string) (*DaemonLock, error) {
	if err := sys.MkdirAll(stateDir, 0o755); err != nil {
		return nil, err
	}
	pidFile := filepath.Join(stateDir, "daemon.pid")
	f, err := sys.LockFile(filepath.Join(stateDir, "daemon.lock"))
	if errors.Is(err, syscall.EWOULDBLOCK) {
		pid, _ := sys.ReadFile(pidFile)
		return nil, fmt.Errorf("a userscript daemon is already running for this app dir (pid %s)", strings.TrimSpace(string(pid)))
	}
	if err != nil {
		return nil, err
	}
	l := &DaemonLock{sys: sys, f: f, pid: pidFile}
	if err := sys.WriteFile(l.pid, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		l.Release()
		return nil, err
	}
	return l, nil
}

// Release ends the lock and removes the pid file.
func (l *DaemonLock) Release() {
	l.sys.Remove(l.pid)
	l.f.Close()
}
