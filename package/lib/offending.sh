# shellcheck shell=sh
# userscript sh engine: the `line:` of a REFUSED status, the line the
# refusal is about where it is the owner's own (docs/FORMATS.md, "Status
# files"). The Go engine's internal/overlay/offending.go is the
# reference. Sourced by targets.sh's refuse only when a reason names a
# line: it costs nothing otherwise.
# shellcheck disable=SC2154,SC2034,SC2153

# QUOTE_MAX bounds the text of a quoted line (bytes here; the Go engine
# counts characters: the same for ASCII).
QUOTE_MAX=200

# offending NAME REASON sets OFF to the line: field of target NAME's
# refusal (empty when the reason names no line of a file of the owner's
# that this apply read). SOURCES and WORK/SRC.n (each source, normalised)
# and WORK/NAME.target (the composed target) are the plan's.
offending() {
	OFF=
	case $2 in
	*'conf.d/'*' line '[0-9]*':'*)
		of_r=${2#*conf.d/}
		of_f=${of_r%% *}
		of_n=${of_r#"$of_f line "}
		of_n=${of_n%%:*}
		num "$of_n" || return 0
		in_list "$SOURCES" "$of_f" || return 0
		line_of "$WORK/$of_f.n" "$of_n" || return 0
		quote "$LO"
		OFF="conf.d/$of_f line $of_n: $QT"
		;;
	'line '[0-9]*': '*)
		of_n=${2#line }
		of_n=${of_n%%:*}
		num "$of_n" || return 0
		line_of "$WORK/$1.target" "$of_n" || return 0
		of_text=$LO
		if own_line "$1" "$of_n" "$of_text"; then
			quote "$of_text"
			OFF="conf.d/$OWN_FILE line $OWN_LINE: $QT"
		else
			OFF="line $of_n is from the firmware's own file (see conf.d/.firmware/$1), not from yours"
		fi
		;;
	esac
	return 0
}

# own_line NAME N TEXT: line N (TEXT) of target NAME is the owner's: in
# the appended .add text, else a line of the .merge that reads the same,
# else line N of the replacement (no .merge), else the first line of the
# replacement that reads the same. It sets OWN_FILE and OWN_LINE.
own_line() {
	for ol_s in "$1.add" "$1.merge"; do
		in_list "$SOURCES" "$ol_s" || continue
		case $ol_s in
		*.add)
			count_lines "$WORK/$1.target"
			ol_total=$CL
			count_lines "$WORK/$ol_s.n"
			ol_start=$((ol_total - CL + 1))
			case $(($2 >= ol_start)) in 1)
				OWN_FILE=$ol_s
				OWN_LINE=$(($2 - ol_start + 1))
				return 0
				;;
			esac
			;;
		*.merge)
			if find_line "$WORK/$ol_s.n" "$3"; then
				OWN_FILE=$ol_s
				OWN_LINE=$FL
				return 0
			fi
			;;
		esac
	done
	in_list "$SOURCES" "$1" || return 1
	OWN_FILE=$1
	if ! in_list "$SOURCES" "$1.merge" && line_of "$WORK/$1.n" "$2"; then
		case $LO in "$3")
			OWN_LINE=$2
			return 0
			;;
		esac
	fi
	find_line "$WORK/$1.n" "$3" || return 1
	OWN_LINE=$FL
}

# line_of FILE N sets LO to line N of FILE (without its newline); false
# when FILE has fewer lines.
line_of() {
	LO=$(sed -n "$2{s/^/x/p;q;}" "$1" 2>/dev/null)
	case $LO in x*) LO=${LO#x} ;; *) return 1 ;; esac
}

# find_line FILE TEXT sets FL to the number of the first line of FILE
# that reads TEXT, spaces around either aside; blank lines never match.
find_line() {
	trim "$2"
	fl_want=$TR
	case $fl_want in '') return 1 ;; esac
	# grep finds the lines holding it (the shell's read would take a
	# system call a byte); the shell keeps the first that is only it.
	fl_all=$(grep -n -F -e "$fl_want" "$1" 2>/dev/null)
	set -f
	fl_ifs=$IFS
	IFS=$NL
	for fl_l in $fl_all; do
		IFS=$fl_ifs
		trim "${fl_l#*:}"
		case $TR in "$fl_want")
			FL=${fl_l%%:*}
			set +f
			return 0
			;;
		esac
		IFS=$NL
	done
	IFS=$fl_ifs
	set +f
	return 1
}

# count_lines FILE sets CL to the lines of FILE (a last line without a
# newline counts).
count_lines() {
	CL=$(wc -l <"$1")
	trim "$CL"
	CL=$TR
	num "$CL" || CL=0
	ends_nl "$1" || CL=$((CL + 1))
}

# quote TEXT sets QT to TEXT trimmed, control characters but the tab made
# spaces, cut at QUOTE_MAX with "…".
quote() {
	chars
	trim "$1"
	QT=
	qt_r=$TR
	while :; do
		case $qt_r in
		*[[:cntrl:]]*)
			qt_p=${qt_r%%[[:cntrl:]]*}
			qt_r=${qt_r#"$qt_p"}
			qt_c=${qt_r%"${qt_r#?}"}
			qt_r=${qt_r#?}
			case $qt_c in "$TAB") ;; *) qt_c=' ' ;; esac
			QT=$QT$qt_p$qt_c
			;;
		*)
			QT=$QT$qt_r
			break
			;;
		esac
	done
	case $((${#QT} > QUOTE_MAX)) in 1)
		qt_pat='??????????'
		qt_pat=$qt_pat$qt_pat$qt_pat$qt_pat$qt_pat$qt_pat$qt_pat$qt_pat$qt_pat$qt_pat
		qt_pat=$qt_pat$qt_pat
		# shellcheck disable=SC2295 # a pattern: 200 characters
		qt_rest=${QT#$qt_pat}
		QT="${QT%"$qt_rest"}…"
		;;
	esac
}
