# shellcheck shell=sh
# userscript sh engine: an apply. It starts with the look (quick.sh): when
# nothing changed since the last clean apply, nothing is done. Otherwise
# every target with sources (or that we manage) is planned: from the look
# alone when its content is known and live or committed (quick_item),
# else in full (plan_item): its base captured, its sources composed,
# held, unchanged, refused or to be written. What is to be written goes
# live as one transaction (transaction.sh). The Go engine's
# internal/overlay (apply.go, plan.go, committed.go) is the reference.
# Sourced by engine.sh.
# shellcheck disable=SC2154,SC2034,SC2153

# hv LIST NAME sets HV to the value of NAME in a " NAME:VALUE ..." list.
hv() {
	HV=
	case " $1 " in *" $2:"*) HV=${1#*" $2:"} && HV=${HV%% *} ;; *) return 1 ;; esac
}

# in_list LIST NAME is true when NAME is a word of LIST.
in_list() {
	case " $1 " in *" $2 "*) return 0 ;; esac
	return 1
}

# drop LIST NAME sets DROP to a " NAME:VALUE" list without NAME.
drop() {
	DROP=
	for dr_e in $1; do
		case $dr_e in "$2:"*) ;; *) DROP="$DROP $dr_e" ;; esac
	done
}

# src_of NAME sets SO to the file NAME's new content is in; prev_of NAME
# sets PO to the file holding what was live before (empty: no file).
src_of() {
	hv "$TSRC" "$1" && SO=$HV && return 0
	SO=$WORK/$1.target
}

prev_of() {
	PO=
	hv "$TPREV" "$1" && PO=$HV
	return 0
}

# tune_parts applies kernel tuning (tuning.sh, kernel.sh, tunestate.sh).
tune_parts() {
	chars
	part tuning
	part kernel
	part tunestate
	tune
}

# newest_pending is true when the newest generation is still pending: a
# transaction was interrupted (rollback.sh recover).
newest_pending() {
	gen_dirs
	np_last=
	for np_i in $GENS; do np_last=$np_i; done
	case $np_last in '') return 1 ;; esac
	gen_read "$np_last" || return 1
	case $G_RESULT in pending) return 0 ;; esac
	return 1
}

# run_fresh forgets what an earlier apply of this process (the poller)
# read and wrote: every apply looks afresh.
run_fresh() {
	DRIFTED=
	TOUCHED=' '
	LOOKED=
	GR_CACHED=
	WL_CACHED=
	STATE_DIRTY=
	TBELIEF=
	QUICK=
	TSRC=
	TPREV=
}

# need_work makes state/tmp, the apply's scratch folder, the first time
# it is needed (an apply that changes nothing needs none).
need_work() {
	case ${WORK_MADE:-} in yes) return 0 ;; esac
	rm -rf "$WORK"
	# mkdir without -p: a link planted as state/tmp in between fails it.
	if ! mkdir "$WORK" 2>/dev/null || [ -L "$WORK" ]; then
		log ERROR "apply failed: cannot make state/tmp"
		return 1
	fi
	WORK_MADE=yes
}

# report_start NAME starts the status report of target NAME.
report_start() {
	FIRST=${SOURCES%% *}
	rp_new "$1"
	fset "$1" file "conf.d/${FIRST:-$1}"
	fset "$1" target "$TPATH"
	fset "$1" sources "$SOURCES"
	case $SOURCES in '') fset "$1" reason "no source in conf.d any more: the firmware's own file is live again" ;; esac
	notes_for "$1"
}

# fw_seen NAME FILE MD5: FILE holds the firmware's own NAME (it goes to
# conf.d/.firmware when that does not hold it yet: firmware.sh).
fw_seen() {
	case $3 in '') return 0 ;; esac
	FW_SEEN="${FW_SEEN:-} $1:$2:$3"
}

# fw_keep writes conf.d/.firmware where it lacks what this apply saw:
# firmware.sh is read only then.
fw_keep() {
	for fk_e in ${FW_SEEN:-}; do
		h_of "$CONF/.firmware/${fk_e%%:*}"
		case $H in "${fk_e##*:}") continue ;; esac
		part firmware
		firmware_keep
		return 0
	done
}

# fset_lines NAME KEY LINES records one field a line of LINES.
fset_lines() {
	case $3 in '') return 0 ;; esac
	set -f
	fl_ifs=$IFS
	IFS=$NL
	for fl_l in $3; do
		IFS=$fl_ifs
		fset "$1" "$2" "$fl_l"
	done
	IFS=$fl_ifs
	set +f
}

# notes_for NAME puts the settings' notes and what recovery did into the
# report of NAME.
notes_for() {
	fset_lines "$1" note "$SET_NOTES"
	hv "$RECOVERED" "$1" && fset "$1" note "generation $HV was interrupted before its services proved healthy (a crash, a stop or a power cut): it was undone, and this start applied conf.d again"
	filled "${WRITING:-}" || return 0
	for nf_s in $SOURCES; do
		case "$WRITING " in *" $nf_s "*)
			fset "$1" note "conf.d/$nf_s was still open for writing after $(writing_after) (a copy that never ended?): applied as it was then; if it is not whole, copy it again"
			;;
		esac
	done
	return 0
}

# writing_after prints how long the poller waits for a file open for
# writing, as the Go engine says it.
writing_after() {
	case $((WRITING_MAX % 60)):$WRITING_MAX in
	0:60) echo "1 minute" ;;
	0:*) echo "$((WRITING_MAX / 60)) minutes" ;;
	*) go_dur "$WRITING_MAX" ;;
	esac
}

# add_out NAME puts NAME into the transaction, with a copy of its live file.
add_out() {
	OUTS="$OUTS $1"
	if filled "$LIVE_OK"; then
		need_work || return 1
		cp "$ROOT$TPATH" "$WORK/$1.prev"
		LIVEOK="$LIVEOK $1"
		TPREV="$TPREV $1:$WORK/$1.prev"
	fi
	filled "$SOURCES" || NOSRC="$NOSRC $1"
}

# plan_reset empties what a plan of the targets fills in (plan_all,
# rollback).
plan_reset() {
	OUTS=''
	NOSRC=''
	LIVEOK=''
	RESTORE=''
	LHS=''
	WHS=''
	DRIFTED=''
	TSRC=''
	TPREV=''
	QUIET=''
	SLOW=''
	FP_W=''
}

# plan_all plans every target with sources, and every target we manage.
plan_all() {
	plan_reset
	FW_SEEN=''
	REBASED_NOW=''
	RB_NOTED=''
	for pa_n in $TARGETS; do
		if in_list "$SRC" "$pa_n" || plain "$STATE/written/$pa_n"; then
			REFUSED_NOW=
			quick_item "$pa_n" || {
				part plan
				plan_item "$pa_n"
				case $REFUSED_NOW in ?*) keep_committed "$pa_n" ;; esac
			}
		else
			firmware_seen "$pa_n"
		fi
	done
	slow_wants
}

# firmware_seen NAME: the live file of NAME, a target nobody manages, is
# the firmware's own (the look tells it, and its hash, up to 1 MiB).
firmware_seen() {
	profile_target "$1"
	looked "$ROOT$TPATH" || return 0
	case $LR_MODE in -*) ;; *) return 0 ;; esac
	case $((${#LR_SIZE} > 7)) in 1) return 0 ;; esac
	case $((LR_SIZE > MAX_SIZE)) in 1) return 0 ;; esac
	h_of "$ROOT$TPATH"
	fw_seen "$1" "$ROOT$TPATH" "$H"
}

# slow_wants adds the want lines of the targets plan_item composed: the
# hashes of the sources it read (one md5sum of its copies and of the
# bases it used), when they are what the look saw.
slow_wants() {
	case ${QUICK:-}:$SLOW in yes:?*) ;; *) return 0 ;; esac
	sw_files=
	for sw_e in $SLOW; do
		sw_n=${sw_e%%:*}
		sources_of "$sw_n"
		for sw_s in $SOURCES; do
			sw_files="$sw_files $WORK/$sw_s.n.raw"
		done
		in_list "$SOURCES" "$sw_n" || sw_files="$sw_files $STATE/base/$sw_n"
	done
	# shellcheck disable=SC2086 # paths without blanks
	md5_bounded "$MD5_TIMEOUT" $sw_files
	for sw_e in $SLOW; do
		sw_n=${sw_e%%:*}
		sources_of "$sw_n"
		sw_key=$QKEY_G
		for sw_s in $SOURCES; do
			h_of "$CONF/$sw_s"
			sw_h=$H
			h_of "$WORK/$sw_s.n.raw"
			case $sw_h in '' | *[!0-9a-f]*) continue 2 ;; "$H") ;; *) continue 2 ;; esac
			sw_key="$sw_key $sw_s=$H"
		done
		if ! in_list "$SOURCES" "$sw_n"; then
			# hashed again: capturing the base may have changed it
			h_of "$STATE/base/$sw_n"
			sw_key="$sw_key base=${H:-$EMPTY_MD5}"
		fi
		want_line "$sw_n" "${sw_e#*:}" "$sw_key"
	done
}

# cmd_apply applies conf.d once: recovery of an interrupted transaction,
# the plan, kernel tuning, the transaction, the status files. Exit 0 ok,
# 1 a target FAILED (or an error), 3 a source was REFUSED, 75 the lock
# was busy. When nothing changed since the last clean apply, it does
# nothing (quick.sh).
cmd_apply() {
	run_fresh
	profile_load
	APPLIED_QUICK=
	COUNTED=
	if apply_quick; then
		APPLIED_QUICK=yes
		return "$QUICK_RC"
	fi
	apply_begin || return $?
	scan
	WHY_STOPPED=
	case ${START:-}$RESERVED_DISABLE$RESERVED_SAFE in ?*)
		part wayout
		stopped
		case ${START:-}:$WHY_STOPPED in yes:) count_start ;; esac
		;;
	esac
	case $WHY_STOPPED in
	'')
		apply_plan
		names_report
		;;
	*)
		QUIET=''
		FP_W=''
		stop_reports
		;;
	esac
	apply_end
}

# apply_plan plans and applies: recovery of an interrupted transaction,
# the plan, kernel tuning, the transaction.
apply_plan() {
	if newest_pending; then
		part rollback
		recover
	fi
	plan_all
	# The services restart with the new kernel values in place.
	case $TUNE in '') plain "$STATE/tuning.json" && tune_parts ;; *) tune_parts ;; esac
	case $OUTS in ?*)
		part service
		part transaction
		transact apply 0
		;;
	esac
	fw_keep
}

# names_report writes the UNKNOWN reports (names.sh says which name was
# meant) and removes the status files nobody needs any more.
names_report() {
	case $UNK in ?*) part names ;; esac
	for ap_n in $UNK; do
		unknown "$ap_n"
	done
	case $UNK_MORE in 0) ;; *)
		log WARN "unknown targets: no status file for more than $UNK_MAX a time" count="$UNK_MORE" profile="$PROFILE"
		;;
	esac
	sweep_statuses
}

# apply_begin checks the folders, reads the settings and takes the lock.
apply_begin() {
	ensure_dirs || return 1
	stamp_now
	LOG_HOLD=yes
	LOGBUF=
	settings_load
	rotate_log
	if ! lock_take; then
		if eq "$LOCK_WHY" busy; then
			log WARN "apply skipped: another apply holds state/lock.d"
			log_flush
			echo "userscript: another apply holds $STATE/lock.d; try again later" >&2
			return 75
		fi
		disk_trouble "$LOCK_WHY"
		return 1
	fi
	# The generations are read again under the lock: recovery must never
	# decide from a look taken before it (another apply may have
	# committed since). After a wait for the lock nothing of the look is
	# trusted.
	GR_CACHED=
	case ${LOCK_WAITED:-} in yes) run_fresh ;; esac
	WORK_MADE=
	STATE_DIRTY=
	TBELIEF=
	TXN_RAN=
	REPORTS=
	RKEYS=' '
	CHANGED_LOG=
	RECOVERED=''
	return 0
}

# apply_end writes the status files and prints every word; its exit is
# the apply's. What it saw and left goes into state/applied.
apply_end() {
	ae_rc=0
	FP_O=
	for ae_n in $TARGETS $UNK; do
		rp_has "$ae_n" || continue
		if in_list "$QUIET" "$ae_n" && ! in_list "${RB_NOTED:-}" "$ae_n"; then
			# Put back as committed: the status file already says so,
			# unless it went wrong.
			render "$ae_n" no
			case $r_status in "$W_OK" | "$W_NOT_VALIDATED") continue ;; esac
		fi
		write_status "$ae_n"
		ae_out "$ae_n: $r_status"
		case $r_status:${TX_REJECTED:-}:$ae_rc in
		"$W_FAILED":*) ae_rc=1 ;;
		"$W_REJECTED":?*:*) ae_rc=1 ;;
		"$W_REFUSED":*:0) ae_rc=3 ;;
		esac
	done
	for ae_n in $TUNING_FILES; do
		rp_has "${ae_n%.conf}" || continue
		write_status "${ae_n%.conf}"
		ae_out "$ae_n: $r_status"
	done
	case ${TXN_RAN:-} in yes) ;; *) G_CHANGED='' G_RESTARTED='' ;; esac
	case ${COUNTED:-} in yes) starts_set 0 ;; esac
	case ${START:-} in yes)
		part doctor
		doctor_write
		;;
	esac
	part page
	page_write
	log INFO "apply done" changed="${G_CHANGED:-}" restarted="${G_RESTARTED:-}"
	log_flush
	case $WORK_MADE in yes) rm -rf "$WORK" ;; esac
	fp_save "$ae_rc"
	lock_release
	LOG_HOLD=
	return "$ae_rc"
}

# ae_out LINE prints LINE and keeps it for state/applied.
ae_out() {
	echo "$1"
	FP_O="${FP_O}O $1$NL"
}

# restore_committed: the data disk is full (the lock cannot be made).
# Nothing new is applied, but every target with sources gets its last
# committed content back over what the firmware restored: that needs no
# new bytes on the data disk. No generation and nothing in state/ is
# written; each affected service restarts once (its output is not kept).
# RCM_LIVE lists "NAME:ID" for the targets whose committed content is
# live.
restore_committed() {
	rcm_svcs=
	scan
	for rcm_n in $TARGETS; do
		sources_of "$rcm_n"
		filled "$SOURCES" || continue
		profile_target "$rcm_n" || continue
		committed_content "$rcm_n" || continue
		case $CC_ID in 0) continue ;; esac
		RCM_LIVE="$RCM_LIVE $rcm_n:$CC_ID"
		cmp -s "$CC_FILE" "$ROOT$TPATH" && continue
		write_target "$rcm_n" "$ROOT$TPATH" "$CC_FILE" || continue
		log WARN "data disk full: the last committed file put back" target="$rcm_n" generation="$CC_ID"
		[ "$TSVC" = - ] || in_list "$rcm_svcs" "$TSVC" || rcm_svcs="$rcm_svcs $TSVC"
	done
	case $rcm_svcs in ?*) part service ;; esac
	for rcm_s in $rcm_svcs; do
		restart_svc "$rcm_s"
	done
}

# disk_trouble WHY: the data disk cannot take our state (read-only, full,
# gone). Nothing new is applied; the firmware's boot goes on. When it is
# full, the last committed files go back (restore_committed). The status
# of each source says why, where a status file can still be written.
disk_trouble() {
	chars
	RCM_LIVE=
	case $1 in "data disk full")
		part history
		restore_committed
		;;
	esac
	echo "userscript: $1: nothing new was applied; ${RCM_LIVE:+the last committed files are live, }the firmware's own files stay live${RCM_LIVE:+ for the others}" >&2
	log ERROR "apply failed" reason="$1"
	log_flush
	LOG_HOLD=
	for dt_f in "$CONF"/*; do
		dt_n=${dt_f##*/}
		ignored "$dt_n" && continue
		safe_name "$dt_n" || continue
		case $dt_n in *.add | *.merge) continue ;; esac
		is_target "$dt_n" || continue
		dt_why="nothing was applied, the firmware's own file is live"
		hv "$RCM_LIVE" "$dt_n" && dt_why="nothing new is applied; generation $HV is live again at this start"
		{
			echo "status: $W_FAILED$CR"
			echo "file: conf.d/$dt_n$CR"
			echo "reason: $1: $dt_why$CR"
			echo "$CR"
			echo "what to do: free some space on the data disk (or check that it is mounted writable), then reboot or save the file again$CR"
		} 2>/dev/null >"$CONF/$dt_n.status.tmp" && mv -f "$CONF/$dt_n.status.tmp" "$CONF/$dt_n.status" 2>/dev/null
		rm -f "$CONF/$dt_n.status.tmp" 2>/dev/null
	done
	return 0
}
