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

# filled TEXT is `[ -n TEXT ]`, blank TEXT is `[ -z TEXT ]`, without a
# process on BusyBox 1.00 (its `[` is one).
filled() { case $1 in '') return 1 ;; esac; }
blank() {
	case $1 in '') return 0 ;; esac
	return 1
}
# eq A B is `[ A = B ]`, without a process.
eq() {
	case $1 in "$2") return 0 ;; esac
	return 1
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
	*) log_ok && { echo "$lg_line" >>"$STATE/log"; } 2>/dev/null ;;
	esac
	return 0
}

# log_flush writes the lines log kept, with one echo.
log_flush() {
	case ${LOGBUF:-} in '') return 0 ;; esac
	# (trimmed in an assignment: BusyBox 1.00's ash cuts the end of a long
	# text trimmed of a newline in a command's argument)
	LOGBUF=${LOGBUF%"$NL"}
	log_ok && { echo "$LOGBUF" >>"$STATE/log"; } 2>/dev/null
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
# BusyBox 1.00): it sets LR_MODE, LR_LINKS, LR_OWNER (uid:gid) and LR_SIZE
# as ls showed PATH
# (LR_MODE empty: not there). It is false when the look does not know
# PATH (no look taken, or not in a folder it listed).
looked() {
	case ${LOOKED:-} in yes) ;; *) return 1 ;; esac
	pvar "$1" || return 1
	eval "LR_MODE=\${LK_$PV-}"
	case $LR_MODE in
	'')
		# Not seen: not there, when the look listed its folder (or showed
		# that folder missing).
		eval "LR_MODE=\${LKK_$PVNS-}"
		case $LR_MODE in yes) ;; *) return 1 ;; esac
		LR_MODE=
		LR_LINKS=
		LR_OWNER=
		LR_SIZE=
		return 0
		;;
	esac
	set -f
	# shellcheck disable=SC2086 # the look's fields
	set -- $LR_MODE
	set +f
	LR_MODE=$1
	LR_LINKS=$2
	LR_OWNER="$3:$4"
	LR_SIZE=$5
	return 0
}

# pvar PATH sets PV, the name (after LK_ or MH_) the look keeps PATH's
# entry in, and PVNS, the name of its folder: one variable a path, since
# ash takes quadratic time to search a long string. It fails for a path
# outside the folders the look lists, or a name with other characters
# than letters, digits and . _ -.
pvar() {
	case $1 in
	"$CONF"/.firmware/*) PVNS=FW && pv_n=${1#"$CONF"/.firmware/} ;;
	"$CONF"/*) PVNS=C && pv_n=${1#"$CONF"/} ;;
	"$WORK"/*) PVNS=K && pv_n=${1#"$WORK"/} ;;
	"$STATE"/written/*) PVNS=W && pv_n=${1#"$STATE"/written/} ;;
	"$STATE"/held/*) PVNS=H && pv_n=${1#"$STATE"/held/} ;;
	"$STATE"/base/*) PVNS=B && pv_n=${1#"$STATE"/base/} ;;
	"$STATE"/rebased/*) PVNS=RB && pv_n=${1#"$STATE"/rebased/} ;;
	"$STATE"/out/*) PVNS=O && pv_n=${1#"$STATE"/out/} ;;
	"$STATE"/gen/*/files/*)
		pv_n=${1#"$STATE"/gen/}
		PVNS=F${pv_n%%/*}
		pv_n=${pv_n#*/files/}
		;;
	"$STATE"/gen/*/*)
		pv_n=${1#"$STATE"/gen/}
		PVNS=D${pv_n%%/*}
		pv_n=${pv_n#*/}
		;;
	"$STATE"/gen/*) PVNS=G && pv_n=${1#"$STATE"/gen/} ;;
	"$STATE"/*) PVNS=S && pv_n=${1#"$STATE"/} ;;
	"$LIB"/*) PVNS=L && pv_n=${1#"$LIB"/} ;;
	"$APP"/*) PVNS=A && pv_n=${1#"$APP"/} ;;
	*)
		# a target
		PVNS=T
		pv_n=0
		pv_i=0
		pv_r="${TPATHS:-} "
		while :; do
			case $pv_r in
			' ' | '') break ;;
			' '*) pv_r=${pv_r# } ;;
			esac
			pv_i=$((pv_i + 1))
			case $pv_r in "$1 "*)
				pv_n=$pv_i
				break
				;;
			esac
			pv_r=${pv_r#* }
		done
		case $pv_n in 0) return 1 ;; esac
		;;
	esac
	case $pv_n in */*) return 1 ;; esac
	enc "$pv_n" || return 1
	PV=${PVNS}_$EN
}

# enc NAME sets EN to NAME as a part of a variable name (. is _d, - _m,
# _ _u), or fails for another character.
enc() {
	EN=
	en_r=$1
	while :; do
		case $en_r in
		*[!A-Za-z0-9]*)
			en_p=${en_r%%[!A-Za-z0-9]*}
			en_r=${en_r#"$en_p"}
			en_c=${en_r%"${en_r#?}"}
			en_r=${en_r#?}
			case $en_c in
			.) en_c=_d ;;
			-) en_c=_m ;;
			_) en_c=_u ;;
			*) return 1 ;;
			esac
			EN=$EN$en_p$en_c
			;;
		*)
			EN=$EN$en_r
			return 0
			;;
		esac
	done
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
	case $1 in
	"$STATE"/out/* | "$STATE"/lock.d/* | "$STATE"/log* | "$STATE"/starts | "$STATE"/rebased/*) ;;
	"$APP"/*) STATE_DIRTY=yes ;;
	esac
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

# size_of PATH sets FSIZE to the size `ls -ln` shows, without reading the
# file: one process (ls; $(size_of) would add a subshell and an echo).
size_of() {
	set -f
	# shellcheck disable=SC2046 # split ls's fields on purpose
	set -- $(ls -lnd -- "$1" 2>/dev/null)
	set +f
	FSIZE=${5:-}
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

# is_ours PID is true when PID is alive and is one of the engines: after
# a reboot its number may belong to anything, a thread of the Go daemon
# (its id answers kill -0 and shows the daemon's command line) or an
# editor open on a file of conf.d. An engine is a process, not a thread
# (its Tgid is PID), whose program is the Go engine (userscript) or a
# shell running lib/engine.sh, as state/lock.go's isEngine tells. Only
# builtins: the shell reads the command line with its NULs dropped.
is_ours() {
	alive "$1" || return 1
	[ -f "/proc/$1/status" ] || return 0
	io_name=
	io_tgid=
	{
		while read -r io_k io_v; do
			case $io_k in
			Name:) io_name=$io_v ;;
			Tgid:)
				io_tgid=$io_v
				break
				;;
			esac
		done <"/proc/$1/status"
	} 2>/dev/null
	case $io_tgid in '' | "$1") ;; *) return 1 ;; esac
	case $io_name in
	userscript) return 0 ;;
	sh | ash | bash | dash | hush | busybox) ;;
	*) return 1 ;;
	esac
	io_cmd=
	{ read -r io_cmd <"/proc/$1/cmdline"; } 2>/dev/null
	case $io_cmd in *lib/engine.sh*) return 0 ;; esac
	return 1
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

# lower copies its input in lower case (ASCII).
lower() {
	tr ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefghijklmnopqrstuvwxyz
}

# ---- run a command with a time limit ----------------------------------------

# run_bounded SECONDS OUT ARGV... runs ARGV with its output appended to
# OUT (emptied first, never a pipe: a daemon ARGV leaves behind keeps
# writing there, not into a pipe we wait on). After SECONDS it gets TERM,
# 2 s later KILL, and the exit is 124; only ARGV is signalled, never the
# daemons it started. No `timeout` applet is needed: a watchdog subshell
# checks once a second. Under the apply lock one watchdog serves every
# command of the apply (bound_share); otherwise each command has its own
# (dog). A signal to the engine (init stop) does not cut ARGV short:
# `wait` is simply entered again until ARGV has ended (BusyBox 1.5-1.8
# lose a TERM that comes during `wait`; nothing here depends on it).
run_bounded() {
	rb_t=$1
	rb_out=$2
	shift 2
	: >"$rb_out" 2>/dev/null || rb_out=/dev/null
	"$@" </dev/null >>"$rb_out" 2>&1 &
	rb_pid=$!
	rb_dog=
	case ${LOCKED:-} in
	yes)
		bound_share "$rb_pid" "$rb_t"
		rb_flag=$STATE/lock.d/timedout.$rb_pid
		;;
	*)
		rb_flag=$rb_out.timeout
		dog "$rb_pid" "$rb_t" "$rb_flag" </dev/null >/dev/null 2>&1 &
		rb_dog=$!
		;;
	esac
	while :; do
		wait "$rb_pid"
		rb_rc=$?
		kill -0 "$rb_pid" 2>/dev/null || break
	done
	# A watchdog of its own would end by itself within a second; end it now.
	case $rb_dog in ?*)
		kill "$rb_dog" 2>/dev/null
		wait "$rb_dog" 2>/dev/null
		rb_dog=
		;;
	esac
	# A command a watchdog ended exits by TERM or KILL; only then is its
	# flag looked for.
	case $rb_rc in
	137 | 143)
		if [ -f "$rb_flag" ]; then
			rm -f "$rb_flag"
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

# bound_share PID SECONDS puts PID under the apply's one watchdog: an empty
# file state/lock.d/bound.PID.SECONDS says so (no process needed to tell
# it); the watchdog is started the first time.
bound_share() {
	: >"$STATE/lock.d/bound.$1.$2"
	case ${DOG:-} in
	'')
		dog_all "$$" </dev/null >/dev/null 2>&1 &
		DOG=$!
		;;
	esac
}

# dog_all ENGINE (in a background subshell) is the apply's watchdog: once
# a second it looks at state/lock.d/bound.PID.SECONDS and ends each PID
# that has run longer than its SECONDS: TERM (state/lock.d/timedout.PID
# made first), 2 s later KILL. It ends with the engine or the lock.
dog_all() {
	da_seen=' '
	while :; do
		sleep 1
		kill -0 "$1" 2>/dev/null || exit 0
		da_any=
		for da_f in "$STATE"/lock.d/bound.*; do
			case $da_f in *'*') break ;; esac
			da_any=yes
			da_b=${da_f##*/bound.}
			da_p=${da_b%%.*}
			da_t=${da_b#*.}
			num "$da_p" || continue
			num "$da_t" || continue
			kill -0 "$da_p" 2>/dev/null || continue
			da_n=0
			case $da_seen in *" $da_p:"*)
				da_n=${da_seen#*" $da_p:"}
				da_n=${da_n%% *}
				;;
			esac
			da_o=
			for da_e in $da_seen; do
				case $da_e in "$da_p:"*) ;; *) da_o="$da_o $da_e" ;; esac
			done
			da_n=$((da_n + 1))
			da_seen="$da_o $da_p:$da_n "
			case $((da_n - da_t)) in
			1)
				: >"$STATE/lock.d/timedout.$da_p"
				kill "$da_p" 2>/dev/null
				;;
			3) kill -9 "$da_p" 2>/dev/null ;;
			esac
		done
		case $da_any in '') [ -d "$STATE/lock.d" ] || exit 0 ;; esac
	done
}

# bound_end ends the apply's watchdog.
bound_end() {
	case ${DOG:-} in ?*)
		kill "$DOG" 2>/dev/null
		wait "$DOG" 2>/dev/null
		DOG=
		;;
	esac
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
	LOCK_WAITED=
	while :; do
		lt_err=$(mkdir "$STATE/lock.d" 2>&1) && break
		if ! [ -d "$STATE/lock.d" ] || [ -L "$STATE/lock.d" ]; then
			# Released between our mkdir and this look: try again.
			case $lt_err in *[Ee]xists*) [ -L "$STATE/lock.d" ] || [ -e "$STATE/lock.d" ] || continue ;; esac
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
		if filled "$lt_pid" && { [ "$lt_pid" = "$$" ] || ! is_ours "$lt_pid"; }; then
			lt_stale=yes
		elif blank "$lt_pid" && [ "$lt_wait" -ge 5 ]; then
			lt_stale=yes
		fi
		if filled "$lt_stale" && [ "$lt_takeovers" -lt 3 ]; then
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
		LOCK_WAITED=yes
	done
	LOCKED=yes
	# lock.d was made just now, by us: the pid goes straight in (a reader
	# that finds it empty waits, as for a lock without a pid).
	echo "$$" >"$STATE/lock.d/pid"
	return 0
}

lock_release() {
	bound_end
	rm -rf "$STATE/lock.d"
	LOCKED=
}
