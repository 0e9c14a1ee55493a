# shellcheck shell=sh
# userscript sh engine: the transaction (docs/FORMATS.md, "Generations"):
# journal the pending generation, write every target, restart each
# affected service once and prove it healthy, then commit; a service that
# does not prove healthy gets its previous files back, is restarted
# again, and its sources are held. The Go engine's
# internal/overlay/transaction.go is the reference. Sourced by engine.sh.
# shellcheck disable=SC2154,SC2034,SC2153

# transact KIND FROM applies OUTS (planned by apply or rollback) as one
# transaction of KIND (apply or rollback; FROM: the generation a rollback
# restores).
transact() {
	TX_KIND=$1
	TX_FROM=$2
	TXN_RAN=yes
	TX_REJECTED=
	WRITTEN=
	TX_ID=
	TX_REJ=
	if ! journal; then
		for tx_n in $OUTS; do
			failed "$tx_n" "the change could not be recorded in state/gen, so nothing was changed (is the data disk full?)" \
				"the live file was not changed; check the data disk's free space, then save the source again"
		done
		case $G_ID in ?*)
			id_dir "$G_ID"
			rm -rf "$ID_DIR"
			;;
		esac
		return 1
	fi
	if write_all; then
		tx_services
		log_flush
		for tx_s in $SORTED; do
			restart_and_prove "$tx_s"
		done
	fi
	finish
}

# journal records the pending generation before anything is written. A
# transaction that puts back exactly every target's last committed
# content needs none (a boot after the ROM was restored): the next start
# does the same again.
journal() {
	jn_same=
	case $TX_KIND:$NOSRC in apply:) case $OUTS in ?*) committed_all && jn_same=yes ;; esac ;; esac
	case $jn_same in yes)
		for jn_n in $OUTS; do
			hv "$WHS" "$jn_n"
			jn_h=$HV
			hv "$LC_FILES" "$jn_n" || HV=
			case $HV in "$jn_h") ;; *) jn_same= ;; esac
		done
		;;
	esac
	# (committed_all read generations into the G_ variables.)
	G_ID=''
	G_KIND=$TX_KIND
	G_FROM=$TX_FROM
	G_RESULT=pending
	G_NOTE=''
	G_CHANGED=''
	G_RESTARTED=''
	G_REJECTED=''
	case $jn_same in yes)
		TX_ID=committed
		return 0
		;;
	esac
	filled "$OUTS" || return 0
	need_work || return 1
	gen_next
	TX_ID=$G_ID
	stamp_now
	G_TIME=$NOW
	G_CHANGED=${OUTS# }
	# files/: every managed target after the transaction.
	: >"$WORK/gen.files"
	for jn_n in $TARGETS; do
		profile_target "$jn_n"
		if in_list "$OUTS" "$jn_n"; then
			in_list "$NOSRC" "$jn_n" && continue
			src_of "$jn_n"
			jn_f=$SO
			hv "$WHS" "$jn_n"
		else
			written_lines "$jn_n"
			# shellcheck disable=SC2015 # C when A or B fails, on purpose
			filled "$WL" && plain "$ROOT$TPATH" || continue
			jn_f=$ROOT$TPATH
			if ! hv "$LHS" "$jn_n"; then
				h_of "$jn_f"
				HV=$H
				case $H in '') md5 "$jn_f" && HV=$MD5 ;; esac
			fi
			[ "$HV" = "${WL%% *}" ] || continue
		fi
		size_of "$jn_f"
		echo "$jn_n $TPATH $HV $FSIZE $jn_f" >>"$WORK/gen.files"
	done
	mkdir -p "$STATE/gen" && gen_begin
}

# write_all writes every target of the transaction. When one cannot be
# written, the ones already written get their previous content back and
# nothing is restarted.
write_all() {
	for wa_n in $OUTS; do
		profile_target "$wa_n"
		wa_live=$ROOT$TPATH
		hv "$WHS" "$wa_n"
		wa_h=$HV
		in_list "$NOSRC" "$wa_n" || expect_written "$wa_n" "$wa_h"
		src_of "$wa_n"
		if ! { in_list "$LIVEOK" "$wa_n" || mkdir -p "${wa_live%/*}" 2>/dev/null; } || ! write_target "$wa_n" "$wa_live" "$SO"; then
			failed "$wa_n" "could not write $TPATH" "the live file was not changed; check the device's free space and permissions, then save the source again"
			for wa_w in $WRITTEN; do
				put_back "$wa_w"
				fset "$wa_w" status "$W_FAILED"
				fset "$wa_w" reason "not applied: $TPATH could not be written, and the files of one change go live together"
			done
			G_RESULT=failed
			G_NOTE="$TPATH: could not be written"
			return 1
		fi
		WRITTEN="$WRITTEN $wa_n"
		believe "$wa_n" "$wa_h"
		if in_list "$NOSRC" "$wa_n"; then
			forget_written "$wa_n"
		else
			remember_written "$wa_n" "$wa_h"
		fi
		log INFO "wrote" target="$wa_n" path="$TPATH" hash="$wa_h"
	done
	return 0
}


# put_back NAME makes a written target what it was before the transaction.
put_back() {
	profile_target "$1"
	pb_live=$ROOT$TPATH
	if in_list "$LIVEOK" "$1"; then
		prev_of "$1"
		write_target "$1" "$pb_live" "$PO" || log ERROR "put back" target="$1" reason="$TPATH could not be written"
		hv "$LHS" "$1"
		believe "$1" "$HV"
		remember_written "$1" "$HV"
	else
		touched "$pb_live"
		rm -f "$pb_live"
		believe "$1" none
		forget_written "$1"
	fi
	pb_w=
	for pb_n in $WRITTEN; do [ "$pb_n" = "$1" ] || pb_w="$pb_w $pb_n"; done
	WRITTEN=$pb_w
}

# tx_services sets SORTED to the services to restart: those of the
# written targets.
tx_services() {
	ts_all=
	for ts_n in $WRITTEN; do
		profile_target "$ts_n"
		case $TSVC in -) continue ;; esac
		in_list "$ts_all" "$TSVC" || ts_all="$ts_all $TSVC"
	done
	# shellcheck disable=SC2086 # one word a service
	sorted $ts_all
}

# sorted WORD... sets SORTED to the words (services) in byte order, Go's
# order: lib/profile lists its services sorted, so they are taken in its
# order (once each); a word it does not list comes last.
sorted() {
	SORTED=
	for so_s in $SVCS; do
		case " $* " in *" $so_s "*) SORTED="$SORTED $so_s" ;; esac
	done
	for so_w in "$@"; do
		case " $SORTED " in *" $so_w "*) ;; *) SORTED="$SORTED $so_w" ;; esac
	done
}

# restart_and_prove SERVICE restarts a service and, when it was serving
# before, proves it healthy with its new files; otherwise its targets go
# back.
restart_and_prove() {
	profile_service "$1" || SPROC=-
	listen_of "$1" before
	await_start "$1"
	rp_serving=$OB_SERVING
	rp_pids=$OB_PIDS
	restart_svc "$1"
	G_RESTARTED="$G_RESTARTED${G_RESTARTED:+ }$1"
	rp_why=
	case $X_RC:$rp_serving in
	0:yes) prove "$1" "$rp_pids" || rp_why="$1 did not prove healthy: $PROVE_WHY" ;;
	0:*) log INFO "service was not serving before the restart; judged by its exit code" service="$1" ;;
	*) rp_why=$X_WHY ;;
	esac
	case $rp_why in '') return 0 ;; esac
	TX_REJ="$TX_REJ$1 $rp_why$NL"
	TX_REJECTED=yes
	reject "$1" "$rp_why"
}

# reject SERVICE WHY puts back what was live before for every target of
# SERVICE, holds their sources until they are edited, and restarts the
# service again.
reject() {
	rj_mine=
	for rj_n in $WRITTEN; do
		profile_target "$rj_n"
		[ "$TSVC" = "$1" ] && rj_mine="$rj_mine $rj_n"
	done
	for rj_n in $rj_mine; do
		put_back "$rj_n"
		sources_of "$rj_n"
		rj_reason="applied, but $2; the previous file was put back"
		fset "$rj_n" status "$W_REJECTED"
		fset "$rj_n" reason "$rj_reason"
		fix_list "$rj_n"
		fset "$rj_n" todo "fix $FIX and save it again; it is not applied again until it changes"
		if ! in_list "$RESTORE" "$rj_n"; then
			sources_print "$rj_n"
			held_set "$rj_n" "$FP" "$W_REJECTED" "$rj_reason"
		fi
		G_REJECTED="$G_REJECTED${G_REJECTED:+ }$rj_n"
		log WARN "rejected" target="$rj_n" service="$1" why="$2"
	done
	restart_svc "$1" && return 0
	for rj_n in $rj_mine; do
		fset "$rj_n" status "$W_FAILED"
		fset "$rj_n" reason "$rj_reason, but restarting $1 with it failed too: $X_WHY"
		fset "$rj_n" todo "look at the service's own log and at state/out/$1.log"
	done
}

# sources_print NAME sets FP to the fingerprint of NAME's sources (what a
# hold is on), normalising those this run has not.
sources_print() {
	sources_of "$1"
	for sp_s in $SOURCES; do
		[ -f "$WORK/$sp_s.n" ] || take_source "$sp_s" "$WORK/$sp_s.n"
	done
	part firmware
	fingerprint "$1"
}

# hold_rolled_back holds the sources a rollback rolled back (RB_HOLDS,
# "NAME:FINGERPRINT" words) for the targets it proved healthy, just
# before it commits: a hold belongs to a committed rollback only; a crash
# before the commit leaves holds that recovery releases.
hold_rolled_back() {
	for hr_e in ${RB_HOLDS:-}; do
		hr_n=${hr_e%%:*}
		in_list "$WRITTEN" "$hr_n" && held_set "$hr_n" "${hr_e#*:}" "$W_HELD" "$RB_REASON"
	done
}

# finish commits the transaction: its result goes into the generation,
# the held sources of what went live are released, the statuses name the
# generation, and old generations are pruned.
finish() {
	case $G_ID:$G_RESULT in
	?*:pending)
		G_RESULT=ok
		case $TX_REJ in ?*)
			G_RESULT=rejected
			G_NOTE=
			fi_svcs=
			set -f
			fi_ifs=$IFS
			IFS=$NL
			for fi_l in $TX_REJ; do fi_svcs="$fi_svcs ${fi_l%% *}"; done
			IFS=$fi_ifs
			# shellcheck disable=SC2086 # one word a service
			sorted $fi_svcs
			for fi_s in $SORTED; do
				IFS=$NL
				for fi_l in $TX_REJ; do
					case $fi_l in "$fi_s "*) G_NOTE="$G_NOTE${G_NOTE:+; }${fi_l#* }" ;; esac
				done
				IFS=$fi_ifs
			done
			set +f
			;;
		esac
		;;
	esac
	case $G_ID:$G_KIND in ?*:rollback) hold_rolled_back ;; esac
	case $G_ID in ?*) gen_write || log ERROR "state/gen: could not record the result of generation $G_ID" ;; esac
	for fi_n in $WRITTEN; do
		case $G_ID:$G_KIND in
		?*:apply) in_list "$RESTORE" "$fi_n" || held_set "$fi_n" "" ;;
		esac
		fi_g=$TX_ID
		case $fi_g in committed) hv "$LC_GENS" "$fi_n" && fi_g=$HV ;; esac
		fset "$fi_n" generation "$fi_g"
	done
	case $G_ID in '') return 0 ;; esac
	log INFO "$G_KIND" generation="$G_ID" from="$G_FROM" changed="$G_CHANGED" restarted="$G_RESTARTED" result="$G_RESULT"
	fi_keep="$G_ID $G_CHANGED:$G_RESTARTED"
	gen_prune
	G_ID=${fi_keep%% *}
	fi_keep=${fi_keep#* }
	G_CHANGED=${fi_keep%%:*}
	G_RESTARTED=${fi_keep#*:}
}
