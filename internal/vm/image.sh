#!/bin/sh
# Builds the test machines' disk image from Debian's packages only:
# Debian bookworm amd64 with its kernel, systemd, samba, proftpd and the
# NFS server, made by mmdebstrap, as an ext4 image plus the kernel and
# initrd to boot it with qemu-system-x86_64 -kernel. The image is cached
# outside the repository, keyed by the package list and this script, and
# never committed; it prints the folder that holds it.
#
#   sh internal/vm/image.sh            build unless cached; print the folder
#   USERSCRIPT_VM_CACHE=DIR            cache root (default
#                                      $XDG_CACHE_HOME/userscript-vm, else
#                                      /var/cache/userscript-vm)
#
# The image holds no part of the firmware box or of userscript: those come
# on a second small disk made for each run (internal/vm), so editing them
# needs no new image. Two hooks are in the image: /sbin/vm-init (the
# firmware box's PID 1: mounts that disk and hands over to its boot
# script) and vm-agent.service (the systemd box: runs the agent from it).
set -eu

PACKAGES="linux-image-amd64 systemd systemd-sysv udev kmod iproute2 procps
samba proftpd-core nfs-kernel-server e2fsprogs util-linux mount tar
coreutils"
SUITE=bookworm
SIZE=2048M

# customize ROOT: the hooks, a fixed address for qemu's user network
# (10.0.2.15), and no timers or daemons the tests do not use (a TCG boot
# is slow enough).
customize() {
	echo vmroot >"$1/etc/hostname"
	echo 'LABEL=vmroot / ext4 rw 0 1' >"$1/etc/fstab"
	cat >"$1/sbin/vm-init" <<'INIT'
#!/bin/sh
# The firmware box's PID 1: mount the run's disk (/dev/vdc) and hand over.
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs run /run
mkdir -p /run/tools
mount -o ro /dev/vdc /run/tools
exec /run/tools/boot
INIT
	chmod 755 "$1/sbin/vm-init"
	cat >"$1/etc/systemd/system/vm-agent.service" <<'UNIT'
[Unit]
Description=Test agent from the run's disk (/dev/vdc)
DefaultDependencies=no
Requires=dev-vdc.device
After=dev-vdc.device

[Service]
ExecStart=/bin/sh -c 'mkdir -p /run/tools && mount -o ro /dev/vdc /run/tools && exec /run/tools/agent'

[Install]
WantedBy=sysinit.target
UNIT
	mkdir -p "$1/etc/systemd/network"
	printf '[Match]\nName=en* eth*\n\n[Network]\nAddress=10.0.2.15/24\nGateway=10.0.2.2\n' >"$1/etc/systemd/network/10-user.network"
	chroot "$1" systemctl enable vm-agent.service systemd-networkd.service >/dev/null 2>&1
	chroot "$1" systemctl disable nmbd.service >/dev/null 2>&1 || true
	for t in apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer man-db.timer logrotate.timer dpkg-db-backup.timer e2scrub_reap.service; do
		chroot "$1" systemctl mask "$t" >/dev/null 2>&1 || true
	done
}

# small_initrd ROOT OUT: an initrd with only what the machines mount their
# root with (virtio disk, ext4). Debian's own (MODULES=most) is 36 MB,
# which a TCG boot spends seconds unpacking and probing for hardware the
# machines lack; this one (6 MB) made a firmware box boot 4 to 8 s faster.
small_initrd() {
	cp -a "$1/etc/initramfs-tools" "$1/etc/initramfs-vm"
	sed -i 's/^MODULES=.*/MODULES=list/' "$1/etc/initramfs-vm/initramfs.conf"
	printf 'virtio_pci\nvirtio_blk\next4\n' >>"$1/etc/initramfs-vm/modules"
	chroot "$1" mkinitramfs -d /etc/initramfs-vm -o /initrd.vm "$(ls "$1/lib/modules")"
	mv "$1/initrd.vm" "$2"
	rm -rf "$1/etc/initramfs-vm"
}

cache=${USERSCRIPT_VM_CACHE:-${XDG_CACHE_HOME:+$XDG_CACHE_HOME/userscript-vm}}
cache=${cache:-/var/cache/userscript-vm}
key=$( { echo "$SUITE $PACKAGES $SIZE"; cat "$0"; } | sha256sum | cut -c1-16)
dir=$cache/$key
if [ -f "$dir/done" ]; then
	echo "$dir"
	exit 0
fi
for t in mmdebstrap mkfs.ext4; do
	command -v "$t" >/dev/null || PATH=$PATH:/usr/sbin:/sbin
	command -v "$t" >/dev/null || {
		echo "image.sh: $t is missing (apt-get install mmdebstrap e2fsprogs; make deps installs it)" >&2
		exit 1
	}
done
[ "$(id -u)" = 0 ] || {
	echo "image.sh: run as root (mmdebstrap --mode=root, mkfs.ext4 -d)" >&2
	exit 1
}
# Standard output is the folder's name and nothing else: what the tools
# below print (mkfs.ext4 -q still says "Creating regular file …") goes
# to standard error.
exec 3>&1 1>&2
mkdir -p "$cache"
work=$(mktemp -d "$cache/build.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root

# shellcheck disable=SC2086 # one word a package
mmdebstrap --mode=root --variant=apt --components=main \
	--include="$(echo $PACKAGES | tr ' ' ,)" \
	"$SUITE" "$root" >"$work/mmdebstrap.log" 2>&1 || {
	tail -30 "$work/mmdebstrap.log" >&2
	exit 1
}
customize "$root"
cp "$root"/boot/vmlinuz-* "$work/vmlinuz"
small_initrd "$root" "$work/initrd.img"
mkfs.ext4 -q -L vmroot -d "$root" "$work/root.img" "$SIZE"
rm -rf "$root"
mv "$work" "$dir.tmp" && mv "$dir.tmp" "$dir"
trap - EXIT
touch "$dir/done"
echo "$dir" >&3
