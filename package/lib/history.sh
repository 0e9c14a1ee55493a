# shellcheck shell=sh
# userscript sh engine: generations (state/gen/NNNNNN/{meta.json,files/,
# prev/}), the journal of every change, in the layout the Go engine writes
# and reads (docs/FORMATS.md): meta.json one field a line, so it is read
# line by line here. Sourced by engine.sh.
# shellcheck disable=SC2154,SC2034,SC2153

GEN=
# gen_dirs sets GENS to the ids of the complete generations, oldest first
# (a folder without meta.json never changed anything).
gen_dirs() {
	GEN=$STATE/gen
	GENS=
	for gd_m in "$GEN"/[0-9][0-9][0-9][0-9][0-9][0-9]/meta.json; do
		case $gd_m in *'['*) return 0 ;; esac
		gd_id=${gd_m%/meta.json}
		id_num "${gd_id##*/}"
		GENS="$GENS $IN"
	done
}

# id_num NNNNNN sets IN to the number without leading zeros.
id_num() {
	IN=$1
	while :; do
		case $IN in 0?*) IN=${IN#0} ;; *) break ;; esac
	done
}

# id_dir ID sets ID_DIR to the folder of generation ID (six digits).
id_dir() {
	id_s=00000$1
	while case ${#id_s} in 6) false ;; esac; do id_s=${id_s#?}; done
	ID_DIR=$STATE/gen/$id_s
}

# gen_read ID sets G_ID G_TIME G_KIND G_FROM G_RESULT G_NOTE (as written,
# JSON-escaped) G_CHANGED G_RESTARTED G_REJECTED (space-separated names),
# and G_FILES ("NAME:HASH" words) from meta.json.
gen_read() {
	G_ID=
	G_TIME=''
	G_KIND=''
	G_FROM=0
	G_RESULT=''
	G_NOTE=''
	G_CHANGED=''
	G_RESTARTED=''
	G_REJECTED=''
	G_FILES=''
	G_REPL=''
	id_dir "$1"
	gr_f=$ID_DIR/meta.json
	# Read once a run (one cat; the shell's read takes a system call a
	# byte), again after this run wrote it.
	case " ${GR_CACHED:-} " in
	*" $1 "*) eval "gr_text=\$GR_$1" ;;
	*)
		plain "$gr_f" || return 1
		gr_text=$(cat "$gr_f" 2>/dev/null) || return 1
		eval "GR_$1=\$gr_text"
		GR_CACHED="${GR_CACHED:-} $1"
		;;
	esac
	gr_sec=
	set -f
	gr_ifs=$IFS
	IFS=$NL
	for gr_l in $gr_text; do
		case $gr_l in
		'  "id": '*) G_ID=${gr_l#*: } && G_ID=${G_ID%,} ;;
		'  "time": '*) jv "$gr_l" && G_TIME=$JV ;;
		'  "kind": '*) jv "$gr_l" && G_KIND=$JV ;;
		'  "from": '*) G_FROM=${gr_l#*: } && G_FROM=${G_FROM%,} ;;
		'  "result": '*) jv "$gr_l" && G_RESULT=$JV ;;
		'  "note": '*) jv "$gr_l" && G_NOTE=$JV ;;
		'  "changed": '*) jl "$gr_l" && G_CHANGED=$JL ;;
		'  "restarted": '*) jl "$gr_l" && G_RESTARTED=$JL ;;
		'  "rejected": '*) jl "$gr_l" && G_REJECTED=$JL ;;
		'  "files": '*) gr_sec=files ;;
		'  "replaced": '*) gr_sec=repl ;;
		'    {"name": '*)
			gr_n=${gr_l#*\"name\": \"}
			gr_n=${gr_n%%\"*}
			gr_h=${gr_l#*\"hash\": \"}
			gr_h=${gr_h%%\"*}
			case $gr_sec in
			files) G_FILES="$G_FILES $gr_n:$gr_h" ;;
			repl) G_REPL="$G_REPL $gr_n:${gr_h:--}" ;;
			esac
			;;
		esac
	done
	IFS=$gr_ifs
	set +f
	num "$G_ID" && num "$G_FROM"
}

# jv LINE sets JV to the string value of a `"key": "value",` line.
jv() {
	JV=${1#*: \"}
	JV=${JV%,}
	JV=${JV%\"}
}

# jl LINE sets JL to the names of a `"key": ["a", "b"],` line.
jl() {
	jl_r=${1#*[}
	jl_r=${jl_r%%]*}
	JL=
	while :; do
		case $jl_r in
		*'"'*)
			jl_r=${jl_r#*\"}
			JL="$JL${JL:+ }${jl_r%%\"*}"
			jl_r=${jl_r#*\"}
			;;
		*) break ;;
		esac
	done
}

# committed_all sets LC_FILES ("NAME:HASH" words) and LC_GENS ("NAME:ID"
# words): every target's last committed content, the newest generation
# whose content of it proved healthy. Each target of a generation has its
# own result: one that committed as a whole (ok) commits them all, one
# rejected commits those its "rejected" does not name. Generations older
# than the newest ok one are not read (a target it lacks was the
# firmware's).
committed_all() {
	gen_dirs
	LC_FILES=
	LC_GENS=
	ca_ids=
	for ca_i in $GENS; do ca_ids="$ca_i $ca_ids"; done
	for ca_i in $ca_ids; do
		gen_read "$ca_i" || continue
		case $G_RESULT in ok | rejected) ;; *) continue ;; esac
		for ca_e in $G_FILES; do
			ca_n=${ca_e%%:*}
			case " $LC_GENS " in *" $ca_n:"*) continue ;; esac
			case $G_RESULT:" $G_REJECTED " in rejected:*" $ca_n "*) continue ;; esac
			LC_FILES="$LC_FILES $ca_e"
			LC_GENS="$LC_GENS $ca_n:$ca_i"
		done
		case $G_RESULT in ok) return 0 ;; esac
	done
	return 0
}

# committed_content NAME sets CC_ID and CC_FILE: the generation holding
# NAME's last committed content (committed_all) and its files/NAME
# (checked against its hash); without one, CC_ID 0 and the base.
committed_content() {
	committed_all
	CC_FILE=
	if hv "$LC_GENS" "$1"; then
		CC_ID=$HV
		hv "$LC_FILES" "$1"
		id_dir "$CC_ID"
		CC_FILE=$ID_DIR/files/$1
		md5 "$CC_FILE"
		case $MD5 in "$HV") return 0 ;; esac
		REASON="generation $CC_ID: files/$1: content does not match its hash; the history is damaged"
		return 1
	fi
	CC_ID=0
	base_ok "$1" && CC_FILE=$STATE/base/$1
	return 0
}

# md5 FILE sets MD5 to the md5 of FILE (empty when it cannot be read):
# one process.
md5() {
	MD5=$(md5sum <"$1" 2>/dev/null) || MD5=
	MD5=${MD5%% *}
}

# ---- writing generations ---------------------------------------------------------

# gen_begin writes the pending generation G_ID: files/NAME for every entry
# of WORK/gen.files ("NAME PATH HASH SIZE SRC" lines), prev/NAME for every
# changed target that had a file, then meta.json. Nothing is written to a
# target before it returns.
gen_begin() {
	STATE_DIRTY=yes
	id_dir "$G_ID"
	gb_d=$ID_DIR
	rm -rf "$gb_d"
	mkdir -p "$gb_d/files" || return 1
	while read -r gb_n _ _ _ gb_src; do
		cp "$gb_src" "$gb_d/files/$gb_n" || return 1
	done <"$WORK/gen.files"
	: >"$WORK/gen.repl"
	for gb_n in $G_CHANGED; do
		if [ -f "$WORK/$gb_n.prev" ]; then
			mkdir -p "$gb_d/prev" && cp "$WORK/$gb_n.prev" "$gb_d/prev/$gb_n" || return 1
			md5 "$WORK/$gb_n.prev"
			size_of "$WORK/$gb_n.prev"
			echo "$gb_n $MD5 $FSIZE" >>"$WORK/gen.repl"
		else
			echo "$gb_n - -1" >>"$WORK/gen.repl"
		fi
	done
	G_RESULT=pending
	gen_write
}

# gen_write writes meta.json of G_ID from the G_ variables, WORK/gen.files
# and WORK/gen.repl, aside and renamed into place. The text is made in a
# variable and written by one echo: on BusyBox 1.00 every echo and `[` is
# a process (an echo a line took some 25 processes, twice an apply).
gen_write() {
	chars
	STATE_DIRTY=yes
	GR_CACHED=
	id_dir "$G_ID"
	gw_d=$ID_DIR
	json_str "$G_NOTE"
	gw_m="{$NL  \"id\": $G_ID,$NL  \"time\": \"$G_TIME\",$NL  \"kind\": \"$G_KIND\",$NL  \"from\": $G_FROM,$NL  \"result\": \"$G_RESULT\",$NL  \"note\": \"$JS\",$NL"
	gen_list "$G_CHANGED"
	gw_m="$gw_m  \"changed\": $GL,$NL"
	gen_list "$G_RESTARTED"
	gw_m="$gw_m  \"restarted\": $GL,$NL"
	gen_list "$G_REJECTED"
	gw_m="$gw_m  \"rejected\": $GL,$NL"
	gw_l=
	while read -r gw_n gw_p gw_h gw_s _; do
		gw_l="$gw_l${gw_l:+,$NL}    {\"name\": \"$gw_n\", \"path\": \"$gw_p\", \"hash\": \"$gw_h\", \"size\": $gw_s}"
	done <"$WORK/gen.files"
	case $gw_l in
	'') gw_m="$gw_m  \"files\": [],$NL" ;;
	*) gw_m="$gw_m  \"files\": [$NL$gw_l$NL  ],$NL" ;;
	esac
	gw_l=
	while read -r gw_n gw_h gw_s; do
		case $gw_h in -) gw_h= ;; esac
		gw_l="$gw_l${gw_l:+,$NL}    {\"name\": \"$gw_n\", \"hash\": \"$gw_h\", \"size\": $gw_s}"
	done <"$WORK/gen.repl"
	case $gw_l in
	'') gw_m="$gw_m  \"replaced\": []$NL}" ;;
	*) gw_m="$gw_m  \"replaced\": [$NL$gw_l$NL  ]$NL}" ;;
	esac
	echo "$gw_m" >"$gw_d/meta.json.tmp" && mv -f "$gw_d/meta.json.tmp" "$gw_d/meta.json"
}

# gen_list "a b" sets GL to ["a", "b"] (no process).
gen_list() {
	GL=
	for gl_n in $1; do GL="$GL${GL:+, }\"$gl_n\""; done
	GL="[$GL]"
}

# json_str TEXT sets JS to TEXT escaped as a JSON string (without the
# HTML escapes: the layout is Go's SetEscapeHTML(false)).
json_str() {
	case $1 in
	*[\\\""$TAB$CR$NL"]*) ;;
	*)
		JS=$1
		return 0
		;;
	esac
	JS=
	js_r=$1
	while filled "$js_r"; do
		js_c=${js_r%"${js_r#?}"}
		js_r=${js_r#?}
		case $js_c in
		\\) JS="$JS\\\\" ;;
		\") JS="$JS\\\"" ;;
		"$TAB") JS="$JS\\t" ;;
		"$CR") JS="$JS\\r" ;;
		"$NL") JS="$JS\\n" ;;
		*) JS="$JS$js_c" ;;
		esac
	done
}

# gen_mark ID RESULT NOTE REJECTED rewrites those three fields of an
# existing generation (recovery), keeping every other line as it is.
gen_mark() {
	chars
	STATE_DIRTY=yes
	GR_CACHED=
	id_dir "$1"
	gm_f=$ID_DIR/meta.json
	json_str "$3"
	gm_note=$(echo "$JS" | sed -e 's/[\\&|]/\\&/g')
	gen_list "$4"
	sed -e "s|^  \"result\": .*|  \"result\": \"$2\",|" -e "s|^  \"note\": .*|  \"note\": \"$gm_note\",|" \
		-e "s|^  \"rejected\": .*|  \"rejected\": $GL,|" "$gm_f" >"$gm_f.tmp" &&
		mv -f "$gm_f.tmp" "$gm_f"
}

# gen_prune removes the oldest generations beyond KEEP (never one that
# holds a target's last committed content: boot puts it back) and folders
# a killed journal left without a meta.json.
gen_prune() {
	STATE_DIRTY=yes
	GR_CACHED=
	id_dir "$G_ID"
	gp_cur=$ID_DIR
	committed_all
	gp_keep=" "
	for gp_e in $LC_GENS; do gp_keep="$gp_keep${gp_e#*:} "; done
	gen_dirs
	gp_ids=
	for gp_i in $GENS; do gp_ids="$gp_i $gp_ids"; done
	gp_n=0
	for gp_i in $gp_ids; do
		gp_n=$((gp_n + 1))
		case $gp_keep in *" $gp_i "*) continue ;; esac
		if [ "$gp_n" -gt "$KEEP" ]; then
			id_dir "$gp_i"
			rm -rf "$ID_DIR"
		fi
	done
	for gp_d in "$GEN"/[0-9][0-9][0-9][0-9][0-9][0-9]; do
		case $gp_d in *'['*) break ;; esac
		[ -f "$gp_d/meta.json" ] || eq "$gp_d" "$gp_cur" || rm -rf "$gp_d"
	done
}

# gen_next sets G_ID to the number after the highest folder of state/gen.
gen_next() {
	G_ID=0
	for gn_d in "$STATE"/gen/[0-9][0-9][0-9][0-9][0-9][0-9]; do
		case $gn_d in *'['*) break ;; esac
		id_num "${gn_d##*/}"
		G_ID=$IN
	done
	G_ID=$((G_ID + 1))
}
