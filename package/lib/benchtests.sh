#!/bin/sh
# userscript bench, the tests: the page's test scripts, timed.
# Part of package/lib/bench.sh (see there); sourced by it.
# Globals are shared with the other parts; some are set through eval.
# shellcheck disable=SC2034,SC2153,SC2154

# The tests in the order they run (USB1 names USB1-out and USB1-in).
ALL_TESTS="ZeroNull UrandomNull S1 L1Null L2DD L3hdparm S3 USB1-out USBWriteOnly1 USBReadOnly1 USB1-in S2"

# test_info TEST sets TOOLS (programs it runs), ROLES (disks it uses)
# and NAMED (1: runs only when named).
test_info() {
	NAMED=0 ROLES='' TOOLS=dd
	case $1 in
	UrandomNull) NAMED=1 ;;
	S1) ROLES=main TOOLS="dd sync" ;;
	L1Null) ROLES=main TOOLS=cp ;;
	L2DD) ROLES=main ;;
	L3hdparm) ROLES=main TOOLS=hdparm ;;
	S3) ROLES="main second" TOOLS="cp sync" ;;
	USB1-out | USB1-in) ROLES="main usb" TOOLS="cp sync" ;;
	USBWriteOnly1) ROLES=usb TOOLS="dd sync" ;;
	USBReadOnly1) ROLES=usb ;;
	S2) NAMED=1 ROLES=main TOOLS="dd sync" ;;
	esac
}

# wanted TEST is true when the owner asked for it (or for nothing).
wanted() {
	test_info "$1"
	if [ -z "$PICK" ]; then
		[ "$NAMED" = 0 ]
		return
	fi
	for wt_n in $PICK; do
		case $1 in "$wt_n" | "$wt_n"-*) return 0 ;; esac
	done
	return 1
}

# timed TEST RUN OUT SHOWN ARGV... runs ARGV and times it; a write (OUT
# is not "-") includes the sync. It sets CS, T0 (the start) and TM_CMD,
# or ERR and returns 1.
timed() {
	tm_test=$1 tm_run=$2 tm_out=$3 tm_cmd=$4
	shift 4
	[ "$tm_out" = - ] || tm_cmd="$tm_cmd; sync"
	say "$tm_test run $tm_run/$RUNS: $tm_cmd"
	T0=$(date -u '+%Y-%m-%dT%H:%M:%SZ')
	clock
	tm_s=$TS tm_c=$TC
	if ! tm_err=$("$@" 2>&1); then
		ERR="$1: $(echo "$tm_err" | tail -n 1)"
		return 1
	fi
	[ "$tm_out" = - ] || sync
	clock
	elapsed "$tm_s" "$tm_c" "$TS" "$TC"
	TM_CMD=$tm_cmd
}

# prepare ROLE FILE writes a test's input when no earlier test did (not
# measured).
prepare() {
	case " $PREP " in *" $1:$2 "*) return 0 ;; esac
	disk_get "$1"
	say "preparing $DBDEV/$2 ($SIZE_MIB MiB, not measured)"
	if ! pr_err=$(dd if=/dev/zero of="$DBENCH/$2" bs=1M count="$SIZE_MIB" 2>&1); then
		ERR="dd of=$DBDEV/$2: $(echo "$pr_err" | tail -n 1)"
		return 1
	fi
	PREP="$PREP $1:$2"
}

# t_write TEST RUN IN ROLE FILE: dd from IN (/dev/zero, /dev/urandom)
# into FILE on ROLE's disk.
t_write() {
	disk_get "$4"
	timed "$1" "$2" "$DBENCH/$5" "dd if=$3 of=$DBDEV/$5 bs=1M count=$SIZE_MIB" \
		dd if="$3" of="$DBENCH/$5" bs=1M count="$SIZE_MIB" || return 1
	PREP="$PREP $4:$5"
	result "$T0" "$1" "$2" "$SIZE_MIB" "$CS" "$TM_CMD" "$3" "$DSRC" "$DFS"
}

# t_read TEST RUN ROLE FILE: dd FILE to /dev/null, as the page: dd's
# default block size, after the caches were dropped.
t_read() {
	prepare "$3" "$4" || return 1
	drop_caches
	disk_get "$3"
	timed "$1" "$2" - "dd if=$DBDEV/$4 of=/dev/null" dd if="$DBENCH/$4" of=/dev/null || return 1
	result "$T0" "$1" "$2" "$SIZE_MIB" "$CS" "$TM_CMD" "$DSRC" /dev/null "$DFS"
}

# t_copy TEST RUN FROM FILE TO: cp FILE from FROM's bench folder to TO's
# (or to /dev/null when TO is -); a copy to a disk includes the sync and
# is removed afterwards.
t_copy() {
	prepare "$3" "$4" || return 1
	drop_caches
	disk_get "$3"
	tc_src=$DBENCH/$4 tc_show=$DBDEV/$4 tc_from=$DSRC tc_fs=$DFS
	if [ "$5" = - ]; then
		timed "$1" "$2" - "cp $tc_show /dev/null" cp "$tc_src" /dev/null || return 1
		result "$T0" "$1" "$2" "$SIZE_MIB" "$CS" "$TM_CMD" "$tc_from" /dev/null "$tc_fs"
		return 0
	fi
	disk_get "$5"
	timed "$1" "$2" "$DBENCH/$4" "cp $tc_show $DBDEV/$4" cp "$tc_src" "$DBENCH/$4"
	tc_rc=$?
	rm -f "$DBENCH/$4"
	[ "$tc_rc" = 0 ] || return 1
	result "$T0" "$1" "$2" "$SIZE_MIB" "$CS" "$TM_CMD" "$tc_from" "$DSRC" "$tc_fs->$DFS"
}

# t_hdparm RUN: hdparm -tT on the disk; two rows, L3hdparm (buffered disk
# reads) and L3hdparm-cache (cached reads), in hdparm's 2^20-byte MB.
t_hdparm() {
	disk_get main
	th_dev=$DSRC
	[ -z "$DDISK" ] || th_dev=/dev/$DDISK
	case $th_dev in
	/dev/*) ;;
	*)
		ERR="$DDEV is not on a disk ($th_dev)"
		return 1
		;;
	esac
	say "L3hdparm run $1/$RUNS: hdparm -tT $th_dev"
	T0=$(date -u '+%Y-%m-%dT%H:%M:%SZ')
	if ! th_out=$(hdparm -tT "$R$th_dev" 2>&1); then
		ERR="hdparm -tT $th_dev: $(echo "$th_out" | tail -n 1)"
		return 1
	fi
	th_rows=$(echo "$th_out" | sed -n \
		-e 's/.*Timing buffered disk reads: *\([0-9]*\)[.0-9]* MB in *\([0-9.]*\) seconds.*/L3hdparm \1 \2/p' \
		-e 's/.*Timing cached reads: *\([0-9]*\)[.0-9]* MB in *\([0-9.]*\) seconds.*/L3hdparm-cache \1 \2/p' \
		-e 's/.*Timing buffer-cache reads: *\([0-9]*\)[.0-9]* MB in *\([0-9.]*\) seconds.*/L3hdparm-cache \1 \2/p')
	if [ -z "$th_rows" ]; then
		ERR="hdparm -tT $th_dev: no timing in its output"
		return 1
	fi
	while read -r th_t th_mb th_s; do
		cs_of "$th_s"
		result "$T0" "$th_t" "$1" "$th_mb" "$CS" "hdparm -tT $th_dev" "$th_dev" - -
	done <<ROWS
$th_rows
ROWS
}

# run_test TEST RUN runs one test once.
run_test() {
	case $1 in
	ZeroNull | UrandomNull)
		rt_in=/dev/zero
		[ "$1" = ZeroNull ] || rt_in=/dev/urandom
		timed "$1" "$2" - "dd if=$rt_in of=/dev/null bs=1M count=$SIZE_MIB" \
			dd if="$rt_in" of=/dev/null bs=1M count="$SIZE_MIB" || return 1
		result "$T0" "$1" "$2" "$SIZE_MIB" "$CS" "$TM_CMD" "$rt_in" /dev/null -
		;;
	S1) t_write S1 "$2" /dev/zero main bench.dat ;;
	S2)
		t_write S2 "$2" /dev/urandom main bench-random.dat
		rt_rc=$?
		disk_get main
		rm -f "$DBENCH/bench-random.dat"
		return $rt_rc
		;;
	L1Null) t_copy L1Null "$2" main bench.dat - ;;
	L2DD) t_read L2DD "$2" main bench.dat ;;
	L3hdparm) t_hdparm "$2" ;;
	S3) t_copy S3 "$2" main bench.dat second ;;
	USB1-out) t_copy USB1-out "$2" main bench.dat usb ;;
	USBWriteOnly1) t_write USBWriteOnly1 "$2" /dev/zero usb bench-usb.dat ;;
	USBReadOnly1) t_read USBReadOnly1 "$2" usb bench-usb.dat ;;
	USB1-in) t_copy USB1-in "$2" usb bench-usb.dat main ;;
	esac
}
