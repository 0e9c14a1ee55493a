package scenario

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// errNeedRoot is returned by a command that needs root (mount): the
// scenario is skipped, and counted, where the tests do not run as root.
var errNeedRoot = errors.New("needs root (it mounts a tmpfs)")

// fillDisk puts the app dir on a data disk of its own, a small tmpfs,
// and fills it to the last block and the last inode, as a disk filled
// to 100 % with no reserved blocks: no file or folder can be made on it
// any more, while existing files can still be read and rewritten in
// place. The tmpfs is unmounted when the test ends (w.unmount).
func (w *World) fillDisk() error {
	if os.Geteuid() != 0 {
		return errNeedRoot
	}
	aside := w.App + ".aside"
	if err := os.Rename(w.App, aside); err != nil {
		return err
	}
	if err := os.Mkdir(w.App, 0o755); err != nil {
		return err
	}
	if err := syscall.Mount("tmpfs", w.App, "tmpfs", 0, "size=8m,nr_inodes=400"); err != nil {
		return fmt.Errorf("mount a tmpfs on the app dir: %w", err)
	}
	w.mounts = append(w.mounts, w.App)
	if out, err := exec.Command("cp", "-a", aside+"/.", w.App).CombinedOutput(); err != nil {
		return fmt.Errorf("cp -a: %v: %s", err, out)
	}
	os.RemoveAll(aside)
	// The last inodes, then the last blocks.
	for i := 0; ; i++ {
		f, err := os.Create(filepath.Join(w.App, fmt.Sprintf(".fill%d", i)))
		if err != nil {
			break
		}
		f.Close()
	}
	f, err := os.OpenFile(filepath.Join(w.App, ".fill0"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			break
		}
	}
	if err := os.Mkdir(filepath.Join(w.App, "state", "probe.d"), 0o755); err == nil {
		return fmt.Errorf("the full disk still makes folders")
	}
	return nil
}

// unmountAll unmounts what fillDisk mounted.
func (w *World) unmountAll() {
	for _, m := range w.mounts {
		syscall.Unmount(m, syscall.MNT_DETACH)
	}
}
