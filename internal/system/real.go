package system

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Real is the device itself, seen under RootDir ("/" on the device).
type Real struct {
	RootDir string
}

// NewReal returns a Real rooted at root ("" means "/").
func NewReal(root string) *Real {
	if root == "" {
		root = "/"
	}
	return &Real{RootDir: filepath.Clean(root)}
}

func (r *Real) Root(devicePath string) string {
	return filepath.Join(r.RootDir, filepath.FromSlash(devicePath))
}

func (r *Real) ReadFile(name string) ([]byte, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|oNoFollow|oNonBlock, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("is a symlink")}
		}
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: syscall.EISDIR}
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("not a regular file")}
	}
	if fi.Size() > MaxRead {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w (%d bytes)", ErrTooBig, fi.Size())}
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxRead+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxRead {
		return nil, &fs.PathError{Op: "read", Path: name, Err: ErrTooBig}
	}
	return data, nil
}

func (r *Real) Lstat(name string) (fs.FileInfo, error)       { return os.Lstat(name) }
func (r *Real) ReadDir(name string) ([]fs.DirEntry, error)   { return os.ReadDir(name) }
func (r *Real) Readlink(name string) (string, error)         { return os.Readlink(name) }
func (r *Real) MkdirAll(name string, perm fs.FileMode) error { return os.MkdirAll(name, perm) }
func (r *Real) Remove(name string) error {
	return os.Remove(name)
}
func (r *Real) Now() time.Time { return time.Now() }

// WriteFile stages data next to name, syncs it, renames it over name and
// syncs the directory. A non-regular name (a directory, a FIFO, a symlink)
// is refused. When the rename fails with EBUSY (a bind-mounted target),
// the content is written in place instead, which is the best the kernel
// allows there.
func (r *Real) WriteFile(name string, data []byte, perm fs.FileMode) (err error) {
	if fi, err := os.Lstat(name); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file (%s); not replacing it", name, fi.Mode().Type())
	}
	dir := filepath.Dir(name)
	prefix := "." + filepath.Base(name) + ".userscript-"
	// A staging file left by a write that was killed (power cut,
	// SIGKILL) goes first; one apply runs at a time (state/lock.d).
	if old, _ := filepath.Glob(filepath.Join(dir, globQuote(prefix)+"*")); len(old) > 0 {
		for _, o := range old {
			os.Remove(o)
		}
	}
	f, err := os.CreateTemp(dir, prefix+"*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = keepMode(f, name, perm); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	err = os.Rename(tmp, name)
	if err != nil {
		if !errors.Is(err, syscall.EBUSY) {
			return err
		}
		os.Remove(tmp)
		return writeInPlace(name, data)
	}
	return syncDir(dir)
}

// WriteInPlace writes data into the existing file name, in one write as
// the kernel wants for its values.
func (r *Real) WriteInPlace(name string, data []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// globQuote escapes the glob characters of a file name.
func globQuote(s string) string {
	return strings.NewReplacer("*", "\\*", "?", "\\?", "[", "\\[", "\\", "\\\\").Replace(s)
}

// writeInPlace is the fallback for a bind-mounted target, which cannot be
// renamed over.
func writeInPlace(name string, data []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_TRUNC|oNoFollow, 0)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("%s: sync: %w", dir, err)
	}
	return nil
}

// keepMode gives the staged file f the mode and owner of the file it
// replaces, or perm when there is none yet.
func keepMode(f *os.File, name string, perm fs.FileMode) error {
	fi, err := os.Lstat(name)
	if err != nil {
		return f.Chmod(perm)
	}
	if uid, gid, ok := owner(fi); ok && os.Geteuid() == 0 {
		if err := f.Chown(uid, gid); err != nil {
			return err
		}
	}
	return f.Chmod(fi.Mode().Perm() | fi.Mode()&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky))
}

func (r *Real) RemoveAll(name string) error {
	return os.RemoveAll(name)
}

func (r *Real) MkdirTemp(pattern string) (string, error) {
	return os.MkdirTemp("", pattern)
}

func (r *Real) Dial(ctx context.Context, addr string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "tcp", addr)
}

func (r *Real) Free(name string) (int64, error) {
	return free(name)
}

func (r *Real) Interfaces() ([]Interface, error) {
	ifaces, err := net.Interfaces()
	if err != nil {
		return nil, err
	}
	out := make([]Interface, 0, len(ifaces))
	for _, iface := range ifaces {
		i := Interface{Name: iface.Name}
		addrs, _ := iface.Addrs()
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok {
				i.Addrs = append(i.Addrs, ipn.IP.String())
			}
		}
		out = append(out, i)
	}
	return out, nil
}
