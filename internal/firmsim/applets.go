package firmsim

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// AllowedApplets are the only commands (besides sh built-ins) the sh engine
// may use: what an old BusyBox on the IB-NAS4220-B is known to have. `[`
// is one too: before BusyBox 1.2 `test` is no builtin, and the device has
// /bin/[.
var AllowedApplets = []string{
	"cat", "cp", "mv", "rm", "mkdir", "ln", "ls", "cmp", "grep", "sed",
	"sleep", "date", "kill", "ps", "find", "echo", "test", "[", "tr", "wc",
	"head", "tail", "md5sum",
}

// Applets makes dir/path holding a link to busybox for every allowed
// applet plus the host tools named in extra (e.g. "testparm"), and
// dir/shell/sh, BusyBox's ash. It returns the PATH folder and the shell.
func Applets(dir string, extra ...string) (path, shell string, err error) {
	bb, err := exec.LookPath("busybox")
	if err != nil {
		return "", "", fmt.Errorf("busybox not found: %w (apt-get install busybox)", err)
	}
	return AppletsOf(bb, dir, extra...)
}

// AppletsOf is Applets with the BusyBox binary bb (an old one of
// OldBusyBoxes, say).
func AppletsOf(bb, dir string, extra ...string) (path, shell string, err error) {
	path = filepath.Join(dir, "path")
	shellDir := filepath.Join(dir, "shell")
	for _, d := range []string{path, shellDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", "", err
		}
	}
	for _, a := range AllowedApplets {
		if err := relink(bb, filepath.Join(path, a)); err != nil {
			return "", "", err
		}
	}
	for _, x := range extra {
		p, err := exec.LookPath(x)
		if err != nil {
			return "", "", fmt.Errorf("%s not found: %w", x, err)
		}
		if err := relink(p, filepath.Join(path, x)); err != nil {
			return "", "", err
		}
	}
	shell = filepath.Join(shellDir, "sh")
	return path, shell, relink(bb, shell)
}

func relink(target, link string) error {
	os.Remove(link)
	return os.Symlink(target, link)
}

// AddTools puts host tools (e.g. testparm, proftpd) on the init scripts'
// PATH, as the firmware would have them; missing ones are left out and
// returned.
func (n *NAS) AddTools(names ...string) (missing []string) {
	for _, x := range names {
		p, err := exec.LookPath(x)
		if err != nil {
			missing = append(missing, x)
			continue
		}
		relink(p, filepath.Join(n.Bin, x))
	}
	return missing
}

// UseBusyBox makes the init scripts run under the BusyBox binary bb (an
// old one of OldBusyBoxTags, say): its ash, and its applets on PATH.
func (n *NAS) UseBusyBox(bb string) error {
	bin, shell, err := AppletsOf(bb, filepath.Join(n.Dir, "bin-"+filepath.Base(filepath.Dir(bb))))
	if err != nil {
		return err
	}
	n.Bin, n.Shell = bin, shell
	return nil
}
