#!/bin/sh
# The firmware box's bring-up, run by PID 1 (guest init) from the run's
# disk (/run/tools): what the IB-NAS4220-B's kernel and bootloader do
# before its own rc runs, with Debian's tools (mount, ip, modprobe, tar).
# Then the firmware's rc runs in the firmware root under BusyBox 1.00.
#
# The firmware root is a tmpfs filled from the ROM tarball at every boot
# (the device's root is a ramdisk from flash); /usr is Debian's, read-only,
# for the daemons (smbd, proftpd, rpc.nfsd) and their libraries; the data
# disk (ext3, /dev/vdb) is mounted at /mnt/ide1 as on the device.
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH
T=/run/tools
F=/mnt
echo 1 >/proc/sys/kernel/sysrq
echo nas >/proc/sys/kernel/hostname
for m in virtio_net nfsd; do modprobe "$m" 2>/dev/null; done
ip link set lo up
for n in /sys/class/net/*; do
	n=${n##*/}
	[ "$n" = lo ] && continue
	ip addr add 10.0.2.15/24 dev "$n" && ip link set "$n" up && ip route add default via 10.0.2.2
	break
done
mount -t tmpfs -o size=256m,mode=755 rom "$F"
tar -C "$F" -xf "$T/rom.tar"
for f in ld.so.cache netconfig rpc services protocols nsswitch.conf passwd group shadow gshadow; do
	[ -f "/etc/$f" ] && cp -p "/etc/$f" "$F/etc/$f"
done
mount --bind /usr "$F/usr"
mount -o remount,bind,ro "$F/usr"
mount -t proc proc "$F/proc"
mount -t sysfs sys "$F/sys"
mount --bind /dev "$F/dev"
mount -t nfsd nfsd "$F/proc/fs/nfsd" 2>/dev/null
mount -t ext3 -o "$(cat "$T/data-options")" /dev/vdb "$F/mnt/ide1" || echo "boot: the data disk did not mount" >/dev/console
# The test's hand, outside the firmware root (not part of the firmware):
# what the data disk held before anything of this boot ran (the power-cut
# test reads it), and the agent.
cp -a "$F/mnt/ide1/public/applications/userscript" /run/precut 2>/dev/null
"$T/guest" agent </dev/null >/dev/console 2>&1 &
cat /proc/uptime /proc/stat >"$F/tmp/boot.rc0" 2>/dev/null
exec /usr/sbin/chroot "$F" /bin/sh /etc/rc </dev/console >/dev/console 2>&1
