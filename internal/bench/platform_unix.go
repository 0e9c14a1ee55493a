//go:build linux || darwin || freebsd

package bench

import (
	"io/fs"
	"syscall"
)

// freeBytes is the space an unprivileged user may still write in dir.
func freeBytes(dir string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}

// processAlive reports whether pid is a running process.
func processAlive(pid int) bool {
	return pid > 0 && syscall.Kill(pid, 0) != syscall.ESRCH
}

// fileDevice is the device number of the filesystem holding fi's file.
func fileDevice(fi fs.FileInfo) (uint64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Dev), true
}
