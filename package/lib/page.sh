# shellcheck shell=sh
# userscript sh engine: conf.d/STATUS.html, the page an owner opens from
# the share. The same page, byte for byte, as the Go engine's
# internal/statuspage builds from the same files (docs/FORMATS.md,
# "conf.d/STATUS.html"); its fixed text is pagetext.sh, generated from
# the Go templates. Sourced by engine.sh (apply_end), never run on its own.
#
# Processes: one `ls` to see what is there; when the page changed, one
# `echo` (a process before BusyBox 1.2) and one `mv`; one `sed` more
# when conf.d/.bench holds a chart. Everything else is the shell's own.
# shellcheck disable=SC2154,SC2034

part pagetext

# page_write builds the page and writes conf.d/STATUS.html when it
# differs from the page there.
page_write() {
	chars
	PG_LANG=${PAGE_LANG:-en}
	case $PG_LANG in de) ;; *) PG_LANG=en ;; esac
	pg_list
	P=
	pv_lang=$PG_LANG
	pt_head
	P=$P$T
	pg_rows
	pg_banner
	P=$P$PG_BAN$PG_ROWS
	pg_history
	pg_doctor
	pg_bench
	pt_foot
	P=$P$T
	pg_put
}

# pg_list reads conf.d, state/held, state/gen and conf.d/.bench with one
# ls: the names with letters, digits and . _ - only, links never followed.
pg_list() {
	PG_DIS=
	PG_SAFE=
	PG_SAFEOK=
	PG_DOC=
	PG_BENCH=
	PG_PAGE=
	PG_ST=
	PG_HELD=' '
	PG_GENS=
	PG_CSV=
	PG_SVG=
	pg_out=$(ls -lnA -- "$CONF" "$STATE/held" "$STATE/gen" "$CONF/.bench" 2>/dev/null)
	pg_sec=C
	set -f
	pg_ifs=$IFS
	IFS=$NL
	for pg_l in $pg_out; do
		case $pg_l in
		"$CONF:") pg_sec=C && continue ;;
		"$STATE/held:") pg_sec=H && continue ;;
		"$STATE/gen:") pg_sec=G && continue ;;
		"$CONF/.bench:") pg_sec=B && continue ;;
		esac
		# Of conf.d only these names matter: ten thousand stray files
		# cost one case each.
		case $pg_sec:$pg_l in
		C:*.status | C:*' '[Dd][Ii][Ss][Aa][Bb][Ll][Ee]* | C:*' '[Ss][Aa][Ff][Ee]-[Mm][Oo][Dd][Ee]* | C:*' DOCTOR.txt' | C:*' .bench' | C:*' STATUS.html' | C:*' STATUS.html -> '* | [HGB]:*) ;;
		*) continue ;;
		esac
		IFS=' '
		# shellcheck disable=SC2086 # ls's fields
		set -- $pg_l
		IFS=$NL
		case $1:$# in
		l*:11 | [!lcb]*:9) pg_n=$9 ;;
		[cb]*:10) pg_n=${10} ;;
		*) continue ;;
		esac
		pg_mode=$1
		pg_size=$5
		case $pg_n in .bench) ;; *) safe_name "$pg_n" || continue ;; esac
		pg_entry "$pg_mode" "$pg_size"
	done
	IFS=$pg_ifs
	set +f
}

# pg_entry MODE SIZE: the entry pg_n of the section pg_sec.
pg_entry() {
	case $pg_sec in
	C)
		if is_disable "$pg_n"; then
			case $PG_DIS in '') PG_DIS=$pg_n ;; esac
		elif is_safe_mode "$pg_n"; then
			PG_SAFE=$pg_n
			PG_SAFEOK=
			case $1 in -*) case $(($2 <= 65536)) in 1) PG_SAFEOK=yes ;; esac ;; esac
		elif case $pg_n in DOCTOR.txt) ;; *) false ;; esac then
			PG_DOC=
			case $1 in -*) case $(($2 <= 65536)) in 1) PG_DOC=yes ;; esac ;; esac
		elif case $pg_n in .bench) ;; *) false ;; esac then
			case $1 in d*) PG_BENCH=yes ;; esac
		else
			case $pg_n in STATUS.html) PG_PAGE=$1 ;; esac
			case $1:$pg_n in -*:*.status) case $(($2 <= 65536)) in 1) PG_ST="$PG_ST ${pg_n%.status}" ;; esac ;; esac
		fi
		;;
	H) case $1 in -*) PG_HELD="$PG_HELD$pg_n " ;; esac ;;
	G) case $1:$pg_n in d*:[0-9][0-9][0-9][0-9][0-9][0-9]) PG_GENS="$pg_n $PG_GENS" ;; esac ;;
	B)
		case $1:$pg_n in
		-*:*.csv) PG_CSV="$pg_n $PG_CSV" ;;
		-*:*.svg) case $(($2 <= 262144)) in 1) PG_SVG=$pg_n ;; esac ;;
		esac
		;;
	esac
}

# pg_esc TEXT sets E to TEXT escaped for HTML (a backslash too: echo
# never sees one). Each character is replaced by splitting on it (IFS):
# the shell's patterns take quadratic time on a long line.
pg_esc() {
	E=$1
	case $E in *[\&\<\>\"\'\\]*) ;; *) return 0 ;; esac
	case $- in *f*) pe_f= ;; *) pe_f=yes ;; esac
	set -f
	pe_ifs=$IFS
	pg_sub '&' '&amp;'
	pg_sub '<' '&lt;'
	pg_sub '>' '&gt;'
	pg_sub '"' '&quot;'
	pg_sub "'" '&#39;'
	pg_sub "\\" '&#92;'
	IFS=$pe_ifs
	case $pe_f in yes) set +f ;; esac
}

# pg_sub CHAR TEXT replaces every CHAR in E by TEXT.
pg_sub() {
	case $E in *"$1"*) ;; *) return 0 ;; esac
	ps_r=$2
	IFS=$1
	# shellcheck disable=SC2086 # split on CHAR; a dot keeps a last empty field
	set -- ${E}.
	IFS=$pe_ifs
	E=$1
	shift
	for ps_f in "$@"; do
		E=$E$ps_r$ps_f
	done
	E=${E%.}
}

# pg_rows sets PG_ROWS to the table of status files, PG_NEED to how many
# need the owner and PG_FULL when the data disk is full.
pg_rows() {
	PG_ROWS=
	PG_NEED=0
	PG_FULL=
	PG_NROWS=0
	for pg_s in $PG_ST; do
		pg_row "$pg_s"
	done
	case $PG_NROWS in
	0)
		pt_nofiles
		PG_ROWS=$T
		;;
	*)
		pt_files
		PG_ROWS=$T$PG_ROWS
		pt_files_end
		PG_ROWS=$PG_ROWS$T
		;;
	esac
}

# pg_row NAME adds conf.d/NAME.status: its first line is status: WORD; of
# the other keys the last one wins.
pg_row() {
	pr_word=
	pr_file=
	pr_reason=
	pr_line=
	pr_gen=
	pr_time=
	pr_todo=
	pr_ok=
	{
		while IFS= read -r pr_l; do
			pr_l=${pr_l%"$CR"}
			case $pr_ok in '')
				case $pr_l in 'status: '*) ;; *) break ;; esac
				pr_word=${pr_l#status: }
				pr_ok=yes
				continue
				;;
			esac
			case $pr_l in
			'file: '*) pr_file=${pr_l#file: } ;;
			'reason: '*) pr_reason=${pr_l#reason: } ;;
			'line: '*) pr_line=${pr_l#line: } ;;
			'generation: '*) pr_gen=${pr_l#generation: } ;;
			'time: '*) pr_time=${pr_l#time: } ;;
			'what to do: '*) pr_todo=${pr_l#what to do: } ;;
			esac
		done <"$CONF/$1.status"
	} 2>/dev/null
	case $pr_ok in '') return 0 ;; esac
	PG_NROWS=$((PG_NROWS + 1))
	case $pr_word in
	"$W_REFUSED" | "$W_REJECTED" | "$W_FAILED" | "$W_UNKNOWN" | "$W_HELD") PG_NEED=$((PG_NEED + 1)) ;;
	esac
	case $pr_word:$pr_reason in "$W_FAILED":'data disk full'*) PG_FULL=yes ;; esac
	pv_whathtml=
	pg_part reason reason "$pr_reason"
	pg_part line line "$pr_line"
	pg_part todo todo "$pr_todo"
	pg_part since time "$pr_time"
	pv_heldhtml=
	case $PG_HELD in *" $1 "*)
		pt_held
		pv_heldhtml=$T
		;;
	esac
	case $pr_word in
	"$W_OK") pv_class=s-ok ;;
	"$W_NOT_VALIDATED") pv_class=s-not-validated ;;
	"$W_REFUSED") pv_class=s-refused ;;
	"$W_REJECTED") pv_class=s-rejected ;;
	"$W_FAILED") pv_class=s-failed ;;
	"$W_UNKNOWN") pv_class=s-unknown ;;
	"$W_HELD") pv_class=s-held ;;
	"$W_DISABLED") pv_class=s-disabled ;;
	*) pv_class=s-other ;;
	esac
	pg_esc "$pr_word"
	pv_word=$E
	pg_esc "$pr_file"
	pv_file=$E
	pg_esc "$pr_gen"
	pv_gen=$E
	pt_row
	PG_ROWS=$PG_ROWS$T
}

# pg_part TEMPLATE KEY VALUE adds the template to pv_whathtml when VALUE
# is not empty.
pg_part() {
	case $3 in '') return 0 ;; esac
	pg_esc "$3"
	eval "pv_$2=\$E"
	"pt_$1"
	pv_whathtml=$pv_whathtml$T
}

# pg_banner sets PG_BAN: off, safe mode, disk full, something needs you
# (how many), nothing yet, or all fine.
pg_banner() {
	pg_find
	PG_NEED=$((PG_NEED + PG_NFIND))
	if case $PG_DIS in ?*) ;; *) false ;; esac then
		pv_name=$PG_DIS
		pt_ban_off
	elif case $PG_SAFE in ?*) ;; *) false ;; esac then
		pg_why
		pg_esc "$PG_WHY"
		pv_why=$E
		pv_name=$PG_SAFE
		pt_ban_safe
	elif case $PG_FULL in yes) ;; *) false ;; esac then
		pt_ban_full
	elif case $PG_NEED in 0) false ;; esac then
		pv_n=$PG_NEED
		pt_ban_need
	elif case $PG_NROWS in 0) ;; *) false ;; esac then
		pt_ban_empty
	else
		pt_ban_ok
	fi
	PG_BAN=$T
}

# pg_why sets PG_WHY to the first why: line of conf.d/SAFE-MODE.
pg_why() {
	PG_WHY=
	case $PG_SAFEOK in yes) ;; *) return 0 ;; esac
	{
		while IFS= read -r pw_l; do
			pw_l=${pw_l%"$CR"}
			case $pw_l in 'why: '*)
				PG_WHY=${pw_l#why: }
				break
				;;
			esac
		done <"$CONF/$PG_SAFE"
	} 2>/dev/null
}

# pg_find sets PG_FIND to the findings of DOCTOR.txt that need the
# owner (the list items, filled in) and PG_NFIND to how many.
pg_find() {
	PG_FIND=
	PG_NFIND=0
	case $PG_DOC in yes) ;; *) return 0 ;; esac
	pf_sec=
	{
		while IFS= read -r pf_l; do
			pf_l=${pf_l%"$CR"}
			case $pf_l in
			'  '*)
				pf_i=${pf_l#  }
				case $pf_sec in
				'services:') case $pf_i in *'NOT SERVING'*) ;; *) continue ;; esac ;;
				'who can write conf.d:') case $pf_i in *'GUESTS CAN WRITE IT'* | *'is writable by everyone'*) ;; *) continue ;; esac ;;
				'files in conf.d that are not used:') ;;
				*) continue ;;
				esac
				pg_esc "$pf_i"
				pv_text=$E
				pt_finding
				PG_FIND=$PG_FIND$T
				PG_NFIND=$((PG_NFIND + 1))
				;;
			'' | ' '*) ;;
			*:) pf_sec=$pf_l ;;
			esac
		done <"$CONF/DOCTOR.txt"
	} 2>/dev/null
}

# pg_history adds the newest generations, newest first.
pg_history() {
	ph_n=0
	ph_rows=
	for ph_g in $PG_GENS; do
		case $ph_n in 10) break ;; esac
		pg_meta "$STATE/gen/$ph_g/meta.json" || continue
		ph_n=$((ph_n + 1))
		ph_rows=$ph_rows$T
	done
	case $ph_n in
	0)
		pt_nohist
		P=$P$T
		;;
	*)
		pt_hist
		P=$P$T$ph_rows
		pt_hist_end
		P=$P$T
		;;
	esac
}

# pg_meta FILE sets T to the history row of a meta.json (read as text,
# one key a line, as history.Marshal writes it); false without an id.
pg_meta() {
	pm_id=
	pm_time=
	pm_kind=
	pm_result=
	pm_note=
	pm_changed=
	pm_restarted=
	pm_rejected=
	{
		while IFS= read -r pm_l; do
			pm_l=${pm_l%"$CR"}
			case $pm_l in
			'  "id": '*)
				pm_id=${pm_l#'  "id": '}
				pm_id=${pm_id%,}
				;;
			'  "time": "'*) pm_str time && pm_time=$PM ;;
			'  "kind": "'*) pm_str kind && pm_kind=$PM ;;
			'  "result": "'*) pm_str result && pm_result=$PM ;;
			'  "note": "'*) pm_str note && pm_note=$PM ;;
			'  "changed": ['*) pm_list changed && pm_changed=$PM ;;
			'  "restarted": ['*) pm_list restarted && pm_restarted=$PM ;;
			'  "rejected": ['*) pm_list rejected && pm_rejected=$PM ;;
			esac
		done <"$1"
	} 2>/dev/null
	case $pm_id in '') return 1 ;; esac
	case $pm_time in *T*) pm_time="${pm_time%%T*} ${pm_time#*T}" ;; esac
	case $pm_time in *Z) pm_time="${pm_time%Z} UTC" ;; esac
	pv_rejhtml=
	case $pm_rejected in ?*)
		pg_esc "$pm_rejected"
		pv_rejected=$E
		pt_hrej
		pv_rejhtml=$T
		;;
	esac
	pv_notehtml=
	case $pm_note in ?*)
		pg_esc "$pm_note"
		pv_note=$E
		pt_hnote
		pv_notehtml=$T
		;;
	esac
	for pm_k in result id time kind changed restarted; do
		eval "pg_esc \"\$pm_$pm_k\""
		eval "pv_$pm_k=\$E"
	done
	pt_hrow
	return 0
}

# pm_str KEY sets PM to the string of the line pm_l, without its quotes.
pm_str() {
	ps_pre="  \"$1\": \""
	PM=${pm_l#"$ps_pre"}
	PM=${PM%'",'}
}

# pm_list KEY sets PM to the list of the line pm_l without its brackets
# and quotes.
pm_list() {
	ps_pre="  \"$1\": ["
	E=${pm_l#"$ps_pre"}
	E=${E%'],'}
	case $- in *f*) pe_f= ;; *) pe_f=yes ;; esac
	set -f
	pe_ifs=$IFS
	pg_sub '"' ''
	case $pe_f in yes) set +f ;; esac
	PM=$E
}

# pg_doctor adds the doctor's findings.
pg_doctor() {
	case $PG_NFIND in 0) return 0 ;; esac
	pt_doc
	P=$P$T$PG_FIND
	pt_doc_end
	P=$P$T
}

# pg_bench adds the newest chart of conf.d/.bench (as a data: URL: an
# image runs no script) and links to the newest results.
pg_bench() {
	case $PG_BENCH in yes) ;; *) return 0 ;; esac
	case $PG_SVG in ?*)
		pv_svghtml=$(sed -e 's/%/%25/g' -e 's/#/%23/g' -e "s/'/%27/g" -e 's/&/%26/g' -e 's/\\/%5C/g' -e 's/"/%22/g' -e 's/</%3C/g' -e 's/>/%3E/g' -e 's/$/%0A/' "$CONF/.bench/$PG_SVG" 2>/dev/null) || PG_SVG=
		;;
	esac
	case $PG_SVG$PG_CSV in '') return 0 ;; esac
	pt_bench
	P=$P$T
	case $PG_SVG in ?*)
		pv_name=$PG_SVG
		pt_chart
		P=$P$T
		;;
	esac
	case $PG_CSV in '') return 0 ;; esac
	pt_csvs
	P=$P$T
	pb_n=0
	for pv_name in $PG_CSV; do
		case $pb_n in 10) break ;; esac
		pb_n=$((pb_n + 1))
		pt_csv
		P=$P$T
	done
	pt_bench_end
	P=$P$T
}

# pg_put writes P to conf.d/STATUS.html unless the page there says the
# same; never over a link or anything but a file.
pg_put() {
	case $PG_PAGE in '' | -*) ;; *) return 0 ;; esac
	pp_old=
	case $PG_PAGE in ?*)
		{
			while IFS= read -r pp_l; do
				pp_old=$pp_old$pp_l$NL
			done <"$CONF/STATUS.html"
		} 2>/dev/null
		case $pp_old in "$P") return 0 ;; esac
		;;
	esac
	pp_t=$STATE/STATUS.html.new
	# echo is one process before BusyBox 1.2, and takes at most some
	# 128 KiB of arguments there: a larger page goes through cat.
	pp_body=${P%"$NL"}
	case $((${#P} > 65536)) in
	1)
		cat >"$pp_t" <<PAGE
$pp_body
PAGE
		;;
	*) echo "$pp_body" >"$pp_t" ;;
	esac
	if ! mv -f "$pp_t" "$CONF/STATUS.html" 2>/dev/null; then
		rm -f "$pp_t"
		log WARN "could not write conf.d/STATUS.html"
	fi
}
