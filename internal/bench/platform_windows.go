package bench

import (
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

// freeBytes is the space the user may still write in dir.
func freeBytes(dir string) (int64, error) {
	p, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return 0, err
	}
	var avail, total, free uint64
	if err := windows.GetDiskFreeSpaceEx(p, &avail, &total, &free); err != nil {
		return 0, err
	}
	return int64(avail), nil
}

// processAlive reports whether pid is a running process.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}

// fileDevice is unknown here: disks are told apart by their mounts.
func fileDevice(fs.FileInfo) (uint64, bool) { return 0, false }
