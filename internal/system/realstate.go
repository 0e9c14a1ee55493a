package system

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// The changes the engine's own state needs (the apply lock, the log,
// the daemon lock), beside the atomic WriteFile.

func (r *Real) Mkdir(name string, perm fs.FileMode) error { return os.Mkdir(name, perm) }

func (r *Real) Rename(oldname, newname string) error { return os.Rename(oldname, newname) }

func (r *Real) Alive(pid int) bool { return alive(pid) }

// Append opens name for appending without following a symlink and
// without blocking on a FIFO, and refuses anything but a regular file.
func (r *Real) Append(name string, data []byte, perm fs.FileMode) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE|oNoFollow|oNonBlock, perm)
	if err != nil {
		return err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return fmt.Errorf("%s: not a regular file", name)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// LockFile opens name and takes an flock on it.
func (r *Real) LockFile(name string) (io.Closer, error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := tryLock(f); err != nil {
		f.Close()
		return nil, &fs.PathError{Op: "lock", Path: name, Err: err}
	}
	return f, nil
}
