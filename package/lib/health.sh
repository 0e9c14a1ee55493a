# shellcheck shell=sh
# userscript sh engine: is a service serving, and did its restart renew
# it (docs/FORMATS.md, the transaction's step 5)? Processes are read
# from /proc/PID/stat, listening sockets from /proc/net/tcp and tcp6
# (state 0A), both under the root: the device has no netstat. Where a
# service should listen is listen.sh's. Sourced by service.sh.
# shellcheck disable=SC2154,SC2034,SC2153

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
