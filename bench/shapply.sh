#!/bin/sh
# Measures the sh engine on a fake IB-NAS4220-B root with three targets
# (smb.conf, proftpd.conf, exports), each with a replacement in conf.d,
# restart scripts that only log, no validator installed:
#   - boot apply: the ROM's files are live again, the sources are what the
#     last generation committed; wall time against a bare `cp` of the same
#     three files onto their targets (three cp processes, as the
#     community's workaround script does), the median of RUNS;
#   - processes (fork/clone + exec, counted with strace -f) of a full boot
#     apply and of an apply that changes nothing.
# Once with Debian's busybox and once with each old BusyBox found in
# ../shared/busybox-old (or $USERSCRIPT_BUSYBOX_OLD). Prints one line each.
#
#   sh bench/shapply.sh [RUNS]     (default 20; needs strace and GNU date)
set -eu
runs=${1:-20}
top=$(cd "$(dirname "$0")/.." && pwd)
old=${USERSCRIPT_BUSYBOX_OLD:-$top/../shared/busybox-old}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/userscript" "$top/cmd/userscript"
strace=$(command -v strace)

ms() { echo $(($(date +%s%N) / 1000000)); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

setup() { # DIR
	r=$1/root a=$1/app
	mkdir -p "$r/system/hddapp/etc/samba" "$r/system/hddapp/etc/rc.d" "$r/etc" "$r/rom" "$a/conf.d" "$a/lib"
	for s in S80samba.sh S85nfs.sh S91proftpd.sh; do
		printf '#!/bin/sh\necho "%s $*" >>%s/restarts.log\n' "$s" "$r" >"$r/system/hddapp/etc/rc.d/$s"
		chmod 755 "$r/system/hddapp/etc/rc.d/$s"
	done
	printf '[global]\n\tworkgroup = ROM\n' >"$r/rom/smb.conf"
	printf 'ServerName "ROM"\n' >"$r/rom/proftpd.conf"
	printf '/mnt/ide1/public *(ro)\n' >"$r/rom/exports"
	i=0
	while [ $i -lt 40 ]; do
		printf '[share%d]\n\tpath = /mnt/ide1/public/s%d\n\tread only = no\n' $i $i >>"$a/conf.d/smb.conf"
		i=$((i + 1))
	done
	printf 'ServerName "HOME"\nUseReverseDNS off\nIdentLookups off\n' >"$a/conf.d/proftpd.conf"
	printf '/mnt/ide1/public 192.168.1.0/24(rw,async,no_subtree_check)\n' >"$a/conf.d/exports"
	cp "$top"/package/lib/*.sh "$a/lib/"
	"$tmp/userscript" profiles --sh nas4220b >"$a/lib/profile"
	echo bench >"$a/lib/version"
}

rom() { # ROOT: the firmware's boot restores its files
	cp "$1/rom/smb.conf" "$1/system/hddapp/etc/samba/smb.conf"
	cp "$1/rom/proftpd.conf" "$1/system/hddapp/etc/proftpd.conf"
	cp "$1/rom/exports" "$1/etc/exports"
}

procs() { # strace output file: forks and execs
	grep -c -E 'execve\(|(clone|fork|vfork)\(' "$1" || true
}

one() { # TAG BUSYBOX
	d=$tmp/$1
	setup "$d"
	bin=$d/bin
	mkdir -p "$bin"
	for x in cat cp mv rm mkdir ln ls cmp grep sed sleep date kill ps find echo test '[' tr wc head tail md5sum sh; do
		ln -sf "$2" "$bin/$x"
	done
	USERSCRIPT_ROOT="$d/root"
	USERSCRIPT_APP="$d/app"
	export USERSCRIPT_ROOT USERSCRIPT_APP
	eng() { PATH=$bin "$bin/sh" "$d/app/lib/engine.sh" "$@" >/dev/null 2>&1 || true; }
	rom "$d/root"
	eng apply # the first apply: generation 1
	t_cp=''
	t_ap=''
	i=0
	while [ $i -lt "$runs" ]; do
		rom "$d/root"
		t0=$(ms)
		cp "$d/app/conf.d/smb.conf" "$d/root/system/hddapp/etc/samba/smb.conf"
		cp "$d/app/conf.d/proftpd.conf" "$d/root/system/hddapp/etc/proftpd.conf"
		cp "$d/app/conf.d/exports" "$d/root/etc/exports"
		t1=$(ms)
		rom "$d/root"
		t2=$(ms)
		eng apply
		t3=$(ms)
		t_cp="$t_cp $((t1 - t0))"
		t_ap="$t_ap $((t3 - t2))"
		i=$((i + 1))
	done
	cp_ms=$(echo "$t_cp" | tr ' ' '\n' | sed '/^$/d' | median)
	ap_ms=$(echo "$t_ap" | tr ' ' '\n' | sed '/^$/d' | median)
	rom "$d/root"
	PATH=$bin "$strace" -f -o "$d/full.st" "$bin/sh" "$d/app/lib/engine.sh" apply >/dev/null 2>&1 || true
	PATH=$bin "$strace" -f -o "$d/noop.st" "$bin/sh" "$d/app/lib/engine.sh" apply >/dev/null 2>&1 || true
	ratio=$(awk -v a="$ap_ms" -v c="$cp_ms" 'BEGIN { if (c < 1) c = 1; printf "%.1f", a / c }')
	echo "busybox $1: boot_apply_ms=$ap_ms cp_ms=$cp_ms ratio=$ratio full_apply_procs=$(procs "$d/full.st") noop_apply_procs=$(procs "$d/noop.st")"
}

one debian "$(command -v busybox)"
for tag in 1_00 1_2_0 1_7_2; do
	[ -x "$old/$tag/busybox" ] && one "$tag" "$old/$tag/busybox"
done
