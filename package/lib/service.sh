# shellcheck shell=sh
# userscript sh engine: restarting a service and proving it healthy, by
# the Go engine's rules (docs/FORMATS.md, the transaction's steps 4 and
# 5): the restart's output goes to state/out/SERVICE.log (never a pipe, a
# file nobody deletes while a daemon writes into it); a service that was
# serving before must come back with a new process, listening on a port
# and address its config names, and still do so after its settle period.
# The device has no netstat: listening sockets are read from
# /proc/net/tcp and tcp6 (state 0A), processes from /proc/PID/stat, both
# under the root. Sourced by engine.sh.
# shellcheck disable=SC2154,SC2034,SC2153


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

# ---- observing a service ----------------------------------------------------------

# observe HOSTS PORTS looks at the service profile_service described once.
# OB_SERVING is yes when its process (if named) runs and one of PORTS
# listens on one of HOSTS; OB_PIDS its pids (`nil`: no /proc to look in,
# or no process to look for); OB_WHY why it is not serving.
observe() {
	OB_SERVING=
	OB_WHY=
	OB_PIDS=nil
	case $SPROC in
	-) ;;
	*)
		proc_pids "$SPROC"
		case $OB_PIDS in '')
			OB_WHY="no $SPROC process is running"
			return 0
			;;
		esac
		;;
	esac
	case $2 in - | '')
		case $OB_PIDS in
		nil) OB_WHY="nothing to check it by (no process in /proc, no port)" ;;
		*) OB_SERVING=yes ;;
		esac
		return 0
		;;
	esac
	if listening "$1" "$2"; then
		OB_SERVING=yes
		return 0
	fi
	subst "$2" , " or "
	ob_p=$SUB
	subst "$1" , ", "
	OB_WHY="nothing accepts on TCP port $ob_p of $SUB"
}

# await_start SERVICE observes the service before its restart (on LHOSTS,
# LPORTS). While its process runs but nothing accepts yet, it is starting
# (smbd at a boot on a slow box: seconds), not down: it is watched until
# it serves, its processes are gone or its timeout ends, so that a change
# is never judged by its exit code alone for a service that was only not
# up yet.
await_start() {
	observe "$LHOSTS" "$LPORTS"
	case $OB_SERVING:$OB_PIDS in yes:* | *:nil | *:) return 0 ;; esac
	log INFO "service runs but does not serve yet; waiting for it to start" service="$1" why="$OB_WHY" timeout="$(go_dur "$STIMEOUT")"
	as_i=0
	while [ "$as_i" -lt "$STIMEOUT" ]; do
		sleep 1
		as_i=$((as_i + 1))
		observe "$LHOSTS" "$LPORTS"
		case $OB_SERVING:$OB_PIDS in yes:* | *:) return 0 ;; esac
	done
}

# proc_pids NAME sets OB_PIDS to the pids of the processes called NAME
# (zombies left out), or nil when there is no /proc under the root.
proc_pids() {
	OB_PIDS=nil
	for pp_d in "$ROOT"/proc/[0-9]*; do
		case $pp_d in *'[0-9]*') return 0 ;; esac
		case $OB_PIDS in nil) OB_PIDS= ;; esac
		pp_st=
		{ read -r pp_st <"$pp_d/stat"; } 2>/dev/null || continue
		pp_c=${pp_st#*\(}
		pp_c=${pp_c%\)*}
		pp_s=${pp_st##*) }
		case $pp_c:${pp_s%% *} in "$1:Z") continue ;; "$1:"*) OB_PIDS="$OB_PIDS ${pp_d##*/}" ;; esac
	done
}

# renewed BEFORE_PIDS sets OB_WHY when the restart did not replace the
# service: the process that owns its listening socket (on LPORTS) must be
# new; processes from before that own no listener may linger (Samba 3
# keeps one smbd per connected client after its master restarts). Where
# no owner can be found, every process must be new. Nothing runs unless a
# process from before is still there.
renewed() {
	case "$1:$OB_PIDS" in nil:* | *:nil) return 0 ;; esac
	oldest_of "$OB_PIDS" "$1"
	rn_old=$OLDEST
	case $rn_old in '') return 0 ;; esac
	if listen_owners "$LPORTS"; then
		oldest_of "$LOWNERS" "$1"
		case $OLDEST in '') return 0 ;; esac
		OB_WHY="the old $SPROC process (pid $OLDEST) still owns the listening socket: the restart did not replace it"
		return 1
	fi
	OB_WHY="the old $SPROC process (pid $rn_old) is still the one running: the restart did not replace it"
	return 1
}

# oldest_of PIDS BEFORE sets OLDEST to the smallest of PIDS that is in
# BEFORE too (empty: none).
oldest_of() {
	OLDEST=
	for od_p in $1; do
		case " $2 " in *" $od_p "*) ;; *) continue ;; esac
		case $OLDEST in '') OLDEST=$od_p && continue ;; esac
		case $((od_p < OLDEST)) in 1) OLDEST=$od_p ;; esac
	done
}

# listen_owners PORTS sets LOWNERS to those of OB_PIDS that own a
# listening socket on one of PORTS (comma-separated; on any address): its
# inode from /proc/net/tcp and tcp6, found among /proc/PID/fd with one
# `ls -l`. False when it finds none.
listen_owners() {
	LOWNERS=
	lw_want=
	lw_ifs=$IFS
	IFS=,
	set -f
	for lw_p in $1; do
		hex4 "$lw_p"
		lw_want="$lw_want $HX4"
	done
	set +f
	IFS=$lw_ifs
	lw_ino=
	for lw_f in "$ROOT/proc/net/tcp" "$ROOT/proc/net/tcp6"; do
		{ read -r lw_l <"$lw_f"; } 2>/dev/null || continue
		while read -r _ lw_local _ lw_st _ _ _ _ _ lw_i _; do
			case $lw_st:$lw_i in 0A:0 | 0A:) continue ;; 0A:*) ;; *) continue ;; esac
			case "$lw_want " in *" ${lw_local##*:} "*) lw_ino="$lw_ino $lw_i" ;; esac
		done <"$lw_f"
	done
	case $lw_ino in '') return 1 ;; esac
	set --
	lw_pid=
	for lw_p in $OB_PIDS; do
		set -- "$@" "$ROOT/proc/$lw_p/fd"
		lw_pid=$lw_p
	done
	# (with one folder ls prints no "FOLDER:" line: its pid is lw_pid)
	lw_out=$(ls -l "$@" 2>/dev/null)
	set -f
	IFS=$NL
	for lw_l in $lw_out; do
		case $lw_l in
		*/fd:)
			lw_pid=${lw_l%/fd:}
			lw_pid=${lw_pid##*/}
			;;
		*" -> socket:["*"]")
			lw_i=${lw_l##*socket:\[}
			lw_i=${lw_i%\]}
			case " $lw_ino " in *" $lw_i "*)
				case " $LOWNERS " in *" $lw_pid "*) ;; *) LOWNERS="$LOWNERS $lw_pid" ;; esac
				;;
			esac
			;;
		esac
	done
	IFS=$lw_ifs
	set +f
	case $LOWNERS in '') return 1 ;; esac
	return 0
}

# listening HOSTS PORTS is true when /proc/net/tcp or tcp6 under the root
# has a listening socket (state 0A) on one of PORTS, bound to one of HOSTS
# or to every address. A host `*` (an interface name in smb.conf, whose
# addresses sh cannot list) takes any address.
listening() {
	li_want=
	li_ifs=$IFS
	IFS=,
	set -f
	for li_p in $2; do
		hex4 "$li_p"
		for li_h in $1; do
			li_want="$li_want $HX4:$li_h"
		done
	done
	set +f
	IFS=$li_ifs
	for li_f in "$ROOT/proc/net/tcp" "$ROOT/proc/net/tcp6"; do
		# (read, not `[`: a process of its own before BusyBox 1.2; not `:`,
		# whose failed redirection would end the shell)
		{ read -r li_sl <"$li_f"; } 2>/dev/null || continue
		# shellcheck disable=SC2034 # sl is the row number
		while read -r li_sl li_local _ li_st _; do
			case $li_st in 0A) ;; *) continue ;; esac
			li_port=${li_local##*:}
			li_addr=${li_local%:*}
			for li_w in $li_want; do
				case $li_w in "$li_port:"*) ;; *) continue ;; esac
				addr_is "$li_addr" "${li_w#*:}" && return 0
			done
		done <"$li_f"
	done
	return 1
}

# addr_is HEX HOST: the socket address HEX (as /proc/net/tcp* prints it)
# accepts connections to HOST.
addr_is() {
	case $1 in
	00000000 | 00000000000000000000000000000000) return 0 ;;
	esac
	case $2 in
	'*') return 0 ;;
	*.*.*.*)
		ip_hex "$2"
		case $1 in "$IPLE" | "$IPBE" | *0000FFFF"$IPLE" | *FFFF0000"$IPLE") return 0 ;; esac
		;;
	esac
	return 1
}

# ip_hex A.B.C.D sets IPLE and IPBE to the address as a little-endian and
# a big-endian host prints it in /proc/net/tcp.
ip_hex() {
	ih_ifs=$IFS
	IFS=.
	set -f
	# shellcheck disable=SC2086 # split on dots on purpose
	set -- $1
	set +f
	IFS=$ih_ifs
	IPBE=
	IPLE=
	for ih_b in "$1" "$2" "$3" "$4"; do
		hex2 "$ih_b"
		IPBE=$IPBE$HX2
		IPLE=$HX2$IPLE
	done
}

# hex4 N sets HX4 to N as four upper-case hex digits (a port as
# /proc/net/tcp prints it).
hex4() {
	num "$1" || set -- 0
	hex2 $(($1 / 256))
	HX4=$HX2
	hex2 $(($1 % 256))
	HX4=$HX4$HX2
}

# hex2 N sets HX2 to N (0-255) as two upper-case hex digits.
hex2() {
	num "$1" || set -- 0
	hexd $(($1 / 16))
	HX2=$HXD
	hexd $(($1 % 16))
	HX2=$HX2$HXD
}

hexd() {
	case $1 in
	10) HXD=A ;;
	11) HXD=B ;;
	12) HXD=C ;;
	13) HXD=D ;;
	14) HXD=E ;;
	15) HXD=F ;;
	*) HXD=$1 ;;
	esac
}

# subst TEXT FROM TO sets SUB to TEXT with every FROM replaced by TO.
subst() {
	SUB=
	sb_r=$1
	while :; do
		case $sb_r in
		*"$2"*)
			SUB="$SUB${sb_r%%"$2"*}$3"
			sb_r=${sb_r#*"$2"}
			;;
		*) break ;;
		esac
	done
	SUB=$SUB$sb_r
}

# ---- where a service listens ------------------------------------------------------

# listen_of SERVICE WHEN sets LHOSTS and LPORTS (comma-separated): where
# the service listens with the files of the transaction WHEN (`after`:
# the new ones; `before`: what was live; `live`: the files live now, of
# all its targets): smb.conf's `smb ports`, and
# `interfaces` with `bind interfaces only`; proftpd.conf's main `Port`,
# and `DefaultAddress` with `SocketBindTight on`; else the profile's
# ports on 127.0.0.1. Ports the owner set in userscript.toml win.
listen_of() {
	LHOSTS=127.0.0.1
	LPORTS=$SPORTS
	# Ports set to none in userscript.toml: nothing to listen on to read.
	case $SPINNED:$SPORTS in yes:- | yes:) return 0 ;; esac
	lo_names=${WRITTEN:-}
	case $2 in live) lo_names=$TARGETS ;; esac
	for lo_n in $lo_names; do
		profile_target "$lo_n" || continue
		case $TSVC in "$1") ;; *) continue ;; esac
		case $2 in
		after)
			src_of "$lo_n"
			lo_f=$SO
			;;
		live)
			lo_f=$ROOT$TPATH
			[ -f "$lo_f" ] || continue
			;;
		*)
			prev_of "$lo_n"
			lo_f=$PO
			;;
		esac
		case $lo_f in '') continue ;; esac
		CPORTS=
		CHOSTS=
		case $TVAL in
		testparm) samba_listen "$lo_f" ;;
		proftpd) proftpd_listen "$lo_f" ;;
		esac
		case $CPORTS:$SPINNED in ?*:) LPORTS=$CPORTS ;; esac
		case $CHOSTS in ?*) LHOSTS=$CHOSTS ;; esac
	done
	profile_service "$1"
}

# samba_listen FILE sets CPORTS and CHOSTS from [global].
samba_listen() {
	sa_global=yes
	sa_names=
	sa_bind=
	while IFS= read -r sa_l; do
		trim "$sa_l"
		case $TR in
		'['*)
			sa_s=${TR#[}
			trim "${sa_s%%]*}"
			case $TR in [Gg][Ll][Oo][Bb][Aa][Ll]) sa_global=yes ;; *) sa_global= ;; esac
			continue
			;;
		'#'* | ';'*) continue ;;
		*=*) ;;
		*) continue ;;
		esac
		case $sa_global in '') continue ;; esac
		sa_k=${TR%%=*}
		sa_v=${TR#*=}
		while :; do
			case $sa_k in
			*[[:space:]]*) sa_k=${sa_k%%[[:space:]]*}${sa_k#*[[:space:]]} ;;
			*) break ;;
			esac
		done
		case $sa_k in
		[Ss][Mm][Bb][Pp][Oo][Rr][Tt][Ss])
			CPORTS=
			subst "$sa_v" , " "
			subst "$SUB" ";" " "
			for sa_p in $SUB; do
				port_ok "$sa_p" && CPORTS="$CPORTS${CPORTS:+,}$sa_p"
			done
			;;
		[Ii][Nn][Tt][Ee][Rr][Ff][Aa][Cc][Ee][Ss])
			subst "$sa_v" , " "
			subst "$SUB" ";" " "
			sa_names=$SUB
			;;
		[Bb][Ii][Nn][Dd][Ii][Nn][Tt][Ee][Rr][Ff][Aa][Cc][Ee][Ss][Oo][Nn][Ll][Yy])
			sa_bind=
			is_yes "$sa_v" && sa_bind=yes
			;;
		esac
	done <"$1"
	case $sa_bind in '') return 0 ;; esac
	for sa_n in $sa_names; do
		sa_a=${sa_n%%/*}
		case $sa_a in
		*[!0-9.]*) CHOSTS="$CHOSTS${CHOSTS:+,}*" ;;
		*.*.*.*) CHOSTS="$CHOSTS${CHOSTS:+,}$sa_a" ;;
		esac
	done
}

# proftpd_listen FILE sets CPORTS and CHOSTS from the main server's
# directives (outside any block).
proftpd_listen() {
	pf_depth=0
	pf_addrs=
	pf_tight=
	while read -r pf_d pf_v pf_rest; do
		case $pf_d in
		'' | '#'*) continue ;;
		'</'*) pf_depth=$((pf_depth - 1)) && continue ;;
		'<'*) pf_depth=$((pf_depth + 1)) && continue ;;
		esac
		case $pf_depth:$pf_v in 0:?*) ;; *) continue ;; esac
		case $pf_d in
		[Pp][Oo][Rr][Tt]) port_ok "$pf_v" && CPORTS=$pf_v ;;
		[Dd][Ee][Ff][Aa][Uu][Ll][Tt][Aa][Dd][Dd][Rr][Ee][Ss][Ss]) pf_addrs="$pf_v $pf_rest" ;;
		[Ss][Oo][Cc][Kk][Ee][Tt][Bb][Ii][Nn][Dd][Tt][Ii][Gg][Hh][Tt])
			pf_tight=
			is_yes "$pf_v" && pf_tight=yes
			;;
		esac
	done <"$1"
	case $pf_tight in '') return 0 ;; esac
	for pf_a in $pf_addrs; do
		case $pf_a in *[!0-9.]* | *..*) ;; *.*.*.*) CHOSTS="$CHOSTS${CHOSTS:+,}$pf_a" ;; esac
	done
}

# port_ok N is true for a TCP port number (1-65535).
port_ok() {
	num "$1" || return 1
	case $(($1 > 0 && $1 < 65536)) in 1) return 0 ;; esac
	return 1
}

is_yes() {
	trim "$1"
	case $TR in [Yy][Ee][Ss] | [Tt][Rr][Uu][Ee] | 1 | [Oo][Nn]) return 0 ;; esac
	return 1
}

# ---- proving ----------------------------------------------------------------------

# prove SERVICE BEFORE_PIDS [WHEN] waits until the restarted service is
# serving with new processes (up to its timeout), then its settle period,
# and checks again; it listens where listen_of WHEN (default after) says.
# It fails with PROVE_WHY set.
prove() {
	listen_of "$1" "${3:-after}"
	pv_i=0
	while :; do
		observe "$LHOSTS" "$LPORTS"
		filled "$OB_SERVING" && renewed "$2" && break
		if [ "$pv_i" -ge "$STIMEOUT" ]; then
			PROVE_WHY=$OB_WHY
			return 1
		fi
		sleep 1
		pv_i=$((pv_i + 1))
	done
	[ "$SSETTLE" -gt 0 ] || return 0
	sleep "$SSETTLE"
	observe "$LHOSTS" "$LPORTS"
	filled "$OB_SERVING" && renewed "$2" && return 0
	PROVE_WHY="it started, but within $(go_dur "$SSETTLE"): $OB_WHY"
	return 1
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
