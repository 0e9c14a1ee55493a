# shellcheck shell=sh
# userscript sh engine: a way out (docs/FORMATS.md, "A way out: DISABLE
# and SAFE-MODE"). conf.d/DISABLE or DISABLE.txt (the owner's switch) and
# conf.d/SAFE-MODE (written after starts that never finished) make an
# apply apply nothing: only status files say why. state/starts counts the
# starts in a row that did not end; both engines count in it. The Go
# engine's internal/overlay/wayout.go is the reference. Sourced by
# engine.sh when scan found a reserved name or an apply is a start.
# shellcheck disable=SC2154,SC2034,SC2153

# SAFE_MODE_STARTS: starts in a row that may end without finishing their
# apply before the next one enters safe mode.
SAFE_MODE_STARTS=3

# stopped sets WHY_STOPPED to why nothing may be applied now (from the
# names scan found), or to nothing.
stopped() {
	WHY_STOPPED=
	case ${RESERVED_DISABLE:-} in ?*)
		WHY_STOPPED="conf.d/$RESERVED_DISABLE exists: userscript applies nothing, at boot or while the NAS runs, until you delete it"
		return 0
		;;
	esac
	case ${RESERVED_SAFE:-} in ?*)
		WHY_STOPPED="conf.d/$RESERVED_SAFE exists: userscript is in safe mode (that file says why) and applies nothing until you delete it"
		;;
	esac
}

# starts_read sets STARTS, the count in state/starts (0: no file, or not
# a number).
starts_read() {
	STARTS=0
	case ${STARTS_GONE:-} in yes) return 0 ;; esac
	plain "$STATE/starts" || return 0
	{ read -r STARTS <"$STATE/starts"; } 2>/dev/null
	num "$STARTS" || STARTS=0
}

# starts_set N writes state/starts (aside, then renamed; 0 removes it),
# under the lock.
starts_set() {
	case $1 in
	0)
		touched "$STATE/starts"
		rm -f "$STATE/starts"
		STARTS_GONE=yes
		;;
	*)
		# lock.d is ours, made by this run: nothing can be planted in it.
		STARTS_GONE=
		{ echo "$1" >"$STATE/lock.d/starts"; } 2>/dev/null && put_file "$STATE/lock.d/starts" "$STATE/starts"
		;;
	esac
}

# count_start counts this start in state/starts; after SAFE_MODE_STARTS
# unfinished ones it writes conf.d/SAFE-MODE and sets WHY_STOPPED.
count_start() {
	starts_read
	case $((STARTS < SAFE_MODE_STARTS)) in 1)
		starts_set $((STARTS + 1))
		COUNTED=yes
		return 0
		;;
	esac
	safe_mode_write "$STARTS"
	starts_set 0
	log WARN "safe mode: the last starts did not finish" starts="$STARTS"
	RESERVED_SAFE=SAFE-MODE
	stopped
}

# safe_mode_write N writes conf.d/SAFE-MODE (CRLF, for Notepad), aside
# and renamed, never through a link.
safe_mode_write() {
	chars
	need_work || return 0
	sm_gen=
	if newest_pending; then
		sm_ch=
		for sm_n in $G_CHANGED; do
			sm_ch="$sm_ch${sm_ch:+, }$sm_n"
		done
		sm_gen="being applied then: generation $G_ID ($sm_ch), never proved healthy$CR$NL"
	fi
	{
		echo "userscript is in SAFE MODE: it applies nothing until you delete this file.$CR"
		echo "$CR"
		echo "why: the last $1 starts of userscript did not finish applying conf.d: each time the NAS was reset or switched off, or userscript crashed or hung, before it was done. Something in conf.d may be what brings the NAS down.$CR"
		echo "since: $STIME$CR"
		echo "$sm_gen$CR"
		echo "what to do: look at the status files in conf.d and at state/log; move the file you changed last out of conf.d; then delete this file. userscript applies conf.d again at once if it runs, else at the next boot.$CR"
	} >"$WORK/safe-mode" 2>/dev/null || return 0
	if [ -d "$CONF/SAFE-MODE" ] && ! [ -L "$CONF/SAFE-MODE" ]; then
		log ERROR "conf.d/SAFE-MODE is a folder; safe mode all the same"
		return 0
	fi
	mv -f "$WORK/safe-mode" "$CONF/SAFE-MODE"
}

# stop_reports writes WHY_STOPPED into the report of every target and
# tuning file that has sources or is managed.
stop_reports() {
	so_file=${WHY_STOPPED%% *}
	so_todo="delete $so_file to apply conf.d again: at once while userscript runs, else at the next boot; the files live now stay as they are (after a reboot, the firmware's own)"
	for so_n in $TARGETS; do
		in_list "$SRC" "$so_n" || plain "$STATE/written/$so_n" || continue
		profile_target "$so_n"
		sources_of "$so_n"
		stop_report "$so_n" "$so_n"
		fset "$so_n" target "$TPATH"
	done
	for so_n in $TUNE; do
		sources_of "$so_n"
		stop_report "${so_n%.conf}" "$so_n"
	done
	log WARN "nothing applied" why="$WHY_STOPPED"
}

# stop_report REPORT NAME starts the DISABLED report of NAME.
stop_report() {
	rp_new "$1"
	fset "$1" status "$W_DISABLED"
	fset "$1" file "conf.d/$2"
	fset "$1" sources "$SOURCES"
	fset "$1" reason "$WHY_STOPPED"
	fset "$1" todo "$so_todo"
}

# cmd_uninstall switches userscript off and gives the device back to the
# firmware, as `userscript uninstall` does: conf.d/DISABLE first (so a
# poller still running applies nothing more), then a rollback to the
# firmware's own files (their services restart once), every hold
# released, the kernel's values put back (state/tuning.json), and the
# DISABLED statuses. conf.d and state/ stay.
cmd_uninstall() {
	ensure_dirs || return 1
	chars
	stamp_now
	rm -rf "$STATE/DISABLE.new"
	if ! {
		echo "Written by \`userscript uninstall\` at $STIME: userscript applies nothing while this file exists.$CR"
		echo "Delete it to switch userscript on again (at the next boot, or at once while it runs).$CR"
	} >"$STATE/DISABLE.new" 2>/dev/null || ! mv -f "$STATE/DISABLE.new" "$CONF/DISABLE"; then
		echo "userscript: $CONF/DISABLE: cannot write it; nothing was changed" >&2
		return 1
	fi
	un_rc=0
	cmd_rollback 0 >/dev/null || un_rc=1
	run_fresh
	profile_load
	apply_begin || return $?
	for un_n in $TARGETS; do
		held_set "$un_n" ""
	done
	scan
	# Every kernel value userscript changed goes back, as in the Go
	# engine (Tuner().Revert()): no tuning source is wanted any more,
	# though conf.d still holds them.
	TUNE=''
	if plain "$STATE/tuning.json"; then
		un_tf=$TUNING_FILES
		TUNING_FILES=''
		need_work && tune_parts
		TUNING_FILES=$un_tf
	fi
	stopped
	QUIET=''
	FP_W=''
	stop_reports
	apply_end >/dev/null
	return "$un_rc"
}
