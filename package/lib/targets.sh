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
	enc "$1" || return 0
	wl_v=WL_$EN
	case " ${WL_CACHED:-} " in *" $wl_v "*)
		eval "WL=\$$wl_v"
		return 0
		;;
	esac
	if plain "$STATE/written/$1"; then
		while read -r wl_l; do
			WL="$WL${WL:+ }$wl_l"
		done <"$STATE/written/$1"
	fi
	eval "$wl_v=\$WL"
	WL_CACHED="${WL_CACHED:-} $wl_v"
}

written_has() { # NAME MD5
	written_lines "$1"
	case $2 in '') return 1 ;; esac
	case " $WL " in *" $2 "*) return 0 ;; esac
	return 1
}

# set_written NAME LINE... writes state/written/NAME (aside, then renamed)
# and keeps what it wrote for written_lines: read back, it would cost two
# `[` (the file is touched) and on BusyBox 1.00 each is a process.
set_written() {
	sw_f=$STATE/written/$1
	sw_n=$1
	shift
	rm -rf "$sw_f.tmp"
	WL_CACHED=
	case $# in
	1) echo "$1" ;;
	*) echo "$1$NL$2" ;;
	esac >"$sw_f.tmp" && put_file "$sw_f.tmp" "$sw_f" || return 1
	enc "$sw_n" || return 0
	case $# in
	1) eval "WL_$EN=\$1" ;;
	*) eval "WL_$EN=\"\$1 \$2\"" ;;
	esac
	WL_CACHED="WL_$EN"
}

# remember_written NAME MD5 makes state/written/NAME the one line MD5.
remember_written() {
	written_lines "$1"
	case $WL in "$2") return 0 ;; esac
	set_written "$1" "$2"
}

# expect_written NAME MD5 records, before a write, that MD5 is about to be
# live, keeping the hash that is live now: killed half way, the next apply
# knows either file for ours. Nothing to record when MD5 is already all
# state/written/NAME says (a boot that puts our file back).
expect_written() {
	written_lines "$1"
	ew_old=${WL%% *}
	case $ew_old in
	"$2") case $WL in "$2") return 0 ;; esac ;;
	?*)
		set_written "$1" "$2" "$ew_old"
		return
		;;
	esac
	set_written "$1" "$2"
}

forget_written() { # NAME
	touched "$STATE/written/$1"
	WL_CACHED=
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
	plain "$STATE/held/$1" || return 0
	{
		read -r HELD_HASH
		IFS= read -r HELD_WORD
		IFS= read -r HELD_REASON
	} <"$STATE/held/$1"
}

# held_set NAME HASH WORD REASON holds the sources of NAME until they give
# another target; held_set NAME "" releases them.
held_set() {
	touched "$STATE/held/$1"
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

# believe NAME HASH records what this run left in target NAME (its md5,
# or none), for state/applied.
believe() {
	drop "${TBELIEF:-}" "$1"
	TBELIEF="$DROP $1:$2"
}

# ---- writing a target ------------------------------------------------------------

# write_target NAME LIVE SRC writes SRC over LIVE atomically: a copy in the
# target's own folder with LIVE's mode and owner (.BASE.userscript-new,
# the shape of the Go engine's .BASE.userscript-RANDOM), then a rename.
# (The target's folder is the firmware's, root's own: a staging file
# left there by a killed apply is simply written over.)
write_target() {
	wt_tmp=${2%/*}/.${2##*/}.userscript-new
	if ! stage_like "$3" "$2" "$wt_tmp"; then
		rm -f "$wt_tmp"
		return 1
	fi
	touched "$2"
	if ! mv -f "$wt_tmp" "$2"; then
		rm -f "$wt_tmp"
		return 1
	fi
}

# stage_like NEW LIVE TMP copies NEW to TMP with the mode and owner of
# LIVE (a 0600 smb.conf stays 0600), or with the profile's mode (TMODE)
# when there is no LIVE yet.
stage_like() {
	if plain "$2"; then
		# A copy of NEW already gets LIVE's mode and owner when NEW has
		# them (a committed generation's file over a root-owned 0644
		# target): one process less.
		if same_owner_mode "$1" "$2"; then
			cp "$1" "$3"
			return
		fi
		cp -p "$2" "$3" && cat "$1" >"$3"
		return
	fi
	rm -f "$3"
	mode_umask "$TMODE"
	(
		umask "$MU"
		cp "$1" "$3"
	)
}

# same_owner_mode NEW LIVE is true when the look shows NEW and LIVE with
# the same mode and owner, LIVE not written by this run.
same_owner_mode() {
	case ${TOUCHED:-} in *" $2 "*) return 1 ;; esac
	looked "$1" || return 1
	som_m=$LR_MODE:$LR_OWNER
	looked "$2" || return 1
	case $som_m in :*) return 1 ;; "$LR_MODE:$LR_OWNER") return 0 ;; esac
	return 1
}

# mode_umask MODE sets MU to the umask that gives a new file MODE (0644: 022).
mode_umask() {
	mu_m=${1#0}
	mu_out=0
	while case $mu_m in '') false ;; esac; do
		mu_d=${mu_m%"${mu_m#?}"}
		mu_m=${mu_m#?}
		case $mu_d in
		6 | 7) mu_out=${mu_out}0 ;;
		4 | 5) mu_out=${mu_out}2 ;;
		2 | 3) mu_out=${mu_out}4 ;;
		*) mu_out=${mu_out}6 ;;
		esac
	done
	MU=$mu_out
}

# status_word NAME sets SW to the status: word of conf.d/NAME.status
# (empty without one), read in the shell: the look (quick.sh) or a `[`
# says first that it is a plain file, never a FIFO that would block.
status_word() {
	SW=
	sw_f=$CONF/$1.status
	if looked "$sw_f"; then
		case $LR_MODE in -*) ;; *) return 0 ;; esac
	elif [ -L "$sw_f" ] || ! [ -f "$sw_f" ]; then
		return 0
	fi
	{ IFS= read -r SW <"$sw_f"; } 2>/dev/null
	case $SW in "status: "*) ;; *)
		SW=
		return 0
		;;
	esac
	SW=${SW#status: }
	# the CR of the line's end
	SW=${SW%?}
}

# ---- per-target reports --------------------------------------------------------
#
# A report holds the fields of one status file while an apply runs: RP_N
# ("KEY VALUE" lines; N from rp_key), the names with a report in REPORTS.
# Kept in the shell, not in files: on BusyBox 1.00 every echo is a process.

# rp_key NAME sets RK, the number of NAME's report variable.
rp_key() {
	case $RKEYS in
	*" $1="*)
		RK=${RKEYS#*" $1="}
		RK=${RK%% *}
		;;
	*)
		RKN=$((RKN + 1))
		RK=$RKN
		RKEYS="$RKEYS $1=$RK "
		;;
	esac
}

# rp_new NAME starts an empty report for NAME.
rp_new() {
	rp_key "$1"
	eval "RP_$RK="
	case " $REPORTS " in *" $1 "*) ;; *) REPORTS="$REPORTS $1" ;; esac
}

# rp_drop NAME: NAME gets no status file from this apply.
rp_drop() {
	case " $REPORTS " in *" $1 "*) ;; *) return 0 ;; esac
	rp_key "$1"
	eval "RP_$RK="
	rd_o=
	for rd_n in $REPORTS; do
		case $rd_n in "$1") ;; *) rd_o="$rd_o $rd_n" ;; esac
	done
	REPORTS=$rd_o
}

# rp_has NAME is true when NAME has a report.
rp_has() {
	case " $REPORTS " in *" $1 "*) return 0 ;; esac
	return 1
}

# rp_get NAME sets RPV to NAME's report.
rp_get() {
	rp_key "$1"
	eval "RPV=\${RP_$RK:-}"
}

# fset NAME KEY VALUE records a status field; the last value of a key wins,
# warnings, notes and settings add up. A value goes on one line, as the Go
# engine writes it: white space at its ends dropped, each line end " | ".
fset() {
	rp_has "$1" || rp_new "$1"
	fs_v=$3
	case $fs_v in *[[:cntrl:]]* | [[:space:]]* | *[[:space:]]) one_line "$fs_v" && fs_v=$OL ;; esac
	fs_l="$2 $fs_v$NL"
	rp_key "$1"
	eval "RP_$RK=\$RP_$RK\$fs_l"
}

# one_line TEXT sets OL to TEXT trimmed, CRLF and LF as " | ", CR as " ".
one_line() {
	chars
	trim "$1"
	OL=
	ol_r=$TR
	while :; do
		case $ol_r in
		*"$CR$NL"*)
			OL="$OL${ol_r%%"$CR$NL"*} | "
			ol_r=${ol_r#*"$CR$NL"}
			;;
		*"$NL"*)
			OL="$OL${ol_r%%"$NL"*} | "
			ol_r=${ol_r#*"$NL"}
			;;
		*) break ;;
		esac
	done
	OL=$OL$ol_r
	while :; do
		case $OL in
		*"$CR"*) OL="${OL%%"$CR"*} ${OL#*"$CR"}" ;;
		*) break ;;
		esac
	done
}

# fix_list NAME sets FIX to every source of NAME (SOURCES), for a failure
# none of them can be blamed for alone (a checker's verdict, a service
# that did not come up): conf.d/A, conf.d/A or conf.d/B, conf.d/A,
# conf.d/B or conf.d/C; conf.d/NAME without any. (Go: sourcesToFix.)
fix_list() {
	FIX=
	fx_last=
	for fx_s in $SOURCES; do
		case $fx_last in ?*) FIX="$FIX${FIX:+, }conf.d/$fx_last" ;; esac
		fx_last=$fx_s
	done
	case $FIX in
	'') FIX=conf.d/${fx_last:-$1} ;;
	*) FIX="$FIX or conf.d/$fx_last" ;;
	esac
}

# fix_named NAME REASON sets FIX to the first source that REASON names as
# conf.d/FILE, the whole name, else to every source (fix_list). (Go:
# toFix.)
fix_named() {
	for fx_s in $SOURCES; do
		case $2 in *"conf.d/$fx_s" | *"conf.d/$fx_s "* | *"conf.d/$fx_s:"* | *"conf.d/$fx_s,"* | *"conf.d/$fx_s;"* | *"conf.d/$fx_s)"*)
			FIX=conf.d/$fx_s
			return 0
			;;
		esac
	done
	fix_list "$1"
}

refuse() { # NAME FILE REASON TODO
	REFUSED_NOW="${REFUSED_NOW:-} $1"
	fix_named "$1" "$3"
	REFUSED_FIX=$FIX
	REFUSED_REASON=$3
	fset "$1" status "$W_REFUSED"
	fset "$1" file "conf.d/$2"
	fset "$1" reason "$3"
	fset "$1" todo "$4"
	case $3 in 'line '[0-9]*': '* | *'conf.d/'*' line '[0-9]*':'*)
		part offending
		offending "$1" "$3"
		fset "$1" line "$OFF"
		;;
	esac
	log WARN "refused" target="$1" file="conf.d/$2" reason="$3"
}

failed() { # NAME REASON TODO
	fset "$1" status "$W_FAILED"
	fset "$1" reason "$2"
	fset "$1" todo "$3"
	log ERROR "failed" target="$1" reason="$2"
}

# ---- status files -----------------------------------------------------------------

# render NAME WITH_TIME sets ST to the status file for NAME (CRLF lines)
# and r_status to its word.
render() {
	r_status=
	r_file=
	r_target=
	r_sources=
	r_validated=
	r_reason=
	r_todo=
	r_gen=
	r_line=
	r_more=
	rp_get "$1"
	set -f
	r_ifs=$IFS
	IFS=$NL
	for r_l in $RPV; do
		r_k=${r_l%% *}
		r_v=${r_l#* }
		case $r_k in
		status) r_status=$r_v ;;
		file) r_file=$r_v ;;
		target) r_target=$r_v ;;
		sources) r_sources=$r_v ;;
		validated) r_validated=$r_v ;;
		reason) r_reason=$r_v ;;
		todo) r_todo=$r_v ;;
		line) r_line=$r_v ;;
		generation) r_gen=$r_v ;;
		esac
	done
	ST=
	line status "$r_status"
	line file "$r_file"
	line target "$r_target"
	line sources "$r_sources"
	line validated "$r_validated"
	line reason "$r_reason"
	line line "$r_line"
	for r_kind in warning note setting diff; do
		for r_l in $RPV; do
			case $r_l in "$r_kind "*) line "$r_kind" "${r_l#* }" ;; esac
		done
	done
	IFS=$r_ifs
	set +f
	line generation "$r_gen"
	case $2 in yes) line time "$STIME" ;; esac
	case $r_todo in ?*)
		ST="$ST$CR$NL"
		line "what to do" "$r_todo"
		;;
	esac
	return 0
}

line() {
	case $2 in ?*) ST="$ST$1: $2$CR$NL" ;; esac
}

# write_status NAME rewrites conf.d/NAME.status only when a line other
# than time: changed.
write_status() {
	chars
	ws_dst=$CONF/$1.status
	# render sets r_status, which apply prints, also when the file is
	# skipped.
	render "$1" no
	if [ -L "$ws_dst" ] || { [ -e "$ws_dst" ] && ! [ -f "$ws_dst" ]; }; then
		log WARN "not writing a status file over a link, folder or FIFO; skipped it" file="conf.d/$1.status"
		return 0
	fi
	ws_old=
	ws_any=
	if [ -f "$ws_dst" ]; then
		while IFS= read -r ws_l || case $ws_l in '') false ;; esac; do
			ws_any=yes
			case $ws_l in "time: "*) continue ;; esac
			ws_old="$ws_old$ws_l$NL"
		done <"$ws_dst"
		case $ws_any:$ws_old in "yes:$ST") return 0 ;; esac
	fi
	render "$1" yes
	need_work || return 0
	STATE_DIRTY=yes
	# (trimmed in an assignment: see log_flush)
	ws_t=${ST%"$NL"}
	echo "$ws_t" >"$WORK/$1.st" && mv -f "$WORK/$1.st" "$ws_dst"
}
