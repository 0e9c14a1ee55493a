# shellcheck shell=sh
# userscript sh engine: the doctor (docs/FORMATS.md, "DOCTOR.txt"): what
# an owner without a shell finds in conf.d/DOCTOR.txt after every start
# (`engine.sh apply`) and after `engine.sh doctor`: engine and version,
# profile, state, free space, where each target's live file comes from,
# the services as a restart is proven, who can write conf.d through the
# live smb.conf, and the files in conf.d that are not used. The Go
# engine's internal/doctor is the reference; the words are the same.
# Sourced by engine.sh.
# shellcheck disable=SC2154,SC2034,SC2153

# doctor_report sets DR to the report, one line a line (LF).
doctor_report() {
	part service
	DR=
	dr_line "userscript doctor"
	dr_line "checked: $STIME"
	dr_v=unknown
	{ read -r dr_v <"$LIB/version"; } 2>/dev/null
	dr_line "engine: sh engine, userscript $dr_v"
	dr_app=$APP
	case $ROOT in ?*) case $APP in "$ROOT"/*) dr_app=${APP#"$ROOT"} ;; esac ;; esac
	dr_line "app folder: $dr_app"
	dr_line "profile: $PROFILE (the package's lib/profile)"
	part wayout
	stopped
	case $WHY_STOPPED in
	?*) dr_line "state: NOTHING IS APPLIED: $WHY_STOPPED" ;;
	*)
		starts_read
		case $STARTS in
		0) dr_line "state: applying conf.d" ;;
		*) dr_line "state: applying conf.d; $STARTS start(s) in a row did not finish (after $SAFE_MODE_STARTS, userscript enters safe mode)" ;;
		esac
		;;
	esac
	dr_disk
	dr_line "disk: $DISK"
	dr_targets
	dr_services
	dr_line ""
	dr_line "who can write conf.d:"
	part share
	dr_share "$dr_app"
	dr_line "  $SHARE"
	for dr_d in "$APP" "$CONF" "$STATE"; do
		if looked "$dr_d"; then
			LS_MODE=$LR_MODE
		else
			ls_fields "$dr_d"
		fi
		case $LS_MODE in d???????w?) dr_line "  $dr_d is writable by everyone (mode -${LS_MODE#d}): anyone on the network can change what runs as root here; let only your own account write it (chmod o-w, and restrict the share in the web GUI)" ;; esac
	done
	dr_line "  anyone who can write conf.d can change what runs as root on this NAS (one line in smb.conf can run a command as root): let only your own account write it"
	part names
	unused_names
	dr_list "files in conf.d that are not used:" "$UNUSED"
}

dr_line() {
	DR="$DR$1$NL"
}

# dr_list TITLE LINES adds a section (none when LINES is empty).
dr_list() {
	case $2 in '') return 0 ;; esac
	dr_line ""
	dr_line "$1"
	set -f
	dl_ifs=$IFS
	IFS=$NL
	for dl_l in $2; do
		dr_line "  $dl_l"
	done
	IFS=$dl_ifs
	set +f
}

# dr_disk sets DISK: the space free on the disk holding conf.d, where df
# (not one of the engine's applets) is there to tell.
dr_disk() {
	dd_out=$(df -k "$CONF" 2>/dev/null)
	case $dd_out in '')
		DISK="cannot tell: df is not on this device, or said nothing"
		return 0
		;;
	esac
	set -f
	dd_out=${dd_out##*"$NL"}
	# shellcheck disable=SC2086 # df's fields
	set -- $dd_out
	set +f
	dd_k=${4:-}
	case $# in 5 | 6) ;; *) dd_k= ;; esac
	case $dd_k in '' | *[!0-9]*)
		DISK="cannot tell: df did not say"
		return 0
		;;
	esac
	# (arithmetic, not `[`: a process of its own before BusyBox 1.2)
	case $((${#dd_k} > 9)):$((dd_k >= 10 * 1048576)):$((dd_k >= 10240)):$((dd_k >= 10)) in
	1:*) DISK="$((${dd_k%??????} / 1024)) GB free on the data disk" ;;
	0:1:*) DISK="$((dd_k / 1048576)) GB free on the data disk" ;;
	0:0:1:*) DISK="$((dd_k / 1024)) MB free on the data disk" ;;
	0:0:0:1) DISK="$dd_k KB free on the data disk" ;;
	*) DISK="$((dd_k * 1024)) bytes free on the data disk" ;;
	esac
	case $((${#dd_k} > 9 || dd_k >= 64)) in 0) DISK="$DISK: FULL, nothing new is applied until there is room" ;; esac
}

# dr_targets lists every target: where its live file comes from, and the
# word of its status file; then each tuning file with sources.
dr_targets() {
	dt_all=
	for dt_n in $TARGETS; do
		profile_target "$dt_n"
		sources_of "$dt_n"
		dt_o=
		dt_f=
		for dt_s in "$dt_n" "$dt_n.merge" "$dt_n.add"; do
			in_list "$SOURCES" "$dt_s" || continue
			case $dt_s in
			*.merge) dt_w=merged ;;
			*.add) dt_w=added ;;
			*) dt_w=replaced ;;
			esac
			dt_o="$dt_o${dt_o:++}$dt_w"
			dt_f="$dt_f${dt_f:+, }conf.d/$dt_s"
		done
		dt_l="$dt_n ($TPATH): ${dt_o:-firmware}"
		case $dt_o in ?*)
			dt_l="$dt_l from $dt_f"
			dr_word "$dt_n"
			case $SW in ?*) dt_l="$dt_l; status $SW" ;; esac
			;;
		esac
		dt_all="$dt_all$dt_l$NL"
	done
	for dt_n in $TUNE; do
		dt_l="$dt_n: kernel tuning from conf.d/$dt_n"
		dr_word "${dt_n%.conf}"
		case $SW in ?*) dt_l="$dt_l; status $SW" ;; esac
		dt_all="$dt_all$dt_l$NL"
	done
	dr_list "targets (where the live file comes from):" "$dt_all"
}

# dr_word NAME sets SW to the word of conf.d/NAME.status: this apply's,
# else the file's.
dr_word() {
	if rp_has "$1"; then
		render "$1" no
		SW=$r_status
		return 0
	fi
	status_word "$1"
}

# dr_services looks at every service once, as a restart is proven: its
# process, and a port its live config names accepting.
dr_services() {
	ds_all=
	for ds_s in $SVCS; do
		profile_service "$ds_s" || continue
		LHOSTS=127.0.0.1
		LPORTS=$SPORTS
		case $SPINNED:$SPORTS in yes:- | yes:) ;; *)
			for ds_n in $TARGETS; do
				profile_target "$ds_n"
				case $TSVC in "$ds_s") ;; *) continue ;; esac
				target_plain "$ds_n" || continue
				CPORTS=
				CHOSTS=
				case $TVAL in
				testparm) samba_listen "$ROOT$TPATH" ;;
				proftpd) proftpd_listen "$ROOT$TPATH" ;;
				esac
				case $CPORTS:$SPINNED in ?*:) LPORTS=$CPORTS ;; esac
				case $CHOSTS in ?*) LHOSTS=$CHOSTS ;; esac
			done
			profile_service "$ds_s"
			;;
		esac
		observe "$LHOSTS" "$LPORTS"
		subst "$LPORTS" , " or "
		ds_ports=$SUB
		subst "$LHOSTS" , ", "
		ds_at="TCP port $ds_ports of $SUB"
		case $OB_SERVING:$LPORTS:$OB_PIDS in
		:-:nil | ::nil) ds_l="cannot tell: $OB_WHY" ;;
		:*) ds_l="NOT SERVING: $OB_WHY" ;;
		*:- | *:) ds_l="healthy: $SPROC runs" ;;
		*:nil) ds_l="healthy: $ds_at accepts" ;;
		*)
			case $SPROC in
			-) ds_l="healthy: $ds_at accepts" ;;
			*) ds_l="healthy: $SPROC runs, and $ds_at accepts" ;;
			esac
			;;
		esac
		restart_cmd "$ds_s"
		ds_all="$ds_all$ds_s: $ds_l; restarted with $RC_CMD$NL"
	done
	dr_list "services:" "$ds_all"
}

# target_plain NAME is true when target NAME's live file is a regular
# file: one this apply wrote is (no `[`, a process before BusyBox 1.2).
target_plain() {
	if hv "${TBELIEF:-}" "$1"; then
		case $HV in none) return 1 ;; esac
		return 0
	fi
	plain "$ROOT$TPATH"
}

# doctor_write writes conf.d/DOCTOR.txt (CRLF), aside (in state/lock.d,
# ours: it runs under the lock) and renamed: never through a link.
doctor_write() {
	doctor_report
	dr_cr
	dw_t=
	dw_r=$DR
	while :; do
		case $dw_r in
		*"$NL"*)
			dw_t="$dw_t${dw_r%%"$NL"*}$DCR$NL"
			dw_r=${dw_r#*"$NL"}
			;;
		*) break ;;
		esac
	done
	# A folder planted there is left alone (mv would put the file into it).
	if looked "$CONF/DOCTOR.txt"; then
		case $LR_MODE in d*) dw_t= ;; esac
	elif [ -d "$CONF/DOCTOR.txt" ] && ! [ -L "$CONF/DOCTOR.txt" ]; then
		dw_t=
	fi
	case $dw_t in '')
		log WARN "conf.d/DOCTOR.txt is a folder; not writing the doctor's report"
		return 0
		;;
	esac
	# (trimmed in an assignment: see log_flush)
	dw_t=${dw_t%"$NL"}
	{ echo "$dw_t" >"$STATE/lock.d/doctor.txt"; } 2>/dev/null && mv -f "$STATE/lock.d/doctor.txt" "$CONF/DOCTOR.txt"
}

# dr_cr sets DCR to a carriage return: the last byte of a status file's
# first line (the boot path writes none when nothing changed, and a `tr`
# would be one more process), else chars's.
dr_cr() {
	case ${CR:-} in ?*)
		DCR=$CR
		return 0
		;;
	esac
	for dc_n in $TARGETS; do
		plain "$CONF/$dc_n.status" || continue
		dc_l=
		{ IFS= read -r dc_l <"$CONF/$dc_n.status"; } 2>/dev/null
		DCR=${dc_l#"${dc_l%?}"}
		case $dc_l:$DCR in "status: "*:[!A-Za-z0-9\ ]) return 0 ;; esac
	done
	chars
	DCR=$CR
}

# cmd_doctor prints the report and writes conf.d/DOCTOR.txt.
cmd_doctor() {
	ensure_dirs || return 1
	profile_load
	stamp_now
	settings_load
	scan
	doctor_report
	DR=${DR%"$NL"}
	echo "$DR"
	LOG_HOLD=
	if ! lock_take; then
		echo "userscript: $CONF/DOCTOR.txt not written: ${LOCK_WHY:-another apply holds the lock}" >&2
		return 1
	fi
	doctor_write
	lock_release
}
