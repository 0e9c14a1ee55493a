# shellcheck shell=sh
# userscript sh engine: the look and the quick apply. On BusyBox 1.00
# every `[`, `echo` and command substitution is a process, so an apply
# starts with one look at everything it depends on:
#
#   - one `ls -lniA` of the targets, the app dir, conf.d and state's
#     folders (types, sizes, links: what `[` would answer; see looked in
#     common.sh), and
#   - one `md5sum` (bounded in time: conf.d is on the share, and a FIFO
#     swapped in would block it) of the targets, the sources, the bases,
#     userscript.toml, lib/profile, lib/version and the newest committed
#     generation's files.
#
# From that look it decides, without another process:
#
#   - nothing changed since the last clean apply (state/applied holds
#     what that apply saw and left): nothing is done at all;
#   - a target whose sources and base are what they were when its
#     content was last computed gets that content again without being
#     read, composed or validated (state/applied keeps "want" lines: the
#     hashes of the inputs and the hash of the target they gave): it is
#     unchanged, or, when the newest committed generation holds exactly
#     it (a boot after the ROM was restored), it is copied straight from
#     state/gen (docs/FORMATS.md: committed content is neither validated
#     nor journalled again). Anything else takes the full path
#     (plan.sh plan_item).
#
# state/applied is written at the end of an apply that ended clean (exit
# 0 or 3, nothing paused), under the lock: the sources as the apply
# found them at its start (an edit during the apply is seen by the next
# one), the status files and state folders as it left them, each
# target's hash. Sourced by engine.sh.
# shellcheck disable=SC2154,SC2034,SC2153

# LOOK_MAX: a conf.d with more names than this (stray files) is looked
# at, but no apply is skipped for it: its fingerprint would be too big.
LOOK_MAX=200
# EMPTY_MD5: the md5 of nothing (a missing file is an empty base).
EMPTY_MD5=d41d8cd98f00b204e9800998ecf8427e
# OUT_MAX: state/out/SERVICE.log is emptied over this many bytes (by the
# next look).
OUT_MAX=65536
# MD5_TIMEOUT: seconds the look's md5sum may take.
MD5_TIMEOUT=20

# look takes the look (LK_* and LKK_* for looked) and the lines of the
# fingerprint it gives: LK_S (conf.d's names, its sources' part) and
# LK_R (status files and state folders). LOOKED is yes once it worked.
look() {
	LOOKED=
	for lk_v in ${LK_VARS:-}; do
		unset "$lk_v"
	done
	LK_VARS=
	LK_S=
	LK_R=
	LK_N=0
	# The newest two generations' folders are listed too (recovery and
	# the last committed content read them).
	gen_dirs
	lk_gd=
	lk_i=0
	for lk_g in $GENS; do
		lk_i=$((lk_i + 1))
	done
	LK_GENS=
	for lk_g in $GENS; do
		case $((lk_i > 2)) in 1) lk_i=$((lk_i - 1)) && continue ;; esac
		id_dir "$lk_g"
		lk_gd="$lk_gd $ID_DIR $ID_DIR/files"
		LK_GENS="$LK_GENS $lk_g"
	done
	set -f
	# shellcheck disable=SC2086 # TPATHS and lk_gd are lists of paths without blanks
	lk_out=$(ls -lniA -- $TPATHS "$APP" "$CONF" "$CONF/.firmware" "$STATE" "$STATE/written" "$STATE/held" "$STATE/base" "$STATE/rebased" "$STATE/gen" "$STATE/out" $lk_gd 2>/dev/null)
	lk_ifs=$IFS
	IFS=$NL
	# A conf.d of thousands of stray names is not looked at name by name
	# (the shell would take seconds): its entries are then unknown to the
	# look (looked falls back to `[`), and no apply is skipped.
	# shellcheck disable=SC2086 # one line each
	set -- $lk_out
	lk_big=
	case $(($# > LOOK_MAX + 40)) in 1) lk_big=yes ;; esac
	lk_dir=
	lk_conf=
	lk_skip=
	for lk_l in $lk_out; do
		case $lk_l in
		/*:)
			lk_dir=${lk_l%:}
			lk_skip=
			case $lk_dir in "$CONF")
				lk_conf=yes
				case $lk_big in yes)
					lk_skip=yes
					LK_N=$((LOOK_MAX + 1))
					continue
					;;
				esac
				;;
			esac
			pvar "$lk_dir/x" && lk_known "$PVNS"
			continue
			;;
		'' | 'total '*) continue ;;
		esac
		case $lk_skip in yes) continue ;; esac
		IFS=' '
		# shellcheck disable=SC2086 # ls's fields
		set -- $lk_l
		lk_f="$*"
		IFS=$NL
		# (a name holding a newline gives a line of its end alone)
		case $# in [0-6]) continue ;; esac
		case $2 in
		l*)
			lk_n=${lk_l% -> *}
			lk_n=${lk_n##* }
			;;
		*) lk_n=${lk_l##* } ;;
		esac
		case $lk_dir in '') lk_p=$lk_n ;; *) lk_p=$lk_dir/$lk_n ;; esac
		if pvar "$lk_p"; then
			lk_rec="$2 $3 $4 $5 $6"
			eval "LK_$PV=\$lk_rec"
			LK_VARS="$LK_VARS LK_$PV"
		fi
		case $lk_dir in
		"$CONF")
			ignored "$lk_n" && continue
			case $lk_n in
			*.status) LK_R="${LK_R}R $lk_f$NL" ;;
			*)
				LK_N=$((LK_N + 1))
				LK_S="${LK_S}S $lk_f$NL"
				;;
			esac
			;;
		"$APP")
			case $lk_n in conf.d | state | lib | userscript.toml) LK_S="${LK_S}S $lk_n $2$NL" ;; esac
			;;
		"$STATE")
			case $lk_n in base | written | held | gen | tuning.json) LK_R="${LK_R}R $lk_f$NL" ;; esac
			;;
		"$STATE/written" | "$STATE/held" | "$STATE/base" | "$STATE/gen") LK_R="${LK_R}R $lk_f$NL" ;;
		"$STATE/out")
			# What a restart printed is emptied once over OUT_MAX (a daemon
			# left writing into it): here, at the next look.
			case $2:$6 in -*:*[!0-9]* | -*:) ;; -*:*)
				case $((${#6} > 9)) in 1) : >"$lk_p" ;; *) case $(($6 > OUT_MAX)) in 1) : >"$lk_p" ;; esac ;; esac
				;;
			esac
			;;
		esac
	done
	IFS=$lk_ifs
	set +f
	case $lk_conf in yes) ;; *) return 1 ;; esac
	LOOKED=yes
	# A folder the look was given but found missing holds nothing; a
	# target it was given and did not show is not there.
	lk_known T
	for lk_p in "$CONF/.firmware" "$STATE/written" "$STATE/held" "$STATE/base" "$STATE/rebased" "$STATE/gen" "$STATE/out"; do
		looked "$lk_p" || continue
		case $LR_MODE in '') pvar "$lk_p/x" && lk_known "$PVNS" ;; esac
	done
	return 0
}

# lk_known NS: the look knows every entry of the folder NS.
lk_known() {
	eval "LKK_$1=yes"
	LK_VARS="$LK_VARS LKK_$1"
}

# quick_look takes the look and the hashes, and sets the fingerprint of
# what the apply starts from: FP_S (sources), FP_T (targets), FP_R (the
# rest), QKEY_G (the inputs every target depends on). QUICK is yes when
# the apply may decide from them.
quick_look() {
	QUICK=
	FP_S=
	FP_T=
	FP_R=
	look || return 1
	state_read
	# What to hash: every plain file among the targets, their sources
	# and bases, the tuning sources, the settings and the profile.
	qk_files=
	for qk_n in $TARGETS; do
		profile_target "$qk_n"
		qk_hash "$ROOT$TPATH"
		for qk_s in "$qk_n" "$qk_n.add" "$qk_n.merge"; do
			qk_hash "$CONF/$qk_s" source
		done
		qk_hash "$STATE/base/$qk_n"
		qk_hash "$CONF/.firmware/$qk_n"
	done
	for qk_s in $TUNING_FILES; do
		qk_hash "$CONF/$qk_s" source
	done
	qk_hash "$APP/userscript.toml"
	qk_files="$qk_files $LIB/profile $LIB/version"
	committed_all
	for qk_e in $LC_GENS; do
		id_dir "${qk_e#*:}"
		qk_hash "$ID_DIR/files/${qk_e%%:*}"
	done
	# shellcheck disable=SC2086 # paths without blanks
	md5_bounded "$MD5_TIMEOUT" $qk_files || return 1
	{ read -r BOOTID <"$ROOT/proc/sys/kernel/random/boot_id"; } 2>/dev/null || BOOTID=
	FP_S="S root $ROOT${NL}S boot $BOOTID$NL$LK_S"
	QKEY_G=
	for qk_p in "$APP/userscript.toml" "$LIB/profile" "$LIB/version"; do
		h_of "$qk_p"
		QKEY_G="$QKEY_G${H:--}/"
		FP_S="${FP_S}S $qk_p ${H:--}$NL"
	done
	for qk_n in $TARGETS $TUNING_FILES; do
		for qk_s in "$qk_n" "$qk_n.add" "$qk_n.merge"; do
			h_of "$CONF/$qk_s"
			case $H in ?*) FP_S="${FP_S}S $qk_s $H$NL" ;; esac
		done
	done
	for qk_n in $TARGETS; do
		target_line "$qk_n"
		FP_T="$FP_T$TL"
	done
	FP_R=$LK_R
	case $((LK_N > LOOK_MAX)) in 0) QUICK=yes ;; esac
	return 0
}

# state_read reads state/applied (SR_APPLIED) and the newest two
# generations' meta.json (gen_read's cache) with one cat: the shell's
# read takes a system call a byte, and a process each would cost more.
state_read() {
	SR_APPLIED=
	sr_files=
	plain "$STATE/applied" && sr_files=$STATE/applied
	for sr_i in $LK_GENS; do
		id_dir "$sr_i"
		plain "$ID_DIR/meta.json" && sr_files="$sr_files $ID_DIR/meta.json"
	done
	case $sr_files in '') return 0 ;; esac
	# shellcheck disable=SC2086 # paths without blanks
	sr_text=$(cat $sr_files 2>/dev/null)
	set -f
	sr_ifs=$IFS
	IFS=$NL
	sr_in=applied
	sr_meta=
	sr_id=
	for sr_l in $sr_text; do
		case $sr_in:$sr_l in
		*:'{')
			sr_in=meta
			sr_meta=$sr_l
			sr_id=
			;;
		meta:'}')
			case $sr_id in ?*)
				eval "GR_$sr_id=\$sr_meta\$NL\$sr_l"
				GR_CACHED="${GR_CACHED:-} $sr_id"
				;;
			esac
			sr_in=over
			;;
		meta:*)
			sr_meta="$sr_meta$NL$sr_l"
			case $sr_l in '  "id": '*)
				sr_id=${sr_l#*: }
				sr_id=${sr_id%,}
				num "$sr_id" || sr_id=
				;;
			esac
			;;
		applied:*) SR_APPLIED="$SR_APPLIED$sr_l$NL" ;;
		esac
	done
	IFS=$sr_ifs
	set +f
}

# qk_hash PATH [source] adds PATH to what the look hashes when the look
# shows a plain file (a source: one link, at most MAX_SIZE bytes).
qk_hash() {
	looked "$1" || return 0
	case $LR_MODE in -*) ;; *) return 0 ;; esac
	case ${2:-} in
	source)
		case $LR_LINKS:$LR_SIZE in 1:[0-9] | 1:[0-9]*[0-9]) ;; *) return 0 ;; esac
		case $((${#LR_SIZE} > 7)) in 1) return 0 ;; esac
		case $((LR_SIZE > MAX_SIZE)) in 1) return 0 ;; esac
		;;
	esac
	qk_files="$qk_files $1"
}

# target_line NAME sets TL to NAME's line of the fingerprint, from the
# look: its hash, `none` when there is no file, or its mode.
target_line() {
	profile_target "$1"
	looked "$ROOT$TPATH"
	case $LR_MODE in
	'') TL="T $1 none$NL" ;;
	-*)
		h_of "$ROOT$TPATH"
		TL="T $1 ${H:-unread}$NL"
		;;
	*) TL="T $1 $LR_MODE$NL" ;;
	esac
}

# h_of PATH sets H to PATH's md5 from the look (empty when not hashed, or
# when this run wrote or removed PATH since: recovery puts files back
# before the plan reads them).
h_of() {
	H=
	case ${TOUCHED:-} in *" $1 "*) return 0 ;; esac
	pvar "$1" || return 0
	eval "H=\${MH_$PV-}"
}

# md5_bounded SECONDS FILE... hashes the files (MH_*, h_of); it fails
# when md5sum did not end in time.
md5_bounded() {
	mb_t=$1
	shift
	for mb_f in "$@"; do
		pvar "$mb_f" && unset "MH_$PV"
	done
	case $# in 0) return 0 ;; esac
	mb_out=$(
		md5sum "$@" 2>/dev/null &
		mb_p=$!
		dog "$mb_p" "$mb_t" /dev/null </dev/null >/dev/null 2>&1 &
		mb_d=$!
		wait "$mb_p"
		mb_rc=$?
		kill "$mb_d" 2>/dev/null
		exit "$mb_rc"
	)
	mb_rc=$?
	set -f
	mb_ifs=$IFS
	IFS=$NL
	for mb_l in $mb_out; do
		pvar "${mb_l#*  }" || continue
		mb_h=${mb_l%% *}
		eval "MH_$PV=\$mb_h"
	done
	IFS=$mb_ifs
	set +f
	case $mb_rc in 137 | 143) return 1 ;; esac
	return 0
}

# ---- state/applied ---------------------------------------------------------

# fp_read sets SV (what the last clean apply saw and left: its S, T and R
# lines), SV_W (its want lines, each after a newline), SV_O (what it
# printed) and SV_RC (its exit).
fp_read() {
	SV=
	SV_W=$NL
	SV_O=
	SV_RC=
	fr_text=$SR_APPLIED
	case $fr_text in "userscript-sh-applied 1$NL"*) ;; *) return 1 ;; esac
	set -f
	fr_ifs=$IFS
	IFS=$NL
	for fr_l in $fr_text; do
		case $fr_l in
		'S '* | 'T '* | 'R '*) SV="$SV$fr_l$NL" ;;
		'W '*) SV_W="$SV_W${fr_l#W }$NL" ;;
		'O '*) SV_O="$SV_O${fr_l#O }$NL" ;;
		'rc '*) SV_RC=${fr_l#rc } ;;
		esac
	done
	IFS=$fr_ifs
	set +f
	case $SV_RC in 0 | 3) return 0 ;; esac
	return 1
}

# apply_quick is true when nothing an apply depends on changed since the
# last clean apply: it prints what that apply printed, QUICK_RC is its
# exit. Two processes on every BusyBox (ls, md5sum) and the md5sum's
# watchdog.
apply_quick() {
	QUICK_RC=
	SV_W=$NL
	quick_look || return 1
	# A start after one that did not end is counted (wayout.sh).
	case ${START:-} in yes)
		if looked "$STATE/starts"; then
			case $LR_MODE in ?*) return 1 ;; esac
		fi
		;;
	esac
	fp_read || return 1
	case $QUICK in yes) ;; *) return 1 ;; esac
	case $FP_S$FP_T$FP_R in "$SV") ;; *) return 1 ;; esac
	set -f
	qa_ifs=$IFS
	IFS=$NL
	for qa_l in $SV_O; do
		echo "$qa_l"
	done
	IFS=$qa_ifs
	set +f
	QUICK_RC=$SV_RC
	return 0
}

# fp_save RC writes state/applied after an apply that ended clean: FP_S
# from the start, each target as this apply left it (what it wrote or
# put back, else what the look saw), the status files and state folders
# as it left them (a second look, unless it wrote none of them), the want
# lines (FP_W) and what it printed (FP_O). Otherwise state/applied goes:
# the next apply is a full one.
fp_save() {
	case $QUICK:$1:${PAUSED:-} in yes:0: | yes:3:) ;; *)
		fp_forget
		return 0
		;;
	esac
	fs_t=$NL$FP_T
	fs_t2=
	for fs_n in $TARGETS; do
		if hv "${TBELIEF:-}" "$fs_n"; then
			fs_t2="${fs_t2}T $fs_n $HV$NL"
		else
			fs_l=${fs_t#*"${NL}T $fs_n "}
			fs_t2="${fs_t2}T $fs_n ${fs_l%%"$NL"*}$NL"
		fi
	done
	case ${STATE_DIRTY:-} in yes)
		if ! look; then
			fp_forget
			return 0
		fi
		;;
	esac
	{
		echo "userscript-sh-applied 1$NL$FP_S$fs_t2$LK_R${FP_W}${FP_O}rc $1"
	} >"$STATE/lock.d/applied" 2>/dev/null && put_file "$STATE/lock.d/applied" "$STATE/applied"
}

# fp_forget removes state/applied: the next apply is a full one.
fp_forget() {
	looked "$STATE/applied" && case $LR_MODE in '') return 0 ;; esac
	rm -f "$STATE/applied"
}

# want_line NAME WANT KEY adds NAME's want line to FP_W.
want_line() {
	FP_W="${FP_W}W $1 $2 $3$NL"
}

# ---- the quick plan of one target --------------------------------------------

# quick_key NAME BASEHASH sets QK, the hashes of everything NAME's content
# is made of (settings and profile, each source, the base when there is
# no replacement), or fails when a source was not hashed.
quick_key() {
	QK=$QKEY_G
	for qy_s in $SOURCES; do
		h_of "$CONF/$qy_s"
		case $H in '') return 1 ;; esac
		QK="$QK $qy_s=$H"
	done
	case " $SOURCES " in *" $1 "*) ;; *) QK="$QK base=$2" ;; esac
	return 0
}

# quick_item NAME plans NAME from the look alone, when its content is known
# (its want line matches its inputs) and it is either live already or the
# newest committed generation's: true when it did, false when plan_item
# must (nothing was changed then).
quick_item() {
	case ${QUICK:-} in yes) ;; *) return 1 ;; esac
	profile_target "$1" || return 1
	qi_live=$ROOT$TPATH
	sources_of "$1"
	case $SOURCES in '') return 1 ;; esac
	hv "$PAUSED" "$1" && return 1
	looked "$qi_live" || return 1
	LIVE_OK=
	LIVE_HASH=
	case $LR_MODE in
	'') ;;
	-*)
		h_of "$qi_live"
		case $H in '') return 1 ;; esac
		LIVE_OK=yes
		LIVE_HASH=$H
		;;
	*) return 1 ;;
	esac
	written_lines "$1"
	qi_ours=
	case $LIVE_HASH in ?*) case " $WL " in *" $LIVE_HASH "*) qi_ours=yes ;; esac ;; esac
	h_of "$STATE/base/$1"
	qi_stored=$H
	# The firmware's file changed under the sources, or did before and
	# the note stays (firmware.sh): planned in full.
	looked "$STATE/rebased/$1" || return 1
	case $LR_MODE in ?*) return 1 ;; esac
	case $qi_ours:$LIVE_OK:$qi_stored in
	:yes:?*) case $qi_stored in "$LIVE_HASH") ;; *) return 1 ;; esac ;;
	esac
	case $qi_ours:$qi_stored in
	yes:) return 1 ;;
	yes:*) qi_base=$qi_stored ;;
	# The live file is the firmware's: it is the base (none: empty).
	*) qi_base=${LIVE_HASH:-$EMPTY_MD5} ;;
	esac
	quick_key "$1" "$qi_base" || return 1
	case $SV_W in *"$NL$1 "*) ;; *) return 1 ;; esac
	qi_w=${SV_W#*"$NL$1 "}
	qi_w=${qi_w%%"$NL"*}
	case ${qi_w#* } in "$QK") ;; *) return 1 ;; esac
	qi_want=${qi_w%% *}
	# Held (on its sources' fingerprint): planned in full.
	held_read "$1"
	case $HELD_HASH in ?*) return 1 ;; esac
	case $LIVE_OK:$LIVE_HASH in
	yes:"$qi_want")
		status_word "$1"
		case $SW in "$W_OK" | "$W_NOT_VALIDATED") ;; *) return 1 ;; esac
		quick_base "$1" || return 1
		case $qi_ours in '') remember_written "$1" "$LIVE_HASH" ;; esac
		want_line "$1" "$qi_want" "$QK"
		return 0
		;;
	esac
	# It is the target's last committed content (a boot after the ROM was
	# restored): its file goes back, proven when it was committed.
	case " $LC_FILES " in *" $1:$qi_want "*) ;; *) return 1 ;; esac
	hv "$LC_GENS" "$1"
	id_dir "$HV"
	qi_cf=$ID_DIR/files/$1
	h_of "$qi_cf"
	case $H in "$qi_want") ;; *) return 1 ;; esac
	quick_base "$1" || return 1
	report_start "$1"
	status_word "$1"
	case $SW in
	"$W_OK" | "$W_NOT_VALIDATED")
		fset "$1" status "$SW"
		QUIET="$QUIET $1"
		;;
	*) fset "$1" status "$W_OK" ;;
	esac
	want_line "$1" "$qi_want" "$QK"
	WHS="$WHS $1:$qi_want"
	TSRC="$TSRC $1:$qi_cf"
	case $qi_ours:$LIVE_OK in
	yes:*) add_out "$1" ;;
	:yes)
		# What is live is the base just captured: no copy is needed to
		# put it back.
		OUTS="$OUTS $1"
		LIVEOK="$LIVEOK $1"
		TPREV="$TPREV $1:$STATE/base/$1"
		;;
	*) OUTS="$OUTS $1" ;;
	esac
	return 0
}

# quick_base NAME: the live file is the firmware's (not ours): it becomes
# state/base/NAME unless that already holds it; something else wrote over
# our file (the firmware, its web GUI) when we had written one.
quick_base() {
	case $LIVE_HASH in ?*) LHS="$LHS $1:$LIVE_HASH" ;; esac
	case $qi_ours in yes) return 0 ;; esac
	case $qi_stored in
	"$qi_base") ;;
	*) set_base "$1" "$qi_live" || return 1 ;;
	esac
	case $LIVE_OK in yes) fw_seen "$1" "$STATE/base/$1" "$LIVE_HASH" ;; esac
	case $WL:$LIVE_OK in
	?*:yes)
		DRIFTED="$DRIFTED $1"
		case ${CAPTURE:-} in yes) capture_drift "$1" "$qi_live" ;; esac
		;;
	esac
	return 0
}
