//go:build windows

package system

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// On Windows userscript is the owner's PC tool (render, explain): it
// never manages a device there, so what only a device needs is plain.
const (
	oNoFollow = 0
	oNonBlock = 0
)

func ownGroup() *syscall.SysProcAttr            { return nil }
func killGroup(p *os.Process) error             { return p.Kill() }
func terminate(p *os.Process) error             { return p.Kill() }
func owner(fs.FileInfo) (uid, gid int, ok bool) { return 0, 0, false }

func free(name string) (int64, error) {
	return 0, &fs.PathError{Op: "free space", Path: name, Err: errors.ErrUnsupported}
}

// NoFollow: Windows has no such open flag.
const NoFollow = 0

// Links is 0: unknown on Windows.
func Links(fs.FileInfo) uint64 { return 0 }

// alive reports whether a process with pid exists.
func alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}

// tryLock is not needed where no daemon runs: it always succeeds.
func tryLock(*os.File) error { return nil }
