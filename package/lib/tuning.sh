# shellcheck shell=sh
# userscript sh engine: kernel tuning (conf.d/sysctl.conf, conf.d/tuning.conf).
# Sourced by engine.sh, never run on its own; globals (ROOT, APP, CONF,
# STATE, WORK, CR, TAB, BOM, NL ...) are set by its setup().
# shellcheck disable=SC2154,SC2034,SC2153

# ---- kernel tuning (conf.d/sysctl.conf, conf.d/tuning.conf) ------------------
#
# The Go engine's internal/tuning, line for line: each setting is resolved
# to kernel files under the root, read, written in place when it differs,
# read back, and reported as one `setting:` line of conf.d/sysctl.status or
# conf.d/tuning.status. The value a kernel file had before our first change
# is kept in state/tuning.json (the Go engine's file and format) and put
# back when its setting is gone. Only an apply reads /proc and /sys; an idle
# poll never does.

SYSFS_ALLOWED="block/, class/net/, class/block/, devices/system/cpu/, kernel/mm/transparent_hugepage/, module/*/parameters/"

# tune applies the tuning sources and puts back what a removed setting
# had changed. Like the Go engine, it never changes apply's exit code: the
# status files say what failed.
tune() {
	case $TUNE in '') tune_active || return 0 ;; esac
	need_work || return 0
	tune_load
	: >"$WORK/tu.set"
	TU_REPORTS=
	TU_FAILED=
	TU_WANT=" "
	for tu_f in $TUNING_FILES; do
		tune_source "$tu_f"
	done
	# shellcheck disable=SC2034 # tu_line is read for the record's shape
	while read -r tu_file tu_line tu_kind tu_key tu_val; do
		tune_setting "$tu_file" "$tu_kind" "$tu_key" "$tu_val"
	done <"$WORK/tu.set"
	tune_revert_gone
	tune_save
	for tu_f in $TU_FAILED; do
		fset "${tu_f%.conf}" reason "some settings could not be applied; the others were"
		fset "${tu_f%.conf}" todo "fix or remove the lines marked failed; the kernel's own error is given"
	done
}

# tune_active is true when state/tuning.json remembers a value to put back.
tune_active() {
	plain "$STATE/tuning.json" && grep -q '^  "' "$STATE/tuning.json"
}

# tune_source FILE reads conf.d/FILE into WORK/tu.set ("FILE LINE KIND KEY
# VALUE" a line) and starts its report. FILE.add and FILE.merge are refused.
tune_source() {
	sources_of "$1"
	filled "$SOURCES" || return 0
	tsr_sn=${1%.conf}
	case " $SOURCES " in
	*" $1 "*) ;;
	*)
		for tsr_s in $SOURCES; do
			rp_drop "$tsr_sn"
			fset "$tsr_sn" status "$W_REFUSED"
			fset "$tsr_sn" file "conf.d/$tsr_s"
			fset "$tsr_sn" reason "conf.d/$tsr_s: $1 takes the whole file, not .add or .merge"
		done
		return 0
		;;
	esac
	TU_REPORTS="$TU_REPORTS $1"
	fset "$tsr_sn" status "$W_OK"
	fset "$tsr_sn" file "conf.d/$1"
	fset "$tsr_sn" sources "$1"
	if ! take_source "$1" "$WORK/$1.n"; then
		fset "$tsr_sn" status "$W_REFUSED"
		fset "$tsr_sn" reason "$REASON"
		log WARN "refused" file="conf.d/$1" reason="$REASON"
		return 0
	fi
	tsr_n=0
	while IFS= read -r tsr_l; do
		tsr_n=$((tsr_n + 1))
		trim "$tsr_l"
		case $TR in '' | '#'* | ';'*) continue ;; esac
		if [ "$1" = sysctl.conf ]; then
			parse_sysctl "$tsr_n" "$TR"
		else
			parse_tuning "$tsr_n" "$TR"
		fi
	done <"$WORK/$1.n"
}

# tune_bad FILE LINE MESSAGE reports a line that cannot be used.
tune_bad() {
	fset "${1%.conf}" warning "$1 line $2: $3"
	tune_failed "$1"
	log WARN "tuning" problem="$1 line $2: $3"
}

# parse_sysctl N LINE: `key = value`, dots or slashes, a leading - dropped.
parse_sysctl() {
	case $2 in *=*) ;; *)
		tune_bad sysctl.conf "$1" "expected key = value"
		return 0
		;;
	esac
	trim "${2%%=*}"
	trim "${TR#-}"
	ps_key=$TR
	trim "${2#*=}"
	ps_val=$TR
	if blank "$ps_key"; then
		tune_bad sysctl.conf "$1" "expected key = value"
		return 0
	fi
	sysctl_path "$ps_key"
	if ! check_key "$SP"; then
		tune_bad sysctl.conf "$1" "$CKERR"
		return 0
	fi
	echo "sysctl.conf $1 sysctl $ps_key $ps_val" >>"$WORK/tu.set"
}

# sysctl_path KEY sets SP, the key's path under /proc/sys: dots are
# separators unless the key already uses slashes.
sysctl_path() {
	SP=$1
	case $SP in
	*/*) ;;
	*)
		sy_in=$SP
		SP=
		while :; do
			case $sy_in in
			*.*)
				SP="$SP${sy_in%%.*}/"
				sy_in=${sy_in#*.}
				;;
			*)
				SP="$SP$sy_in"
				break
				;;
			esac
		done
		;;
	esac
	SP=${SP#/}
}

# parse_tuning N LINE: `KIND KEY = VALUE`.
parse_tuning() {
	pt_l=$2
	pt_eq=
	case $pt_l in *=*) pt_eq=yes ;; esac
	trim "${pt_l#*=}"
	pt_val=$TR
	set -f
	# shellcheck disable=SC2086 # split KIND and KEY on blanks on purpose
	set -- "$1" ${pt_l%%=*}
	set +f
	if blank "$pt_eq" || [ $# -ne 3 ] || blank "$pt_val"; then
		tune_bad tuning.conf "$1" "expected KIND KEY = VALUE, e.g. txqueuelen eth0 = 10000"
		return 0
	fi
	case $2 in
	sysfs)
		if ! check_key "$3"; then
			tune_bad tuning.conf "$1" "$CKERR"
			return 0
		fi
		if ! sysfs_allowed "$3"; then
			goquote "$3"
			tune_bad tuning.conf "$1" "sysfs path $GQ is not one userscript writes (allowed: $SYSFS_ALLOWED)"
			return 0
		fi
		;;
	txqueuelen | irq)
		pt_what="irq name"
		[ "$2" = irq ] || pt_what=interface
		if ! check_word "$3"; then
			tune_bad tuning.conf "$1" "$pt_what $CKERR"
			return 0
		fi
		goquote "$pt_val"
		case $2:$pt_val in
		txqueuelen:*[!0-9]*)
			tune_bad tuning.conf "$1" "txqueuelen must be a number, not $GQ"
			return 0
			;;
		irq:*[!0-9a-fA-F,]*)
			tune_bad tuning.conf "$1" "irq wants a CPU mask in hex like 2 (CPU 1) or 3 (CPUs 0 and 1), not $GQ"
			return 0
			;;
		esac
		;;
	cpufreq)
		case $3 in */*/*) pt_ok= ;; *) pt_ok=yes ;; esac
		if ! check_key "$3" || blank "$pt_ok"; then
			goquote "$3"
			tune_bad tuning.conf "$1" "cpufreq key $GQ: use governor, min_freq, max_freq, scaling_* or GOVERNOR/TUNABLE"
			return 0
		fi
		;;
	*)
		goquote "$2"
		tune_bad tuning.conf "$1" "unknown kind $GQ: use sysfs, txqueuelen, irq or cpufreq"
		return 0
		;;
	esac
	echo "tuning.conf $1 $2 $3 $pt_val" >>"$WORK/tu.set"
}

# sysfs_allowed PATH: the parts of /sys tuning.conf may write (block
# queues, network devices, CPU frequency, transparent huge pages, module
# parameters); nothing that powers off, removes or rebinds devices.
sysfs_allowed() {
	case $1 in
	block/* | class/net/* | class/block/* | devices/system/cpu/* | kernel/mm/transparent_hugepage/*) return 0 ;;
	module/*)
		case $1 in */parameters/*) return 0 ;; esac
		;;
	esac
	return 1
}

# check_key PATH is true for a clean relative path of plain names and glob
# characters; else CKERR says why (the Go engine's words).
check_key() {
	ck_p=$1
	goquote "$ck_p"
	ck_q=$GQ
	ck_dirty=
	case $1 in
	'' | /*) ck_dirty=yes ;;
	*//* | */) ck_dirty=yes ;;
	esac
	ck_dots=
	if blank "$ck_dirty"; then
		ck_up=yes
		set -f
		ck_ifs=$IFS
		IFS=/
		# shellcheck disable=SC2086 # split on / on purpose
		set -- $1
		IFS=$ck_ifs
		set +f
		for ck_part in "$@"; do
			case $ck_part in
			.)
				ck_dots=yes
				[ $# -eq 1 ] || ck_dirty=yes
				;;
			..)
				ck_dots=yes
				filled "$ck_up" || ck_dirty=yes
				;;
			*) ck_up= ;;
			esac
		done
	fi
	if filled "$ck_dirty"; then
		CKERR="$ck_q is not a clean relative path"
		return 1
	fi
	if filled "$ck_dots"; then
		CKERR="$ck_q climbs out with .."
		return 1
	fi
	case $ck_p in
	*[!]A-Za-z0-9._/*?:+[-]*)
		ck_rest=${ck_p#"${ck_p%%[!]A-Za-z0-9._/*?:+[-]*}"}
		runequote "${ck_rest%"${ck_rest#?}"}"
		CKERR="$ck_q holds $RQ"
		return 1
		;;
	esac
	return 0
}

# check_word NAME: a plain name (an interface, an IRQ's device).
check_word() {
	case $1 in
	.* | */* | *\** | *\?* | *\[* | *\]*)
		goquote "$1"
		CKERR="$GQ must be a plain name"
		return 1
		;;
	esac
	check_key "$1"
}

# goquote TEXT sets GQ to TEXT in double quotes, escaped as Go's %q does
# for the characters a line can hold.
goquote() {
	case $1 in
	*[\\\""$TAB$CR"]*) ;;
	*)
		GQ="\"$1\""
		return 0
		;;
	esac
	GQ=
	gq_r=$1
	while filled "$gq_r"; do
		gq_c=${gq_r%"${gq_r#?}"}
		gq_r=${gq_r#?}
		case $gq_c in
		\\) GQ="$GQ\\\\" ;;
		\") GQ="$GQ\\\"" ;;
		"$TAB") GQ="$GQ\\t" ;;
		"$CR") GQ="$GQ\\r" ;;
		"$NL") GQ="$GQ\\n" ;;
		*) GQ="$GQ$gq_c" ;;
		esac
	done
	GQ="\"$GQ\""
}

# runequote CHAR sets RQ to CHAR in single quotes, as Go's %q of a rune.
runequote() {
	case $1 in
	\') RQ="'\\''" ;;
	\\) RQ="'\\\\'" ;;
	"$TAB") RQ="'\\t'" ;;
	*) RQ="'$1'" ;;
	esac
}
