#!/bin/sh
# userscript bench, the device: the clock, programs in PATH, mounts and
# disks, the bench folders, the page cache, partition alignment.
# Part of package/lib/bench.sh (see there); sourced by it.
# Globals are shared with the other parts; some are set through eval.
# shellcheck disable=SC2034,SC2153,SC2154

# clock sets TS and TC to the time now: seconds and centiseconds of
# /proc/uptime, or date's whole seconds. Two readings are subtracted by
# elapsed, never multiplied out: an uptime of more than 248 days would
# overflow 32 bits in centiseconds.
clock() {
	cl_up=
	{ read -r cl_up cl_rest </proc/uptime; } 2>/dev/null
	case $cl_up in
	[0-9]*.[0-9]*)
		TS=${cl_up%.*}
		TC=${cl_up#*.}
		TC=${TC%"${TC#??}"}
		TC=${TC#0}
		;;
	*)
		TS=$(date +%s)
		TC=0
		;;
	esac
}

# elapsed S0 C0 S1 C1 sets CS to the centiseconds between two clocks.
elapsed() {
	CS=$((($3 - $1) * 100 + $4 - $2))
}

# mod NUMBER M sets MOD to NUMBER % M for a NUMBER of any length (start
# sectors of large disks exceed 32 bits), digit by digit.
mod() {
	md_s=$1
	MOD=0
	while :; do
		case $md_s in '') break ;; esac
		md_d=${md_s%"${md_s#?}"}
		md_s=${md_s#?}
		MOD=$(((MOD * 10 + md_d) % $2))
	done
}

# have PROGRAM is true when PROGRAM is in PATH (old ash has no `command`).
have() {
	hv_ifs=$IFS
	IFS=:
	for hv_d in $PATH; do
		if [ -x "${hv_d:-.}/$1" ]; then
			IFS=$hv_ifs
			return 0
		fi
	done
	IFS=$hv_ifs
	return 1
}

# mounts_file sets MF to the mount table under the root.
mounts_file() {
	MF=$R/proc/self/mounts
	[ -f "$MF" ] || MF=$R/proc/mounts
}

# mount_of DEVPATH sets MSRC, MPT, MFS to the mount holding DEVPATH (the
# longest mount point above it), or "-".
mount_of() {
	MSRC=- MPT='' MFS=-
	mounts_file
	while read -r mo_src mo_pt mo_fs mo_rest; do
		case $mo_pt in *\\*) mo_pt=$(echo "$mo_pt" | sed 's/\\040/ /g') ;; esac
		case $mo_pt in
		/) ;;
		*) case $1 in "$mo_pt" | "$mo_pt"/*) ;; *) continue ;; esac ;;
		esac
		[ ${#mo_pt} -ge ${#MPT} ] || continue
		MSRC=$mo_src MPT=$mo_pt MFS=$mo_fs
	done 2>/dev/null <"$MF"
}

# disk_of DEV sets DISK to the /sys/block name DEV (/dev/sda1) is on, or
# to nothing.
disk_of() {
	DISK=
	do_n=${1#/dev/}
	case $do_n in '' | */* | "$1") return 0 ;; esac
	if [ -e "$R/sys/block/$do_n" ]; then
		DISK=$do_n
		return 0
	fi
	for do_d in "$R"/sys/block/*; do
		if [ -e "$do_d/$do_n" ]; then
			DISK=${do_d##*/}
			return 0
		fi
	done
}

# on_usb DISK is true when the disk hangs off a USB bus: its /sys/block
# link (Linux >= 2.6.25) or its device link (older) points into one.
on_usb() {
	for ou_p in "$R/sys/block/$1" "$R/sys/block/$1/device"; do
		case $(ls -ld "$ou_p" 2>/dev/null) in *'-> '*/usb*) return 0 ;; esac
	done
	return 1
}

# find_disk MAINDISK USB sets FOUND to the mount point of another
# writable disk: on USB (USB=1) or not (USB=0).
find_disk() {
	FOUND=
	mounts_file
	while read -r fd_src fd_pt fd_fs fd_opts fd_rest; do
		case $fd_pt in / | /boot*) continue ;; esac
		case $fd_opts in rw | rw,*) ;; *) continue ;; esac
		case $fd_pt in *\\*) fd_pt=$(echo "$fd_pt" | sed 's/\\040/ /g') ;; esac
		disk_of "$fd_src"
		if [ -z "$DISK" ] || [ "$DISK" = "$1" ]; then
			continue
		fi
		fd_usb=0
		! on_usb "$DISK" || fd_usb=1
		if [ "$fd_usb" = "$2" ]; then
			FOUND=$fd_pt
			return 0
		fi
	done 2>/dev/null <"$MF"
}

# free_mib REALDIR sets FREE to the MiB free there (df -k), or to
# nothing when df is missing or says nothing useful, and FSMNT to the
# mount point df names.
free_mib() {
	FREE='' FSMNT=
	have df || return 0
	fm_out=$(df -k "$1" 2>/dev/null) || return 0
	fm_av=
	while read -r fm_1 fm_2 fm_3 fm_4 fm_5 fm_6; do
		case $fm_1 in Filesystem) continue ;; esac
		if [ -n "$fm_6" ]; then
			fm_av=$fm_4 FSMNT=$fm_6
		elif [ -n "$fm_5" ]; then
			fm_av=$fm_3 FSMNT=$fm_5
		fi
	done <<EOF
$fm_out
EOF
	case $fm_av in '' | *[!0-9]*) return 0 ;; esac
	if [ ${#fm_av} -gt 9 ]; then
		FREE=999999 # over 1 TiB: more than any test needs
	else
		FREE=$((fm_av / 1024))
	fi
}

# disk_new ROLE DEVPATH describes a disk folder.
disk_new() {
	dn_dev=$2
	while :; do
		case $dn_dev in ?*/) dn_dev=${dn_dev%/} ;; *) break ;; esac
	done
	mount_of "$dn_dev"
	disk_of "$MSRC"
	eval "${1}_dev=\$dn_dev ${1}_real=\$R\$dn_dev ${1}_src=\$MSRC ${1}_fs=\$MFS ${1}_disk=\$DISK ${1}_bench= ${1}_bdev="
}

# disk_get ROLE copies ROLE's variables to DDEV, DREAL, DSRC, DFS, DDISK,
# DBENCH, DBDEV.
disk_get() {
	eval "DDEV=\$${1}_dev DREAL=\$${1}_real DSRC=\$${1}_src DFS=\$${1}_fs DDISK=\$${1}_disk DBENCH=\$${1}_bench DBDEV=\$${1}_bdev"
}

# test_keeps TEST sets KEEPS, the files TEST needs on a disk to the end
# of the run (ROLE:FILE: written, or prepared for reading), and COPIES,
# the disks it copies a file to and removes it from right after.
test_keeps() {
	KEEPS='' COPIES=''
	case $1 in
	S1 | L1Null | L2DD) KEEPS=main:bench.dat ;;
	S3) KEEPS=main:bench.dat COPIES=second ;;
	USB1-out) KEEPS=main:bench.dat COPIES=usb ;;
	USBWriteOnly1 | USBReadOnly1) KEEPS=usb:bench-usb.dat ;;
	USB1-in) KEEPS=usb:bench-usb.dat COPIES=main ;;
	S2) KEEPS=main:bench-random.dat ;;
	esac
}

# need_mib " ROLE... " sets NEED to the MiB the planned tests keep at
# once on those disks (one filesystem): every file kept to the end (the
# runs are interleaved) and the one copy a test makes there (no test
# makes two). No [ here: before BusyBox 1.2 each is a process.
need_mib() {
	nm_keep=' ' nm_copy=0
	for nm_t in $PLAN; do
		test_keeps "$nm_t"
		for nm_k in $KEEPS; do
			case $1 in *" ${nm_k%%:*} "*) ;; *) continue ;; esac
			case $nm_keep in *" $nm_k "*) ;; *) nm_keep="$nm_keep$nm_k " ;; esac
		done
		case $1 in *" $COPIES "*) nm_copy=1 ;; esac
	done
	# shellcheck disable=SC2086 # one word per kept file
	set -- $nm_keep
	NEED=$((($# + nm_copy) * SIZE_MIB))
}

# space_check wants free, on every filesystem the plan writes to, what
# the tests keep there at once (need_mib) plus one test size to spare.
# Disks on one filesystem (df's mount point) count together. Short on
# the main disk's filesystem refuses the run (exit 1); short on another
# skips the tests of its disks, and is checked first. It leaves each
# disk's free MiB in ROLE_free for disk_setup.
space_check() {
	for sc_r in usb second main; do
		eval "${sc_r}_mnt= ${sc_r}_free="
		role_used "$sc_r" || continue
		disk_get "$sc_r"
		free_mib "$DREAL"
		case $FREE in '') continue ;; esac # disk_setup tells
		eval "${sc_r}_mnt=\$FSMNT ${sc_r}_free=\$FREE"
	done
	for sc_pass in other main; do
		for sc_r in usb second main; do
			eval "sc_m=\$${sc_r}_mnt sc_free=\$${sc_r}_free"
			case $sc_m in '') continue ;; esac
			sc_grp=' '
			for sc_o in usb second main; do
				eval "sc_om=\$${sc_o}_mnt"
				case $sc_om in "$sc_m") sc_grp="$sc_grp$sc_o " ;; esac
			done
			sc_has=other
			case $sc_grp in *" main "*) sc_has=main sc_r=main ;; esac
			case $sc_has in "$sc_pass") ;; *) continue ;; esac
			for sc_o in $sc_grp; do eval "${sc_o}_mnt="; done
			need_mib "$sc_grp"
			[ "$sc_free" -lt $((NEED + SIZE_MIB)) ] || continue
			disk_get "$sc_r"
			SETUP_ERR="$DDEV: $sc_free MiB free, the tests keep up to $NEED MiB here at once, plus $SIZE_MIB MiB to spare: use a smaller --size or fewer tests"
			case $sc_grp in *" main "*)
				echo "userscript bench: $SETUP_ERR" >&2
				exit 1
				;;
			esac
			drop_roles "$sc_grp"
		done
	done
}

# disk_setup ROLE makes the bench folder (space_check has checked the
# space). It returns 1 with SETUP_ERR when the disk cannot be used.
disk_setup() {
	disk_get "$1"
	if ! [ -d "$DREAL" ] || [ -L "$DREAL" ]; then
		SETUP_ERR="$DDEV: not a folder: give a folder on the disk to test"
		return 1
	fi
	remove_stale "$DREAL" "$DDEV"
	eval "FREE=\${${1}_free:-}"
	[ -n "$FREE" ] || free_mib "$DREAL"
	if [ -z "$FREE" ]; then
		SETUP_ERR="df not found (or it failed): cannot check the free space on $DDEV"
		return 1
	fi
	ds_real=$DREAL/userscript-bench.$$
	umask 077
	if ! mkdir "$ds_real"; then
		umask 022
		SETUP_ERR="$DDEV/userscript-bench.$$: cannot make it"
		return 1
	fi
	umask 022
	MADE="$MADE $1"
	eval "${1}_bench=\$ds_real ${1}_bdev=\$DDEV/userscript-bench.\$\$"
	say "$DDEV: bench folder $DDEV/userscript-bench.$$ ($DSRC, $DFS, $FREE MiB free)"
}

# remove_stale REALDIR DEVDIR removes bench folders whose run is gone.
remove_stale() {
	for rst_d in "$1"/userscript-bench.*; do
		if [ -L "$rst_d" ] || ! [ -d "$rst_d" ]; then
			continue
		fi
		rst_pid=${rst_d##*.}
		case $rst_pid in '' | *[!0-9]*) continue ;; esac
		! kill -0 "$rst_pid" 2>/dev/null || continue
		rm -rf "$rst_d" && say "$2: removed ${rst_d##*/}, left by an interrupted bench"
	done
}

# cleanup removes every bench folder this run made.
cleanup() {
	for cu_role in $MADE; do
		eval "cu_dir=\$${cu_role}_bench"
		rm -rf "$cu_dir"
	done
	MADE=
}

# drop_caches empties the page cache before a read: sync, then 3 into
# /proc/sys/vm/drop_caches. The first time it says whether that works,
# and when not whether the reads can still be trusted.
drop_caches() {
	[ "$CACHE" != no ] || return 0
	dc_f=$R/proc/sys/vm/drop_caches
	dc_ok=no
	if have sync && sync && [ -f "$dc_f" ] && { echo 3 >"$dc_f"; } 2>/dev/null; then
		dc_ok=yes
	fi
	[ -z "$CACHE" ] || return 0
	CACHE=$dc_ok
	if [ "$CACHE" = yes ]; then
		say "page cache: dropped before every read (/proc/sys/vm/drop_caches)"
		return 0
	fi
	dc_mem=0
	while read -r dc_k dc_v dc_rest; do
		case $dc_k in MemTotal:) dc_mem=$dc_v ;; esac
	done 2>/dev/null <"$R/proc/meminfo"
	case $dc_mem in '' | *[!0-9]*) dc_mem=0 ;; esac
	if [ "$dc_mem" -gt 0 ] && [ $((SIZE_MIB * 1024)) -gt "$dc_mem" ]; then
		say "page cache: cannot drop it, but the test file ($SIZE_MIB MiB) is larger than RAM ($((dc_mem / 1024)) MiB): reads come from the disk"
		return 0
	fi
	dc_ram="RAM size unknown"
	[ "$dc_mem" = 0 ] || dc_ram="RAM is $((dc_mem / 1024)) MiB"
	warn "reads may come from the page cache, not the disk: /proc/sys/vm/drop_caches cannot be written and the test file ($SIZE_MIB MiB) may fit in RAM ($dc_ram); run as root, or use a --size larger than RAM"
}

# align PREFIX judges every partition's start sector (512 bytes) from
# /sys/block: not a multiple of 4 KiB halves write throughput on a disk
# with 4 KiB sectors (the community measured 33.3 vs 66.5 MB/s).
align() {
	al_n=0
	for al_p in "$R"/sys/block/*/*/start; do
		[ -f "$al_p" ] || continue
		al_s=
		{ read -r al_s <"$al_p"; } 2>/dev/null
		case $al_s in '' | *[!0-9]*) continue ;; esac
		al_part=${al_p%/start}
		al_disk=${al_part%/*}
		al_part=${al_part##*/}
		al_disk=${al_disk##*/}
		mod "$al_s" 8
		al_4k=$MOD
		mod "$al_s" 2048
		al_1m=$MOD
		if [ "$al_4k" != 0 ]; then
			al_adv="NOT ALIGNED: starts at sector $al_s, not a multiple of 8 (4 KiB); on a disk with 4 KiB sectors every write costs two (the community measured 33.3 vs 66.5 MB/s). Back up the data, then recreate the partition starting at sector 2048 (fdisk -u, or parted -a optimal)"
		elif [ "$al_1m" != 0 ]; then
			al_adv="aligned to 4 KiB (sector $al_s); today's tools start partitions at 1 MiB (sector 2048), which also suits SSDs and RAID stripes"
		else
			al_adv="aligned (sector $al_s, a multiple of 1 MiB)"
		fi
		say "$1$al_part: $al_adv"
		al_a4=true al_a1=true
		[ "$al_4k" = 0 ] || al_a4=false
		[ "$al_1m" = 0 ] || al_a1=false
		json_str "$al_adv"
		JPARTS="$JPARTS${JPARTS:+,$NL}    {\"disk\": \"$al_disk\", \"name\": \"$al_part\", \"start_sector\": $al_s, \"aligned_4k\": $al_a4, \"aligned_1m\": $al_a1, \"advice\": $JS}"
		al_n=$((al_n + 1))
	done
	[ "$al_n" -gt 0 ] || say "partition alignment: no partitioned disk in /sys/block"
}
