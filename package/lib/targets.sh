# shellcheck shell=sh
# userscript sh engine: targets: what we wrote (state/written), what is
# held (state/held), the atomic write that keeps mode and owner, putting
# the previous file back, and the status files. Sourced by engine.sh.
# shellcheck disable=SC2154,SC2034,SC2153

# ---- state/written/NAME ------------------------------------------------------

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

# set_written NAME LINE... writes state/written/NAME (aside, then renamed).
set_written() {
	sw_f=$STATE/written/$1
	shift
	rm -rf "$sw_f.tmp"
	for sw_l in "$@"; do
		echo "$sw_l"
	done >"$sw_f.tmp" && put_file "$sw_f.tmp" "$sw_f"
}

# remember_written NAME MD5 makes state/written/NAME the one line MD5.
remember_written() {
	written_lines "$1"
	[ "$WL" = "$2" ] && return 0
	set_written "$1" "$2"
}

# expect_written NAME MD5 records, before a write, that MD5 is about to be
# live, keeping the hash that is live now: killed half way, the next apply
# knows either file for ours.
expect_written() {
	written_lines "$1"
	ew_old=${WL%% *}
	if [ -n "$ew_old" ] && [ "$ew_old" != "$2" ]; then
		set_written "$1" "$2" "$ew_old"
	else
		set_written "$1" "$2"
	fi
}

forget_written() { # NAME
	[ -f "$STATE/written/$1" ] || [ -L "$STATE/written/$1" ] || return 0
	rm -f "$STATE/written/$1"
	log INFO "not managed any more" target="$1"
}

# ---- state/held/NAME ----------------------------------------------------------

# held_read NAME sets HELD_HASH, HELD_WORD and HELD_REASON (all empty when
# the target is not held).
held_read() {
	HELD_HASH=
	HELD_WORD=
	HELD_REASON=
	! [ -L "$STATE/held/$1" ] && [ -f "$STATE/held/$1" ] || return 0
	{
		read -r HELD_HASH
		IFS= read -r HELD_WORD
		IFS= read -r HELD_REASON
	} <"$STATE/held/$1"
}

# held_set NAME HASH WORD REASON holds the sources of NAME until they give
# another target; held_set NAME "" releases them.
held_set() {
	if [ -z "$2" ]; then
		[ -f "$STATE/held/$1" ] || [ -L "$STATE/held/$1" ] || return 0
		rm -f "$STATE/held/$1"
		return 0
	fi
	[ -L "$STATE/held" ] && rm -f "$STATE/held"
	mkdir -p "$STATE/held" || return 1
	rm -rf "$STATE/held/$1.tmp"
	cat >"$STATE/held/$1.tmp" <<HELD
$2
$3
$4
HELD
	put_file "$STATE/held/$1.tmp" "$STATE/held/$1"
}

# ---- writing a target ------------------------------------------------------------

# write_target NAME LIVE SRC writes SRC over LIVE atomically: a copy in the
# target's own folder with LIVE's mode and owner, then a rename.
write_target() {
	wt_tmp=${2%/*}/.userscript-new.$1
	rm -f "$wt_tmp"
	if ! stage_like "$3" "$2" "$wt_tmp" || ! mv -f "$wt_tmp" "$2"; then
		rm -f "$wt_tmp"
		return 1
	fi
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

# status_word NAME prints the status: word of conf.d/NAME.status.
status_word() {
	if [ -L "$CONF/$1.status" ] || ! [ -f "$CONF/$1.status" ]; then
		return 0
	fi
	sed -n "s/^status: \(.*\)$CR\$/\1/p" "$CONF/$1.status" | head -n 1
}

# ---- per-target result fields (state/tmp/NAME.f) --------------------------

# fset NAME KEY VALUE records a status field; the last value of a key wins,
# warnings, notes and settings add up.
fset() {
	echo "$2 $3" >>"$WORK/$1.f"
}

refuse() { # NAME FILE REASON TODO
	fset "$1" status REFUSED
	fset "$1" file "conf.d/$2"
	fset "$1" reason "$3"
	fset "$1" todo "$4"
	log WARN "refused" target="$1" file="conf.d/$2" reason="$3"
}

failed() { # NAME REASON TODO
	fset "$1" status FAILED
	fset "$1" reason "$2"
	fset "$1" todo "$3"
	log ERROR "failed" target="$1" reason="$2"
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
	r_gen=
	while read -r r_k r_v; do
		case $r_k in
		status) r_status=$r_v ;;
		file) r_file=$r_v ;;
		target) r_target=$r_v ;;
		sources) r_sources=$r_v ;;
		validated) r_validated=$r_v ;;
		reason) r_reason=$r_v ;;
		todo) r_todo=$r_v ;;
		generation) r_gen=$r_v ;;
		esac
	done <"$WORK/$1.f"
	line status "$r_status"
	line file "$r_file"
	line target "$r_target"
	line sources "$r_sources"
	line validated "$r_validated"
	line reason "$r_reason"
	for r_kind in warning note setting; do
		while read -r r_k r_v; do
			[ "$r_k" = "$r_kind" ] && line "$r_kind" "$r_v"
		done <"$WORK/$1.f"
	done
	line generation "$r_gen"
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
