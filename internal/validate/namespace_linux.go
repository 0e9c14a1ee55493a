package validate

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
)

// isolated runs fn on a locked OS thread that has its own mount
// namespace, after setup has changed the mounts of that namespace. A
// process that fn starts (os/exec forks from the calling thread) inherits
// the namespace; nothing mounted here is seen by the rest of the system.
// The thread is never unlocked, so Go ends it when the goroutine returns.
//
// The error is a *nsError when the namespace could not be made (no
// CAP_SYS_ADMIN, a mount that failed); fn has not run then.
func isolated(setup func() error, fn func()) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := syscall.Unshare(syscall.CLONE_NEWNS); err != nil {
			runtime.UnlockOSThread() // nothing changed on this thread
			errc <- &nsError{"unshare", err}
			return
		}
		// From here on the thread must die with the goroutine.
		if err := syscall.Mount("none", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
			errc <- &nsError{"make mounts private", err}
			return
		}
		if err := setup(); err != nil {
			errc <- err
			return
		}
		fn()
		errc <- nil
	}()
	return <-errc
}

// An nsError says why no private mount namespace could be made.
type nsError struct {
	op  string
	err error
}

func (e *nsError) Error() string { return e.op + ": " + e.err.Error() }
func (e *nsError) Unwrap() error { return e.err }

// mountTmpfs mounts a small empty tmpfs on dir.
func mountTmpfs(dir string, mode uint32) error {
	data := fmt.Sprintf("mode=%o,size=16m", mode&0o7777)
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, data); err != nil {
		return &nsError{"mount tmpfs on " + dir, err}
	}
	return nil
}

// bindFile bounds src over dst (both must exist).
func bindFile(src, dst string) error {
	if err := syscall.Mount(src, dst, "", syscall.MS_BIND, ""); err != nil {
		return &nsError{"bind " + src + " over " + dst, err}
	}
	return nil
}

// shadowEntry is a directory or symlink to recreate in a shadowed dir.
type shadowEntry struct {
	rel      string
	dir      bool
	link     string
	mode     uint32
	uid, gid int
}

// Limits of the copy of a shadowed tree.
const (
	shadowDepth   = 4
	shadowEntries = 2000
)

// shadowDir mounts a tmpfs over dir that holds the same directories and
// symlinks (not files) as the real one, so programs find their
// directories but everything they write is thrown away with the
// namespace. A dir that is a symlink or missing is left alone.
func shadowDir(dir string) error {
	var st syscall.Stat_t
	if err := syscall.Lstat(dir, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		return nil
	}
	entries := shadowTree(dir)
	if err := mountTmpfs(dir, st.Mode); err != nil {
		return err
	}
	_ = os.Lchown(dir, int(st.Uid), int(st.Gid))
	for _, e := range entries {
		p := filepath.Join(dir, e.rel)
		if e.dir {
			if err := os.Mkdir(p, 0o700); err != nil {
				continue
			}
			_ = os.Lchown(p, e.uid, e.gid)
			_ = syscall.Chmod(p, e.mode&0o7777)
			continue
		}
		if err := os.Symlink(e.link, p); err == nil {
			_ = os.Lchown(p, e.uid, e.gid)
		}
	}
	return nil
}

// shadowTree lists the directories and symlinks under dir, breadth first
// so the top levels are kept when the limits cut the walk short.
func shadowTree(dir string) []shadowEntry {
	var out []shadowEntry
	level := []string{""}
	for depth := 0; depth < shadowDepth && len(level) > 0; depth++ {
		var next []string
		for _, rel := range level {
			names, err := os.ReadDir(filepath.Join(dir, rel))
			if err != nil {
				continue
			}
			for _, n := range names {
				if len(out) >= shadowEntries {
					return out
				}
				r := filepath.Join(rel, n.Name())
				var st syscall.Stat_t
				if syscall.Lstat(filepath.Join(dir, r), &st) != nil {
					continue
				}
				e := shadowEntry{rel: r, mode: st.Mode, uid: int(st.Uid), gid: int(st.Gid)}
				switch st.Mode & syscall.S_IFMT {
				case syscall.S_IFDIR:
					e.dir = true
					next = append(next, r)
				case syscall.S_IFLNK:
					l, err := os.Readlink(filepath.Join(dir, r))
					if err != nil || strings.ContainsRune(l, 0) {
						continue
					}
					e.link = l
				default:
					continue
				}
				out = append(out, e)
			}
		}
		level = next
	}
	return out
}
