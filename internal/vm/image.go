package vm

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// An Image is the cached Debian image (image.sh): an ext4 root, the
// kernel and its initrd.
type Image struct {
	Dir, Root, Kernel, Initrd string
}

// srcDir is this package's folder (image.sh, fw/, guest/).
func srcDir() string {
	_, f, _, _ := runtime.Caller(0)
	return filepath.Dir(f)
}

// BuildImage builds the image unless it is cached (a few minutes: mmdebstrap
// downloads about 250 MB of Debian packages) and returns it.
func BuildImage(ctx context.Context) (*Image, error) {
	cmd := exec.CommandContext(ctx, "sh", filepath.Join(srcDir(), "image.sh"))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("image.sh: %w", err)
	}
	dir := strings.TrimSpace(string(out))
	return &Image{Dir: dir, Root: filepath.Join(dir, "root.img"),
		Kernel: filepath.Join(dir, "vmlinuz"), Initrd: filepath.Join(dir, "initrd.img")}, nil
}

// MakeDisk makes an ext2/3/4 image of sizeMB at path holding the files
// of src ("" for none), owned by root.
func MakeDisk(path, fstype string, sizeMB int, src, label string) error {
	os.Remove(path)
	args := []string{"-q", "-F", "-t", fstype, "-L", label}
	if src != "" {
		args = append(args, "-d", src)
	}
	args = append(args, path, fmt.Sprintf("%dM", sizeMB))
	out, err := exec.Command(lookSbin("mke2fs"), args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("mke2fs %s: %v: %s", path, err, out)
	}
	return nil
}

// CopySparse copies a disk image, keeping its holes.
func CopySparse(from, to string) error {
	out, err := exec.Command("cp", "--sparse=always", from, to).CombinedOutput()
	if err != nil {
		return fmt.Errorf("cp %s: %v: %s", from, err, out)
	}
	return nil
}

func lookSbin(name string) string {
	for _, d := range []string{"/usr/sbin", "/sbin"} {
		if _, err := os.Stat(filepath.Join(d, name)); err == nil {
			return filepath.Join(d, name)
		}
	}
	return name
}

// BuildGuest builds the guest program (agent and PID 1) for amd64,
// static, into dir/guest.
func BuildGuest(dir string) error {
	cmd := exec.Command("go", "build", "-trimpath", "-o", filepath.Join(dir, "guest"), ".")
	cmd.Dir = filepath.Join(srcDir(), "guest")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build guest: %v: %s", err, out)
	}
	return nil
}
