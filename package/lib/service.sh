# shellcheck shell=sh
# userscript sh engine: restarting a service, by the Go engine's rules
# (docs/FORMATS.md, the transaction's step 4): its restart command with
# its timeout and fallbacks, its output in state/out/SERVICE.log (never a
# pipe, a file nobody deletes while a daemon writes into it). Whether the
# service serves before and after is health.sh's, where it listens
# listen.sh's; both come with this part. Sourced by engine.sh.
# shellcheck disable=SC2154,SC2034,SC2153

part health
part listen

# restart_svc SERVICE runs its restart command with its timeout, and its
# fallbacks (lib/profile) in order while the one before failed, not when
# it timed out: one whose absolute program is not on the device is
# skipped, and so is one whose program has the name of one already run
# (the same rc script in another folder). X_RC is the exit (124: timed
# out), X_WHY why it failed ("" when it did not).
restart_svc() {
	X_WHY=
	if ! profile_service "$1"; then
		X_RC=127
		X_WHY="service $1 is not in lib/profile"
		return 1
	fi
	lines "$FDEF" "$1"
	rs_all=$SARGV$NL$LINES
	rs_ran=" "
	while :; do
		case $rs_all in '') break ;; esac
		rs_c=${rs_all%%"$NL"*}
		rs_all=${rs_all#*"$NL"}
		rs_p=${rs_c%% *}
		case $rs_c:$rs_ran in :* | *" ${rs_p##*/} "*) continue ;; esac
		case $rs_p in /*) [ -f "$ROOT$rs_p" ] || continue ;; esac
		rs_ran="$rs_ran${rs_p##*/} "
		set -f
		# shellcheck disable=SC2086 # the profile's argv words hold no spaces
		restart_run "$1" $rs_c
		set +f
		case $X_RC in 0) return 0 ;; 124) return 1 ;; esac
	done
	case $rs_ran in " ") ;; *) return 1 ;; esac
	# None is on the device: the restart command's own failure says so.
	set -f
	# shellcheck disable=SC2086 # the profile's argv words hold no spaces
	restart_run "$1" $SARGV
	set +f
}

# restart_cmd SERVICE sets RC_CMD to the command its restart runs first:
# the first of its commands whose program is on the device (its restart
# command when none is). DOCTOR.txt names it.
restart_cmd() {
	profile_service "$1" || return 1
	lines "$FDEF" "$1"
	rc_all=$SARGV$NL$LINES
	while :; do
		case $rc_all in '') break ;; esac
		RC_CMD=${rc_all%%"$NL"*}
		rc_all=${rc_all#*"$NL"}
		case $RC_CMD in
		'') ;;
		/*) [ -f "$ROOT${RC_CMD%% *}" ] && return 0 ;;
		*) return 0 ;;
		esac
	done
	RC_CMD=$SARGV
}

# restart_run SERVICE ARGV... runs one restart command of SERVICE.
restart_run() {
	rs_svc=$1
	shift
	rs_name=${1##*/}
	case $1 in
	/*) rs_bin=$ROOT$1 ;;
	*) rs_bin=$1 ;;
	esac
	shift
	out_dir
	rs_out=$STATE/out/$rs_svc.log
	case $OUT_OK in
	yes) out_slot "$rs_out" || rs_out=$WORK/out.$rs_svc ;;
	*) rs_out=$WORK/out.$rs_svc ;;
	esac
	case $rs_out in "$WORK"/*) need_work || rs_out=/dev/null ;; esac
	run_bounded "$STIMEOUT" "$rs_out" "$rs_bin" "$@"
	X_RC=$?
	case $X_RC in
	0)
		log INFO "exec" service="$rs_svc" argv="$rs_name${*:+ $*}" exit=0
		return 0
		;;
	esac
	# Its last words say why.
	rs_tail=
	rs_last=$(tail -n 5 "$rs_out" 2>/dev/null)
	set -f
	rs_ifs=$IFS
	IFS=$NL
	for rs_l in $rs_last; do
		trim "$rs_l"
		case $TR in ?*) rs_tail=$TR ;; esac
	done
	IFS=$rs_ifs
	set +f
	log INFO "exec" service="$rs_svc" argv="$rs_name${*:+ $*}" exit="$X_RC" output="$rs_tail"
	case $X_RC in
	124) X_WHY="$rs_name: timed out after ${STIMEOUT}s" ;;
	*) X_WHY="$rs_name exited $X_RC" ;;
	esac
	blank "$rs_tail" || X_WHY="$X_WHY: $rs_tail"
	return 1
}

# out_dir sets OUT_OK when state/out is a folder of ours (made when
# missing; a link planted there is removed, never written through).
out_dir() {
	case ${OUT_OK:-} in yes | no) return 0 ;; esac
	OUT_OK=no
	if looked "$STATE/out"; then
		case $LR_MODE in
		d*) OUT_OK=yes && return 0 ;;
		'')
			mkdir "$STATE/out" 2>/dev/null && OUT_OK=yes
			return 0
			;;
		esac
	fi
	[ -L "$STATE/out" ] && rm -f "$STATE/out"
	mkdir -p "$STATE/out" 2>/dev/null
	[ -d "$STATE/out" ] && ! [ -L "$STATE/out" ] && OUT_OK=yes
	return 0
}

# out_slot PATH: state/out/SERVICE.log may be written: a plain file or
# none (what else was planted there is removed).
out_slot() {
	case ${TOUCHED:-} in *" $1 "*) return 0 ;; esac
	touched "$1"
	if looked "$1"; then
		case $LR_MODE in -* | '') return 0 ;; esac
	fi
	plain_slot "$1"
}

# go_dur SECONDS prints a duration as Go prints it (3s, 1m30s, 1h0m0s).
go_dur() {
	if [ "$1" -lt 60 ]; then
		echo "${1}s"
	elif [ "$1" -lt 3600 ]; then
		echo "$(($1 / 60))m$(($1 % 60))s"
	else
		echo "$(($1 / 3600))h$(($1 % 3600 / 60))m$(($1 % 60))s"
	fi
}
