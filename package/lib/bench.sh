#!/bin/sh
# userscript bench for the sh engine: the NAS-4220 community's throughput
# tests (`init bench`), writing the same CSV and JSON as the Go engine's
# `userscript bench run` (docs/BENCH.md).
#
# Usage: bench.sh [run] [--dir DIR] [--dir2 DIR] [--usb DIR] [--size SIZE]
#                 [--runs N] [--name NAME] [--out FILE.csv] [TEST...]
#        bench.sh align
#   TEST: ZeroNull UrandomNull S1 L1Null L2DD L3hdparm S3 USB1 (USB1-out,
#   USB1-in) USBWriteOnly1 USBReadOnly1 S2; none: all but S2 and
#   UrandomNull. SIZE: a number with M or G, at most 32G (default 1000M).
#
# It runs under BusyBox 1.00 ash (32-bit arithmetic: sizes are counted in
# MiB, times in centiseconds from /proc/uptime, or whole seconds from
# `date +%s`) and uses, besides the engine's applets, dd, sync, df and
# hdparm: each is looked for in PATH, and a test whose program is missing
# is skipped with a line saying so. Old dd prints no rate and knows no
# conv=fdatasync: a write is timed with its `sync`.
#
# Safety: it writes only into a fresh folder userscript-bench.PID (mode
# 0700) on each disk it tests, refuses a disk with less than twice the
# test size free, removes those folders when it ends or is interrupted
# (INT, TERM), and writes results only into conf.d/.bench (never through
# a link) or --out. Nothing in state/ is written. It never runs at boot.
#
# Device paths (--dir, /proc, /sys) are resolved under USERSCRIPT_ROOT;
# /dev/zero, /dev/null, /dev/urandom and the clock (/proc/uptime) are the
# real ones. The functions can be sourced for tests: BENCH_SOURCE=1.

# Globals are shared by the functions here and in the parts it sources
# (benchout.sh, benchdisk.sh, benchtests.sh, next to it).
# shellcheck disable=SC2034,SC2153
set -u
umask 022
LC_ALL=C
export LC_ALL

NL='
'
MAX_MIB=32768 # 32G: MiB * 48576 must stay within 32-bit arithmetic

case $0 in
*/*) BENCH_DIR=${BENCH_DIR:-${0%/*}} ;;
*) BENCH_DIR=${BENCH_DIR:-.} ;;
esac
for bench_part in benchout benchdisk benchtests; do
	# shellcheck source=/dev/null
	. "$BENCH_DIR/$bench_part.sh" || {
		echo "userscript: $BENCH_DIR/$bench_part.sh is missing: reinstall the package" >&2
		exit 1
	}
done


usage() {
	echo "usage: init bench [run] [--dir DIR] [--dir2 DIR] [--usb DIR] [--size SIZE] [--runs N] [--name NAME] [--out FILE.csv] [TEST...]" >&2
	echo "       init bench align" >&2
	echo "TEST: ZeroNull UrandomNull S1 L1Null L2DD L3hdparm S3 USB1 USBWriteOnly1 USBReadOnly1 S2; SIZE: a number with M or G, at most 32G" >&2
	[ -z "${1:-}" ] || echo "userscript bench: $1" >&2
	exit 2
}

# setup_env sets the root, the app dir, and what the results carry: the
# device's name, the engine's version and the live generation (the
# newest in state/gen whose result is ok; state/ is only read).
setup_env() {
	R=${USERSCRIPT_ROOT:-/}
	R=${R%/}
	if [ -n "${USERSCRIPT_APP:-}" ]; then
		APP=$USERSCRIPT_APP
	else
		case $0 in
		*/*) APP=${0%/*}/.. ;;
		*) APP=.. ;;
		esac
	fi
	APP=$(cd -- "$APP" && pwd) || exit 1
	VERSION=- DEVICE=- GEN=-
	{ read -r VERSION <"$APP/lib/version"; } 2>/dev/null
	{ read -r DEVICE <"$R/proc/sys/kernel/hostname"; } 2>/dev/null
	for se_m in "$APP"/state/gen/*/meta.json; do
		se_g=${se_m%/meta.json}
		se_g=${se_g##*/}
		case $se_g in '' | *[!0-9]*) continue ;; esac
		! grep -q '"result": "ok"' "$se_m" 2>/dev/null || GEN=$se_g
	done
	while :; do
		case $GEN in 0?*) GEN=${GEN#0} ;; *) break ;; esac
	done
	csv_field "${DEVICE:--}"
	DEVICE_CSV=$CF
	csv_field "${VERSION:--}"
	VERSION_CSV=$CF
}

# parse_args ARGS sets DIR DIR2 USB SIZE_MIB RUNS NAME OUT PICK.
parse_args() {
	DIR='' DIR2='' USB='' SIZE=1000M RUNS=3 NAME=run OUT='' PICK=''
	while [ $# -gt 0 ]; do
		case $1 in
		--dir | --dir2 | --usb | --size | --runs | --name | --out)
			[ $# -ge 2 ] || usage "$1 needs a value"
			case $1 in
			--dir) DIR=$2 ;;
			--dir2) DIR2=$2 ;;
			--usb) USB=$2 ;;
			--size) SIZE=$2 ;;
			--runs) RUNS=$2 ;;
			--name) NAME=$2 ;;
			--out) OUT=$2 ;;
			esac
			shift 2
			;;
		-*) usage "unknown option $1" ;;
		*)
			case " $ALL_TESTS USB1 " in
			*" $1 "*) PICK="$PICK $1" ;;
			*) usage "unknown test \"$1\"" ;;
			esac
			shift
			;;
		esac
	done
	pa_n=${SIZE%[MG]}
	case $pa_n in '' | *[!0-9]* | ??????*) usage "--size $SIZE: want a whole number of M or G, e.g. 1000M or 2G" ;; esac
	case $SIZE in
	*M) SIZE_MIB=$pa_n ;;
	*G) SIZE_MIB=$((pa_n * 1024)) ;;
	*) usage "--size $SIZE: want a whole number of M or G, e.g. 1000M or 2G" ;;
	esac
	if [ "$SIZE_MIB" -lt 1 ] || [ "$SIZE_MIB" -gt $MAX_MIB ]; then
		usage "--size $SIZE: want 1M to 32G on this engine"
	fi
	case $RUNS in '' | *[!0-9]* | ????*) usage "--runs $RUNS: want 1 to 100" ;; esac
	if [ "$RUNS" -lt 1 ] || [ "$RUNS" -gt 100 ]; then
		usage "--runs $RUNS: want 1 to 100"
	fi
	case $NAME in '' | *[!A-Za-z0-9._-]*) usage "--name $NAME: use letters, digits, '.', '_' and '-' only" ;; esac
}

# plan sets PLAN to the tests that can run, skipping the others with the
# reason, and describes the disks they need.
plan() {
	if [ -n "$DIR" ]; then
		disk_new main "$DIR"
	else
		pl_dev=$APP
		[ -z "$R" ] || pl_dev=${APP#"$R"}
		[ "$pl_dev" != "$APP" ] || [ -z "$R" ] || usage "the app dir is not under the root $R: pass --dir DIR"
		disk_new main "$pl_dev"
	fi
	PLAN='' KNOWN=main
	for pl_t in $ALL_TESTS; do
		wanted "$pl_t" || continue
		pl_skip=
		for pl_tool in $TOOLS; do
			have "$pl_tool" || {
				pl_skip="$pl_tool not found on this device"
				break
			}
		done
		[ -n "$pl_skip" ] || for pl_r in $ROLES; do
			case " $KNOWN " in *" $pl_r "*) continue ;; esac
			pl_given=$DIR2 pl_what="a second disk (--dir2 DIR)" pl_usb=0
			if [ "$pl_r" = usb ]; then
				pl_given=$USB pl_what="a USB disk (--usb DIR)" pl_usb=1
			fi
			if [ -z "$pl_given" ]; then
				disk_get main
				find_disk "$DDISK" "$pl_usb"
				pl_given=$FOUND
			fi
			if [ -z "$pl_given" ]; then
				pl_skip="needs $pl_what; none is mounted"
				break
			fi
			disk_new "$pl_r" "$pl_given"
			KNOWN="$KNOWN $pl_r"
		done
		if [ -n "$pl_skip" ]; then
			skip "$pl_t" "$pl_skip"
		else
			PLAN="$PLAN $pl_t"
		fi
	done
}

# role_used ROLE succeeds when a planned test uses the disk ROLE.
role_used() {
	for ru_t in $PLAN; do
		test_info "$ru_t"
		case " $ROLES " in *" $1 "*) return 0 ;; esac
	done
	return 1
}

# drop_roles "ROLE..." skips the planned tests that use one of the disks,
# with SETUP_ERR as the reason.
drop_roles() {
	dr_keep=
	for dr_t in $PLAN; do
		test_info "$dr_t"
		dr_drop=
		for dr_r in $1; do
			case " $ROLES " in *" $dr_r "*) dr_drop=1 ;; esac
		done
		if [ -n "$dr_drop" ]; then
			skip "$dr_t" "$SETUP_ERR"
		else
			dr_keep="$dr_keep $dr_t"
		fi
	done
	PLAN=$dr_keep
}

# setup_disks checks the space (space_check: too little refuses the
# run), then makes the bench folder on every disk the plan uses; a disk
# that cannot be used skips its tests.
setup_disks() {
	space_check
	for sd_r in main second usb; do
		role_used "$sd_r" || continue
		disk_setup "$sd_r" || drop_roles "$sd_r"
	done
}

bench_main() {
	setup_env
	case ${1:-} in
	run) shift ;;
	align)
		[ $# = 1 ] || usage "align takes no arguments"
		JPARTS=
		align ""
		exit 0
		;;
	esac
	CSV='' JRES='' RATES='' SEEN='' SKIPS='' WARNS='' JPARTS='' MADE='' PREP='' CACHE='' FAILED_ANY=0
	parse_args "$@"
	STAMP=$(date -u '+%Y-%m-%d-%H%M%S')
	# 0, not EXIT: BusyBox 1.2's ash knows no EXIT.
	trap cleanup 0
	trap 'cleanup; exit 130' INT
	trap 'cleanup; exit 143' TERM
	# A closed ssh or telnet session: clean up as on Ctrl-C.
	trap 'cleanup; exit 129' HUP
	plan
	align "partition "
	setup_disks
	bm_run=1
	while [ "$bm_run" -le "$RUNS" ]; do
		bm_left=
		for bm_t in $PLAN; do
			if run_test "$bm_t" "$bm_run"; then
				bm_left="$bm_left $bm_t"
			else
				skip "$bm_t" "failed: $ERR" 1
			fi
		done
		PLAN=$bm_left
		bm_run=$((bm_run + 1))
	done
	cleanup
	if [ -z "$CSV" ]; then
		echo "userscript bench: no results" >&2
		exit 1
	fi
	summary
	results_path
	save || exit 1
	exit "$FAILED_ANY"
}

[ "${BENCH_SOURCE:-}" = 1 ] || bench_main "$@"
