# shellcheck shell=sh
# userscript sh engine: the kernel values tuning replaced (state/tuning.json).
# Sourced by engine.sh, never run on its own; globals (ROOT, APP, CONF,
# STATE, WORK, CR, TAB, BOM, NL ...) are set by its setup().
# shellcheck disable=SC2154,SC2034,SC2153

# ---- tuning: remembered values (state/tuning.json) -------------------------
#
# The Go engine's format: json.MarshalIndent with two spaces, keys sorted,
# then a newline:
#   {
#     "/sys/block/sda/queue/scheduler": {
#       "file": "tuning.conf",
#       "value": "cfq"
#     }
#   }
# Held in WORK/tu.prev while applying: "PATH<tab>FILE<tab>JSON-ESCAPED
# VALUE" a line, sorted by PATH.

tune_load() {
	: >"$WORK/tu.prev"
	! [ -L "$STATE/tuning.json" ] && [ -f "$STATE/tuning.json" ] || return 0
	sed -n -e 's/^  "\(.*\)": {$/K\1/p' -e 's/^    "file": "\(.*\)",$/F\1/p' \
		-e 's/^    "value": "\(.*\)"$/V\1/p' "$STATE/tuning.json" >"$WORK/tu.json"
	tl_k=
	tl_f=
	while IFS= read -r tl_l; do
		case $tl_l in
		K*)
			json_unesc "${tl_l#K}"
			tl_k=$JU
			tl_f=
			;;
		F*) tl_f=${tl_l#F} ;;
		V*)
			blank "$tl_k" || echo "$tl_k$TAB$tl_f$TAB${tl_l#V}"
			tl_k=
			;;
		esac
	done <"$WORK/tu.json" >"$WORK/tu.prev"
}

# tune_save writes state/tuning.json when it changed.
tune_save() {
	{
		if ! [ -s "$WORK/tu.prev" ]; then
			echo "{}"
		else
			echo "{"
			tsv_sep=
			while IFS="$TAB" read -r tsv_p tsv_f tsv_v; do
				blank "$tsv_sep" || echo "  },"
				tsv_sep=yes
				json_esc "$tsv_p"
				echo "  \"$JE\": {"
				echo "    \"file\": \"$tsv_f\","
				echo "    \"value\": \"$tsv_v\""
			done <"$WORK/tu.prev"
			echo "  }"
			echo "}"
		fi
	} >"$WORK/tuning.json"
	cmp -s "$WORK/tuning.json" "$STATE/tuning.json" && return 0
	put_file "$WORK/tuning.json" "$STATE/tuning.json" ||
		log ERROR "tuning" reason="could not write state/tuning.json"
}

prev_has() { # PATH
	while IFS="$TAB" read -r ph_p _; do
		[ "$ph_p" != "$1" ] || return 0
	done <"$WORK/tu.prev"
	return 1
}

# prev_add PATH FILE VALUE remembers VALUE, keeping WORK/tu.prev sorted.
prev_add() {
	json_esc "$3"
	pa_new="$1$TAB$2$TAB$JE"
	pa_done=
	while IFS= read -r pa_l; do
		# BusyBox's test compares strings with < (byte order, like Go's sort).
		# shellcheck disable=SC3012
		if blank "$pa_done" && [ "$1" \< "${pa_l%%"$TAB"*}" ]; then
			echo "$pa_new"
			pa_done=yes
		fi
		echo "$pa_l"
	done <"$WORK/tu.prev" >"$WORK/tu.prev.new"
	filled "$pa_done" || echo "$pa_new" >>"$WORK/tu.prev.new"
	mv -f "$WORK/tu.prev.new" "$WORK/tu.prev"
}

# tune_revert_gone writes back the remembered value of every kernel file
# no setting names any more, and forgets it.
tune_revert_gone() {
	: >"$WORK/tu.keep"
	while IFS="$TAB" read -r trg_p trg_f trg_v; do
		case $TU_WANT in
		*" $trg_p "*)
			echo "$trg_p$TAB$trg_f$TAB$trg_v" >>"$WORK/tu.keep"
			continue
			;;
		esac
		json_unesc "$trg_v"
		if ! kernel_path "$trg_p"; then
			tune_row "$trg_f" "revert $trg_p" "$JU" failed "$trg_p" "not a kernel setting userscript writes; removed from state/tuning.json"
			continue
		fi
		if [ -e "$ROOT$trg_p" ] && ! kwrite "$trg_p" "$JU"; then
			tune_row "$trg_f" "revert $trg_p" "$JU" failed "$trg_p" "$KERR"
			echo "$trg_p$TAB$trg_f$TAB$trg_v" >>"$WORK/tu.keep"
			continue
		fi
		tune_row "$trg_f" "revert $trg_p" "$JU" reverted "$trg_p" ""
	done <"$WORK/tu.prev"
	mv -f "$WORK/tu.keep" "$WORK/tu.prev"
}

# kernel_path PATH: state/tuning.json is on the data disk; only paths
# tuning could have written are ever written back.
kernel_path() {
	case $1 in
	*/../* | */.. | */./* | */. | *//*) return 1 ;;
	/proc/sys/?* | /proc/irq/[0-9]*/smp_affinity) return 0 ;;
	/sys/?*) sysfs_allowed "${1#/sys/}" ;;
	*) return 1 ;;
	esac
}

# json_chars sets JC to the control bytes Go's encoding/json writes as
# \u00XX (all below 0x20 but TAB, LF and CR, which have their own
# escapes), JCH to their hex digits, pair by pair, and L1 L2 LS PS to the
# bytes of U+2028 and U+2029 (E2 80 A8, E2 80 A9), which it escapes too;
# one process (tr), only when a value holds an unusual byte.
json_chars() {
	case ${JCH:-} in ?*) return 0 ;; esac
	jc_s=$(tr a-zA-F '\001\002\003\004\005\006\007\010\013\014\016\017\020\021\022\023\024\025\026\027\030\031\032\033\034\035\036\037\342\200\250\251' <<JSONCHARS
abcdefghijklmnopqrstuvwxyzABCDEF
JSONCHARS
)
	JC=${jc_s%????}
	jc_s=${jc_s#"$JC"}
	L1=${jc_s%???}
	jc_s=${jc_s#?}
	L2=${jc_s%??}
	jc_s=${jc_s#?}
	LS=${jc_s%?}
	PS=${jc_s#?}
	JCH=01020304050607080b0c0e0f101112131415161718191a1b1c1d1e1f
}

# json_esc TEXT sets JE to TEXT escaped as Go's encoding/json does.
json_esc() {
	case $1 in
	*[\\\"\<\>\&"$TAB$CR$NL"]*) ;;
	*[!\ -~]*) json_chars ;; # a byte that is not printable ASCII
	*)
		JE=$1
		return 0
		;;
	esac
	JE=
	je_r=$1
	while filled "$je_r"; do
		je_c=${je_r%"${je_r#?}"}
		je_r=${je_r#?}
		case $je_c in
		\\) JE="$JE\\\\" ;;
		\") JE="$JE\\\"" ;;
		\<) JE="$JE\\u003c" ;;
		\>) JE="$JE\\u003e" ;;
		\&) JE="$JE\\u0026" ;;
		"$TAB") JE="$JE\\t" ;;
		"$CR") JE="$JE\\r" ;;
		"$NL") JE="$JE\\n" ;;
		*) json_esc_other ;;
		esac
	done
}

# json_esc_other adds je_c (and the rest of U+2028 or U+2029 from je_r)
# to JE: a control byte as \u00XX. A shell that reads UTF-8 has all of
# U+2028 in je_c, and the first pattern still holds.
json_esc_other() {
	json_chars
	case $je_c$je_r in
	"$L1$L2$LS"*) je_c=\\u2028 je_r=${je_r#"$L2$LS"} ;;
	"$L1$L2$PS"*) je_c=\\u2029 je_r=${je_r#"$L2$PS"} ;;
	*)
		case $JC in
		*"$je_c"*)
			jo_p=${JC%%"$je_c"*}
			jo_h=$JCH
			while filled "$jo_p"; do
				jo_p=${jo_p#?}
				jo_h=${jo_h#??}
			done
			je_c=\\u00${jo_h%"${jo_h#??}"}
			;;
		esac
		;;
	esac
	JE=$JE$je_c
}

# json_unesc TEXT sets JU to the JSON string TEXT unescaped.
json_unesc() {
	case $1 in
	*\\*) ;;
	*)
		JU=$1
		return 0
		;;
	esac
	JU=
	ju_r=$1
	while filled "$ju_r"; do
		ju_c=${ju_r%"${ju_r#?}"}
		ju_r=${ju_r#?}
		if [ "$ju_c" != \\ ]; then
			JU="$JU$ju_c"
			continue
		fi
		ju_c=${ju_r%"${ju_r#?}"}
		ju_r=${ju_r#?}
		case $ju_c in
		t) JU="$JU$TAB" ;;
		r) JU="$JU$CR" ;;
		n) JU="$JU$NL" ;;
		u)
			case $ju_r in
			003c* | 003C*) JU="$JU<" ;;
			003e* | 003E*) JU="$JU>" ;;
			0026*) JU="$JU&" ;;
			00[01]?*) json_unesc_ctl ;;
			2028*)
				json_chars
				JU="$JU$L1$L2$LS"
				;;
			2029*)
				json_chars
				JU="$JU$L1$L2$PS"
				;;
			*) JU="$JU\\u${ju_r%"${ju_r#????}"}" ;;
			esac
			ju_r=${ju_r#????}
			;;
		*) JU="$JU$ju_c" ;;
		esac
	done
}

# json_unesc_ctl adds the control byte of the \u00XX that ju_r starts
# with (without the \u) to JU; one it does not know stays as written.
json_unesc_ctl() {
	json_chars
	juc_x=${ju_r#00}
	juc_x=${juc_x%"${juc_x#??}"}
	juc_h=$JCH
	juc_c=$JC
	while filled "$juc_h"; do
		case $juc_h in
		"$juc_x"*)
			JU=$JU${juc_c%"${juc_c#?}"}
			return 0
			;;
		esac
		juc_h=${juc_h#??}
		juc_c=${juc_c#?}
	done
	JU="$JU\\u${ju_r%"${ju_r#????}"}"
}
