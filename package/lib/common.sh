# shellcheck shell=sh
# userscript: helpers shared by the boot hook (init) and the sh engine
# (engine.sh): the log, pids, our own files in state/, the apply lock and
# commands with a time limit. Sourced, never run on its own. The caller
# sets APP and STATE first.
#
# Written for BusyBox 1.00 ash: before 1.2 `[` and `echo` are separate
# processes, so the paths run on every poll and every apply test with
# `case` and builtin redirections where they can.
# shellcheck disable=SC2154,SC2034,SC2153

# chars sets CR, TAB, BOM (the UTF-8 byte order mark), NL and WS; one
# process (tr).
chars() {
	case ${CR:-} in ?*) return 0 ;; esac
	ch_s=$(tr abcde '\015\011\357\273\277' <<CHARS
abcde
CHARS
)
	CR=${ch_s%????}
	ch_s=${ch_s#?}
	TAB=${ch_s%???}
	BOM=${ch_s#?}
	NL='
'
	WS=" $TAB$NL"
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

# log LEVEL MESSAGE [key=value ...] appends one line to state/log. While
# LOG_HOLD is set (an apply), lines are kept in LOGBUF and written by
# log_flush at once: on BusyBox 1.00 every echo is a process.
log() {
	case ${NOW:-} in '') stamp_now ;; esac
	lg_line="$NOW $1 $2"
	shift 2
	for lg_kv in "$@"; do
		case $lg_kv in
		*' '* | *'"'*) lg_line="$lg_line ${lg_kv%%=*}=\"${lg_kv#*=}\"" ;;
		*) lg_line="$lg_line $lg_kv" ;;
		esac
	done
	case ${LOG_HOLD:-} in
	yes) LOGBUF="${LOGBUF:-}$lg_line$NL" ;;
	*) log_ok && echo "$lg_line" >>"$STATE/log" ;;
	esac
	return 0
}

# log_flush writes the lines log kept, with one echo.
log_flush() {
	case ${LOGBUF:-} in '') return 0 ;; esac
	log_ok && echo "${LOGBUF%"$NL"}" >>"$STATE/log"
	LOGBUF=
	return 0
}

# log_ok is true when state/log may be appended to: a regular file, or
# none yet. Anything else planted there (a link, a FIFO) is removed, never
# written through; when it cannot be removed (a folder), nothing is logged.
# LOG_CHECKED skips the check for the rest of a run; the look an apply took
# (quick.sh) answers it without a process when it shows a plain state/log.
log_ok() {
	case ${LOG_CHECKED:-} in yes) return 0 ;; no) return 1 ;; esac
	if looked "$STATE/log"; then
		case $LR_MODE in -* | '') LOG_CHECKED=yes && return 0 ;; esac
	fi
	LOG_CHECKED=no
	if [ -L "$STATE/log" ] || { [ -e "$STATE/log" ] && ! [ -f "$STATE/log" ]; }; then
		rm -f "$STATE/log" 2>/dev/null
		if [ -L "$STATE/log" ] || [ -e "$STATE/log" ]; then
			return 1
		fi
		echo "$NOW WARN state/log was not a regular file (a link or other): removed it; a fresh log starts here" >"$STATE/log" 2>/dev/null
	fi
	LOG_CHECKED=yes
}

# looked PATH answers from the look an apply took (quick.sh: one `ls` of
# the app's folders and the targets) instead of a `[` (a process on
# BusyBox 1.00): it sets LR_MODE, LR_LINKS and LR_SIZE as ls showed PATH
# (LR_MODE empty: not there). It is false when no look was taken.
looked() {
	case ${LOOKED:-} in yes) ;; *) return 1 ;; esac
	LR_MODE=
	LR_LINKS=
	LR_SIZE=
	case $LOOK in
	*"$NL$1 "*)
		LR_MODE=${LOOK#*"$NL$1 "}
		LR_MODE=${LR_MODE%%"$NL"*}
		LR_SIZE=${LR_MODE##* }
		LR_MODE=${LR_MODE% *}
		LR_LINKS=${LR_MODE#* }
		LR_MODE=${LR_MODE% *}
		return 0
		;;
	esac
	# Not seen: not there, when the look listed its folder (or showed
	# that folder missing) or was given PATH itself.
	case $LOOK_KNOWN in *" $1 "* | *" ${1%/*} "*) return 0 ;; esac
	return 1
}

# plain PATH is true when PATH is a regular file, not a link: answered by
# the look when this run has not written or removed PATH since (touched).
plain() {
	case ${TOUCHED:-} in *" $1 "*) ;; *)
		if looked "$1"; then
			case $LR_MODE in -*) return 0 ;; esac
			return 1
		fi
		;;
	esac
	! [ -L "$1" ] && [ -f "$1" ]
}

# touched PATH: this run writes or removes PATH; the look no longer
# answers for it.
touched() {
	case ${TOUCHED:-} in *" $1 "*) ;; *) TOUCHED="${TOUCHED:- }$1 " ;; esac
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
	pf_check=yes
	case ${TOUCHED:-} in *" $2 "*) ;; *)
		if looked "$2"; then
			case $LR_MODE in -* | '') pf_check= ;; esac
		fi
		;;
	esac
	case $pf_check in yes) plain_slot "$2" || return 1 ;; esac
	touched "$2"
	mv -f -- "$1" "$2"
}

# file_size PATH prints the size `ls -ln` shows, without reading the file.
file_size() {
	set -f
	# shellcheck disable=SC2046 # split ls's fields on purpose
	set -- $(ls -lnd -- "$1" 2>/dev/null)
	set +f
	echo "${5:-}"
}

# num TEXT is true when TEXT is a number of at most 9 digits.
num() {
	case $1 in '' | *[!0-9]*) return 1 ;; esac
	case ${#1} in [1-9]) return 0 ;; esac
	return 1
}

# alive PID is true when PID is a running process (a zombie is not).
alive() {
	num "$1" || return 1
	kill -0 "$1" 2>/dev/null || return 1
	al_stat=
	{ read -r al_stat <"/proc/$1/stat"; } 2>/dev/null
	case ${al_stat##*) } in Z*) return 1 ;; esac
	return 0
}

# is_ours PID is true when PID is alive and is a userscript process (a pid
# left from before a reboot may belong to something else by now).
is_ours() {
	alive "$1" || return 1
	[ -f "/proc/$1/cmdline" ] || return 0
	grep -q -e engine.sh -e userscript "/proc/$1/cmdline" 2>/dev/null
}

# find_tool NAME sets TOOL to the path of NAME found in PATH.
find_tool() {
	ft_name=$1
	ft_ifs=$IFS
	IFS=:
	set -f
	# shellcheck disable=SC2086 # split PATH on purpose
	set -- $PATH
	set +f
	IFS=$ft_ifs
	TOOL=
	for ft_dir in "$@"; do
		case $ft_dir in '') ft_dir=. ;; esac
		if [ -f "$ft_dir/$ft_name" ] && [ -x "$ft_dir/$ft_name" ]; then
			TOOL=$ft_dir/$ft_name
			return 0
		fi
	done
	return 1
}

# ---- run a command with a time limit ----------------------------------------

# run_bounded SECONDS OUT ARGV... runs ARGV with its output appended to
# OUT (emptied first, never a pipe: a daemon ARGV leaves behind keeps
# writing there, not into a pipe we wait on). After SECONDS it gets TERM,
# 2 s later KILL, and the exit is 124; only ARGV is signalled, never the
# daemons it started. No `timeout` applet is needed: a watchdog subshell
# (dog) checks once a second and ends by itself when ARGV has ended. A
# signal to the engine (init stop) does not cut ARGV short: `wait` is
# simply entered again until ARGV has ended (BusyBox 1.5-1.8 lose a TERM
# that comes during `wait`; nothing here depends on it). Three processes
# besides ARGV's own: ARGV, the dog and its first sleep.
run_bounded() {
	rb_t=$1
	rb_out=$2
	shift 2
	: >"$rb_out" 2>/dev/null || rb_out=/dev/null
	"$@" </dev/null >>"$rb_out" 2>&1 &
	rb_pid=$!
	dog "$rb_pid" "$rb_t" "$rb_out.timeout" </dev/null >/dev/null 2>&1 &
	rb_dog=$!
	while :; do
		wait "$rb_pid"
		rb_rc=$?
		kill -0 "$rb_pid" 2>/dev/null || break
	done
	# The dog would end by itself within a second; end it now.
	kill "$rb_dog" 2>/dev/null
	rb_dog=
	# A command the dog ended exits by TERM or KILL; only then is its
	# flag looked for.
	case $rb_rc in
	137 | 143)
		if [ -f "$rb_out.timeout" ]; then
			rm -f "$rb_out.timeout"
			return 124
		fi
		;;
	esac
	return "$rb_rc"
}

# dog PID SECONDS FLAG (in a background subshell) ends PID after SECONDS:
# TERM, 2 s later KILL; FLAG is created first, so the caller can tell.
dog() {
	dg_i=0
	while case $((dg_i < $2)) in 1) ;; *) false ;; esac; do
		sleep 1
		kill -0 "$1" 2>/dev/null || exit 0
		dg_i=$((dg_i + 1))
	done
	: >"$3"
	kill "$1" 2>/dev/null
	sleep 2
	kill -9 "$1" 2>/dev/null
	exit 0
}

# ---- lock (state/lock.d, shared with the Go engine) ------------------------

# lock_take takes state/lock.d, waiting up to LOCK_WAIT seconds (default
# 30) for another apply. It fails with LOCK_WHY set: `busy`, or why the
# lock cannot be made at all (the data disk is read-only, full or gone),
# at once, never looping.
lock_take() {
	lt_wait=0
	lt_takeovers=0
	LOCK_WHY=
	while :; do
		lt_err=$(mkdir "$STATE/lock.d" 2>&1) && break
		if ! [ -d "$STATE/lock.d" ] || [ -L "$STATE/lock.d" ]; then
			case $lt_err in
			*[Rr]ead-only*) LOCK_WHY="the data disk is read-only" ;;
			*[Nn]o\ space*) LOCK_WHY="data disk full" ;;
			*) LOCK_WHY="cannot make state/lock.d: ${lt_err##*: }" ;;
			esac
			[ -L "$STATE/lock.d" ] && LOCK_WHY="state/lock.d is a link"
			return 1
		fi
		lt_pid=
		# Only a regular file is read: a FIFO planted there would block.
		if ! [ -L "$STATE/lock.d/pid" ] && [ -f "$STATE/lock.d/pid" ]; then
			{ read -r lt_pid <"$STATE/lock.d/pid"; } 2>/dev/null
		fi
		lt_stale=
		if [ -n "$lt_pid" ] && { [ "$lt_pid" = "$$" ] || ! is_ours "$lt_pid"; }; then
			lt_stale=yes
		elif [ -z "$lt_pid" ] && [ "$lt_wait" -ge 5 ]; then
			lt_stale=yes
		fi
		if [ -n "$lt_stale" ] && [ "$lt_takeovers" -lt 3 ]; then
			log WARN "stale lock taken over" pid="$lt_pid"
			rm -rf "$STATE/lock.d"
			lt_takeovers=$((lt_takeovers + 1))
			continue
		fi
		if [ "$lt_wait" -ge "${LOCK_WAIT:-30}" ]; then
			LOCK_WHY=busy
			return 1
		fi
		sleep 1
		lt_wait=$((lt_wait + 1))
	done
	LOCKED=yes
	# lock.d was made just now, by us: the pid goes straight in (a reader
	# that finds it empty waits, as for a lock without a pid).
	echo "$$" >"$STATE/lock.d/pid"
	return 0
}

lock_release() {
	rm -rf "$STATE/lock.d"
	LOCKED=
}
