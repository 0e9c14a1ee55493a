#!/bin/sh
# What an apply costs the Go engine, on a fake IB-NAS4220-B root with its
# three targets (smb.conf, exports, proftpd.conf), against a bare `cp` of
# the same files. Prints lines of numbers:
#
#   boot: the ROM was restored, conf.d already committed (what every
#         reboot costs): median ms of `userscript apply`, of three `cp`,
#         and their ratio
#   change: every target changed (journal, write, restart, prove, commit)
#   fsyncs: fsync/fdatasync calls per target, boot and change (strace)
#   rss: peak resident memory of `userscript apply` and of the daemon
#        (`userscript run`) with 120 files of 1 MiB of junk in conf.d
#
#   sh bench/apply.sh [RUNS]      (default 21)
set -eu
runs=${1:-21}
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
pid=
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
# As the packages build it (no SMB/FTP client of bench net).
go build -tags noclients -o "$tmp/userscript" "$top/cmd/userscript"
us=$tmp/userscript
root=$tmp/root app=$tmp/app rom=$tmp/rom
rc=$root/system/hddapp/etc/rc.d
mkdir -p "$rom" "$rc" "$root/system/hddapp/etc/samba" "$root/etc" "$app/conf.d"
printf '[global]\n\tworkgroup = ROM\n' >"$rom/smb.conf"
printf '/mnt/ide1/public *(ro)\n' >"$rom/exports"
printf 'ServerName "ROM"\n' >"$rom/proftpd.conf"
for s in S80samba.sh S85nfs.sh S91proftpd.sh; do
	printf '#!/bin/sh\nexit 0\n' >"$rc/$s"
	chmod +x "$rc/$s"
done
printf 'profile = "nas4220b"\n[services.samba]\nports = []\nprocess = ""\n[services.nfs]\nports = []\n[services.proftpd]\nports = []\nprocess = ""\n' >"$app/userscript.toml"
sources() { # TAG: three sources of a few KiB, as owners keep them
	{
		printf '[global]\n\tworkgroup = HOME%s\n\tsocket options = TCP_NODELAY IPTOS_LOWDELAY\n\tuse sendfile = yes\n' "$1"
		i=0
		while [ $i -lt 40 ]; do
			printf '[share%d]\n\tpath = /mnt/ide1/public/s%d\n\tread only = no\n' $i $i
			i=$((i + 1))
		done
	} >"$app/conf.d/smb.conf"
	printf '/mnt/ide1/public *(rw,async,no_root_squash,no_subtree_check) # %s\n' "$1" >"$app/conf.d/exports"
	printf 'ServerName "NAS%s"\nServerType standalone\nDefaultServer on\nPort 21\nUser nobody\nGroup nogroup\nUseSendfile on\n' "$1" >"$app/conf.d/proftpd.conf"
}
restore_rom() {
	cp "$rom/smb.conf" "$root/system/hddapp/etc/samba/smb.conf"
	cp "$rom/exports" "$root/etc/exports"
	cp "$rom/proftpd.conf" "$root/system/hddapp/etc/proftpd.conf"
}
apply() { "$us" --root "$root" --app "$app" apply >/dev/null 2>&1; }
copy() {
	cp "$app/conf.d/smb.conf" "$root/system/hddapp/etc/samba/smb.conf"
	cp "$app/conf.d/exports" "$root/etc/exports"
	cp "$app/conf.d/proftpd.conf" "$root/system/hddapp/etc/proftpd.conf"
}
ms() { echo $(($(date +%s%N) / 1000000)); }
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

sources 0
restore_rom
apply # committed once
: >"$tmp/boot" && : >"$tmp/cp" && : >"$tmp/change"
i=0
while [ $i -lt "$runs" ]; do
	restore_rom
	t0=$(ms) && apply && t1=$(ms)
	echo $((t1 - t0)) >>"$tmp/boot"
	restore_rom
	t0=$(ms) && copy && t1=$(ms)
	echo $((t1 - t0)) >>"$tmp/cp"
	sources "x$i"
	t0=$(ms) && apply && t1=$(ms)
	echo $((t1 - t0)) >>"$tmp/change"
	i=$((i + 1))
done
b=$(median <"$tmp/boot") c=$(median <"$tmp/cp") ch=$(median <"$tmp/change")
echo "boot: apply_ms=$b cp_ms=$c ratio=$(awk -v a="$b" -v b="$c" 'BEGIN {printf "%.1f", a / (b ? b : 1)}') runs=$runs"
echo "change: apply_ms=$ch cp_ms=$c ratio=$(awk -v a="$ch" -v b="$c" 'BEGIN {printf "%.1f", a / (b ? b : 1)}')"

if command -v strace >/dev/null 2>&1; then
	syncs() { strace -f -qq -c -e trace=fsync,fdatasync "$us" --root "$root" --app "$app" apply 2>&1 >/dev/null | awk '$NF ~ /^f(data)?sync$/ {n += $4} END {print n + 0}'; }
	restore_rom
	fb=$(syncs)
	sources y
	fc=$(syncs)
	echo "fsyncs: boot_per_target=$(awk -v n="$fb" 'BEGIN {printf "%.1f", n / 3}') change_per_target=$(awk -v n="$fc" 'BEGIN {printf "%.1f", n / 3}')"
fi

i=0
while [ $i -lt 120 ]; do
	head -c 1048576 /dev/urandom >"$app/conf.d/IMG_$i.JPG"
	i=$((i + 1))
done
sources z
apply_kb=$(/usr/bin/time -f %M "$us" --root "$root" --app "$app" apply 2>&1 >/dev/null | tail -n 1)
"$us" --root "$root" --app "$app" run --quiet 100ms >"$tmp/run.out" 2>&1 &
pid=$!
wait_status() { # wait until conf.d/smb.conf.status names generation $1
	j=0
	while ! grep -q "^generation: $1" "$app/conf.d/smb.conf.status" 2>/dev/null && [ $j -lt 300 ]; do
		sleep 0.1
		j=$((j + 1))
	done
}
gen=0
for g in "$app"/state/gen/*; do gen=${g##*/}; done
gen=$(echo "$gen" | sed 's/^0*//')
sources w
wait_status $((gen + 1))
hwm=$(awk '$1 == "VmHWM:" {print $2}' "/proc/$pid/status")
echo "rss: apply_peak_kb=$apply_kb daemon_peak_kb=$hwm junk_mb=120"
