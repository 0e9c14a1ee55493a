# shellcheck shell=sh
# userscript sh engine: recovery of an interrupted transaction, rollback
# to a generation, and the history. The Go engine's
# internal/overlay/rollback.go is the reference. Sourced by engine.sh.
# shellcheck disable=SC2154,SC2034,SC2153

INTERRUPTED="interrupted before its services proved healthy (a crash, a stop or a power cut)"

# recover undoes what a crash, a kill or a power cut interrupted: a newest
# generation still pending was never proven healthy. Its targets that
# still hold its content get back what they held before, it is marked
# rejected, and its services are restarted at once, so that they run the
# committed files before the next transaction (which applies conf.d again
# and has to prove itself) observes them. A change interrupted twice in a
# row is held instead.
recover() {
	gen_dirs
	rc_last=
	rc_prev=
	for rc_i in $GENS; do
		rc_prev=$rc_last
		rc_last=$rc_i
	done
	case $rc_last in '') return 0 ;; esac
	gen_read "$rc_last" || return 0
	case $G_RESULT in pending) ;; *) return 0 ;; esac
	need_work
	rc_id=$G_ID
	rc_changed=$G_CHANGED
	rc_files=$G_FILES
	rc_repl=$G_REPL
	rc_kind=$G_KIND
	for rc_n in $rc_changed; do
		undo "$rc_n"
		# An interrupted rollback holds nothing: its holds were set for
		# a commit that never came.
		case $rc_kind in rollback)
			held_read "$rc_n"
			case $HELD_WORD in "$W_HELD") held_set "$rc_n" "" ;; esac
			;;
		esac
	done
	rc_again=
	if filled "$rc_prev" && gen_read "$rc_prev" && eq "$G_NOTE" "$INTERRUPTED" && eq "$G_CHANGED" "$rc_changed"; then
		rc_again=yes
		for rc_n in $rc_changed; do
			hv "$rc_files" "$rc_n"
			rc_h=$HV
			hv "$G_FILES" "$rc_n"
			eq "$HV" "$rc_h" || rc_again=
		done
	fi
	gen_mark "$rc_id" rejected "$INTERRUPTED" "$rc_changed"
	for rc_n in $rc_changed; do
		RECOVERED="$RECOVERED $rc_n:$rc_id"
		profile_target "$rc_n" || continue
		if filled "$rc_again" && eq "$rc_kind" apply && hv "$rc_files" "$rc_n"; then
			held_set "$rc_n" "$HV" "$W_REJECTED" "generations $rc_prev and $rc_id, the same change, were both interrupted before their services proved healthy: it is not tried again"
		fi
	done
	log WARN "recover: undid an interrupted generation" generation="$rc_id" held="${rc_again:-no}"
	restart_undone
}

# restart_undone restarts the services of the targets the interrupted
# generation wrote (rc_changed) and waits until each serves (proven as a
# transaction proves, against no earlier instance). Until then a service
# may still run that generation's files, or be down because of them (a
# power cut while it proved them leaves them on disk for the boot to
# start it with), and the next transaction would take that for how it
# was before the change: not serving, so judged by its restart's exit
# code alone. A service that does not serve with the committed files
# either is left so, with a warning; one with nothing to check it by is
# not waited for.
restart_undone() {
	part service
	part transaction
	ru_svcs=
	for ru_n in $rc_changed; do
		profile_target "$ru_n" || continue
		[ "$TSVC" = - ] || in_list "$ru_svcs" "$TSVC" || ru_svcs="$ru_svcs $TSVC"
	done
	# shellcheck disable=SC2086 # one word a service
	sorted $ru_svcs
	for ru_s in $SORTED; do
		if ! restart_svc "$ru_s"; then
			log WARN "recover: the committed files did not restart" service="$ru_s" why="$X_WHY"
			continue
		fi
		listen_of "$ru_s" live
		observe "$LHOSTS" "$LPORTS"
		# Nothing to check it by (no process in /proc, no port): not waited for.
		case $OB_PIDS:$LPORTS in nil:- | nil:) continue ;; esac
		prove "$ru_s" "" live || log WARN "recover: not serving with the committed files" service="$ru_s" why="$PROVE_WHY"
	done
}

# undo NAME gives NAME back what it held before generation rc_id, when it
# still holds what that generation wrote.
undo() {
	profile_target "$1" || return 0
	ud_live=$ROOT$TPATH
	ud_h=
	hv "$rc_files" "$1" && ud_h=$HV
	if [ -f "$ud_live" ]; then
		filled "$ud_h" || return 0
		md5 "$ud_live"
		eq "$MD5" "$ud_h" || return 0
	else
		blank "$ud_h" || return 0
	fi
	hv "$rc_repl" "$1" || return 0
	if [ "$HV" = - ]; then
		touched "$ud_live"
		rm -f "$ud_live"
		believe "$1" none
		forget_written "$1"
		return 0
	fi
	id_dir "$rc_id"
	ud_prev=$ID_DIR/prev/$1
	md5 "$ud_prev"
	eq "$MD5" "$HV" || {
		log ERROR "recover: prev/$1 of generation $rc_id does not match its hash; left as it is" target="$1"
		return 0
	}
	expect_written "$1" "$HV"
	write_target "$1" "$ud_live" "$ud_prev" && believe "$1" "$HV" && remember_written "$1" "$HV"
}

# cmd_rollback [ID] makes generation ID live again (0: the firmware's own
# files; none: the previous good generation), restarts the services whose
# targets changed and records a new generation. The sources rolled back
# are held until they are edited.
cmd_rollback() {
	case ${1:-} in
	'') rb_to=-1 ;;
	*[!0-9]*)
		echo "userscript: rollback: \"$1\" is not a generation number; init history lists them" >&2
		return 2
		;;
	*)
		id_num "$1"
		rb_to=$IN
		;;
	esac
	run_fresh
	profile_load
	apply_begin || return $?
	recover
	rb_rc=0
	rollback_to "$rb_to" || rb_rc=1
	apply_end || rb_rc=$?
	return "$rb_rc"
}

rollback_to() {
	gen_dirs
	if [ "$1" = -1 ]; then
		rt_cur=
		for rt_i in $GENS; do rt_cur=$rt_i; done
		if blank "$rt_cur"; then
			echo "userscript: no generations yet: nothing to roll back to; init rollback 0 returns to the firmware's own files" >&2
			return 1
		fi
		gen_read "$rt_cur"
		eq "$G_KIND" rollback && [ "$G_FROM" -gt 0 ] && rt_cur=$G_FROM
		set -- 0
		for rt_i in $GENS; do
			[ "$rt_i" -lt "$rt_cur" ] && gen_read "$rt_i" && eq "$G_RESULT" ok && set -- "$rt_i"
		done
		if [ "$1" = 0 ]; then
			echo "userscript: no good generation before $rt_cur: nothing to roll back to; init rollback 0 returns to the firmware's own files" >&2
			return 1
		fi
	fi
	RB_FILES=
	if [ "$1" -gt 0 ]; then
		if ! gen_read "$1"; then
			echo "userscript: generation $1: no such generation; init history lists the generations there are" >&2
			return 1
		fi
		RB_FILES=$G_FILES
	fi
	rt_reason="rolled back to generation $1"
	[ "$1" -gt 0 ] || rt_reason="rolled back to the firmware's own file"
	scan
	plan_reset
	for rt_n in $TARGETS; do
		rollback_item "$rt_n" "$1" "$rt_reason" || return 1
	done
	filled "$OUTS" || {
		echo "nothing to change: the live files already are that generation"
		return 0
	}
	transact rollback "$1"
}

# rollback_item NAME ID REASON puts NAME into the rollback when generation
# ID (or the firmware) has another content for it than is live.
rollback_item() {
	profile_target "$1" || return 0
	ri_live=$ROOT$TPATH
	sources_of "$1"
	filled "$SOURCES" || [ -f "$STATE/written/$1" ] || return 0
	if hv "$RB_FILES" "$1"; then
		id_dir "$2"
		ri_want=$ID_DIR/files/$1
		md5 "$ri_want"
		eq "$MD5" "$HV" || {
			echo "userscript: generation $2: files/$1: content does not match its hash; the history is damaged" >&2
			return 1
		}
	else
		[ -f "$STATE/written/$1" ] || return 0
		base_ok "$1" || {
			echo "userscript: $TPATH: the firmware's own file (state/base/$1) is missing, so it cannot be rolled back to; reboot the NAS to get it back" >&2
			return 1
		}
		ri_want=$STATE/base/$1
	fi
	need_work || return 1
	rp_new "$1"
	fset "$1" file "conf.d/$1"
	fset "$1" target "$TPATH"
	fset "$1" sources "$SOURCES"
	md5 "$ri_want"
	ri_wh=$MD5
	# The sources as they would apply now are held once the rollback
	# commits (hold_rolled_back), unless they give exactly what is
	# rolled back to.
	ri_fp=
	if filled "$SOURCES" && plan_want "$1" && ! eq "$PW_HASH" "$ri_wh"; then
		part firmware
		fingerprint "$1"
		ri_fp=$FP
		RB_HOLDS="${RB_HOLDS:-} $1:$FP"
		RB_REASON=$3
	fi
	LIVE_OK=
	LIVE_HASH=
	if [ -f "$ri_live" ]; then
		LIVE_OK=yes
		md5 "$ri_live"
		LIVE_HASH=$MD5
		LHS="$LHS $1:$LIVE_HASH"
		if eq "$LIVE_HASH" "$ri_wh"; then
			# Live already: nothing to prove, held at once.
			blank "$ri_fp" || held_set "$1" "$ri_fp" "$W_HELD" "$3"
			rp_drop "$1"
			return 0
		fi
	fi
	cp "$ri_want" "$WORK/$1.target"
	WHS="$WHS $1:$ri_wh"
	fset "$1" status "$W_HELD"
	fset "$1" reason "$3"
	fix_list "$1"
	fset "$1" todo "edit $FIX and save it to apply it again"
	RESTORE="$RESTORE $1"
	add_out "$1"
}

# plan_want NAME sets PW_HASH to the target NAME's sources give now (on
# its stored base), without capturing anything.
plan_want() {
	for pw_s in $SOURCES; do
		take_source "$pw_s" "$WORK/$pw_s.n" || return 1
	done
	pw_base=
	base_ok "$1" && pw_base=$STATE/base/$1
	compose "$1" "$pw_base" || return 1
	md5 "$WORK/$1.target"
	PW_HASH=$MD5
}

# cmd_history lists the generations, oldest first.
cmd_history() {
	ensure_dirs || return 1
	gen_dirs
	echo "GEN  TIME                 KIND            RESULT    CHANGED  RESTARTED"
	for ch_i in $GENS; do
		gen_read "$ch_i" || continue
		ch_kind=$G_KIND
		! eq "$G_KIND" rollback || ch_kind="rollback to $G_FROM"
		ch_t=${G_TIME%Z}
		echo "$G_ID  ${ch_t%%T*} ${ch_t#*T}  $ch_kind  $G_RESULT  ${G_CHANGED:--}  ${G_RESTARTED:--}"
	done
}
