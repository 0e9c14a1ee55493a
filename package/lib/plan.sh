# shellcheck shell=sh
# userscript sh engine: the full plan of one target (plan_item), for a
# target the look cannot plan (quick.sh quick_item): its base captured,
# its sources taken and composed, then held, unchanged, put back from the
# newest committed generation, refused, or validated and to be written.
# The Go engine's internal/overlay/plan.go is the reference. Sourced by
# apply.sh the first time a target needs it.
# shellcheck disable=SC2154,SC2034,SC2153

# ftype PATH sets FT to what PATH is: - (a regular file), l (a link), o
# (something else) or nothing (not there); the look answers when it can.
ftype() {
	if plain "$1"; then
		FT=-
		return 0
	fi
	if looked "$1"; then
		case $LR_MODE in '') FT= ;; l*) FT=l ;; *) FT=o ;; esac
		case ${TOUCHED:-} in *" $1 "*) ;; *) return 0 ;; esac
	fi
	FT=
	if [ -L "$1" ]; then
		FT=l
	elif [ -e "$1" ]; then
		FT=o
	fi
}

# plan_item NAME plans one target and records its outcome: a status
# report and, when it is to be written, NAME in OUTS.
plan_item() {
	profile_target "$1" || return 0
	need_work || return 0
	part validate
	pi_live=$ROOT$TPATH
	sources_of "$1"
	report_start "$1"
	LIVE_OK=
	LIVE_HASH=
	ftype "$pi_live"
	case $FT in
	-)
		LIVE_OK=yes
		size_of "$pi_live"
		if too_big "$FSIZE"; then
			refuse "$1" "${FIRST:-$1}" "$TPATH: the live file is over 1 MiB; userscript keeps configuration files up to 1 MiB: make it smaller, or remove its sources from conf.d" "make $TPATH smaller"
			return 0
		fi
		h_of "$pi_live"
		LIVE_HASH=$H
		case $H in '') md5 "$pi_live" && LIVE_HASH=$MD5 ;; esac
		LHS="$LHS $1:$LIVE_HASH"
		;;
	'') ;;
	*)
		refuse "$1" "${FIRST:-$1}" "$TPATH is not a regular file; userscript does not replace links or folders" "check $TPATH on the device"
		return 0
		;;
	esac
	pi_base=
	CAPTURED=
	if blank "$LIVE_OK" || ! written_has "$1" "$LIVE_HASH"; then
		# The live file is the firmware's: it is the base.
		if ! set_base "$1" "$pi_live"; then
			failed "$1" "could not save the base of $TPATH in state/base" "check that the data disk is writable and not full"
			return 0
		fi
		pi_base=$STATE/base/$1
		CAPTURED=yes
		case $LIVE_OK in yes) fw_seen "$1" "$pi_base" "$LIVE_HASH" ;; esac
		written_lines "$1"
		if filled "$WL" && filled "$LIVE_OK"; then
			# Something else (the firmware, its web GUI) wrote over ours.
			DRIFTED="$DRIFTED $1"
			case ${CAPTURE:-} in yes) capture_drift "$1" "$pi_live" ;; esac
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
	case " ${REBASED_NOW:-} " in *" $1 "*) rebase_parts "$1" ;; *)
		plain "$STATE/rebased/$1" && rebase_parts "$1"
		;;
	esac
	if ! compose "$1" "$pi_base"; then
		refuse "$1" "$CO_FILE" "$REASON" "$TODO; until then nothing of conf.d/$1, $1.add or $1.merge is applied (a target goes live whole or not at all)"
		return 0
	fi
	fset_lines "$1" warning "$CO_WARNINGS"
	size_of "$WORK/$1.target"
	if too_big "$FSIZE"; then
		refuse "$1" "${FIRST:-$1}" "$TPATH would be over 1 MiB with conf.d/${SOURCES##* }; userscript keeps configuration files up to 1 MiB" "make conf.d/${SOURCES##* } smaller"
		return 0
	fi
	md5 "$WORK/$1.target"
	pi_wh=$MD5
	WHS="$WHS $1:$pi_wh"
	blank "$SOURCES" || SLOW="$SLOW $1:$pi_wh"
	held_read "$1"
	if filled "$HELD_HASH" && held_matches "$1" "$pi_wh"; then
		hold_back "$1"
	elif filled "$LIVE_OK" && eq "$pi_wh" "$LIVE_HASH"; then
		# A hold on sources the owner has edited since ends once what
		# they give is live: a later save of the held version is an edit.
		filled "$HELD_HASH" && held_set "$1" ""
		keep_status "$1"
	elif quick_recommit "$1" "$pi_wh"; then
		return 0
	elif empty_refused "$1"; then
		return 0
	elif validate "$1" "$WORK/$1.target"; then
		add_out "$1"
	fi
}

# held_matches NAME HASH: the hold on NAME (held_read) is on its sources
# as they are (their fingerprint), or, written by an older version, on
# the target HASH they give. A new base does not release a hold.
held_matches() {
	case $HELD_HASH in "$2") return 0 ;; esac
	part firmware
	fingerprint "$1"
	case $HELD_HASH in "$FP") return 0 ;; esac
	return 1
}

# keep_committed NAME: the sources of NAME were refused (refuse). Its last
# committed content stays live: it is put back when the live file is not
# it (a boot after the ROM was restored, the web GUI rewrote it), not
# validated again and not recorded again. Without committed content, or
# when the live file is not a regular file, the live file stays.
keep_committed() {
	filled "$SOURCES" || return 0
	# A paused target is left to whatever keeps rewriting it.
	hv "${PAUSED:-}" "$1" && return 0
	case $LIVE_OK in '') [ ! -e "$ROOT$TPATH" ] && [ ! -L "$ROOT$TPATH" ] || return 0 ;; esac
	committed_content "$1" || return 0
	case $CC_ID in 0) return 0 ;; esac
	hv "$LC_FILES" "$1"
	case $LIVE_OK:$LIVE_HASH in yes:"$HV") return 0 ;; esac
	kc_h=$HV
	cp "$CC_FILE" "$WORK/$1.target" || return 0
	fset "$1" reason "$REFUSED_REASON; generation $CC_ID is live again at this start"
	fset "$1" todo "fix $REFUSED_FIX and save it again; until then generation $CC_ID, the last version that worked, stays live"
	drop "$WHS" "$1"
	WHS="$DROP $1:$kc_h"
	RESTORE="$RESTORE $1"
	add_out "$1"
}

# rebase_parts NAME: the firmware's file of NAME changed (firmware.sh).
rebase_parts() {
	part firmware
	rebase "$1"
}

# quick_recommit NAME WANT: NAME's last committed content is exactly WANT
# (a boot after the ROM was restored): it was validated and proven when
# it was committed, so it goes live without a validator.
quick_recommit() {
	committed_all
	hv "$LC_FILES" "$1" || return 1
	case $HV in "$2") ;; *) return 1 ;; esac
	status_word "$1"
	case $SW in
	"$W_OK" | "$W_NOT_VALIDATED")
		fset "$1" status "$SW"
		QUIET="$QUIET $1"
		;;
	*) fset "$1" status "$W_OK" ;;
	esac
	add_out "$1"
}

# empty_refused NAME refuses an empty target of a `nonempty` target (a
# 0-byte smb.conf deletes every share: a failed copy, not a wish).
empty_refused() {
	case ,$TFLAGS, in *,nonempty,*) ;; *) return 1 ;; esac
	filled "$SOURCES" && ! [ -s "$WORK/$1.target" ] || return 1
	refuse "$1" "${SOURCES##* }" "conf.d/${SOURCES##* } is empty (0 bytes): an empty $1 would delete everything it sets up, so it is not applied; a failed copy or a full disk leaves such a file. To empty it on purpose, put one comment line in it" \
		"copy the whole file into conf.d/${SOURCES##* } again; $TPATH was not changed"
}

# keep_status NAME: the live file already is the target. It is marked
# ours (or, without sources, the firmware's again); the status file is
# left alone when it already says so, else validated again.
keep_status() {
	if filled "$CAPTURED" || blank "$SOURCES"; then
		if filled "$SOURCES"; then
			remember_written "$1" "$LIVE_HASH"
		else
			forget_written "$1"
		fi
	fi
	status_word "$1"
	# Recovery undid a generation of it: the status gets the note.
	hv "$RECOVERED" "$1" && SW=
	case $SW:" ${RB_NOTED:-} " in
	*" $1 "*) ;;
	"$W_OK":* | "$W_NOT_VALIDATED":*)
		rp_drop "$1"
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
	hb_word=${HELD_WORD:-$W_HELD}
	hb_reason=$HELD_REASON
	filled "$HELD_WORD" || hb_reason="rolled back; the live file is an earlier generation"
	fset "$1" status "$hb_word"
	fset "$1" reason "$hb_reason"
	fix_list "$1"
	hb_them=it
	case $SOURCES in *' '*) hb_them=them ;; esac
	fset "$1" todo "edit $FIX and save it to apply it again, or delete $hb_them to return to the firmware's file"
	if filled "$CC_FILE"; then
		cp "$CC_FILE" "$WORK/$1.target"
	else
		: >"$WORK/$1.target"
	fi
	if filled "$LIVE_OK" && cmp -s "$WORK/$1.target" "$ROOT$TPATH"; then
		status_word "$1"
		! eq "$SW" "$hb_word" || rp_drop "$1"
		return 0
	fi
	hb_what="generation $CC_ID"
	! eq "$CC_ID" 0 || hb_what="the firmware's own file"
	fset "$1" reason "$hb_reason; $hb_what is live again at this start"
	md5 "$WORK/$1.target"
	drop "$WHS" "$1"
	WHS="$DROP $1:$MD5"
	RESTORE="$RESTORE $1"
	add_out "$1"
}
