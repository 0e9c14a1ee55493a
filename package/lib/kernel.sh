# shellcheck shell=sh
# userscript sh engine: tuning's kernel files (/proc/sys, /sys, /proc/irq).
# Sourced by engine.sh, never run on its own; globals (ROOT, APP, CONF,
# STATE, WORK, CR, TAB, BOM, NL ...) are set by its setup().
# shellcheck disable=SC2154,SC2034,SC2153

# ---- tuning: kernel files ----------------------------------------------------

# tune_setting FILE KIND KEY VALUE applies one setting to every kernel
# file it names.
tune_setting() {
	: >"$WORK/tu.p"
	TWHY=
	tune_paths "$2" "$3"
	if ! [ -s "$WORK/tu.p" ]; then
		tune_row "$1" "$2 $3" "$4" unsupported "" "$TWHY"
		return 0
	fi
	while read -r tst_p; do
		TU_WANT="$TU_WANT$tst_p "
		tune_set "$1" "$2 $3" "$2" "$4" "$tst_p"
	done <"$WORK/tu.p"
}

# tune_paths KIND KEY lists the device paths of a setting in WORK/tu.p;
# when there are none, TWHY says why.
tune_paths() {
	case $1 in
	sysctl)
		sysctl_path "$2"
		existing "/proc/sys/$SP"
		;;
	sysfs) existing "/sys/$2" ;;
	txqueuelen) existing "/sys/class/net/$2/tx_queue_len" ;;
	irq) irq_paths "$2" ;;
	cpufreq) cpufreq_paths "$2" ;;
	esac
}

# existing PATTERN appends the device paths matching PATTERN under the
# root to WORK/tu.p.
existing() {
	ex_n=0
	for ex_m in "$ROOT"$1; do
		[ -e "$ex_m" ] || [ -L "$ex_m" ] || continue
		case $ex_m in *[" $TAB"]*) continue ;; esac
		echo "${ex_m#"$ROOT"}" >>"$WORK/tu.p"
		ex_n=$((ex_n + 1))
	done
	[ "$ex_n" -gt 0 ] && return 0
	TWHY="$1 does not exist on this kernel"
	return 1
}

cpufreq_paths() {
	cp_cpus="/sys/devices/system/cpu/cpu[0-9]*/cpufreq"
	case $1 in
	governor) existing "$cp_cpus/scaling_governor" ;;
	min_freq | max_freq) existing "$cp_cpus/scaling_$1" ;;
	scaling_*) existing "$cp_cpus/$1" ;;
	*/*)
		# A governor's tunable: system-wide on most kernels, per CPU on
		# some.
		existing "/sys/devices/system/cpu/cpufreq/$1" || existing "$cp_cpus/$1"
		;;
	*)
		goquote "$1"
		TWHY="cpufreq key $GQ is not known"
		;;
	esac
}

# irq_paths NAME: every IRQ whose /proc/interrupts line names the device,
# never a hard-coded number (they change between kernels and boards).
irq_paths() {
	ip_f=$ROOT/proc/interrupts
	if ! cat -- "$ip_f" >"$WORK/tu.irq" 2>"$WORK/tu.err" || [ -s "$WORK/tu.err" ]; then
		kernel_error
		ip_op=open
		[ ! -d "$ip_f" ] || ip_op="read"
		TWHY="cannot read /proc/interrupts: $ip_op $ip_f: $KERR"
		return 0
	fi
	irqs_named "$1" <"$WORK/tu.irq"
	for ip_irq in $IRQS; do
		existing "/proc/irq/$ip_irq/smp_affinity"
	done
	[ -s "$WORK/tu.p" ] || TWHY="no IRQ named $1 in /proc/interrupts"
}

# irqs_named NAME reads /proc/interrupts and sets IRQS to the IRQs whose
# line names the device after the per-CPU counters: a word NAME, or NAME-
# or NAME: followed by more (eth0-rx). eth0 does not match eth10.
irqs_named() {
	in_name=$1
	IRQS=
	in_ncpu=-1
	while read -r in_l; do
		set -f
		# shellcheck disable=SC2086 # split the line into fields on purpose
		set -- $in_l
		set +f
		if [ "$in_ncpu" -lt 0 ]; then
			in_ncpu=$#
			continue
		fi
		[ $# -ge 2 ] || continue
		in_irq=${1%:}
		[ "$in_irq" != "$1" ] || continue
		case $in_irq in '' | *[!0-9]*) continue ;; esac
		shift
		[ $# -le "$in_ncpu" ] || shift "$in_ncpu"
		for in_w in "$@"; do
			case ",$in_w" in
			*",$in_name,"* | *",$in_name" | *",$in_name-"* | *",$in_name:"*)
				case " $IRQS " in *" $in_irq "*) ;; *) IRQS="$IRQS $in_irq" ;; esac
				;;
			esac
		done
	done
}

# tune_set FILE NAME KIND VALUE PATH: read, compare, write in place, read
# back. The value found before our first change is remembered.
tune_set() {
	if ! kread "$5"; then
		tune_row "$1" "$2" "$4" failed "$5" "cannot read: $KERR"
		return 0
	fi
	tse_cur=$KV
	if same "$3" "$tse_cur" "$4"; then
		tune_row "$1" "$2" "$4" "already set" "$5" ""
		return 0
	fi
	if ! kwrite "$5" "$4"; then
		tune_row "$1" "$2" "$4" failed "$5" "$KERR"
		return 0
	fi
	prev_has "$5" || prev_add "$5" "$1" "$(selected "$tse_cur")"
	if ! kread "$5"; then
		tune_row "$1" "$2" "$4" failed "$5" "cannot read back: $KERR"
	elif ! same "$3" "$KV" "$4"; then
		goquote "$KV"
		tune_row "$1" "$2" "$4" failed "$5" "the kernel kept $GQ"
	else
		tune_row "$1" "$2" "$4" applied "$5" ""
	fi
}

# tune_row FILE NAME WANT RESULT PATH REASON logs one result and adds it to
# FILE's status as the Go engine words it.
tune_row() {
	tr_s="$2 = $3: $4"
	if [ -n "$5" ] && [ "$4" != "already set" ]; then
		tr_s="$tr_s ($5)"
	fi
	[ -z "$6" ] || tr_s="$tr_s: $6"
	log INFO "tuning" setting="$tr_s"
	case " $TU_REPORTS " in *" $1 "*) ;; *) return 0 ;; esac
	fset "${1%.conf}" setting "$tr_s"
	[ "$4" != failed ] || tune_failed "$1"
}

tune_failed() { # FILE
	fset "${1%.conf}" status "$W_FAILED"
	case " $TU_FAILED " in *" $1 "*) ;; *) TU_FAILED="$TU_FAILED $1" ;; esac
}

# kread PATH sets KV to the kernel file's value without surrounding blanks,
# or KERR to the kernel's error.
kread() {
	# BusyBox 1.00's cat exits 0 on a read error: what it says on stderr
	# counts too, so an unreadable file is never taken for the value "".
	# shellcheck disable=SC2015 # C when A or B fails, on purpose
	KV=$(cat -- "$ROOT$1" 2>"$WORK/tu.err") && ! [ -s "$WORK/tu.err" ] || {
		kernel_error
		return 1
	}
	trim "$KV"
	KV=$TR
}

# kwrite PATH VALUE writes VALUE and a newline into the kernel file in one
# write, in place (never a rename); KERR is the kernel's error.
kwrite() {
	case $2 in
	-* | *\\*)
		# echo could take these for options or escapes
		{
			cat >"$ROOT$1" <<KWEOF
$2
KWEOF
		} 2>"$WORK/tu.err"
		;;
	*) { echo "$2" >"$ROOT$1"; } 2>"$WORK/tu.err" ;;
	esac || {
		kernel_error
		return 1
	}
}

# kernel_error sets KERR to the error in WORK/tu.err in Go's words: the
# C library's message after the last ": ", its first letter in lower case.
kernel_error() {
	KERR=$(tail -n 1 "$WORK/tu.err" 2>/dev/null)
	KERR=${KERR##*: }
	filled "$KERR" || KERR="unknown error"
	ke_first=${KERR%"${KERR#?}"}
	case $ke_first in
	[A-Z]) KERR="$(echo "$ke_first" | lower)${KERR#?}" ;;
	esac
}


# same KIND CURRENT WANT: equal once blanks are normalised; a list with a
# [selected] entry (an IO scheduler) equals that entry; irq masks compare as
# hex without leading zeros and commas.
same() {
	sm_k=$1
	sm_w=$3
	set -f
	# shellcheck disable=SC2086 # normalise blanks on purpose
	set -- $2
	sm_c="$*"
	# shellcheck disable=SC2086 # normalise blanks on purpose
	set -- $sm_w
	sm_w="$*"
	set +f
	eq "$sm_c" "$sm_w" && return 0
	case $sm_c in
	*\[*\]*)
		sm_s=${sm_c#*\[}
		[ "${sm_s%%\]*}" = "$sm_w" ] && return 0
		;;
	esac
	eq "$sm_k" irq || return 1
	hexnorm "$sm_c"
	sm_c=$HN
	hexnorm "$sm_w"
	eq "$sm_c" "$HN"
}

hexnorm() {
	HN=$1
	case $HN in *[A-Z]*) HN=$(echo "$HN" | lower) ;; esac
	while :; do
		case $HN in
		*,*) HN=${HN%%,*}${HN#*,} ;;
		*) break ;;
		esac
	done
	while :; do
		case $HN in
		0*) HN=${HN#0} ;;
		*) break ;;
		esac
	done
	filled "$HN" || HN=0
}

# selected VALUE prints the value to put back: for a list with a
# [selected] entry, that entry.
selected() {
	case $1 in
	*\[*\]*)
		sl_s=${1#*\[}
		echo "${sl_s%%\]*}"
		;;
	*) echo "$1" ;;
	esac
}
