#!/bin/sh
# What an apply costs the sh engine, on the fake IB-NAS4220-B root of
# bench/apply.sh (the same three targets, sources, userscript.toml, rc.d
# scripts that only exit, and the same baseline: three `cp` of the same
# files), under Debian's busybox and each old BusyBox found in
# ../shared/busybox-old (or $USERSCRIPT_BUSYBOX_OLD). One line each:
#
#   boot_ms    a boot apply: the ROM was restored, conf.d already
#              committed (what every reboot costs), the median of RUNS
#   cp_ms      three bare `cp` of the same files, the median of RUNS
#   ratio      boot_ms / cp_ms
#   cprc_ms    the same three `cp`, then the three restart scripts: the
#              least any boot that puts files back must do, the median
#   ratio_rc   boot_ms / cprc_ms: what the engine itself adds
#   boot_procs processes one boot apply creates (fork/clone/vfork: every
#              process that is not the engine's own shell, whether it
#              execs an applet or not), counted as the files of
#              `strace -ff` minus one
#   full_procs the same for an apply where every target changed
#              (validate, journal, write, restart, commit)
#   noop_procs the same for an apply where nothing changed
#   restart    the processes of the three restart scripts themselves
#              (their shell and what it runs): the floor of boot_procs
#
# The engine runs with a PATH holding only the allowed applets
# (internal/firmsim AllowedApplets); no
# validator is installed (full_procs would add testparm's and
# proftpd's own processes).
#
#   sh bench/shapply.sh [RUNS]     (default 21; needs strace for the counts)
set -eu
runs=${1:-21}
top=$(cd "$(dirname "$0")/.." && pwd)
old=${USERSCRIPT_BUSYBOX_OLD:-$top/../shared/busybox-old}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -tags noclients -o "$tmp/userscript" "$top/cmd/userscript"

ms() { echo $(($(date +%s%N) / 1000000)); }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.1f", a / (b ? b : 1)}'; }
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

setup() { # DIR: the root, the ROM and the app dir of bench/apply.sh
	d=$1
	root=$d/root app=$d/app rom=$d/rom
	rc=$root/system/hddapp/etc/rc.d
	mkdir -p "$rom" "$rc" "$root/system/hddapp/etc/samba" "$root/etc" "$app/conf.d" "$app/lib"
	printf '[global]\n\tworkgroup = ROM\n' >"$rom/smb.conf"
	printf '/mnt/ide1/public *(ro)\n' >"$rom/exports"
	printf 'ServerName "ROM"\n' >"$rom/proftpd.conf"
	for s in S80samba.sh S85nfs.sh S91proftpd.sh; do
		printf '#!/bin/sh\nexit 0\n' >"$rc/$s"
		chmod +x "$rc/$s"
	done
	printf 'profile = "nas4220b"\n[services.samba]\nports = []\nprocess = ""\n[services.nfs]\nports = []\n[services.proftpd]\nports = []\nprocess = ""\n' >"$app/userscript.toml"
	cp "$top"/package/lib/*.sh "$app/lib/"
	"$tmp/userscript" profiles --sh nas4220b >"$app/lib/profile"
	echo bench >"$app/lib/version"
}

sources() { # APP TAG: three sources of a few KiB, as owners keep them
	{
		printf '[global]\n\tworkgroup = HOME%s\n\tsocket options = TCP_NODELAY IPTOS_LOWDELAY\n\tuse sendfile = yes\n' "$2"
		i=0
		while [ $i -lt 40 ]; do
			printf '[share%d]\n\tpath = /mnt/ide1/public/s%d\n\tread only = no\n' $i $i
			i=$((i + 1))
		done
	} >"$1/conf.d/smb.conf"
	printf '/mnt/ide1/public *(rw,async,no_root_squash,no_subtree_check) # %s\n' "$2" >"$1/conf.d/exports"
	printf 'ServerName "NAS%s"\nServerType standalone\nDefaultServer on\nPort 21\nUser nobody\nGroup nogroup\nUseSendfile on\n' "$2" >"$1/conf.d/proftpd.conf"
}

restore_rom() { # DIR
	cp "$1/rom/smb.conf" "$1/root/system/hddapp/etc/samba/smb.conf"
	cp "$1/rom/exports" "$1/root/etc/exports"
	cp "$1/rom/proftpd.conf" "$1/root/system/hddapp/etc/proftpd.conf"
}

copy() { # DIR
	cp "$1/app/conf.d/smb.conf" "$1/root/system/hddapp/etc/samba/smb.conf"
	cp "$1/app/conf.d/exports" "$1/root/etc/exports"
	cp "$1/app/conf.d/proftpd.conf" "$1/root/system/hddapp/etc/proftpd.conf"
}

restarts() { # DIR
	for s in S80samba.sh S85nfs.sh S91proftpd.sh; do
		"$1/root/system/hddapp/etc/rc.d/$s" restart
	done
}

# procs DIR NAME CMD...: the processes CMD creates (strace -ff writes one
# file per process; the first is CMD's own).
procs() {
	pd=$1/st-$2
	shift 2
	rm -rf "$pd" && mkdir -p "$pd"
	strace -ff -qq -e trace=process -o "$pd/p" "$@" >/dev/null 2>&1 || true
	set -- "$pd"/p.*
	echo $(($# - 1))
}

one() { # TAG BUSYBOX
	d=$tmp/$1
	setup "$d"
	bin=$d/bin
	mkdir -p "$bin"
	for x in cat cp mv rm mkdir ln ls cmp grep sed sleep date kill ps find echo test '[' tr wc head tail md5sum sh; do
		ln -sf "$2" "$bin/$x"
	done
	eng() { env -i PATH="$bin" USERSCRIPT_ROOT="$d/root" USERSCRIPT_APP="$d/app" "$bin/sh" "$d/app/lib/engine.sh" apply; }
	sources "$d/app" 0
	restore_rom "$d"
	eng >/dev/null 2>&1 || true # committed once
	: >"$d/boot" && : >"$d/cp" && : >"$d/cprc"
	i=0
	while [ $i -lt "$runs" ]; do
		restore_rom "$d"
		t0=$(ms) && { eng >/dev/null 2>&1 || true; } && t1=$(ms)
		echo $((t1 - t0)) >>"$d/boot"
		restore_rom "$d"
		t0=$(ms) && copy "$d" && t1=$(ms)
		echo $((t1 - t0)) >>"$d/cp"
		restore_rom "$d"
		t0=$(ms) && copy "$d" && { restarts "$d" >/dev/null 2>&1 || true; } && t1=$(ms)
		echo $((t1 - t0)) >>"$d/cprc"
		i=$((i + 1))
	done
	b=$(median <"$d/boot") c=$(median <"$d/cp") r=$(median <"$d/cprc")
	line="busybox $1: boot_ms=$b cp_ms=$c ratio=$(ratio "$b" "$c") cprc_ms=$r ratio_rc=$(ratio "$b" "$r")"
	if command -v strace >/dev/null 2>&1; then
		restore_rom "$d"
		bp=$(procs "$d" boot env -i PATH="$bin" USERSCRIPT_ROOT="$d/root" USERSCRIPT_APP="$d/app" "$bin/sh" "$d/app/lib/engine.sh" apply)
		np=$(procs "$d" noop env -i PATH="$bin" USERSCRIPT_ROOT="$d/root" USERSCRIPT_APP="$d/app" "$bin/sh" "$d/app/lib/engine.sh" apply)
		sources "$d/app" x
		fp=$(procs "$d" full env -i PATH="$bin" USERSCRIPT_ROOT="$d/root" USERSCRIPT_APP="$d/app" "$bin/sh" "$d/app/lib/engine.sh" apply)
		rp=$(procs "$d" rc sh -c "for s in S80samba.sh S85nfs.sh S91proftpd.sh; do $d/root/system/hddapp/etc/rc.d/\$s restart; done")
		line="$line boot_procs=$bp full_procs=$fp noop_procs=$np restart=$rp"
	fi
	echo "$line"
}

one debian "$(command -v busybox)"
for tag in 1_00 1_2_0 1_7_2; do
	if [ -x "$old/$tag/busybox" ]; then
		one "$tag" "$old/$tag/busybox"
	fi
done
