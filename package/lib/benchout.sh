#!/bin/sh
# userscript bench, the results: 32-bit arithmetic, CSV and JSON rows, the
# summary, the results files.
# Part of package/lib/bench.sh (see there); sourced by it.
# Globals are shared with the other parts; some are set through eval.
# shellcheck disable=SC2034,SC2153,SC2154

# pad2 N sets P2 to N (0..99) with two digits.
pad2() {
	P2=$(($1 + 100))
	P2=${P2#1}
}

# bytes_of MIB sets BYTES to MIB * 2^20 as a decimal string, without
# overflowing 32 bits: 2^20 = 1000000 + 48576.
bytes_of() {
	bo_x=$(($1 * 48576))
	bo_lo=$((bo_x % 1000000 + 1000000))
	BYTES=$(($1 + bo_x / 1000000))${bo_lo#1}
}

# rate_of MIB CS sets RATE to MIB / (CS / 100) in MB/s with two decimals
# and RATE100 to it times 100, rounded.
rate_of() {
	ro_cs=$2
	[ "$ro_cs" -gt 0 ] || ro_cs=1
	RATE100=$((($1 * 10000 + ro_cs / 2) / ro_cs))
	pad2 $((RATE100 % 100))
	RATE=$((RATE100 / 100)).$P2
}

# secs_of CS sets SECS to CS centiseconds as seconds with two decimals.
secs_of() {
	pad2 $(($1 % 100))
	SECS=$(($1 / 100)).$P2
}

# cs_of SECONDS sets CS from a number like 3.04 or 12 (hdparm's output).
cs_of() {
	co_s=${1%%.*}
	case $1 in
	*.*) co_f=${1#*.}0 ;;
	*) co_f=00 ;;
	esac
	co_f=${co_f%"${co_f#??}"}
	co_f=${co_f#0}
	CS=$((${co_s:-0} * 100 + ${co_f:-0}))
}

# fmt100 N sets F100 to N hundredths as a decimal: 1370 -> 13.70.
fmt100() {
	pad2 $(($1 % 100))
	F100=$(($1 / 100)).$P2
}

# sort_ints N... sets SORTED to the numbers in ascending order.
sort_ints() {
	SORTED=
	for si_v in "$@"; do
		si_out='' si_done=0
		for si_w in $SORTED; do
			if [ "$si_done" = 0 ] && [ "$si_v" -lt "$si_w" ]; then
				si_out="$si_out $si_v"
				si_done=1
			fi
			si_out="$si_out $si_w"
		done
		[ "$si_done" = 1 ] || si_out="$si_out $si_v"
		SORTED=$si_out
	done
}

say() { echo "$*"; }

warn() {
	say "warning: $1"
	json_str "$1"
	WARNS="$WARNS${WARNS:+,$NL}    $JS"
}

# skip TEST REASON reports a test that does not run.
skip() {
	say "$1: skipped: $2"
	json_str "$2"
	SKIPS="$SKIPS${SKIPS:+,$NL}    {\"test\": \"$1\", \"reason\": $JS}"
	FAILED_ANY=${3:-$FAILED_ANY}
}

# csv_field VALUE sets CF to VALUE quoted for CSV when it needs it.
csv_field() {
	case $1 in
	*[\",]*) CF=\"$(echo "$1" | sed 's/"/""/g')\" ;;
	*) CF=$1 ;;
	esac
}

# json_str VALUE sets JS to VALUE as a JSON string.
json_str() {
	case $1 in
	*[\"\\]*) JS=\"$(echo "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')\" ;;
	*) JS=\"$1\" ;;
	esac
}

# result TIME TEST RUN MIB CS COMMAND SOURCE DESTINATION FILESYSTEM
# records one row and tells the owner.
result() {
	bytes_of "$4"
	secs_of "$5"
	rate_of "$4" "$5"
	rs_line="$1,$DEVICE_CSV,sh,$VERSION_CSV,$GEN,$2,$3,$BYTES,$SECS,$RATE"
	for rs_f in "$6" "$7" "$8" "$9"; do
		csv_field "$rs_f"
		rs_line="$rs_line,$CF"
	done
	CSV="$CSV$rs_line$NL"
	json_str "$6"
	rs_json="{\"time\": \"$1\", \"test\": \"$2\", \"run\": $3, \"bytes\": $BYTES, \"seconds\": $SECS, \"mb_per_s\": $RATE, \"command\": $JS"
	json_str "$7"
	rs_json="$rs_json, \"source\": $JS"
	json_str "$8"
	rs_json="$rs_json, \"destination\": $JS"
	json_str "$9"
	JRES="$JRES${JRES:+,$NL}    $rs_json, \"filesystem\": $JS}"
	RATES="$RATES$2 $RATE100$NL"
	case " $SEEN " in *" $2 "*) ;; *) SEEN="$SEEN $2" ;; esac
	say "  $2 run $3: $RATE MB/s ($4 MiB in $SECS s)"
}

# summary prints each test's median, spread (max - min, in percent of
# the median) and whether the runs agree well enough to compare.
summary() {
	say ""
	for su_t in $SEEN; do
		su_vals=
		while read -r su_n su_v; do
			[ "$su_n" != "$su_t" ] || su_vals="$su_vals $su_v"
		done <<RATES
$RATES
RATES
		# shellcheck disable=SC2086
		sort_ints $su_vals
		su_n=0
		for su_v in $SORTED; do su_n=$((su_n + 1)); done
		su_i=0 su_med=0 su_min='' su_max=0
		for su_v in $SORTED; do
			su_i=$((su_i + 1))
			[ -n "$su_min" ] || su_min=$su_v
			su_max=$su_v
			if [ $((su_i * 2)) -eq $((su_n + 1)) ]; then
				su_med=$su_v
			elif [ $((su_i * 2)) -eq "$su_n" ]; then
				su_med=$su_v
			elif [ $((su_i * 2)) -eq $((su_n + 2)) ]; then
				su_med=$(((su_med + su_v + 1) / 2))
			fi
		done
		su_sp=0
		if [ "$su_med" -gt 0 ]; then
			su_d=$((su_max - su_min))
			if [ "$su_d" -lt 2000000 ]; then
				su_sp=$(((su_d * 1000 + su_med / 2) / su_med))
			else
				su_sp=$((su_d / (su_med / 1000 + 1)))
			fi
		fi
		su_spf=$((su_sp / 10)).$((su_sp % 10))
		if [ "$su_n" -lt 2 ]; then
			su_verdict="not conclusive: 1 run, no spread (use --runs 3)"
		elif [ "$su_sp" -gt 100 ]; then
			su_verdict="not conclusive: spread $su_spf % > 10 % (more --runs, a larger --size, a quiet NAS)"
		else
			su_verdict=ok
		fi
		fmt100 "$su_med"
		su_line="$su_t: $su_n runs, median $F100 MB/s"
		fmt100 "$su_min"
		su_line="$su_line (min $F100"
		fmt100 "$su_max"
		say "$su_line, max $F100), spread $su_spf %: $su_verdict"
	done
}

# json_list ITEMS prints a JSON list's body: [] or the items indented.
json_list() {
	if [ -z "$1" ]; then
		JL="[]"
	else
		JL="[$NL$1$NL  ]"
	fi
}

# save writes the CSV and the JSON, each to a temporary name first and
# then renamed over the result (a link planted there is replaced).
save() {
	sv_json=${OUT%.csv}.json
	sv_csv="time,device,engine,version,generation,test,run,bytes,seconds,mb_per_s,command,source,destination,filesystem$NL$CSV"
	json_str "$DEVICE"
	sv_j="{$NL  \"device\": $JS,$NL  \"engine\": \"sh\",$NL"
	json_str "$VERSION"
	sv_j="$sv_j  \"version\": $JS,$NL  \"generation\": \"$GEN\",$NL"
	bytes_of "$SIZE_MIB"
	sv_j="$sv_j  \"size\": $BYTES,$NL  \"runs\": $RUNS,$NL"
	json_list "$JRES"
	sv_j="$sv_j  \"results\": $JL,$NL"
	json_list "$SKIPS"
	sv_j="$sv_j  \"skipped\": $JL,$NL"
	json_list "$WARNS"
	sv_j="$sv_j  \"warnings\": $JL"
	if [ -n "$JPARTS" ]; then
		json_list "$JPARTS"
		sv_j="$sv_j,$NL  \"partitions\": $JL"
	fi
	for sv_f in "$OUT" "$sv_json"; do
		rm -f "$sv_f.tmp$$"
		sv_text="$sv_j$NL}"
		[ "$sv_f" != "$OUT" ] || sv_text=${sv_csv%"$NL"}
		# set -C: a link planted at the temporary name is not written through.
		if ! { (set -C && echo "$sv_text" >"$sv_f.tmp$$") && mv -f "$sv_f.tmp$$" "$sv_f"; }; then
			rm -f "$sv_f.tmp$$"
			echo "userscript bench: $sv_f: cannot write it" >&2
			return 1
		fi
	done
	say ""
	say "results: $OUT"
	say "         $sv_json"
}

# results_path sets OUT (unless --out gave it): conf.d/.bench/DATE-NAME.csv
# in the app dir (DATE: the start, STAMP), never through a link.
results_path() {
	[ -z "$OUT" ] || return 0
	rp_dir=$APP/conf.d/.bench
	if [ -L "$rp_dir" ] || { [ -e "$rp_dir" ] && ! [ -d "$rp_dir" ]; }; then
		say "note: $rp_dir: not a folder (a link or a file); writing to the current folder"
		rp_dir=.
	elif ! [ -d "$APP/conf.d" ] || ! mkdir -p "$rp_dir"; then
		say "note: $APP/conf.d: no conf.d folder here; writing to the current folder"
		rp_dir=.
	fi
	OUT=$rp_dir/$STAMP-$NAME.csv
}
