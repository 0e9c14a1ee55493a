//go:build unix

package system

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// Open flags: never through a symlink, never blocking on a FIFO.
const (
	oNoFollow = syscall.O_NOFOLLOW
	oNonBlock = syscall.O_NONBLOCK
)

// ownGroup starts a process in a process group of its own: a signal to
// ours does not reach it.
func ownGroup() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills p and every process of its group.
func killGroup(p *os.Process) error { return syscall.Kill(-p.Pid, syscall.SIGKILL) }

// terminate asks p to end.
func terminate(p *os.Process) error { return p.Signal(syscall.SIGTERM) }

// owner is the uid and gid of a file.
func owner(fi fs.FileInfo) (uid, gid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(st.Uid), int(st.Gid), true
}

// free is the space an unprivileged user can still use on the file
// system holding name.
func free(name string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(name, &st); err != nil {
		return 0, &fs.PathError{Op: "statfs", Path: name, Err: err}
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}

// NoFollow is the open flag that refuses a symlink as the last element.
const NoFollow = syscall.O_NOFOLLOW

// Links is the number of hard links of a file (0: unknown).
func Links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 0
}

// alive reports whether a process with pid exists (it may be another
// user's).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// tryLock takes an exclusive lock on f without waiting (flock: the
// kernel releases it when the process dies).
func tryLock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) }
