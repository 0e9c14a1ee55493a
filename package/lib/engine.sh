#!/bin/sh
# userscript sh engine: the boot-time subset of userscript for devices that
# cannot run the Go engine (ARMv4/OABI, 32-bit PowerPC). Every file it reads
# or writes is described in docs/FORMATS.md; the scenario suite
# (testdata/scenarios) holds it to the same behaviour as the Go engine.
#
# Usage: engine.sh COMMAND
#   apply    apply conf.d once: every target with sources is composed,
#            validated and written; a target we wrote whose sources are all
#            gone gets the firmware's file (its base) back; the kernel
#            settings of conf.d/sysctl.conf and conf.d/tuning.conf are set
#            (and put back when removed) before the changed services
#            restart. Exit 0 ok, 1 a target FAILED or an error, 3 a source
#            was REFUSED (tuning results are in their status files only)
#   poll     apply, then re-apply whenever conf.d or a target changes; runs
#            in the foreground (init puts it in the background); one poller
#            per app dir, its pid in state/poll.pid
#   stop     stop the poller
#   running  exit 0 when the poller runs
#   status   print whether the poller runs and every status word
#   words    print every status word (conf.d/NAME.status: NAME: WORD)
#   version  print the package version
#   probe BIN  exit 0 when `BIN version` succeeds within 5 seconds
#
# Environment: USERSCRIPT_ROOT (device root, default /), USERSCRIPT_APP (app
# dir, default the folder above lib/), USERSCRIPT_POLL (seconds between
# polls, default from lib/settings).
#
# It runs under an old BusyBox ash and uses only sh built-ins and the
# applets cat cp mv rm mkdir ln ls cmp grep sed sleep date kill ps find
# echo test tr wc head tail md5sum. It runs as root on files anyone on the
# LAN may write, so: names from conf.d are never evaluated, only names made
# of letters, digits and . _ - are used at all, links are never followed,
# and nothing is written outside the profile's targets, conf.d/*.status,
# state/, and the kernel files tuning may set (/proc/sys, /proc/irq/N and
# allowed parts of /sys, under the root).
#
# Cost of one idle poll: 2 processes (one `ls` of conf.d and the targets,
# one `sleep`); nothing is read but that listing and state/poll.pid (never
# /proc or /sys: tuning is set only when conf.d changes), and nothing is
# written.

# Globals set here are used by the parts sourced below.
# shellcheck disable=SC2034,SC2154
set -u
umask 022
LC_ALL=C
export LC_ALL

MAX_SIZE=1048576   # sources over 1 MiB are refused
LOG_MAX=262144     # state/log is rotated to state/log.1 over 256 KiB

# The engine's other parts live next to this file.
case $0 in
*/*) ENGINE_DIR=${0%/*} ;;
*) ENGINE_DIR=. ;;
esac
for part in sources targets tuning kernel tunestate; do
	# shellcheck source=/dev/null
	. "$ENGINE_DIR/$part.sh" || {
		echo "userscript: $ENGINE_DIR/$part.sh is missing: reinstall the package" >&2
		exit 1
	}
done

# ---- setup ---------------------------------------------------------------

setup() {
	ROOT=${USERSCRIPT_ROOT:-/}
	ROOT=${ROOT%/}
	if [ -n "${USERSCRIPT_APP:-}" ]; then
		APP=$USERSCRIPT_APP
	else
		case $0 in
		*/*) APP=${0%/*}/.. ;;
		*) APP=.. ;;
		esac
	fi
	APP=$(cd -- "$APP" && pwd) || die "app dir $APP: cannot enter it"
	CONF=$APP/conf.d
	STATE=$APP/state
	LIB=$APP/lib
	WORK=$STATE/tmp
	chars=$(echo abcde | tr abcde '\015\011\357\273\277')
	CR=${chars%????}
	chars=${chars#?}
	TAB=${chars%???}
	BOM=${chars#?}
	NL='
'
	WS=" $TAB$NL"
	NOW=
	STIME=
	LOCKED=
	PSLEEP=
	rb_dog=
}

die() {
	echo "userscript: $*" >&2
	exit 1
}

# stamp_now sets NOW (log time) and STIME (status file time) from one date.
stamp_now() {
	NOW=$(date -u '+%Y-%m-%dT%H:%M:%SZ')
	sn_day=${NOW%%T*}
	sn_time=${NOW#*T}
	STIME="$sn_day ${sn_time%Z} UTC"
}

# log LEVEL MESSAGE [key=value ...] appends one line to state/log.
log() {
	[ -n "$NOW" ] || stamp_now
	lg_line="$NOW $1 $2"
	shift 2
	for lg_kv in "$@"; do
		case $lg_kv in
		*' '*) lg_line="$lg_line ${lg_kv%%=*}=\"${lg_kv#*=}\"" ;;
		*) lg_line="$lg_line $lg_kv" ;;
		esac
	done
	log_ok || return 0
	echo "$lg_line" >>"$STATE/log"
}

# log_ok is true when state/log may be appended to: a regular file, or
# none yet. Anything else planted there (a link, a FIFO) is removed, never
# written through; when it cannot be removed (a folder), nothing is logged.
log_ok() {
	if [ -L "$STATE/log" ] || { [ -e "$STATE/log" ] && ! [ -f "$STATE/log" ]; }; then
		rm -f "$STATE/log" 2>/dev/null
		if [ -L "$STATE/log" ] || [ -e "$STATE/log" ]; then
			return 1
		fi
		echo "$NOW WARN state/log was not a regular file (a link or other): removed it; a fresh log starts here" >"$STATE/log"
	fi
	return 0
}

# plain_slot PATH makes PATH free for a file of ours to be renamed onto
# (PATH is in our own state/): a link, a folder or anything not a regular
# file planted there is removed. It fails when something stays.
plain_slot() {
	if [ -L "$1" ] || { [ -e "$1" ] && ! [ -f "$1" ]; }; then
		rm -rf -- "$1" 2>/dev/null
		if [ -L "$1" ] || [ -e "$1" ]; then
			return 1
		fi
		log WARN "removed what was planted in state/ (not a regular file)" file="${1#"$APP"/}"
	fi
	return 0
}

# put_file SRC DST renames SRC (ours, in DST's folder or state/tmp) over
# DST in state/; mv replaces a link itself instead of writing through it.
put_file() {
	plain_slot "$2" || return 1
	mv -f -- "$1" "$2"
}

ensure_dirs() {
	for ed in "$CONF" "$STATE"; do
		[ -L "$ed" ] && die "$ed is a symbolic link; remove it (userscript never follows links)"
	done
	mkdir -p "$CONF" "$STATE" || die "$STATE: cannot create it"
	for ed in "$STATE/base" "$STATE/written"; do
		if [ -L "$ed" ] || { [ -e "$ed" ] && ! [ -d "$ed" ]; }; then
			rm -f -- "$ed"
			log WARN "removed what was planted in state/ (not a folder)" file="${ed#"$APP"/}"
		fi
		mkdir -p "$ed" || die "$ed: cannot create it"
		[ -L "$ed" ] && die "$ed is a symbolic link; remove it (userscript never follows links)"
	done
}

rotate_log() {
	log_ok || return 0
	rl_size=$(file_size "$STATE/log")
	case $rl_size in '' | *[!0-9]*) return 0 ;; esac
	if [ "${#rl_size}" -gt 9 ] || [ "$rl_size" -gt "$LOG_MAX" ]; then
		put_file "$STATE/log" "$STATE/log.1"
	fi
}

# file_size PATH prints the size `ls -ln` shows, without reading the file.
file_size() {
	set -f
	# shellcheck disable=SC2046 # split ls's fields on purpose
	set -- $(ls -lnd -- "$1" 2>/dev/null)
	set +f
	echo "${5:-}"
}

# too_big SIZE is true for sizes over MAX_SIZE and for anything not a number.
too_big() {
	case $1 in '' | *[!0-9]*) return 0 ;; esac
	[ "${#1}" -gt 9 ] && return 0
	[ "$1" -gt "$MAX_SIZE" ]
}

# find_tool NAME prints the path of NAME found in PATH.
find_tool() {
	ft_name=$1
	ft_ifs=$IFS
	IFS=:
	set -f
	# shellcheck disable=SC2086 # split PATH on purpose
	set -- $PATH
	set +f
	IFS=$ft_ifs
	for ft_dir in "$@"; do
		[ -n "$ft_dir" ] || ft_dir=.
		if [ -f "$ft_dir/$ft_name" ] && [ -x "$ft_dir/$ft_name" ]; then
			echo "$ft_dir/$ft_name"
			return 0
		fi
	done
	return 1
}

# ---- profile (lib/profile) ------------------------------------------------

profile_load() {
	[ -f "$LIB/profile" ] || die "$LIB/profile is missing; reinstall the package"
	PROFILE=
	TARGETS=
	TPATHS=
	while read -r pl_kind pl_a pl_b _; do
		case $pl_kind in
		profile) PROFILE=$pl_a ;;
		target)
			TARGETS="$TARGETS $pl_a"
			TPATHS="$TPATHS $ROOT$pl_b"
			;;
		esac
	done <"$LIB/profile"
}

# profile_target NAME sets TPATH TVAL TSVC, TFLAGS (nonempty or -) and
# TMODE (the mode of a new file, e.g. 0644).
profile_target() {
	while read -r pt_kind pt_name pt_path pt_val pt_svc pt_flags pt_mode _; do
		if [ "$pt_kind" != target ] || [ "$pt_name" != "$1" ]; then
			continue
		fi
		TPATH=$pt_path
		TVAL=$pt_val
		TSVC=$pt_svc
		TFLAGS=${pt_flags:--}
		TMODE=${pt_mode:-0644}
		return 0
	done <"$LIB/profile"
	return 1
}

# profile_service NAME sets STIMEOUT and SARGV (words without spaces).
profile_service() {
	while read -r ps_kind ps_name ps_timeout ps_argv; do
		if [ "$ps_kind" != service ] || [ "$ps_name" != "$1" ]; then
			continue
		fi
		STIMEOUT=$ps_timeout
		SARGV=$ps_argv
		return 0
	done <"$LIB/profile"
	return 1
}

is_target() {
	case " $TARGETS " in *" $1 "*) return 0 ;; esac
	return 1
}

# ---- lock (state/lock.d, shared with the Go engine) ------------------------

# is_ours PID is true when PID is alive and is a userscript process (a pid
# left from before a reboot may belong to something else by now).
is_ours() {
	case $1 in '' | *[!0-9]*) return 1 ;; esac
	kill -0 "$1" 2>/dev/null || return 1
	[ -f "/proc/$1/cmdline" ] || return 0
	grep -q -e engine.sh -e userscript "/proc/$1/cmdline" 2>/dev/null
}

lock_take() {
	lt_wait=0
	while ! mkdir "$STATE/lock.d" 2>/dev/null; do
		lt_pid=
		# Only a regular file is read: a FIFO planted there would block.
		if ! [ -L "$STATE/lock.d/pid" ] && [ -f "$STATE/lock.d/pid" ]; then
			{ read -r lt_pid <"$STATE/lock.d/pid"; } 2>/dev/null
		fi
		if [ -n "$lt_pid" ] && ! is_ours "$lt_pid"; then
			log WARN "stale lock taken over" pid="$lt_pid"
			rm -rf "$STATE/lock.d"
			continue
		fi
		if [ -z "$lt_pid" ] && [ "$lt_wait" -ge 5 ]; then
			rm -rf "$STATE/lock.d"
			continue
		fi
		[ "$lt_wait" -ge "${LOCK_WAIT:-30}" ] && return 1
		sleep 1
		lt_wait=$((lt_wait + 1))
	done
	LOCKED=yes
	rm -f "$STATE/lock.d/pid.tmp"
	echo "$$" >"$STATE/lock.d/pid.tmp" && put_file "$STATE/lock.d/pid.tmp" "$STATE/lock.d/pid"
}

lock_release() {
	rm -rf "$STATE/lock.d"
	LOCKED=
}

# ---- run a command with a time limit ----------------------------------------

# run_bounded SECONDS OUT ARGV... runs ARGV with output to OUT; it is killed
# after SECONDS (exit 124). No `timeout` applet is needed: a watchdog
# subshell checks once a second and ends by itself when ARGV has ended.
run_bounded() {
	rb_t=$1
	rb_out=$2
	shift 2
	rm -f "$rb_out" "$rb_out.timeout"
	"$@" </dev/null >"$rb_out" 2>&1 &
	rb_pid=$!
	(
		rb_i=0
		while [ "$rb_i" -lt "$rb_t" ]; do
			sleep 1
			kill -0 "$rb_pid" 2>/dev/null || exit 0
			rb_i=$((rb_i + 1))
		done
		: >"$rb_out.timeout"
		kill "$rb_pid" 2>/dev/null
		sleep 2
		kill -9 "$rb_pid" 2>/dev/null
	) </dev/null >/dev/null 2>&1 &
	rb_dog=$!
	wait "$rb_pid"
	rb_rc=$?
	# The watchdog would end by itself within a second; end it now.
	kill "$rb_dog" 2>/dev/null
	rb_dog=
	if [ -f "$rb_out.timeout" ]; then
		rm -f "$rb_out.timeout"
		return 124
	fi
	return "$rb_rc"
}

# ---- apply --------------------------------------------------------------------

cmd_apply() {
	ensure_dirs
	stamp_now
	rotate_log
	profile_load
	if ! lock_take; then
		log WARN "apply skipped: another apply holds state/lock.d"
		echo "userscript: another apply holds $STATE/lock.d; try again later" >&2
		return 75
	fi
	rm -rf "$WORK"
	# mkdir without -p: a link planted as state/tmp in between fails it.
	if ! mkdir "$WORK" || [ -L "$WORK" ]; then
		log ERROR "apply failed: cannot make state/tmp"
		lock_release
		echo "userscript: cannot make $WORK" >&2
		return 1
	fi
	CHANGED=
	SVCS=
	RESTARTED=
	scan
	for ap_n in $TARGETS; do
		case " $SRC " in
		*" $ap_n "*) plan "$ap_n" ;;
		*) [ ! -f "$STATE/written/$ap_n" ] || restore "$ap_n" ;;
		esac
	done
	for ap_n in $UNK; do
		unknown "$ap_n"
	done
	if [ "$UNK_MORE" -gt 0 ]; then
		log WARN "unknown targets: no status file for more than $UNK_MAX a time" count="$UNK_MORE" profile="$PROFILE"
	fi
	# The services restart with the new kernel values in place.
	tune
	restart_services
	ap_rc=0
	for ap_n in $TARGETS $UNK; do
		[ -f "$WORK/$ap_n.f" ] || continue
		write_status "$ap_n"
		echo "$ap_n: $r_status"
		case $r_status in
		FAILED) ap_rc=1 ;;
		REFUSED) [ "$ap_rc" -eq 0 ] && ap_rc=3 ;;
		esac
	done
	for ap_n in $TUNING_FILES; do
		[ -f "$WORK/${ap_n%.conf}.f" ] || continue
		write_status "${ap_n%.conf}"
		echo "$ap_n: $r_status"
	done
	log INFO "apply done" changed="${CHANGED# }" restarted="${RESTARTED# }"
	rm -rf "$WORK"
	lock_release
	return "$ap_rc"
}

unknown() { # NAME
	sources_of "$1"
	fset "$1" status UNKNOWN
	fset "$1" file "conf.d/${SOURCES%% *}"
	fset "$1" sources "$SOURCES"
	fset "$1" reason "no such target in profile $PROFILE"
	fset "$1" todo "name the file after a target of this device:$TARGETS (or NAME.add); nothing was applied"
	log WARN "unknown target" name="$1" profile="$PROFILE"
}

# ---- poll ---------------------------------------------------------------------

poll_interval() {
	PI=${USERSCRIPT_POLL:-}
	if [ -z "$PI" ] && [ -f "$LIB/settings" ]; then
		while read -r pi_k pi_v _; do
			[ "$pi_k" = poll ] && PI=$pi_v
		done <"$LIB/settings"
	fi
	PI=${PI%s}
	case $PI in '' | *[!0-9]* | 0) PI=5 ;; esac
}

# ls_flags sets LSFULL to the ls option for full times, when this ls has one.
ls_flags() {
	LSFULL=
	if ls --full-time -d / >/dev/null 2>&1; then
		LSFULL=--full-time
	elif ls -e -d / >/dev/null 2>&1; then
		LSFULL=-e
	fi
}

poller_pid() {
	PP=
	{ read -r PP <"$STATE/poll.pid"; } 2>/dev/null
}

cmd_poll() {
	ensure_dirs
	profile_load
	poll_interval
	# init writes our pid to state/poll.pid as soon as it has started us;
	# when run by hand, we write it. Whoever finds another pid there later
	# exits, so there is never more than one poller.
	poller_pid
	if [ "$PP" != "$$" ]; then
		if [ -n "$PP" ] && is_ours "$PP"; then
			echo "userscript: a poller is already running (pid $PP)"
			return 0
		fi
		rm -rf "$STATE/poll.pid.tmp"
		echo "$$" >"$STATE/poll.pid.tmp" && put_file "$STATE/poll.pid.tmp" "$STATE/poll.pid"
	fi
	NOW=
	log INFO "poller started" pid="$$" interval="$PI"
	ls_flags
	set -f
	# shellcheck disable=SC2086 # target paths hold no spaces
	set -- $TPATHS
	set +f
	# The listing (names, inodes, sizes, ctimes) of conf.d and the targets
	# is the whole cost of an idle poll: saves by rename change the inode,
	# edits change the ctime, a firmware restore changes both.
	# shellcheck disable=SC2086 # LSFULL is one option or nothing
	po_prev=$(ls -lnicA $LSFULL -- "$CONF" "$@" 2>&1)
	trap poll_term TERM INT HUP
	poll_apply
	while :; do
		# A sleep in the background, so that `init stop` (TERM) is
		# handled at once rather than after the sleep.
		sleep "$PI" &
		PSLEEP=$!
		wait "$PSLEEP"
		PSLEEP=
		poller_pid
		if [ "$PP" != "$$" ]; then
			NOW=
			log INFO "poller stopped" pid="$$"
			return 0
		fi
		# shellcheck disable=SC2086 # LSFULL is one option or nothing
		po_cur=$(ls -lnicA $LSFULL -- "$CONF" "$@" 2>&1)
		[ "$po_cur" = "$po_prev" ] && continue
		poll_apply && po_prev=$po_cur
	done
}

# poll_term ends the poller cleanly: no watchdog or sleep left behind, no
# lock left held.
poll_term() {
	trap - TERM INT HUP
	[ -z "${PSLEEP:-}" ] || kill "$PSLEEP" 2>/dev/null
	[ -z "${rb_dog:-}" ] || kill "$rb_dog" 2>/dev/null
	[ -z "${LOCKED:-}" ] || lock_release
	NOW=
	log INFO "poller stopped" pid="$$"
	exit 0
}

# poll_apply applies once; it fails only when the lock was busy, so the
# next poll tries again. The sh apply runs in this very process (not a
# subshell), so that the pid in state/lock.d is the one doing the work.
poll_apply() {
	cmd_apply >/dev/null 2>&1
	[ $? -ne 75 ]
}

cmd_stop() {
	poller_pid
	rm -f "$STATE/poll.pid"
	if [ -n "$PP" ] && is_ours "$PP"; then
		kill "$PP" 2>/dev/null
		st_i=0
		while is_ours "$PP" && [ "$st_i" -lt 10 ]; do
			sleep 1
			st_i=$((st_i + 1))
		done
		echo "userscript: poller stopped (pid $PP)"
	else
		echo "userscript: no poller running"
	fi
}

# cmd_running is true when a poller runs for this app dir.
cmd_running() {
	poller_pid
	[ -n "$PP" ] && is_ours "$PP"
}

cmd_status() {
	poller_pid
	if [ -n "$PP" ] && is_ours "$PP"; then
		echo "userscript: poller running (pid $PP)"
	else
		echo "userscript: poller not running"
	fi
	cmd_words
}

cmd_words() {
	for cs_f in "$CONF"/*.status; do
		[ -f "$cs_f" ] || continue
		cs_n=${cs_f##*/}
		safe_name "$cs_n" || continue
		echo "${cs_n%.status}: $(status_word "${cs_n%.status}")"
	done
}

cmd_version() {
	cv_v=unknown
	{ read -r cv_v <"$LIB/version"; } 2>/dev/null
	echo "userscript $cv_v (sh engine)"
}

cmd_probe() {
	[ -n "${1:-}" ] && [ -f "$1" ] || return 1
	run_bounded 5 "$STATE/probe.out" "$1" version
}

main() {
	setup
	case ${1:-} in
	apply)
		cmd_apply
		ma_rc=$?
		[ "$ma_rc" -eq 75 ] && ma_rc=1
		exit "$ma_rc"
		;;
	poll) cmd_poll ;;
	stop) cmd_stop ;;
	status) cmd_status ;;
	words) cmd_words ;;
	running) cmd_running ;;
	version) cmd_version ;;
	probe)
		ensure_dirs
		cmd_probe "${2:-}"
		;;
	*)
		echo "usage: engine.sh apply|poll|stop|running|status|words|version|probe BIN" >&2
		exit 2
		;;
	esac
}

main "$@"
