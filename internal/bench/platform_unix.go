//go:build linux || darwin || freebsd

package bench

import "syscall"

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
