#!/bin/sh
# userscript sh engine: userscript for devices that cannot run the Go
# engine (ARMv4/OABI, 32-bit PowerPC), with the same protection: every
# apply is a transaction (journalled generation, atomic writes, restart,
# health check, automatic rollback), generations and rollback, held
# sources, a flap guard. Every file it reads or writes is described in
# docs/FORMATS.md; the scenario suite (testdata/scenarios) holds it to the
# same behaviour as the Go engine.
#
# Usage: engine.sh COMMAND
#   apply        apply conf.d once (exit 0 ok, 1 a target FAILED or was
#                REJECTED, or an error, 3 a source was REFUSED)
#   poll         apply, then re-apply whenever conf.d or a target changes;
#                runs in the foreground (init puts it in the background);
#                one poller per app dir, its pid in state/poll.pid
#   stop         stop the poller
#   running      exit 0 when the poller runs
#   status       print whether the poller runs and every status word
#   words        print every status word (conf.d/NAME.status: NAME: WORD)
#   history      list the generations
#   rollback [N] return to generation N (0: the firmware's own files;
#                none: the previous good one); the sources wait for an edit
#   doctor       print the doctor's report and write conf.d/DOCTOR.txt
#   page         write conf.d/STATUS.html (every apply does) when it changed
#   uninstall    write conf.d/DISABLE, put back the firmware's files and
#                the kernel's values, release every hold
#   version      print the package version
#   probe BIN    exit 0 when `BIN version` succeeds within 5 seconds
#
# Environment: USERSCRIPT_ROOT (device root, default /), USERSCRIPT_APP
# (app dir, default the folder above lib/), USERSCRIPT_POLL (seconds
# between polls; else poll_interval in userscript.toml, else lib/settings),
# USERSCRIPT_WRITING_MAX (seconds the poller waits for a conf.d file open
# for writing, default 600).
#
# It runs under BusyBox 1.00-1.8 ash and uses only sh built-ins and the
# applets cat cp mv rm mkdir ln ls cmp grep sed sleep date kill ps find
# echo test [ tr wc head tail md5sum. It runs as root on files anyone on
# the LAN may write, so: names from conf.d are never evaluated, only names
# made of letters, digits and . _ - are used at all, links are never
# followed, and nothing is written outside the profile's targets,
# conf.d/*.status, conf.d/.captured/, state/, and the kernel files tuning
# may set (/proc/sys, /proc/irq/N and allowed parts of /sys, under the
# root).

# Globals set here are used by the parts sourced below.
# shellcheck disable=SC2034,SC2154
set -u
umask 022
LC_ALL=C
export LC_ALL

MAX_SIZE=1048576 # sources over 1 MiB are refused

# The engine's parts live next to this file.
case $0 in
*/*) ENGINE_DIR=${0%/*} ;;
*) ENGINE_DIR=. ;;
esac
# part NAME sources lib/NAME.sh once. An apply sources only what it
# needs: the parts below at start, the others when they are used
# (validate, service and transaction, rollback, poll, the tuning parts,
# merge): reading the whole engine costs a 200 MHz CPU more than an
# apply that changes nothing.
PARTS=' '
part() {
	case $PARTS in *" $1 "*) return 0 ;; esac
	# shellcheck source=/dev/null
	. "$ENGINE_DIR/$1.sh" || {
		echo "userscript: $ENGINE_DIR/$1.sh is missing: reinstall the package" >&2
		exit 1
	}
	PARTS="$PARTS$1 "
}

for p in words common settings sources targets history quick apply; do
	part "$p"
done

setup() {
	ROOT=${USERSCRIPT_ROOT:-/}
	ROOT=${ROOT%/}
	APP=${USERSCRIPT_APP:-$ENGINE_DIR/..}
	# An absolute path without . or .. is used as it is (init passes one).
	case $APP in
	/*/./* | /*/../* | */. | */..) APP=$(cd -- "$APP" && pwd) || die "app dir $APP: cannot enter it" ;;
	/*) APP=${APP%/} ;;
	*) APP=$(cd -- "$APP" && pwd) || die "app dir $APP: cannot enter it" ;;
	esac
	CONF=$APP/conf.d
	STATE=$APP/state
	LIB=$APP/lib
	WORK=$STATE/tmp
	NL='
'
	CR=
	TAB=
	BOM=
	WS=" $NL"
	NOW=
	STIME=
	LOCKED=
	rb_dog=
	DOG=
	PAUSED=''
	DRIFTS=''
	CAPTURE=''
	RECOVERED=''
	G_CHANGED=''
	G_RESTARTED=''
	SET_NOTES=''
	NAMES=' '
	UNK=''
	UNK_MORE=0
	TUNE=''
	SRC=''
	TOUCHED=' '
	LOOKED=
	LOOK=
	LOOK_KNOWN=' '
	QUICK=
	REPORTS=
	RKEYS=' '
	RKN=0
	LOG_HOLD=
	LOGBUF=
	WORK_MADE=
	settings_defaults
}

# ensure_dirs checks conf.d and makes state/. A missing conf.d is never
# taken for "no sources" (that would give every target back to the
# firmware while the data disk is away): nothing is done. The look
# (quick.sh) answers without a `[` when it was taken.
ensure_dirs() {
	if ! looked "$CONF"; then
		LR_MODE=d
		if [ -L "$CONF" ]; then
			LR_MODE=l
		elif ! [ -d "$CONF" ]; then
			LR_MODE=
			[ -e "$CONF" ] && LR_MODE=o
		fi
	fi
	case $LR_MODE in
	d*) ;;
	'')
		echo "userscript: $CONF: no such folder; is the data disk mounted? Nothing was applied" >&2
		return 1
		;;
	*)
		echo "userscript: $CONF is not a folder (a symlink?); userscript only uses a real conf.d folder: replace it with one" >&2
		return 1
		;;
	esac
	if ! looked "$STATE"; then
		LR_MODE=d
		[ -L "$STATE" ] && LR_MODE=l
	fi
	case $LR_MODE in
	l*)
		echo "userscript: $STATE is a symbolic link; remove it (userscript never follows links)" >&2
		return 1
		;;
	d*) ;;
	*) mkdir -p "$STATE" 2>/dev/null ;;
	esac
	for ed in "$STATE/base" "$STATE/written"; do
		if looked "$ed"; then
			case $LR_MODE in d*) continue ;; esac
		fi
		if [ -L "$ed" ] || { [ -e "$ed" ] && ! [ -d "$ed" ]; }; then
			rm -f -- "$ed"
			log WARN "removed what was planted in state/ (not a folder)" file="${ed#"$APP"/}"
		fi
		mkdir -p "$ed" 2>/dev/null
		[ -L "$ed" ] && die "$ed is a symbolic link; remove it (userscript never follows links)"
	done
	return 0
}

rotate_log() {
	if looked "$STATE/log"; then
		rl_size=$LR_SIZE
	else
		size_of "$STATE/log"
		rl_size=$FSIZE
	fi
	num "$rl_size" || return 0
	case $((rl_size > LOG_MAX)) in 1) ;; *) return 0 ;; esac
	log_ok || return 0
	log_flush
	put_file "$STATE/log" "$STATE/log.1"
}

# too_big SIZE is true for sizes over MAX_SIZE and for anything not a number.
too_big() {
	num "$1" || return 0
	case $(($1 > MAX_SIZE)) in 1) return 0 ;; esac
	return 1
}

cmd_status() {
	poller_pid
	if filled "$PP" && is_ours "$PP"; then
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
		status_word "${cs_n%.status}"
		echo "${cs_n%.status}: $SW"
	done
}

cmd_version() {
	cv_v=unknown
	{ read -r cv_v <"$LIB/version"; } 2>/dev/null
	echo "userscript $cv_v (sh engine)"
}

cmd_probe() {
	[ -n "${1:-}" ] && [ -f "$1" ] || return 1
	mkdir -p "$STATE" 2>/dev/null
	run_bounded 5 "$STATE/probe.out" "$1" version
}

# parts sources every part (the commands other than apply).
parts() {
	for p in validate service transaction rollback poll tuning kernel tunestate; do
		part "$p"
	done
}

main() {
	# A closed telnet or ssh session (SIGHUP) lets what is under way
	# finish, as the Go engine does: an interrupted change is undone at
	# the next start, but a finished one is the owner's.
	trap '' HUP
	setup
	case ${1:-} in apply | version | words) ;; *) parts ;; esac
	case ${1:-} in
	apply)
		# A start (docs/FORMATS.md, "A way out"): counted in
		# state/starts, and it writes conf.d/DOCTOR.txt.
		START=yes
		cmd_apply
		ma_rc=$?
		case $ma_rc in 75) ma_rc=1 ;; esac
		exit "$ma_rc"
		;;
	rollback)
		cmd_rollback "${2:-}"
		ma_rc=$?
		[ "$ma_rc" -eq 75 ] && ma_rc=1
		exit "$ma_rc"
		;;
	history) cmd_history ;;
	doctor)
		part doctor
		cmd_doctor
		;;
	page)
		# conf.d/STATUS.html, as every apply writes it
		ensure_dirs || exit 1
		settings_load
		part page
		page_write
		;;
	uninstall)
		part wayout
		cmd_uninstall
		;;
	poll) cmd_poll ;;
	stop) cmd_stop ;;
	status) cmd_status ;;
	words) cmd_words ;;
	running) cmd_running ;;
	version) cmd_version ;;
	probe) cmd_probe "${2:-}" ;;
	*)
		echo "usage: engine.sh apply|poll|stop|running|status|words|history|rollback [N]|doctor|page|uninstall|version|probe BIN" >&2
		exit 2
		;;
	esac
}

main "$@"
