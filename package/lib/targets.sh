# shellcheck shell=sh
# userscript sh engine: planning and writing targets, services, status files.
# Sourced by engine.sh, never run on its own; globals (ROOT, APP, CONF,
# STATE, WORK, CR, TAB, BOM, NL ...) are set by its setup().
# shellcheck disable=SC2154,SC2034

# ---- plan and write one target --------------------------------------------

# plan NAME: sources → composed target → validated → written. Records
# changed targets in CHANGED ("NAME:SERVICE" words) and services in SVCS.
plan() {
	profile_target "$1" || return 0
	pl_live=$ROOT$TPATH
	sources_of "$1"
	FIRST=${SOURCES%% *}
	fset "$1" file "conf.d/$FIRST"
	fset "$1" target "$TPATH"
	fset "$1" sources "$SOURCES"
	case " $SOURCES " in
	*" $1.merge "*)
		refuse "$1" "$1.merge" "not supported on this device — render it on a PC" \
			"render the merge with userscript on a PC and put the result here as $1"
		return 0
		;;
	esac
	for pl_s in $SOURCES; do
		if ! take_source "$pl_s" "$WORK/$pl_s.n"; then
			refuse "$1" "$pl_s" "$REASON" "$TODO"
			return 0
		fi
	done
	if [ -L "$pl_live" ] || { [ -e "$pl_live" ] && ! [ -f "$pl_live" ]; }; then
		failed "$1" "$TPATH is not a regular file; userscript does not replace links or folders" \
			"check $TPATH on the device"
		return 0
	fi
	if ! capture_base "$1" "$pl_live"; then
		if [ -n "$CB_MISSING" ]; then
			refuse "$1" "$FIRST" "state/base/$1 is missing, so the firmware's own $TPATH is unknown; reboot the NAS (the firmware restores it) or delete state/written/$1" \
				"reboot the NAS, or delete state/written/$1 to keep the live file as it is"
			return 0
		fi
		failed "$1" "could not save the base of $TPATH in state/base" "check that the data disk is writable and not full"
		return 0
	fi
	compose "$1"
	if [ "$TFLAGS" = nonempty ] && ! [ -s "$WORK/$1.target" ]; then
		pl_last=${SOURCES##* }
		refuse "$1" "$1" "conf.d/$pl_last is empty (0 bytes): an empty $1 would delete everything it sets up, so it is not applied; a failed copy or a full disk leaves such a file. To empty it on purpose, put one comment line in it" \
			"copy the whole file into conf.d/$pl_last again; $TPATH was not changed"
		return 0
	fi
	validate "$1" "$WORK/$1.target" || return 0
	install_target "$1" "$pl_live"
}

# install_target NAME LIVE [forget] writes the composed target atomically:
# a copy in the target's own folder, then a rename over it. With forget,
# the target is the firmware's again once written: state/written/NAME goes.
install_target() {
	it_new=$WORK/$1.target
	it_sum=$(md5sum <"$it_new")
	it_sum=${it_sum%% *}
	it_mark=${3:-}
	if [ -f "$2" ] && cmp -s "$it_new" "$2"; then
		mark_written "$1" "$it_sum" "$it_mark"
		return 0
	fi
	it_dir=${2%/*}
	if ! [ -d "$it_dir" ]; then
		failed "$1" "the folder of $TPATH does not exist" "check the profile and the device"
		return 0
	fi
	it_tmp=$it_dir/.userscript-new.$1
	rm -f "$it_tmp"
	# While it is written, both hashes are ours: killed half way, the next
	# apply still knows the live file, old or new, for ours. (cb_lh is the
	# live file's hash, from capture_base.)
	if [ -n "$cb_lh" ] && written_has "$1" "$cb_lh"; then
		set_written "$1" "$it_sum" "$cb_lh"
	else
		set_written "$1" "$it_sum"
	fi
	if ! stage_like "$it_new" "$2" "$it_tmp" || ! mv -f "$it_tmp" "$2"; then
		rm -f "$it_tmp"
		failed "$1" "could not write $TPATH" "check that the device's file system is writable"
		return 0
	fi
	mark_written "$1" "$it_sum" "$it_mark"
	log INFO "written" target="$1" path="$TPATH" md5="$it_sum"
	CHANGED="$CHANGED $1:$TSVC"
	case " $SVCS " in *" $TSVC "*) ;; *) [ "$TSVC" = - ] || SVCS="$SVCS $TSVC" ;; esac
}

# stage_like NEW LIVE TMP copies NEW to TMP with the mode and owner of
# LIVE (a 0600 smb.conf stays 0600), or with the profile's mode (TMODE)
# when there is no LIVE yet.
stage_like() {
	if [ -f "$2" ]; then
		cp -p "$2" "$3" && cat "$1" >"$3"
		return
	fi
	(
		umask "$(mode_umask "$TMODE")"
		cp "$1" "$3"
	)
}

# mode_umask MODE prints the umask that gives a new file MODE (0644: 022).
mode_umask() {
	mu_m=${1#0}
	mu_out=0
	while [ -n "$mu_m" ]; do
		mu_d=${mu_m%"${mu_m#?}"}
		mu_m=${mu_m#?}
		case $mu_d in
		6 | 7) mu_out=${mu_out}0 ;;
		4 | 5) mu_out=${mu_out}2 ;;
		2 | 3) mu_out=${mu_out}4 ;;
		*) mu_out=${mu_out}6 ;;
		esac
	done
	echo "$mu_out"
}

# mark_written NAME MD5 [forget]: ours (state/written/NAME holds MD5), or
# with forget the firmware's again.
mark_written() {
	if [ "${3:-}" = forget ]; then
		forget_written "$1"
	else
		remember_written "$1" "$2"
	fi
}

forget_written() { # NAME
	[ -f "$STATE/written/$1" ] || return 0
	rm -f "$STATE/written/$1"
	log INFO "not managed any more" target="$1"
}

# remember_written NAME MD5 makes state/written/NAME the one line MD5.
remember_written() {
	WL=
	written_lines "$1"
	[ "$WL" = "$2" ] && return 0
	set_written "$1" "$2"
}

# set_written NAME LINE... writes state/written/NAME (aside, then renamed).
set_written() {
	sw_f=$STATE/written/$1
	shift
	rm -rf "$sw_f.tmp"
	for sw_l in "$@"; do
		echo "$sw_l"
	done >"$sw_f.tmp" && put_file "$sw_f.tmp" "$sw_f"
}

# written_lines NAME sets WL to the lines of state/written/NAME, joined by
# spaces: one hash, or two while a write is under way (the new, then the
# old); a file matching any of them is ours.
written_lines() {
	WL=
	! [ -L "$STATE/written/$1" ] && [ -f "$STATE/written/$1" ] || return 0
	while read -r wl_l; do
		WL="$WL${WL:+ }$wl_l"
	done <"$STATE/written/$1"
}

written_has() { # NAME MD5
	written_lines "$1"
	case " $WL " in *" $2 "*) [ -n "$2" ] ;; *) return 1 ;; esac
}

# ---- a target whose sources are gone --------------------------------------

# restore NAME gives a target we manage (state/written/NAME) whose sources
# are all gone back to the firmware: its base is written back (validated,
# atomically, its service restarted once) and it is not managed any more.
# When the live file already is the base, nothing is written or restarted.
restore() {
	profile_target "$1" || return 0
	rt_live=$ROOT$TPATH
	FIRST=$1
	fset "$1" file "conf.d/$1"
	fset "$1" target "$TPATH"
	fset "$1" reason "no source in conf.d any more: the firmware's own file is live again"
	if [ -L "$rt_live" ] || { [ -e "$rt_live" ] && ! [ -f "$rt_live" ]; }; then
		failed "$1" "$TPATH is not a regular file; userscript does not replace links or folders" \
			"check $TPATH on the device"
		return 0
	fi
	if ! base_ok "$1" && is_written "$1" "$rt_live"; then
		refuse "$1" "$1" "state/base/$1 is missing, so the firmware's own $TPATH is unknown; reboot the NAS (the firmware restores it) or delete state/written/$1" \
			"reboot the NAS, or delete state/written/$1 to keep the live file as it is"
		return 0
	fi
	if ! capture_base "$1" "$rt_live"; then
		failed "$1" "could not save the base of $TPATH in state/base" "check that the data disk is writable and not full"
		return 0
	fi
	compose "$1"
	if [ -f "$rt_live" ] && cmp -s "$WORK/$1.target" "$rt_live"; then
		forget_written "$1"
		# The status file already tells the truth unless it says otherwise.
		case $(status_word "$1") in
		OK | "NOT VALIDATED")
			rm -f "$WORK/$1.f"
			return 0
			;;
		esac
		validate "$1" "$WORK/$1.target"
		return 0
	fi
	validate "$1" "$WORK/$1.target" || return 0
	install_target "$1" "$rt_live" forget
}

# is_written NAME LIVE is true when LIVE is what we last wrote to NAME.
is_written() {
	[ -f "$STATE/written/$1" ] && [ -f "$2" ] || return 1
	iw_lh=$(md5sum <"$2")
	written_has "$1" "${iw_lh%% *}"
}

# status_word NAME prints the status: word of conf.d/NAME.status.
status_word() {
	if [ -L "$CONF/$1.status" ] || ! [ -f "$CONF/$1.status" ]; then
		return 0
	fi
	sed -n "s/^status: \(.*\)$CR\$/\1/p" "$CONF/$1.status" | head -n 1
}

# ---- services -------------------------------------------------------------------

# restart_services runs each changed service's restart command once.
restart_services() {
	for rs_svc in $SVCS; do
		if ! profile_service "$rs_svc"; then
			service_failed "$rs_svc" "service $rs_svc is not in lib/profile"
			continue
		fi
		restart_one "$rs_svc"
	done
}

restart_one() {
	set -f
	# shellcheck disable=SC2086 # the profile's argv words hold no spaces
	set -- $SARGV
	set +f
	ro_svc=$rs_svc
	[ $# -gt 0 ] || {
		service_failed "$ro_svc" "service $ro_svc has no restart command"
		return 0
	}
	ro_name="${1##*/}"
	case $1 in
	/*) ro_bin=$ROOT$1 ;;
	*) ro_bin=$1 ;;
	esac
	shift
	ro_argv="$ro_name${*:+ $*}"
	case $STIMEOUT in '' | *[!0-9]*) STIMEOUT=60 ;; esac
	run_bounded "$STIMEOUT" "$WORK/restart.out" "$ro_bin" "$@"
	ro_rc=$?
	ro_tail=$(tail -n 3 "$WORK/restart.out" | tr '\n' ' ')
	log INFO "exec" service="$ro_svc" argv="$ro_argv" exit="$ro_rc" stderr="$ro_tail"
	RESTARTED="$RESTARTED $ro_svc"
	if [ "$ro_rc" -eq 124 ]; then
		service_failed "$ro_svc" "$ro_argv did not finish within $STIMEOUT s"
	elif [ "$ro_rc" -ne 0 ]; then
		service_failed "$ro_svc" "$ro_argv exited $ro_rc${ro_tail:+: $ro_tail}"
	fi
}

service_failed() { # SERVICE REASON
	for sf_pair in $CHANGED; do
		[ "${sf_pair#*:}" = "$1" ] || continue
		sf_n=${sf_pair%%:*}
		failed "$sf_n" "$2" "the new $sf_n is live, but $1 did not restart; see state/log"
	done
}

# ---- status files -----------------------------------------------------------------

# render NAME WITH_TIME prints the status file for NAME (CRLF).
render() {
	r_status=
	r_file=
	r_target=
	r_sources=
	r_validated=
	r_reason=
	r_todo=
	while read -r r_k r_v; do
		case $r_k in
		status) r_status=$r_v ;;
		file) r_file=$r_v ;;
		target) r_target=$r_v ;;
		sources) r_sources=$r_v ;;
		validated) r_validated=$r_v ;;
		reason) r_reason=$r_v ;;
		todo) r_todo=$r_v ;;
		esac
	done <"$WORK/$1.f"
	line status "$r_status"
	line file "$r_file"
	line target "$r_target"
	line sources "$r_sources"
	line validated "$r_validated"
	line reason "$r_reason"
	while read -r r_k r_v; do
		[ "$r_k" = warning ] && line warning "$r_v"
	done <"$WORK/$1.f"
	while read -r r_k r_v; do
		[ "$r_k" = setting ] && line setting "$r_v"
	done <"$WORK/$1.f"
	[ "$2" = yes ] && line time "$STIME"
	if [ -n "$r_todo" ]; then
		echo "$CR"
		line "what to do" "$r_todo"
	fi
	return 0
}

line() {
	[ -z "$2" ] || echo "$1: $2$CR"
}

# write_status NAME rewrites conf.d/NAME.status only when a line other
# than time: changed.
write_status() {
	ws_dst=$CONF/$1.status
	# render sets r_status, which apply prints, also when the file is
	# skipped.
	render "$1" no >"$WORK/$1.cmp"
	if [ -L "$ws_dst" ] || { [ -e "$ws_dst" ] && ! [ -f "$ws_dst" ]; }; then
		log WARN "not writing a status file over a link, folder or FIFO; skipped it" file="conf.d/$1.status"
		return 0
	fi
	if [ -f "$ws_dst" ]; then
		sed -e '/^time: /d' "$ws_dst" >"$WORK/$1.old"
		cmp -s "$WORK/$1.cmp" "$WORK/$1.old" && return 0
	fi
	render "$1" yes >"$WORK/$1.st"
	mv -f "$WORK/$1.st" "$ws_dst"
}
