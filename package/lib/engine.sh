#!/bin/sh
# userscript sh engine: the boot-time subset of userscript for devices that
# cannot run the Go engine (ARMv4/OABI, 32-bit PowerPC). Every file it reads
# or writes is described in docs/FORMATS.md; the scenario suite
# (testdata/scenarios) holds it to the same behaviour as the Go engine.
#
# Usage: engine.sh COMMAND
#   apply    apply conf.d once; exit 0 ok, 1 a target FAILED or an error,
#            3 a source was REFUSED
#   poll     apply, then re-apply whenever conf.d or a target changes; runs
#            in the foreground (init puts it in the background); one poller
#            per app dir, its pid in state/poll.pid
#   stop     stop the poller
#   running  exit 0 when the poller runs
#   status   print whether the poller runs and every status word
#   version  print the package version
#   probe BIN  exit 0 when `BIN version` succeeds within 5 seconds
#
# Environment: USERSCRIPT_ROOT (device root, default /), USERSCRIPT_APP (app
# dir, default the folder above lib/), USERSCRIPT_POLL (seconds between
# polls, default from lib/settings), USERSCRIPT_GO (poll only: apply with
# this Go binary instead of the sh engine).
#
# It runs under an old BusyBox ash and uses only sh built-ins and the
# applets cat cp mv rm mkdir ln ls cmp grep sed sleep date kill ps find
# echo test tr wc head tail md5sum. It runs as root on files anyone on the
# LAN may write, so: names from conf.d are never evaluated, only names made
# of letters, digits and . _ - are used at all, links are never followed,
# and nothing is written outside the profile's targets, conf.d/*.status
# and state/.
#
# Cost of one idle poll: 2 processes (one `ls` of conf.d and the targets,
# one `sleep`); nothing is read but that listing and state/poll.pid, and
# nothing is written.

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
	chars=$(echo abcd | tr abcd '\015\357\273\277')
	CR=${chars%???}
	BOM=${chars#?}
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
	echo "$lg_line" >>"$STATE/log"
}

ensure_dirs() {
	for ed in "$CONF" "$STATE"; do
		[ -L "$ed" ] && die "$ed is a symbolic link; remove it (userscript never follows links)"
	done
	mkdir -p "$CONF" "$STATE/base" "$STATE/written" || die "$STATE: cannot create it"
}

rotate_log() {
	rl_size=$(file_size "$STATE/log")
	case $rl_size in '' | *[!0-9]*) return 0 ;; esac
	if [ "${#rl_size}" -gt 9 ] || [ "$rl_size" -gt "$LOG_MAX" ]; then
		mv -f "$STATE/log" "$STATE/log.1"
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
		{ read -r lt_pid <"$STATE/lock.d/pid"; } 2>/dev/null
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
	echo "$$" >"$STATE/lock.d/pid"
	LOCKED=yes
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
	.* | '~$'* | *.tmp | *.swp | *.swx | *'~' | *.status | README* | examples) return 0 ;;
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

# scan sets SRC (targets with sources) and UNK (unknown names) from conf.d.
scan() {
	SRC=
	UNK=
	sc_odd=0
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
		if is_target "$sc_b"; then
			case " $SRC " in *" $sc_b "*) ;; *) SRC="$SRC $sc_b" ;; esac
		else
			case " $UNK " in *" $sc_b "*) ;; *) UNK="$UNK $sc_b" ;; esac
		fi
	done
	if [ "$sc_odd" -gt 0 ]; then
		log WARN "ignored files in conf.d whose names hold characters other than letters, digits and . _ -" count="$sc_odd"
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
# REASON and TODO and fails.
take_source() {
	ts_f=$CONF/$1
	TODO="put the file itself into conf.d (not a link, not a folder, at most 1 MiB)"
	if [ -L "$ts_f" ]; then
		REASON="conf.d/$1 is a symbolic link; links in conf.d are never followed"
		return 1
	fi
	if ! [ -f "$ts_f" ]; then
		REASON="conf.d/$1 is not a regular file"
		return 1
	fi
	ts_size=$(file_size "$ts_f")
	if too_big "$ts_size"; then
		REASON="conf.d/$1 is larger than 1 MiB ($ts_size bytes)"
		return 1
	fi
	rm -f "$2.raw"
	if ! cat -- "$ts_f" >"$2.raw"; then
		REASON="conf.d/$1 could not be read"
		return 1
	fi
	# It may have been swapped for a link or a big file while it was read.
	if [ -L "$ts_f" ] || too_big "$(file_size "$2.raw")"; then
		REASON="conf.d/$1 changed while it was read"
		TODO="save it again"
		return 1
	fi
	normalise "$2.raw" "$2"
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
	cb_wh=
	{ read -r cb_wh <"$STATE/written/$1"; } 2>/dev/null
	if [ -n "$cb_wh" ] && [ "$cb_wh" = "$cb_lh" ] && [ -f "$STATE/base/$1" ]; then
		return 0
	fi
	rm -f "$STATE/base/$1.tmp"
	if [ -f "$2" ]; then
		cat "$2" >"$STATE/base/$1.tmp" || return 1
	else
		: >"$STATE/base/$1.tmp"
	fi
	mv -f "$STATE/base/$1.tmp" "$STATE/base/$1" || return 1
	rm -f "$STATE/written/$1"
	log INFO "base captured" target="$1" md5="${cb_lh:-none}"
}

# compose NAME writes WORK/NAME.target: the replacement or the base, then
# the addition.
compose() {
	co_out=$WORK/$1.target
	if [ -f "$WORK/$1.n" ]; then
		cp "$WORK/$1.n" "$co_out"
	else
		cat "$STATE/base/$1" >"$co_out"
	fi
	if [ -f "$WORK/$1.add.n" ]; then
		ends_nl "$co_out" || echo >>"$co_out"
		cat "$WORK/$1.add.n" >>"$co_out"
	fi
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
		fset "$1" warning "${tw_line:+line $tw_line: }$tw_w"
	done <"$WORK/$1.warn"
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
		vp_reason=$(sed -n 's/.*fatal: \(.*\) on line \([0-9][0-9]*\) of .*/line \2: \1/p' "$WORK/$1.vout" | head -n 1)
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
		failed "$1" "could not save the base of $TPATH in state/base" "check that the data disk is writable and not full"
		return 0
	fi
	compose "$1"
	validate "$1" "$WORK/$1.target" || return 0
	install_target "$1" "$pl_live"
}

# install_target NAME LIVE writes the composed target atomically: a copy in
# the target's own folder, then a rename over it.
install_target() {
	it_new=$WORK/$1.target
	it_sum=$(md5sum <"$it_new")
	it_sum=${it_sum%% *}
	if [ -f "$2" ] && cmp -s "$it_new" "$2"; then
		remember_written "$1" "$it_sum"
		return 0
	fi
	it_dir=${2%/*}
	if ! [ -d "$it_dir" ]; then
		failed "$1" "the folder of $TPATH does not exist" "check the profile and the device"
		return 0
	fi
	it_tmp=$it_dir/.userscript-new.$1
	rm -f "$it_tmp"
	if ! cp "$it_new" "$it_tmp" || ! mv -f "$it_tmp" "$2"; then
		rm -f "$it_tmp"
		failed "$1" "could not write $TPATH" "check that the device's file system is writable"
		return 0
	fi
	remember_written "$1" "$it_sum"
	log INFO "written" target="$1" path="$TPATH" md5="$it_sum"
	CHANGED="$CHANGED $1:$TSVC"
	case " $SVCS " in *" $TSVC "*) ;; *) [ "$TSVC" = - ] || SVCS="$SVCS $TSVC" ;; esac
}

remember_written() { # NAME MD5
	rw_old=
	{ read -r rw_old <"$STATE/written/$1"; } 2>/dev/null
	[ "$rw_old" = "$2" ] && return 0
	rm -f "$STATE/written/$1.tmp"
	echo "$2" >"$STATE/written/$1.tmp" && mv -f "$STATE/written/$1.tmp" "$STATE/written/$1"
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
	if [ -L "$ws_dst" ] || { [ -e "$ws_dst" ] && ! [ -f "$ws_dst" ]; }; then
		log WARN "not writing a status file over a link or folder" file="conf.d/$1.status"
		return 0
	fi
	render "$1" no >"$WORK/$1.cmp"
	if [ -f "$ws_dst" ]; then
		sed -e '/^time: /d' "$ws_dst" >"$WORK/$1.old"
		cmp -s "$WORK/$1.cmp" "$WORK/$1.old" && return 0
	fi
	render "$1" yes >"$WORK/$1.st"
	mv -f "$WORK/$1.st" "$ws_dst"
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
	mkdir -p "$WORK"
	CHANGED=
	SVCS=
	RESTARTED=
	scan
	for ap_n in $TARGETS; do
		case " $SRC " in *" $ap_n "*) plan "$ap_n" ;; esac
	done
	for ap_n in $UNK; do
		unknown "$ap_n"
	done
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
		rm -f "$STATE/poll.pid.tmp"
		echo "$$" >"$STATE/poll.pid.tmp" && mv -f "$STATE/poll.pid.tmp" "$STATE/poll.pid"
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
	if [ -n "${USERSCRIPT_GO:-}" ]; then
		"$USERSCRIPT_GO" apply </dev/null >/dev/null 2>&1
		return 0
	fi
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
	for cs_f in "$CONF"/*.status; do
		[ -f "$cs_f" ] || continue
		cs_n=${cs_f##*/}
		safe_name "$cs_n" || continue
		cs_w=$(sed -n "s/^status: \(.*\)$CR\$/\1/p" "$cs_f" | head -n 1)
		echo "${cs_n%.status}: $cs_w"
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
	running) cmd_running ;;
	version) cmd_version ;;
	probe)
		ensure_dirs
		cmd_probe "${2:-}"
		;;
	*)
		echo "usage: engine.sh apply|poll|stop|status|version" >&2
		exit 2
		;;
	esac
}

main "$@"
