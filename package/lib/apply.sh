# shellcheck shell=sh
# userscript sh engine: an apply. Every target with sources (or that we
# manage) is planned: its base captured, its sources composed, held,
# unchanged, refused or to be written. What is to be written goes live as
# one transaction (transaction.sh). The Go engine's internal/overlay
# (apply.go, plan.go, committed.go) is the reference. Sourced by engine.sh.
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

# plan_item NAME plans one target and records its outcome: a status
# report (state/tmp/NAME.f) and, when it is to be written, NAME in OUTS.
plan_item() {
	profile_target "$1" || return 0
	pi_live=$ROOT$TPATH
	sources_of "$1"
	FIRST=${SOURCES%% *}
	: >"$WORK/$1.f"
	fset "$1" file "conf.d/${FIRST:-$1}"
	fset "$1" target "$TPATH"
	fset "$1" sources "$SOURCES"
	[ -n "$SOURCES" ] || fset "$1" reason "no source in conf.d any more: the firmware's own file is live again"
	notes_for "$1"
	LIVE_OK=
	LIVE_HASH=
	if [ -L "$pi_live" ] || { [ -e "$pi_live" ] && ! [ -f "$pi_live" ]; }; then
		refuse "$1" "${FIRST:-$1}" "$TPATH is not a regular file; userscript does not replace links or folders" "check $TPATH on the device"
		return 0
	fi
	if [ -f "$pi_live" ]; then
		LIVE_OK=yes
		if too_big "$(file_size "$pi_live")"; then
			refuse "$1" "${FIRST:-$1}" "$TPATH: the live file is over 1 MiB; userscript keeps configuration files up to 1 MiB: make it smaller, or remove its sources from conf.d" "make $TPATH smaller"
			return 0
		fi
		LIVE_HASH=$(md5 "$pi_live")
		LHS="$LHS $1:$LIVE_HASH"
	fi
	pi_base=
	CAPTURED=
	if [ -z "$LIVE_OK" ] || ! written_has "$1" "$LIVE_HASH"; then
		# The live file is the firmware's: it is the base.
		if ! set_base "$1" "$pi_live"; then
			failed "$1" "could not save the base of $TPATH in state/base" "check that the data disk is writable and not full"
			return 0
		fi
		pi_base=$STATE/base/$1
		CAPTURED=yes
		written_lines "$1"
		if [ -n "$WL" ] && [ -n "$LIVE_OK" ]; then
			# Something else (the firmware, its web GUI) wrote over ours.
			DRIFTED="$DRIFTED $1"
			capture_drift "$1" "$pi_live"
		fi
	elif base_ok "$1"; then
		pi_base=$STATE/base/$1
	elif ! in_list "$SOURCES" "$1"; then
		refuse "$1" "${FIRST:-$1}" "state/base/$1 is missing, so the firmware's own $TPATH is unknown; reboot the NAS (the firmware restores it) or delete state/written/$1" \
			"reboot the NAS, or delete state/written/$1 to keep the live file as it is"
		return 0
	fi
	hv "$PAUSED" "$1" && {
		refuse "$1" "${FIRST:-$1}" "$(paused_reason "$1")" "look at conf.d/.captured/, then save conf.d/$1 again to apply it"
		return 0
	}
	for pi_s in $SOURCES; do
		if ! take_source "$pi_s" "$WORK/$pi_s.n"; then
			refuse "$1" "$pi_s" "$REASON" "$TODO"
			return 0
		fi
	done
	if ! compose "$1" "$pi_base"; then
		refuse "$1" "$CO_FILE" "$REASON" "$TODO; until then nothing of conf.d/$1, $1.add or $1.merge is applied (a target goes live whole or not at all)"
		return 0
	fi
	if too_big "$(file_size "$WORK/$1.target")"; then
		refuse "$1" "${FIRST:-$1}" "$TPATH would be over 1 MiB with conf.d/${SOURCES##* }; userscript keeps configuration files up to 1 MiB" "make conf.d/${SOURCES##* } smaller"
		return 0
	fi
	pi_wh=$(md5 "$WORK/$1.target")
	WHS="$WHS $1:$pi_wh"
	held_read "$1"
	if [ -n "$HELD_HASH" ] && [ "$HELD_HASH" = "$pi_wh" ]; then
		hold_back "$1"
	elif [ -n "$LIVE_OK" ] && [ "$pi_wh" = "$LIVE_HASH" ]; then
		keep_status "$1"
	elif empty_refused "$1"; then
		return 0
	elif validate "$1" "$WORK/$1.target"; then
		add_out "$1"
	fi
}

# notes_for NAME puts the settings' notes and what recovery did into the
# report of NAME.
notes_for() {
	while IFS= read -r nf_l; do
		[ -z "$nf_l" ] || fset "$1" note "$nf_l"
	done <<NOTES
$SET_NOTES
NOTES
	hv "$RECOVERED" "$1" && fset "$1" note "generation $HV was interrupted before its services proved healthy (a crash, a stop or a power cut): it was undone, and this start applied conf.d again"
	return 0
}

# add_out NAME puts NAME into the transaction, with a copy of its live file.
add_out() {
	OUTS="$OUTS $1"
	if [ -n "$LIVE_OK" ]; then
		cp "$ROOT$TPATH" "$WORK/$1.prev"
		LIVEOK="$LIVEOK $1"
	else
		rm -f "$WORK/$1.prev"
	fi
	[ -n "$SOURCES" ] || NOSRC="$NOSRC $1"
}

# empty_refused NAME refuses an empty target of a `nonempty` target (a
# 0-byte smb.conf deletes every share: a failed copy, not a wish).
empty_refused() {
	[ "$TFLAGS" = nonempty ] && [ -n "$SOURCES" ] && ! [ -s "$WORK/$1.target" ] || return 1
	refuse "$1" "${SOURCES##* }" "conf.d/${SOURCES##* } is empty (0 bytes): an empty $1 would delete everything it sets up, so it is not applied; a failed copy or a full disk leaves such a file. To empty it on purpose, put one comment line in it" \
		"copy the whole file into conf.d/${SOURCES##* } again; $TPATH was not changed"
}

# keep_status NAME: the live file already is the target. It is marked
# ours (or, without sources, the firmware's again); the status file is
# left alone when it already says so, else validated again.
keep_status() {
	if [ -n "$CAPTURED" ] || [ -z "$SOURCES" ]; then
		if [ -n "$SOURCES" ]; then
			remember_written "$1" "$LIVE_HASH"
		else
			forget_written "$1"
		fi
	fi
	case $(status_word "$1") in
	OK | "NOT VALIDATED")
		rm -f "$WORK/$1.f"
		return 0
		;;
	esac
	validate "$1" "$WORK/$1.target"
}

# hold_back NAME: the sources of NAME are held (rejected, interrupted or
# rolled back). They are not applied; the content of the newest committed
# generation holding NAME (else the firmware's file) is live instead.
hold_back() {
	if ! committed_content "$1"; then
		failed "$1" "$REASON; the held sources are not applied and the live file was left as it is" "look at state/gen"
		return 0
	fi
	hb_word=${HELD_WORD:-HELD}
	hb_reason=$HELD_REASON
	[ -n "$HELD_WORD" ] || hb_reason="rolled back; the live file is an earlier generation"
	fset "$1" status "$hb_word"
	fset "$1" reason "$hb_reason"
	fset "$1" todo "edit conf.d/$1 and save it to apply it again, or delete it to return to the firmware's file"
	if [ -n "$CC_FILE" ]; then
		cp "$CC_FILE" "$WORK/$1.target"
	else
		: >"$WORK/$1.target"
	fi
	if [ -n "$LIVE_OK" ] && cmp -s "$WORK/$1.target" "$ROOT$TPATH"; then
		[ "$(status_word "$1")" != "$hb_word" ] || rm -f "$WORK/$1.f"
		return 0
	fi
	hb_what="generation $CC_ID"
	[ "$CC_ID" != 0 ] || hb_what="the firmware's own file"
	fset "$1" reason "$hb_reason; $hb_what is live again at this start"
	WHS="$(drop "$WHS" "$1") $1:$(md5 "$WORK/$1.target")"
	RESTORE="$RESTORE $1"
	add_out "$1"
}

# plan_all plans every target with sources, and every target we manage.
plan_all() {
	OUTS=''
	NOSRC=''
	LIVEOK=''
	RESTORE=''
	LHS=''
	WHS=''
	DRIFTED=''
	for pa_n in $TARGETS; do
		if in_list "$SRC" "$pa_n" || [ -f "$STATE/written/$pa_n" ]; then
			plan_item "$pa_n"
		fi
	done
}

unknown() { # NAME
	sources_of "$1"
	: >"$WORK/$1.f"
	fset "$1" status UNKNOWN
	fset "$1" file "conf.d/${SOURCES%% *}"
	fset "$1" sources "$SOURCES"
	fset "$1" reason "no such target in profile $PROFILE"
	fset "$1" todo "name the file after a target of this device:$TARGETS (or NAME.add); nothing was applied"
	log WARN "unknown target" name="$1" profile="$PROFILE"
}

# cmd_apply applies conf.d once: recovery of an interrupted transaction,
# the plan, kernel tuning, the transaction, the status files. Exit 0 ok,
# 1 a target FAILED (or an error), 3 a source was REFUSED, 75 the lock
# was busy.
cmd_apply() {
	apply_begin || return $?
	recover
	scan
	plan_all
	for ap_n in $UNK; do
		unknown "$ap_n"
	done
	if [ "$UNK_MORE" -gt 0 ]; then
		log WARN "unknown targets: no status file for more than $UNK_MAX a time" count="$UNK_MORE" profile="$PROFILE"
	fi
	# The services restart with the new kernel values in place.
	tune
	if [ -n "$OUTS" ] || [ -n "$RESTART_ANYWAY" ]; then
		transact apply 0
	fi
	apply_end
}

# apply_begin checks the folders, reads the settings and takes the lock.
apply_begin() {
	ensure_dirs || return 1
	stamp_now
	profile_load
	settings_load
	rotate_log
	if ! lock_take; then
		if [ "$LOCK_WHY" = busy ]; then
			log WARN "apply skipped: another apply holds state/lock.d"
			echo "userscript: another apply holds $STATE/lock.d; try again later" >&2
			return 75
		fi
		disk_trouble "$LOCK_WHY"
		return 1
	fi
	rm -rf "$WORK"
	# mkdir without -p: a link planted as state/tmp in between fails it.
	if ! mkdir "$WORK" 2>/dev/null || [ -L "$WORK" ]; then
		log ERROR "apply failed: cannot make state/tmp"
		lock_release
		disk_trouble "cannot make state/tmp"
		return 1
	fi
	CHANGED_LOG=
	RESTART_ANYWAY=''
	RECOVERED=''
	return 0
}

# apply_end writes the status files and prints every word; its exit is
# the apply's.
apply_end() {
	ae_rc=0
	for ae_n in $TARGETS $UNK; do
		[ -f "$WORK/$ae_n.f" ] || continue
		write_status "$ae_n"
		echo "$ae_n: $r_status"
		case $r_status in
		FAILED) ae_rc=1 ;;
		REJECTED) [ -z "${TX_REJECTED:-}" ] || ae_rc=1 ;;
		REFUSED) [ "$ae_rc" -eq 0 ] && ae_rc=3 ;;
		esac
	done
	for ae_n in $TUNING_FILES; do
		[ -f "$WORK/${ae_n%.conf}.f" ] || continue
		write_status "${ae_n%.conf}"
		echo "$ae_n: $r_status"
	done
	log INFO "apply done" changed="${G_CHANGED:-}" restarted="${G_RESTARTED:-}"
	rm -rf "$WORK"
	lock_release
	return "$ae_rc"
}

# disk_trouble WHY: the data disk cannot take our state (read-only, full,
# gone). Nothing is applied; the firmware's boot goes on. The status of
# each source says why, where a status file can still be written.
disk_trouble() {
	echo "userscript: $1: nothing was applied; the firmware's own files stay live" >&2
	log ERROR "apply failed" reason="$1"
	for dt_f in "$CONF"/*; do
		dt_n=${dt_f##*/}
		ignored "$dt_n" && continue
		safe_name "$dt_n" || continue
		case $dt_n in *.add | *.merge) continue ;; esac
		is_target "$dt_n" || continue
		{
			echo "status: FAILED$CR"
			echo "file: conf.d/$dt_n$CR"
			echo "reason: $1: nothing was applied, the firmware's own file is live$CR"
			echo "$CR"
			echo "what to do: free some space on the data disk (or check that it is mounted writable), then reboot or save the file again$CR"
		} >"$CONF/$dt_n.status.tmp" 2>/dev/null && mv -f "$CONF/$dt_n.status.tmp" "$CONF/$dt_n.status" 2>/dev/null
		rm -f "$CONF/$dt_n.status.tmp" 2>/dev/null
	done
	return 0
}
