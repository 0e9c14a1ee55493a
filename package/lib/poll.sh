# shellcheck shell=sh
# userscript sh engine: the poll loop that applies conf.d while the NAS
# runs, with the Go watcher's flap guard (internal/watch): a target that
# something rewrites more than DRIFT_LIMIT times within DRIFT_WINDOW
# seconds is paused, each rewritten version kept in conf.d/.captured/, and
# its status says so; an edit of its source in conf.d lifts the pause.
#
# Cost of one idle poll: 2 processes (one `ls` of conf.d and the targets,
# one `sleep`); nothing is read but that listing and state/poll.pid, and
# nothing is written. The listing leaves out our own status files and
# .captured/, and shows mtimes, not ctimes: reading a source (a hard link
# made and removed) changes its ctime, which would make every poll apply
# again. A change in conf.d is applied once the listing has stayed the
# same for one more poll (a file still being copied over the share is
# never applied half-way); a rewritten target is applied at once.
# Sourced by engine.sh.
# shellcheck disable=SC2154,SC2034,SC2153

DRIFT_LIMIT=3
DRIFT_WINDOW=600

poll_interval() {
	PI=${USERSCRIPT_POLL:-}
	filled "$PI" || PI=$POLL_SET
	if blank "$PI" && [ -f "$LIB/settings" ]; then
		while read -r pi_k pi_v _; do
			eq "$pi_k" poll && PI=$pi_v
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

# listing sets LCONF (conf.d without our own files) and LTGT (the
# targets) from one `ls`.
listing() {
	# shellcheck disable=SC2086 # LSFULL is one option or nothing; target paths hold no spaces
	li_out=$(ls -lniA $LSFULL -- "$CONF" $TPATHS 2>&1)
	LTGT=${li_out%%"$CONF:"*}
	li_out=${li_out#*"$CONF:"}
	LCONF=
	set -f
	li_ifs=$IFS
	IFS=$NL
	for li_l in $li_out; do
		case $li_l in total* | *.status | *' .captured' | *' .firmware' | *' DOCTOR.txt' | *' STATUS.html' | '') continue ;; esac
		# Fields joined by one space: ls pads its columns to the widest
		# entry, our status files included.
		IFS=' '
		# shellcheck disable=SC2086 # split on blanks on purpose
		set -- $li_l
		LCONF="$LCONF$*$NL"
		IFS=$NL
	done
	IFS=$li_ifs
	set +f
}

cmd_poll() {
	poll_dirs || return 1
	chars
	profile_load
	settings_load
	poll_interval
	WRITING_MAX=${USERSCRIPT_WRITING_MAX:-600}
	case $WRITING_MAX in '' | *[!0-9]* | 0) WRITING_MAX=600 ;; esac
	# init writes our pid to state/poll.pid as soon as it has started us;
	# when run by hand, we write it. Whoever finds another pid there later
	# exits, so there is never more than one poller.
	poller_pid
	if [ "$PP" != "$$" ]; then
		if other_poller "$PP"; then
			echo "userscript: a poller is already running (pid $PP)"
			return 0
		fi
		poll_pidfile
	fi
	NOW=
	log INFO "poller started" pid="$$" interval="$PI"
	ls_flags
	CAPTURE=yes
	PAUSED=
	DRIFTS=
	STOPPING=
	trap poll_term TERM INT
	trap '' HUP
	listing
	po_conf=$LCONF
	po_pend=
	poll_apply
	poll_settle
	# Without a `[` (a process on BusyBox 1.00): an idle poll is one ls
	# and one sleep.
	while :; do
		# In the foreground: a TERM (init stop) is handled when it ends.
		# BusyBox 1.5-1.8 lose a TERM that comes during `wait`.
		sleep "$PI"
		poll_continue || return 0
		listing
		case $LCONF in
		"$po_conf")
			case $LTGT in "$po_tgt")
				po_pend=
				continue
				;;
			esac
			;;
		"$po_pend") ;;
		*)
			# Changed since the last poll: wait until it stays the same.
			po_pend=$LCONF
			continue
			;;
		esac
		po_pend=
		if writing_conf; then
			# A copy in progress: applied once it is closed and has
			# stayed the same for a poll.
			po_pend=$LCONF
			continue
		fi
		unpause "$po_conf" "$LCONF"
		po_new=$LCONF
		poll_apply || continue
		po_conf=$po_new
		note_drifts
		poll_continue || return 0
		poll_settle
	done
}

# poll_dirs is ensure_dirs for the poller, whose output init throws away:
# why it cannot start (conf.d not a folder, state/ a link) also goes to
# state/log where it can, so the owner can read why there is no poller.
poll_dirs() {
	pd_why=$(ensure_dirs 2>&1 >/dev/null) && ensure_dirs && return 0
	echo "$pd_why" >&2
	[ -d "$STATE" ] && ! [ -L "$STATE" ] || return 1
	NOW=
	log ERROR "poller not started" reason="${pd_why#userscript: }"
	return 1
}

# poll_settle takes the listing the next polls compare with, once an
# apply has ended, in a later second than the apply's writes: ls shows
# whole seconds, so a target rewritten in place to the same size in the
# second we wrote it would look unchanged for good. A target rewritten
# while that apply ended (after it was written, before this listing)
# would hide in it: an apply right after the listing sees it (one look,
# nothing done when nothing changed); when that apply had to do
# something (a transaction), the next poll applies again.
poll_settle() {
	sleep 1
	listing
	po_tgt=$LTGT
	case $LCONF in "$po_conf") ;; *)
		# conf.d changed while the apply ran (a save still being
		# made?): the loop applies it once it stays the same.
		po_tgt=
		return 0
		;;
	esac
	poll_apply || po_tgt=
	# An apply that wrote nothing (a paused or refused target: no
	# transaction) leaves nothing to look at again: the poller is quiet
	# until something changes.
	case $APPLIED_QUICK:${TXN_RAN:-} in yes:* | :) ;; *) po_tgt= ;; esac
	note_drifts
}

# writing_conf is true while a process has a file of conf.d open for
# writing: a copy in progress (smbd keeps the file open until the copy
# ends, and over Wi-Fi a piece may come seconds late). One ls of the
# processes' fd folders, only when conf.d changed; an fd link's mode says
# how the file is open (l-wx, lrwx: for writing). Past WRITING_MAX
# seconds of waiting it is false: the apply goes on, and WRITING names
# the files still open (their statuses say so: notes_for).
writing_conf() {
	WRITING=
	wc_out=$(ls -l "$ROOT"/proc/[0-9]*/fd/ 2>/dev/null)
	case $wc_out in *" -> $CONF/"*) writing_names ;; esac
	case $WRITING in '')
		WRITING_SINCE=
		return 1
		;;
	esac
	wc_now=$(date +%s)
	case ${WRITING_SINCE:-} in '')
		WRITING_SINCE=$wc_now
		log INFO "waiting: a file of conf.d is open for writing (a copy in progress)" file="conf.d/${WRITING# }"
		;;
	esac
	case $((wc_now - WRITING_SINCE < WRITING_MAX)) in 1) return 0 ;; esac
	log WARN "conf.d is still open for writing; applying it all the same" files="${WRITING# }" after="$(go_dur "$WRITING_MAX")"
	return 1
}

# writing_names sets WRITING to the files of conf.d open for writing in
# the ls -l lines wc_out, each once; a name with other characters than
# letters, digits and . _ - is kept as "?" (it is waited for, never used).
writing_names() {
	set -f
	wc_ifs=$IFS
	IFS=$NL
	for wc_l in $wc_out; do
		case $wc_l in l?w*" -> $CONF/"*) ;; *) continue ;; esac
		wc_n=${wc_l##*" -> $CONF/"}
		case $wc_n in *[!A-Za-z0-9._-]*) wc_n="?" ;; esac
		case "$WRITING " in *" $wc_n "*) ;; *) WRITING="$WRITING $wc_n" ;; esac
	done
	IFS=$wc_ifs
	set +f
}

# poll_continue is false once the poller must stop: init stop wrote
# `stop` into state/poll.pid (then sends a TERM; BusyBox 1.5-1.8 may lose
# it), another poller took it, or a TERM came. state/poll.pid gone (the
# owner deleted it, or all of state/) is written again, and the poller
# goes on.
poll_continue() {
	poller_pid
	case $PP:$STOPPING in "$$:") return 0 ;; esac
	case $PP:$STOPPING in :)
		[ -L "$STATE" ] || mkdir -p "$STATE" 2>/dev/null
		LOOKED=
		LOG_CHECKED=
		if poll_pidfile; then
			NOW=
			log WARN "state/poll.pid was gone (deleted?): written again; the poller goes on" pid="$$"
			return 0
		fi
		;;
	esac
	NOW=
	log INFO "poller stopped" pid="$$"
	return 1
}

# poll_pidfile writes our pid to state/poll.pid (aside, then renamed).
poll_pidfile() {
	rm -rf "$STATE/poll.pid.tmp"
	echo "$$" >"$STATE/poll.pid.tmp" && put_file "$STATE/poll.pid.tmp" "$STATE/poll.pid"
}

# poll_term handles TERM: outside an apply the poller ends at once; an
# apply (a service between its stop and its start) is finished first.
poll_term() {
	STOPPING=yes
	filled "${LOCKED:-}" && return 0
	trap - TERM INT
	NOW=
	log INFO "poller stopped" pid="$$"
	exit 0
}

# poll_apply applies once; it fails only when the lock was busy, so the
# next poll tries again. The apply runs in this very process (not a
# subshell), so that the pid in state/lock.d is the one doing the work.
poll_apply() {
	NOW=
	LOG_CHECKED=
	cmd_apply >/dev/null 2>&1
	case $? in 75) return 1 ;; esac
	WRITING=
	return 0
}

# note_drifts counts, for each target the last apply found rewritten by
# something else (DRIFTED), the rewrites within DRIFT_WINDOW; past
# DRIFT_LIMIT the target is paused.
note_drifts() {
	filled "$DRIFTED" || return 0
	nd_now=$(date +%s)
	for nd_n in $DRIFTED; do
		hv "$PAUSED" "$nd_n" && continue
		nd_times=$nd_now
		nd_count=1
		if hv "$DRIFTS" "$nd_n"; then
			for nd_t in $(echo "$HV" | tr , ' '); do
				[ $((nd_now - nd_t)) -lt "$DRIFT_WINDOW" ] || continue
				nd_times="$nd_times,$nd_t"
				nd_count=$((nd_count + 1))
			done
		fi
		drop "$DRIFTS" "$nd_n"
		DRIFTS="$DROP $nd_n:$nd_times"
		if [ "$nd_count" -gt "$DRIFT_LIMIT" ]; then
			PAUSED="$PAUSED $nd_n:$nd_count"
			log WARN "drift: pausing target" target="$nd_n" times="$nd_count"
		fi
	done
}

# paused_reason NAME prints why NAME is paused (the Go watcher's words).
paused_reason() {
	hv "$PAUSED" "$1"
	profile_target "$1"
	echo "something rewrote $TPATH $HV times in $(go_dur "$DRIFT_WINDOW") (the firmware's web GUI?); userscript stopped re-applying it: see conf.d/.captured/, then save conf.d/$1 again to apply it"
}

# unpause OLD NEW lifts the pause of every target whose sources' lines
# differ between two listings of conf.d: the owner saved them again.
unpause() {
	filled "$PAUSED" || return 0
	for up_e in $PAUSED; do
		up_n=${up_e%%:*}
		[ "$(lines_of "$1" "$up_n")" = "$(lines_of "$2" "$up_n")" ] && continue
		drop "$PAUSED" "$up_n"
		PAUSED=$DROP
		drop "$DRIFTS" "$up_n"
		DRIFTS=$DROP
		log INFO "drift: target saved again, no longer paused" target="$up_n"
	done
}

# lines_of LISTING NAME prints the lines of NAME, NAME.add, NAME.merge.
lines_of() {
	while IFS= read -r lo_l; do
		case $lo_l in *" $2" | *" $2.add" | *" $2.merge") echo "$lo_l" ;; esac
	done <<LINES
$1
LINES
}


CAPTURED_KEEP=10

# capture_drift NAME LIVE keeps a live file something else wrote over
# ours in conf.d/.captured/NAME.TIME, for the owner to look at: once a
# distinct content, the newest CAPTURED_KEEP kept.
capture_drift() {
	filled "${CAPTURE:-}" || return 0
	hv "$PAUSED" "$1" && return 0
	cd_dir=$CONF/.captured
	if [ -L "$cd_dir" ] || { [ -e "$cd_dir" ] && ! [ -d "$cd_dir" ]; }; then
		log ERROR "capture drift: conf.d/.captured is not a folder (a symlink?); not writing through it" target="$1"
		return 0
	fi
	mkdir -p "$cd_dir" 2>/dev/null
	# One copy a distinct content; the newest CAPTURED_KEEP are kept.
	cd_n=0
	for cd_f in "$cd_dir/$1".[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]T[0-9][0-9][0-9][0-9][0-9][0-9]Z; do
		plain "$cd_f" || continue
		if cmp -s "$2" "$cd_f"; then
			log WARN "drift: the live file was rewritten behind us, as before" target="$1" saved="conf.d/.captured/${cd_f##*/}"
			return 0
		fi
		cd_n=$((cd_n + 1))
	done
	for cd_f in "$cd_dir/$1".[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]T[0-9][0-9][0-9][0-9][0-9][0-9]Z; do
		[ "$cd_n" -ge "$CAPTURED_KEEP" ] || break
		plain "$cd_f" || continue
		rm -f "$cd_f"
		cd_n=$((cd_n - 1))
	done
	cd_name=$1.$(date -u +%Y%m%dT%H%M%SZ)
	if cat "$2" >"$cd_dir/$cd_name.tmp" 2>/dev/null && mv -f "$cd_dir/$cd_name.tmp" "$cd_dir/$cd_name"; then
		log WARN "drift: the live file was rewritten behind us" target="$1" saved="conf.d/.captured/$cd_name"
	else
		rm -f "$cd_dir/$cd_name.tmp"
		log ERROR "capture drift: could not write conf.d/.captured/$cd_name" target="$1"
	fi
}

# cmd_stop ends the poller: state/poll.pid says `stop` (a poller that
# finds it gone instead writes it again: the owner deleted it), then a
# TERM, then KILL.
cmd_stop() {
	poller_pid
	rm -rf "$STATE/poll.pid.tmp"
	{ echo stop >"$STATE/poll.pid.tmp" && put_file "$STATE/poll.pid.tmp" "$STATE/poll.pid"; } 2>/dev/null || rm -f "$STATE/poll.pid"
	if filled "$PP" && is_ours "$PP"; then
		kill "$PP" 2>/dev/null
		st_i=0
		# An apply in the middle of a restart is let finish (up to 5
		# minutes); otherwise 10 s, then KILL.
		while is_ours "$PP"; do
			st_lock=
			{ read -r st_lock <"$STATE/lock.d/pid"; } 2>/dev/null
			if [ "$st_i" -ge 300 ] || { [ "$st_i" -ge 10 ] && ! eq "$st_lock" "$PP"; }; then
				kill -9 "$PP" 2>/dev/null
				break
			fi
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
	other_poller "$PP"
}

# other_poller PID is true when PID is a poller running for this app dir.
# A pid left in state/poll.pid from before a reboot may be anyone's now,
# among them this process or its parent (init, whose command line names
# userscript): never those.
other_poller() {
	case $1 in '' | "$$" | "${PPID:-}") return 1 ;; esac
	is_ours "$1"
}
