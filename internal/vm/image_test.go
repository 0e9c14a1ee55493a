package vm

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestImageStdoutIsThePath builds an image with stand-ins for mmdebstrap,
// chroot and mkfs.ext4 that print as the real ones do: image.sh's
// standard output must be the image's folder and nothing else, on the
// first build as when it is cached. (mkfs.ext4 -q prints "Creating
// regular file …" on standard output when the image file is new: every
// machine of a fresh CI run got that text as its disk's path.)
func TestImageStdoutIsThePath(t *testing.T) {
	bin, cache := t.TempDir(), t.TempDir()
	fake := map[string]string{
		// the root's id, whoever runs the test
		"id": "echo 0",
		"mmdebstrap": `for a; do root=$a; done; root=${root%/}
mkdir -p "$root/boot" "$root/etc/systemd/system" "$root/sbin" "$root/etc/initramfs-tools" "$root/lib/modules/6.1.0-1-amd64"
: >"$root/boot/vmlinuz-6.1.0-1-amd64"; : >"$root/boot/initrd.img-6.1.0-1-amd64"
echo MODULES=most >"$root/etc/initramfs-tools/initramfs.conf"
echo "I: mmdebstrap talks on its standard output"`,
		"chroot": `case $2 in
mkinitramfs) for a; do [ "$prev" = -o ] && out=$a; prev=$a; done; : >"$1$out"; echo "W: mkinitramfs talks too" ;;
*) echo "Created symlink /etc/systemd/system/x.wants/$3" ;;
esac`,
		"mkfs.ext4": `for a; do case $a in *.img) img=$a ;; esac; done; echo "Creating regular file $img"; : >"$img"`,
	}
	for name, body := range fake {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("USERSCRIPT_VM_CACHE", cache)
	for _, when := range []string{"built", "cached"} {
		img, err := BuildImage(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		if filepath.Dir(img.Dir) != cache {
			t.Fatalf("%s: image.sh printed %q, want a folder of %s", when, img.Dir, cache)
		}
		if _, err := os.Stat(img.Root); err != nil {
			t.Fatalf("%s: %v", when, err)
		}
	}
}
