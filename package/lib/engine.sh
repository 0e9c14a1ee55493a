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

set -u
umask 022
LC_ALL=C
export LC_ALL

MAX_SIZE=1048576   # sources over 1 MiB are refused
LOG_MAX=262144     # state/log is rotated to state/log.1 over 256 KiB

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

# profile_target NAME sets TPATH TVAL TSVC.
profile_target() {
	while read -r pt_kind pt_name pt_path pt_val pt_svc _; do
		if [ "$pt_kind" != target ] || [ "$pt_name" != "$1" ]; then
			continue
		fi
		TPATH=$pt_path
		TVAL=$pt_val
		TSVC=$pt_svc
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

# ---- sources ----------------------------------------------------------------

# ignored NAME: editor droppings and our own files, never reported.
ignored() {
	case $1 in
	.* | '~$'* | *.[Tt][Mm][Pp] | *.[Ss][Ww][Pp] | *.[Ss][Ww][Xx] | *'~' | *.status | README* | examples) return 0 ;;
	esac
	return 1
}

# safe_name NAME: letters, digits and . _ - only, not starting with - or .
safe_name() {
	case $1 in
	'' | -* | .* | *[!A-Za-z0-9._-]*) return 1 ;;
	esac
	return 0
}

# UNK_MAX: at most this many unknown names get a status file per apply.
UNK_MAX=20

# scan sets SRC (targets with sources), TUNE (tuning files with sources)
# and UNK (unknown names, at most UNK_MAX; UNK_MORE counts the rest) from
# conf.d. A name no target can have (over 64 bytes, or one whose target
# part ends in .add, .merge, .status, .tmp, .swp) gets a log line only.
scan() {
	SRC=
	TUNE=
	UNK=
	UNK_MORE=0
	sc_nunk=0
	sc_last=
	sc_odd=0
	sc_bad=0
	for sc_f in "$CONF"/*; do
		[ -e "$sc_f" ] || [ -L "$sc_f" ] || continue
		sc_n=${sc_f##*/}
		ignored "$sc_n" && continue
		if ! safe_name "$sc_n"; then
			sc_odd=$((sc_odd + 1))
			continue
		fi
		case $sc_n in
		*.add) sc_b=${sc_n%.add} ;;
		*.merge) sc_b=${sc_n%.merge} ;;
		*) sc_b=$sc_n ;;
		esac
		[ -n "$sc_b" ] || continue
		sc_why=
		case $sc_b in
		*.add | *.merge | *.status | *.[Tt][Mm][Pp] | *.[Ss][Ww][Pp])
			sc_why="its target part ends in ${sc_b##*.}"
			;;
		esac
		[ "${#sc_b}" -le 64 ] || sc_why="its target part is longer than 64 bytes"
		if [ -n "$sc_why" ]; then
			sc_bad=$((sc_bad + 1))
			[ "$sc_bad" -gt "$UNK_MAX" ] ||
				log WARN "ignored: no target can have this name" name="$sc_n" reason="$sc_why"
			continue
		fi
		if is_target "$sc_b"; then
			case " $SRC " in *" $sc_b "*) ;; *) SRC="$SRC $sc_b" ;; esac
		elif is_tuning "$sc_b"; then
			case " $TUNE " in *" $sc_b "*) ;; *) TUNE="$TUNE $sc_b" ;; esac
		else
			case " $UNK " in *" $sc_b "*) continue ;; esac
			if [ "$sc_nunk" -lt "$UNK_MAX" ]; then
				UNK="$UNK $sc_b"
				sc_nunk=$((sc_nunk + 1))
			elif [ "$sc_b" != "$sc_last" ]; then
				UNK_MORE=$((UNK_MORE + 1))
				sc_last=$sc_b
			fi
		fi
	done
	if [ "$sc_odd" -gt 0 ]; then
		log WARN "ignored files in conf.d whose names hold characters other than letters, digits and . _ -" count="$sc_odd"
	fi
	if [ "$sc_bad" -gt "$UNK_MAX" ]; then
		log WARN "ignored more files in conf.d that no target can be named after" count="$((sc_bad - UNK_MAX))"
	fi
}

# sources_of NAME sets SOURCES to NAME NAME.add NAME.merge, those present.
sources_of() {
	SOURCES=
	for so_s in "$1" "$1.add" "$1.merge"; do
		if [ -e "$CONF/$so_s" ] || [ -L "$CONF/$so_s" ]; then
			SOURCES="$SOURCES $so_s"
		fi
	done
	SOURCES=${SOURCES# }
}

# take_source NAME OUT copies conf.d/NAME to OUT, normalised, or sets
# REASON and TODO and fails. It reads a hard link of the source made in
# state/tmp (same file system), checked after it is made: swapped in the
# meantime for a link or a FIFO, the hard link is a link or a FIFO too, and
# is never opened. Only when ln fails is the source itself read.
take_source() {
	ts_f=$CONF/$1
	ts_l=$WORK/src.$1
	TODO="put the file itself into conf.d (not a link, not a folder, at most 1 MiB)"
	if [ -L "$ts_f" ]; then
		REASON="conf.d/$1 is a symbolic link; links in conf.d are never followed"
		return 1
	fi
	if ! [ -f "$ts_f" ]; then
		REASON="conf.d/$1 is not a regular file"
		return 1
	fi
	ls_fields "$ts_f"
	if too_big "$LS_SIZE"; then
		REASON="conf.d/$1 is larger than 1 MiB ($LS_SIZE bytes)"
		return 1
	fi
	if [ "$LS_LINKS" != 1 ]; then
		REASON="conf.d/$1: has other hard links; userscript does not read files that are also elsewhere: save it as a plain copy"
		TODO="save conf.d/$1 as a plain copy (not a hard link of another file)"
		return 1
	fi
	rm -rf "$ts_l" "$2.raw"
	if ln -- "$ts_f" "$ts_l" 2>/dev/null; then
		ls_fields "$ts_l"
		case $LS_MODE in
		-*) [ "$LS_LINKS" = 2 ] && ! too_big "$LS_SIZE" ;;
		*) false ;;
		esac || {
			rm -f "$ts_l"
			REASON="conf.d/$1 changed while it was read"
			TODO="save it again"
			return 1
		}
		cat -- "$ts_l" >"$2.raw"
		ts_rc=$?
		rm -f "$ts_l"
	else
		cat -- "$ts_f" >"$2.raw"
		ts_rc=$?
	fi
	if [ "$ts_rc" -ne 0 ]; then
		REASON="conf.d/$1 could not be read"
		return 1
	fi
	# It may have been swapped for a link or a big file while it was read.
	if [ -L "$ts_f" ] || too_big "$(file_size "$2.raw")"; then
		REASON="conf.d/$1 changed while it was read"
		TODO="save it again"
		return 1
	fi
	# shellcheck disable=SC2094 # both only read it
	if ! tr -d '\000' <"$2.raw" | cmp -s - "$2.raw"; then
		REASON="conf.d/$1: holds NUL bytes; it is not a text file"
		TODO="save conf.d/$1 as plain text"
		return 1
	fi
	normalise "$2.raw" "$2"
}

# ls_fields PATH sets LS_MODE, LS_LINKS and LS_SIZE from `ls -lnd` (the
# entry itself, never what a link points to).
ls_fields() {
	set -f
	# shellcheck disable=SC2046 # split ls's fields on purpose
	set -- $(ls -lnd -- "$1" 2>/dev/null)
	set +f
	LS_MODE=${1:-}
	LS_LINKS=${2:-}
	LS_SIZE=${5:-}
}

# normalise IN OUT: drop leading UTF-8 BOMs and every CR at a line end,
# end with a newline unless empty.
normalise() {
	sed -e "1s/^\($BOM\)*//" -e "s/$CR*\$//" "$1" >"$2" || return 1
	ends_nl "$2" || echo >>"$2"
}

ends_nl() {
	[ ! -s "$1" ] || [ -z "$(tail -c 1 "$1")" ]
}

# ---- per-target result fields (state/tmp/NAME.f) --------------------------

# fset NAME KEY VALUE records a status field; the last value of a key wins,
# warnings add up.
fset() {
	echo "$2 $3" >>"$WORK/$1.f"
}

refuse() { # NAME FILE REASON TODO
	fset "$1" status REFUSED
	fset "$1" file "conf.d/$2"
	fset "$1" reason "$3"
	fset "$1" todo "$4"
	log WARN "refused" target="$1" file="conf.d/$2" reason="$3"
}

failed() { # NAME REASON TODO
	fset "$1" status FAILED
	fset "$1" reason "$2"
	fset "$1" todo "$3"
	log ERROR "failed" target="$1" reason="$2"
}

# ---- base capture -------------------------------------------------------------

# capture_base NAME LIVE: the live file is the firmware's unless its md5 is
# what we last wrote; then state/base/NAME is kept.
capture_base() {
	cb_lh=
	if [ -f "$2" ]; then
		cb_lh=$(md5sum <"$2")
		cb_lh=${cb_lh%% *}
	fi
	CB_MISSING=
	if [ -n "$cb_lh" ] && written_has "$1" "$cb_lh"; then
		# The live file is ours: the stored base is the firmware's file. A
		# base that is a link or not a regular file counts as missing (it
		# is removed, never read); it is needed unless a replacement is.
		base_ok "$1" && return 0
		plain_slot "$STATE/base/$1" || return 1
		[ -f "$WORK/$1.n" ] && return 0
		CB_MISSING=yes
		return 1
	fi
	rm -rf "$STATE/base/$1.tmp"
	if [ -f "$2" ]; then
		cat "$2" >"$STATE/base/$1.tmp" || return 1
	else
		: >"$STATE/base/$1.tmp"
	fi
	put_file "$STATE/base/$1.tmp" "$STATE/base/$1" || return 1
	rm -f "$STATE/written/$1"
	log INFO "base captured" target="$1" md5="${cb_lh:-none}"
}

# base_ok NAME is true when state/base/NAME is a regular file, not a link.
base_ok() {
	! [ -L "$STATE/base/$1" ] && [ -f "$STATE/base/$1" ]
}

# compose NAME writes WORK/NAME.target: the replacement or the base, then
# the addition, unless the text already ends with it (a base taken from
# our own file when state/ was lost must not get the addition twice).
compose() {
	co_out=$WORK/$1.target
	if [ -f "$WORK/$1.n" ]; then
		cp "$WORK/$1.n" "$co_out"
	elif base_ok "$1"; then
		cat "$STATE/base/$1" >"$co_out"
	else
		: >"$co_out"
	fi
	if [ -f "$WORK/$1.add.n" ] && ! ends_with "$co_out" "$WORK/$1.add.n"; then
		ends_nl "$co_out" || echo >>"$co_out"
		cat "$WORK/$1.add.n" >>"$co_out"
	fi
}

# ends_with FILE TAIL is true when FILE's last bytes are TAIL's content.
ends_with() {
	ew_n=$(file_size "$2")
	case $ew_n in '' | *[!0-9]*) return 1 ;; esac
	[ "$ew_n" -gt 0 ] || return 0
	[ "$(file_size "$1")" -ge "$ew_n" ] 2>/dev/null || return 1
	tail -c "$ew_n" "$1" | cmp -s - "$2"
}

# ---- validation -----------------------------------------------------------------

# validate NAME FILE sets the status fields; it fails when FILE is refused.
validate() {
	case $TVAL in
	testparm) validate_testparm "$1" "$2" ;;
	proftpd) validate_proftpd "$1" "$2" ;;
	exports) validate_exports "$1" "$2" ;;
	*)
		fset "$1" status "NOT VALIDATED"
		fset "$1" reason "not validated: the profile names no validator for $1"
		;;
	esac
}

not_found() { # NAME TOOL
	fset "$1" status "NOT VALIDATED"
	fset "$1" reason "not validated: $2 not found"
	log INFO "not validated" target="$1" reason="$2 not found"
}

validate_testparm() {
	vt_bin=$(find_tool testparm) || {
		not_found "$1" testparm
		return 0
	}
	"$vt_bin" -s "$2" </dev/null >"$WORK/$1.vout" 2>&1
	vt_rc=$?
	log INFO "validate" target="$1" argv="testparm -s" exit="$vt_rc"
	testparm_warnings "$1" "$2"
	if [ "$vt_rc" -ne 0 ]; then
		vt_last=$(tail -n 1 "$WORK/$1.vout")
		vt_line=$(grep -n '^[[:space:]]*\[[^]]*$' "$2" | head -n 1)
		vt_line=${vt_line%%:*}
		if [ -n "$vt_line" ]; then
			vt_reason="line $vt_line: section header without a closing ] (testparm -s: $vt_last)"
		else
			vt_reason="testparm -s refused it: $vt_last"
		fi
		refuse "$1" "$FIRST" "$vt_reason" "fix conf.d/$FIRST and save it again; the live file was not changed"
		return 1
	fi
	fset "$1" status OK
	fset "$1" validated "testparm -s"
}

# testparm_warnings NAME FILE: unknown and deprecated parameters, with the
# line of FILE that names them.
testparm_warnings() {
	grep -e 'Unknown parameter encountered' -e 'deprecated' "$WORK/$1.vout" |
		head -n 10 >"$WORK/$1.warn"
	tw_inc=
	while read -r tw_w; do
		case $tw_w in
		*'Unknown parameter encountered'*) tw_w="Unknown parameter encountered${tw_w#*Unknown parameter encountered}" ;;
		esac
		tw_p=${tw_w#*\"}
		tw_p=${tw_p%%\"*}
		tw_line=
		if [ -n "$tw_p" ] && [ "$tw_p" != "$tw_w" ]; then
			tw_line=$(grep -n -i -F -e "$tw_p" "$2" | head -n 1)
			tw_line=${tw_line%%:*}
		fi
		if [ -z "$tw_line" ]; then
			# Not a line of ours: never echo another file.
			tw_inc=yes
			continue
		fi
		fset "$1" warning "line $tw_line: $tw_w"
	done <"$WORK/$1.warn"
	[ -z "$tw_inc" ] ||
		fset "$1" warning "an included file sets unknown or deprecated parameters (not shown: the file is not yours to read here)"
}

validate_proftpd() {
	vp_bin=$(find_tool proftpd) || {
		not_found "$1" proftpd
		return 0
	}
	"$vp_bin" -t -c "$2" </dev/null >"$WORK/$1.vout" 2>&1
	vp_rc=$?
	log INFO "validate" target="$1" argv="proftpd -t -c" exit="$vp_rc"
	if [ "$vp_rc" -ne 0 ]; then
		# A line of another (included) file is never echoed: it may be
		# /etc/shadow's, and the status file is on the share.
		vp_reason=
		vp_at=$(sed -n 's/.*fatal: .* on line \([0-9][0-9]*\) of \(.*\)$/\1 \2/p' "$WORK/$1.vout" | head -n 1)
		vp_file=${vp_at#* }
		vp_file=${vp_file#\'}
		vp_file=${vp_file%\'}
		if [ -n "$vp_at" ] && [ "$vp_file" = "$2" ]; then
			vp_reason=$(sed -n 's/.*fatal: \(.*\) on line \([0-9][0-9]*\) of .*/line \2: \1/p' "$WORK/$1.vout" | head -n 1)
		elif [ -n "$vp_at" ]; then
			vp_reason="the included file $vp_file has an error on its line ${vp_at%% *} (not shown); fix or remove the Include"
		fi
		[ -n "$vp_reason" ] || vp_reason="proftpd -t refused it: $(tail -n 1 "$WORK/$1.vout")"
		refuse "$1" "$FIRST" "$vp_reason" "fix conf.d/$FIRST and save it again; the live file was not changed"
		return 1
	fi
	fset "$1" status OK
	fset "$1" validated "proftpd -t"
}

# validate_exports only checks that every entry starts with a path:
# exportfs cannot check a file other than /etc/exports without a private
# mount namespace, which the sh engine cannot make.
validate_exports() {
	if ! grep -q '\\$' "$2"; then
		ve_bad=$(grep -n -v -e '^[[:space:]]*$' -e '^[[:space:]]*#' -e '^[[:space:]]*/' -e '^[[:space:]]*"/' "$2" | head -n 1)
		if [ -n "$ve_bad" ]; then
			refuse "$1" "$FIRST" "line ${ve_bad%%:*}: an export must start with an absolute path" \
				"fix conf.d/$FIRST and save it again; the live file was not changed"
			return 1
		fi
	fi
	fset "$1" status "NOT VALIDATED"
	fset "$1" reason "not validated: the sh engine cannot check exports (it only checked that each entry starts with a path)"
}

# ---- plan and write one target --------------------------------------------

# plan NAME: sources → composed target → validated → written. Records
# changed targets in CHANGED ("NAME:SERVICE" words) and services in SVCS.
plan() {
	profile_target "$1" || return 0
	pl_live=$ROOT$TPATH
	sources_of "$1"
	FIRST=${SOURCES%% *}
	fset "$1" file "conf.d/$FIRST"
	fset "$1" target "$TPATH"
	fset "$1" sources "$SOURCES"
	case " $SOURCES " in
	*" $1.merge "*)
		refuse "$1" "$1.merge" "not supported on this device — render it on a PC" \
			"render the merge with userscript on a PC and put the result here as $1"
		return 0
		;;
	esac
	for pl_s in $SOURCES; do
		if ! take_source "$pl_s" "$WORK/$pl_s.n"; then
			refuse "$1" "$pl_s" "$REASON" "$TODO"
			return 0
		fi
	done
	if [ -L "$pl_live" ] || { [ -e "$pl_live" ] && ! [ -f "$pl_live" ]; }; then
		failed "$1" "$TPATH is not a regular file; userscript does not replace links or folders" \
			"check $TPATH on the device"
		return 0
	fi
	if ! capture_base "$1" "$pl_live"; then
		if [ -n "$CB_MISSING" ]; then
			refuse "$1" "$FIRST" "state/base/$1 is missing, so the firmware's own $TPATH is unknown; reboot the NAS (the firmware restores it) or delete state/written/$1" \
				"reboot the NAS, or delete state/written/$1 to keep the live file as it is"
			return 0
		fi
		failed "$1" "could not save the base of $TPATH in state/base" "check that the data disk is writable and not full"
		return 0
	fi
	compose "$1"
	validate "$1" "$WORK/$1.target" || return 0
	install_target "$1" "$pl_live"
}

# install_target NAME LIVE [forget] writes the composed target atomically:
# a copy in the target's own folder, then a rename over it. With forget,
# the target is the firmware's again once written: state/written/NAME goes.
install_target() {
	it_new=$WORK/$1.target
	it_sum=$(md5sum <"$it_new")
	it_sum=${it_sum%% *}
	it_mark=${3:-}
	if [ -f "$2" ] && cmp -s "$it_new" "$2"; then
		mark_written "$1" "$it_sum" "$it_mark"
		return 0
	fi
	it_dir=${2%/*}
	if ! [ -d "$it_dir" ]; then
		failed "$1" "the folder of $TPATH does not exist" "check the profile and the device"
		return 0
	fi
	it_tmp=$it_dir/.userscript-new.$1
	rm -f "$it_tmp"
	# While it is written, both hashes are ours: killed half way, the next
	# apply still knows the live file, old or new, for ours. (cb_lh is the
	# live file's hash, from capture_base.)
	if [ -n "$cb_lh" ] && written_has "$1" "$cb_lh"; then
		set_written "$1" "$it_sum" "$cb_lh"
	else
		set_written "$1" "$it_sum"
	fi
	if ! cp "$it_new" "$it_tmp" || ! mv -f "$it_tmp" "$2"; then
		rm -f "$it_tmp"
		failed "$1" "could not write $TPATH" "check that the device's file system is writable"
		return 0
	fi
	mark_written "$1" "$it_sum" "$it_mark"
	log INFO "written" target="$1" path="$TPATH" md5="$it_sum"
	CHANGED="$CHANGED $1:$TSVC"
	case " $SVCS " in *" $TSVC "*) ;; *) [ "$TSVC" = - ] || SVCS="$SVCS $TSVC" ;; esac
}

# mark_written NAME MD5 [forget]: ours (state/written/NAME holds MD5), or
# with forget the firmware's again.
mark_written() {
	if [ "${3:-}" = forget ]; then
		forget_written "$1"
	else
		remember_written "$1" "$2"
	fi
}

forget_written() { # NAME
	[ -f "$STATE/written/$1" ] || return 0
	rm -f "$STATE/written/$1"
	log INFO "not managed any more" target="$1"
}

# remember_written NAME MD5 makes state/written/NAME the one line MD5.
remember_written() {
	WL=
	written_lines "$1"
	[ "$WL" = "$2" ] && return 0
	set_written "$1" "$2"
}

# set_written NAME LINE... writes state/written/NAME (aside, then renamed).
set_written() {
	sw_f=$STATE/written/$1
	shift
	rm -rf "$sw_f.tmp"
	for sw_l in "$@"; do
		echo "$sw_l"
	done >"$sw_f.tmp" && put_file "$sw_f.tmp" "$sw_f"
}

# written_lines NAME sets WL to the lines of state/written/NAME, joined by
# spaces: one hash, or two while a write is under way (the new, then the
# old); a file matching any of them is ours.
written_lines() {
	WL=
	! [ -L "$STATE/written/$1" ] && [ -f "$STATE/written/$1" ] || return 0
	while read -r wl_l; do
		WL="$WL${WL:+ }$wl_l"
	done <"$STATE/written/$1"
}

written_has() { # NAME MD5
	written_lines "$1"
	case " $WL " in *" $2 "*) [ -n "$2" ] ;; *) return 1 ;; esac
}

# ---- a target whose sources are gone --------------------------------------

# restore NAME gives a target we manage (state/written/NAME) whose sources
# are all gone back to the firmware: its base is written back (validated,
# atomically, its service restarted once) and it is not managed any more.
# When the live file already is the base, nothing is written or restarted.
restore() {
	profile_target "$1" || return 0
	rt_live=$ROOT$TPATH
	FIRST=$1
	fset "$1" file "conf.d/$1"
	fset "$1" target "$TPATH"
	fset "$1" reason "no source in conf.d any more: the firmware's own file is live again"
	if [ -L "$rt_live" ] || { [ -e "$rt_live" ] && ! [ -f "$rt_live" ]; }; then
		failed "$1" "$TPATH is not a regular file; userscript does not replace links or folders" \
			"check $TPATH on the device"
		return 0
	fi
	if ! base_ok "$1" && is_written "$1" "$rt_live"; then
		refuse "$1" "$1" "state/base/$1 is missing, so the firmware's own $TPATH is unknown; reboot the NAS (the firmware restores it) or delete state/written/$1" \
			"reboot the NAS, or delete state/written/$1 to keep the live file as it is"
		return 0
	fi
	if ! capture_base "$1" "$rt_live"; then
		failed "$1" "could not save the base of $TPATH in state/base" "check that the data disk is writable and not full"
		return 0
	fi
	compose "$1"
	if [ -f "$rt_live" ] && cmp -s "$WORK/$1.target" "$rt_live"; then
		forget_written "$1"
		# The status file already tells the truth unless it says otherwise.
		case $(status_word "$1") in
		OK | "NOT VALIDATED")
			rm -f "$WORK/$1.f"
			return 0
			;;
		esac
		validate "$1" "$WORK/$1.target"
		return 0
	fi
	validate "$1" "$WORK/$1.target" || return 0
	install_target "$1" "$rt_live" forget
}

# is_written NAME LIVE is true when LIVE is what we last wrote to NAME.
is_written() {
	[ -f "$STATE/written/$1" ] && [ -f "$2" ] || return 1
	iw_lh=$(md5sum <"$2")
	written_has "$1" "${iw_lh%% *}"
}

# status_word NAME prints the status: word of conf.d/NAME.status.
status_word() {
	if [ -L "$CONF/$1.status" ] || ! [ -f "$CONF/$1.status" ]; then
		return 0
	fi
	sed -n "s/^status: \(.*\)$CR\$/\1/p" "$CONF/$1.status" | head -n 1
}

# ---- services -------------------------------------------------------------------

# restart_services runs each changed service's restart command once.
restart_services() {
	for rs_svc in $SVCS; do
		if ! profile_service "$rs_svc"; then
			service_failed "$rs_svc" "service $rs_svc is not in lib/profile"
			continue
		fi
		restart_one "$rs_svc"
	done
}

restart_one() {
	set -f
	# shellcheck disable=SC2086 # the profile's argv words hold no spaces
	set -- $SARGV
	set +f
	ro_svc=$rs_svc
	[ $# -gt 0 ] || {
		service_failed "$ro_svc" "service $ro_svc has no restart command"
		return 0
	}
	ro_name="${1##*/}"
	case $1 in
	/*) ro_bin=$ROOT$1 ;;
	*) ro_bin=$1 ;;
	esac
	shift
	ro_argv="$ro_name${*:+ $*}"
	case $STIMEOUT in '' | *[!0-9]*) STIMEOUT=60 ;; esac
	run_bounded "$STIMEOUT" "$WORK/restart.out" "$ro_bin" "$@"
	ro_rc=$?
	ro_tail=$(tail -n 3 "$WORK/restart.out" | tr '\n' ' ')
	log INFO "exec" service="$ro_svc" argv="$ro_argv" exit="$ro_rc" stderr="$ro_tail"
	RESTARTED="$RESTARTED $ro_svc"
	if [ "$ro_rc" -eq 124 ]; then
		service_failed "$ro_svc" "$ro_argv did not finish within $STIMEOUT s"
	elif [ "$ro_rc" -ne 0 ]; then
		service_failed "$ro_svc" "$ro_argv exited $ro_rc${ro_tail:+: $ro_tail}"
	fi
}

service_failed() { # SERVICE REASON
	for sf_pair in $CHANGED; do
		[ "${sf_pair#*:}" = "$1" ] || continue
		sf_n=${sf_pair%%:*}
		failed "$sf_n" "$2" "the new $sf_n is live, but $1 did not restart; see state/log"
	done
}

# ---- status files -----------------------------------------------------------------

# render NAME WITH_TIME prints the status file for NAME (CRLF).
render() {
	r_status=
	r_file=
	r_target=
	r_sources=
	r_validated=
	r_reason=
	r_todo=
	while read -r r_k r_v; do
		case $r_k in
		status) r_status=$r_v ;;
		file) r_file=$r_v ;;
		target) r_target=$r_v ;;
		sources) r_sources=$r_v ;;
		validated) r_validated=$r_v ;;
		reason) r_reason=$r_v ;;
		todo) r_todo=$r_v ;;
		esac
	done <"$WORK/$1.f"
	line status "$r_status"
	line file "$r_file"
	line target "$r_target"
	line sources "$r_sources"
	line validated "$r_validated"
	line reason "$r_reason"
	while read -r r_k r_v; do
		[ "$r_k" = warning ] && line warning "$r_v"
	done <"$WORK/$1.f"
	while read -r r_k r_v; do
		[ "$r_k" = setting ] && line setting "$r_v"
	done <"$WORK/$1.f"
	[ "$2" = yes ] && line time "$STIME"
	if [ -n "$r_todo" ]; then
		echo "$CR"
		line "what to do" "$r_todo"
	fi
	return 0
}

line() {
	[ -z "$2" ] || echo "$1: $2$CR"
}

# write_status NAME rewrites conf.d/NAME.status only when a line other
# than time: changed.
write_status() {
	ws_dst=$CONF/$1.status
	# render sets r_status, which apply prints, also when the file is
	# skipped.
	render "$1" no >"$WORK/$1.cmp"
	if [ -L "$ws_dst" ] || { [ -e "$ws_dst" ] && ! [ -f "$ws_dst" ]; }; then
		log WARN "not writing a status file over a link, folder or FIFO; skipped it" file="conf.d/$1.status"
		return 0
	fi
	if [ -f "$ws_dst" ]; then
		sed -e '/^time: /d' "$ws_dst" >"$WORK/$1.old"
		cmp -s "$WORK/$1.cmp" "$WORK/$1.old" && return 0
	fi
	render "$1" yes >"$WORK/$1.st"
	mv -f "$WORK/$1.st" "$ws_dst"
}

# ---- kernel tuning (conf.d/sysctl.conf, conf.d/tuning.conf) ------------------
#
# The Go engine's internal/tuning, line for line: each setting is resolved
# to kernel files under the root, read, written in place when it differs,
# read back, and reported as one `setting:` line of conf.d/sysctl.status or
# conf.d/tuning.status. The value a kernel file had before our first change
# is kept in state/tuning.json (the Go engine's file and format) and put
# back when its setting is gone. Only an apply reads /proc and /sys; an idle
# poll never does.

TUNING_FILES="sysctl.conf tuning.conf"
SYSFS_ALLOWED="block/, class/net/, class/block/, devices/system/cpu/, kernel/mm/transparent_hugepage/, module/*/parameters/"

is_tuning() {
	case " $TUNING_FILES " in *" $1 "*) return 0 ;; esac
	return 1
}

# trim TEXT sets TR to TEXT without leading and trailing blanks.
trim() {
	TR=$1
	TR=${TR#"${TR%%[!"$WS"]*}"}
	TR=${TR%"${TR##*[!"$WS"]}"}
}

# tune applies the tuning sources and puts back what a removed setting
# had changed. Like the Go engine, it never changes apply's exit code: the
# status files say what failed.
tune() {
	[ -n "$TUNE" ] || tune_active || return 0
	tune_load
	: >"$WORK/tu.set"
	TU_REPORTS=
	TU_FAILED=
	TU_WANT=" "
	for tu_f in $TUNING_FILES; do
		tune_source "$tu_f"
	done
	# shellcheck disable=SC2034 # tu_line is read for the record's shape
	while read -r tu_file tu_line tu_kind tu_key tu_val; do
		tune_setting "$tu_file" "$tu_kind" "$tu_key" "$tu_val"
	done <"$WORK/tu.set"
	tune_revert_gone
	tune_save
	for tu_f in $TU_FAILED; do
		fset "${tu_f%.conf}" reason "some settings could not be applied; the others were"
		fset "${tu_f%.conf}" todo "fix or remove the lines marked failed; the kernel's own error is given"
	done
}

# tune_active is true when state/tuning.json remembers a value to put back.
tune_active() {
	! [ -L "$STATE/tuning.json" ] && [ -f "$STATE/tuning.json" ] && grep -q '^  "' "$STATE/tuning.json"
}

# tune_source FILE reads conf.d/FILE into WORK/tu.set ("FILE LINE KIND KEY
# VALUE" a line) and starts its report. FILE.add and FILE.merge are refused.
tune_source() {
	sources_of "$1"
	[ -n "$SOURCES" ] || return 0
	tsr_sn=${1%.conf}
	case " $SOURCES " in
	*" $1 "*) ;;
	*)
		for tsr_s in $SOURCES; do
			rm -f "$WORK/$tsr_sn.f"
			fset "$tsr_sn" status REFUSED
			fset "$tsr_sn" file "conf.d/$tsr_s"
			fset "$tsr_sn" reason "conf.d/$tsr_s: $1 takes the whole file, not .add or .merge"
		done
		return 0
		;;
	esac
	TU_REPORTS="$TU_REPORTS $1"
	fset "$tsr_sn" status OK
	fset "$tsr_sn" file "conf.d/$1"
	fset "$tsr_sn" sources "$1"
	if ! take_source "$1" "$WORK/$1.n"; then
		fset "$tsr_sn" status REFUSED
		fset "$tsr_sn" reason "$REASON"
		log WARN "refused" file="conf.d/$1" reason="$REASON"
		return 0
	fi
	tsr_n=0
	while IFS= read -r tsr_l; do
		tsr_n=$((tsr_n + 1))
		trim "$tsr_l"
		case $TR in '' | '#'* | ';'*) continue ;; esac
		if [ "$1" = sysctl.conf ]; then
			parse_sysctl "$tsr_n" "$TR"
		else
			parse_tuning "$tsr_n" "$TR"
		fi
	done <"$WORK/$1.n"
}

# tune_bad FILE LINE MESSAGE reports a line that cannot be used.
tune_bad() {
	fset "${1%.conf}" warning "$1 line $2: $3"
	tune_failed "$1"
	log WARN "tuning" problem="$1 line $2: $3"
}

# parse_sysctl N LINE: `key = value`, dots or slashes, a leading - dropped.
parse_sysctl() {
	case $2 in *=*) ;; *)
		tune_bad sysctl.conf "$1" "expected key = value"
		return 0
		;;
	esac
	trim "${2%%=*}"
	trim "${TR#-}"
	ps_key=$TR
	trim "${2#*=}"
	ps_val=$TR
	if [ -z "$ps_key" ]; then
		tune_bad sysctl.conf "$1" "expected key = value"
		return 0
	fi
	sysctl_path "$ps_key"
	if ! check_key "$SP"; then
		tune_bad sysctl.conf "$1" "$CKERR"
		return 0
	fi
	echo "sysctl.conf $1 sysctl $ps_key $ps_val" >>"$WORK/tu.set"
}

# sysctl_path KEY sets SP, the key's path under /proc/sys: dots are
# separators unless the key already uses slashes.
sysctl_path() {
	SP=$1
	case $SP in
	*/*) ;;
	*)
		sy_in=$SP
		SP=
		while :; do
			case $sy_in in
			*.*)
				SP="$SP${sy_in%%.*}/"
				sy_in=${sy_in#*.}
				;;
			*)
				SP="$SP$sy_in"
				break
				;;
			esac
		done
		;;
	esac
	SP=${SP#/}
}

# parse_tuning N LINE: `KIND KEY = VALUE`.
parse_tuning() {
	pt_l=$2
	pt_eq=
	case $pt_l in *=*) pt_eq=yes ;; esac
	trim "${pt_l#*=}"
	pt_val=$TR
	set -f
	# shellcheck disable=SC2086 # split KIND and KEY on blanks on purpose
	set -- "$1" ${pt_l%%=*}
	set +f
	if [ -z "$pt_eq" ] || [ $# -ne 3 ] || [ -z "$pt_val" ]; then
		tune_bad tuning.conf "$1" "expected KIND KEY = VALUE, e.g. txqueuelen eth0 = 10000"
		return 0
	fi
	case $2 in
	sysfs)
		if ! check_key "$3"; then
			tune_bad tuning.conf "$1" "$CKERR"
			return 0
		fi
		if ! sysfs_allowed "$3"; then
			goquote "$3"
			tune_bad tuning.conf "$1" "sysfs path $GQ is not one userscript writes (allowed: $SYSFS_ALLOWED)"
			return 0
		fi
		;;
	txqueuelen | irq)
		pt_what="irq name"
		[ "$2" = irq ] || pt_what=interface
		if ! check_word "$3"; then
			tune_bad tuning.conf "$1" "$pt_what $CKERR"
			return 0
		fi
		goquote "$pt_val"
		case $2:$pt_val in
		txqueuelen:*[!0-9]*)
			tune_bad tuning.conf "$1" "txqueuelen must be a number, not $GQ"
			return 0
			;;
		irq:*[!0-9a-fA-F,]*)
			tune_bad tuning.conf "$1" "irq wants a CPU mask in hex like 2 (CPU 1) or 3 (CPUs 0 and 1), not $GQ"
			return 0
			;;
		esac
		;;
	cpufreq)
		case $3 in */*/*) pt_ok= ;; *) pt_ok=yes ;; esac
		if ! check_key "$3" || [ -z "$pt_ok" ]; then
			goquote "$3"
			tune_bad tuning.conf "$1" "cpufreq key $GQ: use governor, min_freq, max_freq, scaling_* or GOVERNOR/TUNABLE"
			return 0
		fi
		;;
	*)
		goquote "$2"
		tune_bad tuning.conf "$1" "unknown kind $GQ: use sysfs, txqueuelen, irq or cpufreq"
		return 0
		;;
	esac
	echo "tuning.conf $1 $2 $3 $pt_val" >>"$WORK/tu.set"
}

# sysfs_allowed PATH: the parts of /sys tuning.conf may write (block
# queues, network devices, CPU frequency, transparent huge pages, module
# parameters); nothing that powers off, removes or rebinds devices.
sysfs_allowed() {
	case $1 in
	block/* | class/net/* | class/block/* | devices/system/cpu/* | kernel/mm/transparent_hugepage/*) return 0 ;;
	module/*)
		case $1 in */parameters/*) return 0 ;; esac
		;;
	esac
	return 1
}

# check_key PATH is true for a clean relative path of plain names and glob
# characters; else CKERR says why (the Go engine's words).
check_key() {
	ck_p=$1
	goquote "$ck_p"
	ck_q=$GQ
	ck_dirty=
	case $1 in
	'' | /*) ck_dirty=yes ;;
	*//* | */) ck_dirty=yes ;;
	esac
	ck_dots=
	if [ -z "$ck_dirty" ]; then
		ck_up=yes
		set -f
		ck_ifs=$IFS
		IFS=/
		# shellcheck disable=SC2086 # split on / on purpose
		set -- $1
		IFS=$ck_ifs
		set +f
		for ck_part in "$@"; do
			case $ck_part in
			.)
				ck_dots=yes
				[ $# -eq 1 ] || ck_dirty=yes
				;;
			..)
				ck_dots=yes
				[ -n "$ck_up" ] || ck_dirty=yes
				;;
			*) ck_up= ;;
			esac
		done
	fi
	if [ -n "$ck_dirty" ]; then
		CKERR="$ck_q is not a clean relative path"
		return 1
	fi
	if [ -n "$ck_dots" ]; then
		CKERR="$ck_q climbs out with .."
		return 1
	fi
	case $ck_p in
	*[!]A-Za-z0-9._/*?:+[-]*)
		ck_rest=${ck_p#"${ck_p%%[!]A-Za-z0-9._/*?:+[-]*}"}
		runequote "${ck_rest%"${ck_rest#?}"}"
		CKERR="$ck_q holds $RQ"
		return 1
		;;
	esac
	return 0
}

# check_word NAME: a plain name (an interface, an IRQ's device).
check_word() {
	case $1 in
	.* | */* | *\** | *\?* | *\[* | *\]*)
		goquote "$1"
		CKERR="$GQ must be a plain name"
		return 1
		;;
	esac
	check_key "$1"
}

# goquote TEXT sets GQ to TEXT in double quotes, escaped as Go's %q does
# for the characters a line can hold.
goquote() {
	case $1 in
	*[\\\""$TAB$CR"]*) ;;
	*)
		GQ="\"$1\""
		return 0
		;;
	esac
	GQ=
	gq_r=$1
	while [ -n "$gq_r" ]; do
		gq_c=${gq_r%"${gq_r#?}"}
		gq_r=${gq_r#?}
		case $gq_c in
		\\) GQ="$GQ\\\\" ;;
		\") GQ="$GQ\\\"" ;;
		"$TAB") GQ="$GQ\\t" ;;
		"$CR") GQ="$GQ\\r" ;;
		"$NL") GQ="$GQ\\n" ;;
		*) GQ="$GQ$gq_c" ;;
		esac
	done
	GQ="\"$GQ\""
}

# runequote CHAR sets RQ to CHAR in single quotes, as Go's %q of a rune.
runequote() {
	case $1 in
	\') RQ="'\\''" ;;
	\\) RQ="'\\\\'" ;;
	"$TAB") RQ="'\\t'" ;;
	*) RQ="'$1'" ;;
	esac
}

# ---- tuning: kernel files ----------------------------------------------------

# tune_setting FILE KIND KEY VALUE applies one setting to every kernel
# file it names.
tune_setting() {
	: >"$WORK/tu.p"
	TWHY=
	tune_paths "$2" "$3"
	if ! [ -s "$WORK/tu.p" ]; then
		tune_row "$1" "$2 $3" "$4" unsupported "" "$TWHY"
		return 0
	fi
	while read -r tst_p; do
		TU_WANT="$TU_WANT$tst_p "
		tune_set "$1" "$2 $3" "$2" "$4" "$tst_p"
	done <"$WORK/tu.p"
}

# tune_paths KIND KEY lists the device paths of a setting in WORK/tu.p;
# when there are none, TWHY says why.
tune_paths() {
	case $1 in
	sysctl)
		sysctl_path "$2"
		existing "/proc/sys/$SP"
		;;
	sysfs) existing "/sys/$2" ;;
	txqueuelen) existing "/sys/class/net/$2/tx_queue_len" ;;
	irq) irq_paths "$2" ;;
	cpufreq) cpufreq_paths "$2" ;;
	esac
}

# existing PATTERN appends the device paths matching PATTERN under the
# root to WORK/tu.p.
existing() {
	ex_n=0
	for ex_m in "$ROOT"$1; do
		[ -e "$ex_m" ] || [ -L "$ex_m" ] || continue
		case $ex_m in *[" $TAB"]*) continue ;; esac
		echo "${ex_m#"$ROOT"}" >>"$WORK/tu.p"
		ex_n=$((ex_n + 1))
	done
	[ "$ex_n" -gt 0 ] && return 0
	TWHY="$1 does not exist on this kernel"
	return 1
}

cpufreq_paths() {
	cp_cpus="/sys/devices/system/cpu/cpu[0-9]*/cpufreq"
	case $1 in
	governor) existing "$cp_cpus/scaling_governor" ;;
	min_freq | max_freq) existing "$cp_cpus/scaling_$1" ;;
	scaling_*) existing "$cp_cpus/$1" ;;
	*/*)
		# A governor's tunable: system-wide on most kernels, per CPU on
		# some.
		existing "/sys/devices/system/cpu/cpufreq/$1" || existing "$cp_cpus/$1"
		;;
	*)
		goquote "$1"
		TWHY="cpufreq key $GQ is not known"
		;;
	esac
}

# irq_paths NAME: every IRQ whose /proc/interrupts line names the device,
# never a hard-coded number (they change between kernels and boards).
irq_paths() {
	ip_f=$ROOT/proc/interrupts
	if ! cat -- "$ip_f" >"$WORK/tu.irq" 2>"$WORK/tu.err"; then
		kernel_error
		ip_op=open
		[ ! -d "$ip_f" ] || ip_op="read"
		TWHY="cannot read /proc/interrupts: $ip_op $ip_f: $KERR"
		return 0
	fi
	irqs_named "$1" <"$WORK/tu.irq"
	for ip_irq in $IRQS; do
		existing "/proc/irq/$ip_irq/smp_affinity"
	done
	[ -s "$WORK/tu.p" ] || TWHY="no IRQ named $1 in /proc/interrupts"
}

# irqs_named NAME reads /proc/interrupts and sets IRQS to the IRQs whose
# line names the device after the per-CPU counters: a word NAME, or NAME-
# or NAME: followed by more (eth0-rx). eth0 does not match eth10.
irqs_named() {
	in_name=$1
	IRQS=
	in_ncpu=-1
	while read -r in_l; do
		set -f
		# shellcheck disable=SC2086 # split the line into fields on purpose
		set -- $in_l
		set +f
		if [ "$in_ncpu" -lt 0 ]; then
			in_ncpu=$#
			continue
		fi
		[ $# -ge 2 ] || continue
		in_irq=${1%:}
		[ "$in_irq" != "$1" ] || continue
		case $in_irq in '' | *[!0-9]*) continue ;; esac
		shift
		[ $# -le "$in_ncpu" ] || shift "$in_ncpu"
		for in_w in "$@"; do
			case ",$in_w" in
			*",$in_name,"* | *",$in_name" | *",$in_name-"* | *",$in_name:"*)
				case " $IRQS " in *" $in_irq "*) ;; *) IRQS="$IRQS $in_irq" ;; esac
				;;
			esac
		done
	done
}

# tune_set FILE NAME KIND VALUE PATH: read, compare, write in place, read
# back. The value found before our first change is remembered.
tune_set() {
	if ! kread "$5"; then
		tune_row "$1" "$2" "$4" failed "$5" "cannot read: $KERR"
		return 0
	fi
	tse_cur=$KV
	if same "$3" "$tse_cur" "$4"; then
		tune_row "$1" "$2" "$4" "already set" "$5" ""
		return 0
	fi
	if ! kwrite "$5" "$4"; then
		tune_row "$1" "$2" "$4" failed "$5" "$KERR"
		return 0
	fi
	prev_has "$5" || prev_add "$5" "$1" "$(selected "$tse_cur")"
	if ! kread "$5"; then
		tune_row "$1" "$2" "$4" failed "$5" "cannot read back: $KERR"
	elif ! same "$3" "$KV" "$4"; then
		goquote "$KV"
		tune_row "$1" "$2" "$4" failed "$5" "the kernel kept $GQ"
	else
		tune_row "$1" "$2" "$4" applied "$5" ""
	fi
}

# tune_row FILE NAME WANT RESULT PATH REASON logs one result and adds it to
# FILE's status as the Go engine words it.
tune_row() {
	tr_s="$2 = $3: $4"
	if [ -n "$5" ] && [ "$4" != "already set" ]; then
		tr_s="$tr_s ($5)"
	fi
	[ -z "$6" ] || tr_s="$tr_s: $6"
	log INFO "tuning" setting="$tr_s"
	case " $TU_REPORTS " in *" $1 "*) ;; *) return 0 ;; esac
	fset "${1%.conf}" setting "$tr_s"
	[ "$4" != failed ] || tune_failed "$1"
}

tune_failed() { # FILE
	fset "${1%.conf}" status FAILED
	case " $TU_FAILED " in *" $1 "*) ;; *) TU_FAILED="$TU_FAILED $1" ;; esac
}

# kread PATH sets KV to the kernel file's value without surrounding blanks,
# or KERR to the kernel's error.
kread() {
	KV=$(cat -- "$ROOT$1" 2>"$WORK/tu.err") || {
		kernel_error
		return 1
	}
	trim "$KV"
	KV=$TR
}

# kwrite PATH VALUE writes VALUE and a newline into the kernel file in one
# write, in place (never a rename); KERR is the kernel's error.
kwrite() {
	case $2 in
	-* | *\\*)
		# echo could take these for options or escapes
		{
			cat >"$ROOT$1" <<KWEOF
$2
KWEOF
		} 2>"$WORK/tu.err"
		;;
	*) { echo "$2" >"$ROOT$1"; } 2>"$WORK/tu.err" ;;
	esac || {
		kernel_error
		return 1
	}
}

# kernel_error sets KERR to the error in WORK/tu.err in Go's words: the
# C library's message after the last ": ", its first letter in lower case.
kernel_error() {
	KERR=$(tail -n 1 "$WORK/tu.err" 2>/dev/null)
	KERR=${KERR##*: }
	[ -n "$KERR" ] || KERR="unknown error"
	ke_first=${KERR%"${KERR#?}"}
	case $ke_first in
	[A-Z]) KERR="$(lower "$ke_first")${KERR#?}" ;;
	esac
}

lower() {
	echo "$1" | tr ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefghijklmnopqrstuvwxyz
}

# same KIND CURRENT WANT: equal once blanks are normalised; a list with a
# [selected] entry (an IO scheduler) equals that entry; irq masks compare as
# hex without leading zeros and commas.
same() {
	sm_k=$1
	sm_w=$3
	set -f
	# shellcheck disable=SC2086 # normalise blanks on purpose
	set -- $2
	sm_c="$*"
	# shellcheck disable=SC2086 # normalise blanks on purpose
	set -- $sm_w
	sm_w="$*"
	set +f
	[ "$sm_c" = "$sm_w" ] && return 0
	case $sm_c in
	*\[*\]*)
		sm_s=${sm_c#*\[}
		[ "${sm_s%%\]*}" = "$sm_w" ] && return 0
		;;
	esac
	[ "$sm_k" = irq ] || return 1
	hexnorm "$sm_c"
	sm_c=$HN
	hexnorm "$sm_w"
	[ "$sm_c" = "$HN" ]
}

hexnorm() {
	HN=$1
	case $HN in *[A-Z]*) HN=$(lower "$HN") ;; esac
	while :; do
		case $HN in
		*,*) HN=${HN%%,*}${HN#*,} ;;
		*) break ;;
		esac
	done
	while :; do
		case $HN in
		0*) HN=${HN#0} ;;
		*) break ;;
		esac
	done
	[ -n "$HN" ] || HN=0
}

# selected VALUE prints the value to put back: for a list with a
# [selected] entry, that entry.
selected() {
	case $1 in
	*\[*\]*)
		sl_s=${1#*\[}
		echo "${sl_s%%\]*}"
		;;
	*) echo "$1" ;;
	esac
}

# ---- tuning: remembered values (state/tuning.json) -------------------------
#
# The Go engine's format: json.MarshalIndent with two spaces, keys sorted,
# then a newline:
#   {
#     "/sys/block/sda/queue/scheduler": {
#       "file": "tuning.conf",
#       "value": "cfq"
#     }
#   }
# Held in WORK/tu.prev while applying: "PATH<tab>FILE<tab>JSON-ESCAPED
# VALUE" a line, sorted by PATH.

tune_load() {
	: >"$WORK/tu.prev"
	! [ -L "$STATE/tuning.json" ] && [ -f "$STATE/tuning.json" ] || return 0
	sed -n -e 's/^  "\(.*\)": {$/K\1/p' -e 's/^    "file": "\(.*\)",$/F\1/p' \
		-e 's/^    "value": "\(.*\)"$/V\1/p' "$STATE/tuning.json" >"$WORK/tu.json"
	tl_k=
	tl_f=
	while IFS= read -r tl_l; do
		case $tl_l in
		K*)
			json_unesc "${tl_l#K}"
			tl_k=$JU
			tl_f=
			;;
		F*) tl_f=${tl_l#F} ;;
		V*)
			[ -z "$tl_k" ] || echo "$tl_k$TAB$tl_f$TAB${tl_l#V}"
			tl_k=
			;;
		esac
	done <"$WORK/tu.json" >"$WORK/tu.prev"
}

# tune_save writes state/tuning.json when it changed.
tune_save() {
	{
		if ! [ -s "$WORK/tu.prev" ]; then
			echo "{}"
		else
			echo "{"
			tsv_sep=
			while IFS="$TAB" read -r tsv_p tsv_f tsv_v; do
				[ -z "$tsv_sep" ] || echo "  },"
				tsv_sep=yes
				json_esc "$tsv_p"
				echo "  \"$JE\": {"
				echo "    \"file\": \"$tsv_f\","
				echo "    \"value\": \"$tsv_v\""
			done <"$WORK/tu.prev"
			echo "  }"
			echo "}"
		fi
	} >"$WORK/tuning.json"
	cmp -s "$WORK/tuning.json" "$STATE/tuning.json" && return 0
	put_file "$WORK/tuning.json" "$STATE/tuning.json" ||
		log ERROR "tuning" reason="could not write state/tuning.json"
}

prev_has() { # PATH
	while IFS="$TAB" read -r ph_p _; do
		[ "$ph_p" != "$1" ] || return 0
	done <"$WORK/tu.prev"
	return 1
}

# prev_add PATH FILE VALUE remembers VALUE, keeping WORK/tu.prev sorted.
prev_add() {
	json_esc "$3"
	pa_new="$1$TAB$2$TAB$JE"
	pa_done=
	while IFS= read -r pa_l; do
		# BusyBox's test compares strings with < (byte order, like Go's sort).
		# shellcheck disable=SC3012
		if [ -z "$pa_done" ] && [ "$1" \< "${pa_l%%"$TAB"*}" ]; then
			echo "$pa_new"
			pa_done=yes
		fi
		echo "$pa_l"
	done <"$WORK/tu.prev" >"$WORK/tu.prev.new"
	[ -n "$pa_done" ] || echo "$pa_new" >>"$WORK/tu.prev.new"
	mv -f "$WORK/tu.prev.new" "$WORK/tu.prev"
}

# tune_revert_gone writes back the remembered value of every kernel file
# no setting names any more, and forgets it.
tune_revert_gone() {
	: >"$WORK/tu.keep"
	while IFS="$TAB" read -r trg_p trg_f trg_v; do
		case $TU_WANT in
		*" $trg_p "*)
			echo "$trg_p$TAB$trg_f$TAB$trg_v" >>"$WORK/tu.keep"
			continue
			;;
		esac
		json_unesc "$trg_v"
		if ! kernel_path "$trg_p"; then
			tune_row "$trg_f" "revert $trg_p" "$JU" failed "$trg_p" "not a kernel setting userscript writes; removed from state/tuning.json"
			continue
		fi
		if [ -e "$ROOT$trg_p" ] && ! kwrite "$trg_p" "$JU"; then
			tune_row "$trg_f" "revert $trg_p" "$JU" failed "$trg_p" "$KERR"
			echo "$trg_p$TAB$trg_f$TAB$trg_v" >>"$WORK/tu.keep"
			continue
		fi
		tune_row "$trg_f" "revert $trg_p" "$JU" reverted "$trg_p" ""
	done <"$WORK/tu.prev"
	mv -f "$WORK/tu.keep" "$WORK/tu.prev"
}

# kernel_path PATH: state/tuning.json is on the data disk; only paths
# tuning could have written are ever written back.
kernel_path() {
	case $1 in
	*/../* | */.. | */./* | */. | *//*) return 1 ;;
	/proc/sys/?* | /proc/irq/[0-9]*/smp_affinity) return 0 ;;
	/sys/?*) sysfs_allowed "${1#/sys/}" ;;
	*) return 1 ;;
	esac
}

# json_esc TEXT sets JE to TEXT escaped as Go's encoding/json does (for the
# characters a kernel value holds).
json_esc() {
	case $1 in
	*[\\\"\<\>\&"$TAB$CR$NL"]*) ;;
	*)
		JE=$1
		return 0
		;;
	esac
	JE=
	je_r=$1
	while [ -n "$je_r" ]; do
		je_c=${je_r%"${je_r#?}"}
		je_r=${je_r#?}
		case $je_c in
		\\) JE="$JE\\\\" ;;
		\") JE="$JE\\\"" ;;
		\<) JE="$JE\\u003c" ;;
		\>) JE="$JE\\u003e" ;;
		\&) JE="$JE\\u0026" ;;
		"$TAB") JE="$JE\\t" ;;
		"$CR") JE="$JE\\r" ;;
		"$NL") JE="$JE\\n" ;;
		*) JE="$JE$je_c" ;;
		esac
	done
}

# json_unesc TEXT sets JU to the JSON string TEXT unescaped.
json_unesc() {
	case $1 in
	*\\*) ;;
	*)
		JU=$1
		return 0
		;;
	esac
	JU=
	ju_r=$1
	while [ -n "$ju_r" ]; do
		ju_c=${ju_r%"${ju_r#?}"}
		ju_r=${ju_r#?}
		if [ "$ju_c" != \\ ]; then
			JU="$JU$ju_c"
			continue
		fi
		ju_c=${ju_r%"${ju_r#?}"}
		ju_r=${ju_r#?}
		case $ju_c in
		t) JU="$JU$TAB" ;;
		r) JU="$JU$CR" ;;
		n) JU="$JU$NL" ;;
		u)
			case $ju_r in
			003c* | 003C*) JU="$JU<" ;;
			003e* | 003E*) JU="$JU>" ;;
			0026*) JU="$JU&" ;;
			*) JU="$JU\\u${ju_r%"${ju_r#????}"}" ;;
			esac
			ju_r=${ju_r#????}
			;;
		*) JU="$JU$ju_c" ;;
		esac
	done
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
