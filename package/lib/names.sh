# shellcheck shell=sh
# userscript sh engine: names that are not a source's (docs/FORMATS.md,
# "Names Windows and macOS make"): the UNKNOWN status, and which name the
# owner meant when Windows or macOS made one of a real one (smb.conf.txt,
# SMB.CONF, smb (2).conf, smb.conf - Copy). The Go engine's
# internal/source/names.go and internal/overlay/names.go are the
# reference. Pure shell: no process, whatever the name. Sourced by
# engine.sh when conf.d holds such a name.
# shellcheck disable=SC2154,SC2034,SC2153

# unknown NAME writes the UNKNOWN report of a safe name that is no
# target's, with the name that was meant where it can tell.
unknown() {
	sources_of "$1"
	un_file=${SOURCES%% *}
	un_known=
	for un_t in $TARGETS; do
		un_known="$un_known${un_known:+, }$un_t"
	done
	rp_new "$1"
	fset "$1" status "$W_UNKNOWN"
	fset "$1" file "conf.d/$un_file"
	fset "$1" sources "$SOURCES"
	un_reason="conf.d/$un_file: no such target in profile $PROFILE"
	un_todo="rename it to one of: $un_known; or add the target to userscript.toml"
	if meant "$un_file"; then
		un_reason="$un_reason; did you mean $MEANT? ($WHY_MEANT)"
		if in_list "$NAMES" "$MEANT"; then
			un_todo="conf.d/$MEANT exists too, and only that one is used: delete conf.d/$un_file, or copy what you need into $MEANT"
		else
			un_todo="rename conf.d/$un_file to $MEANT"
		fi
	fi
	fset "$1" reason "$un_reason"
	fset "$1" todo "$un_todo"
	log WARN "no such target" file="$un_file" profile="$PROFILE"
}

# meant NAME sets MEANT to the source name NAME was probably meant to
# have and WHY_MEANT to what went wrong; false when it cannot tell. It
# undoes a ".txt" Windows added, a copy's or a duplicate's suffix (in the
# whole name, else in the part before the first .), and the case.
meant() {
	MEANT=
	WHY_MEANT=
	mn_c=$1
	case $mn_c in
	?*.[Tt][Xx][Tt])
		mn_c=${mn_c%????}
		WHY_MEANT="Windows added \".txt\", as it hides known extensions; View → File name extensions shows them"
		;;
	esac
	if uncopy "$mn_c"; then
		mn_c=$UC
	else
		case $mn_c in
		?*.*)
			mn_stem=${mn_c%%.*}
			if uncopy "$mn_stem"; then
				mn_c=$UC.${mn_c#*.}
			fi
			;;
		esac
	fi
	case $UC_WHY in ?*) WHY_MEANT="$WHY_MEANT${WHY_MEANT:+; }$UC_WHY" ;; esac
	lc "$mn_c"
	mn_lc=$LC
	for mn_k in $TARGETS $TUNING_FILES; do
		for mn_n in "$mn_k" "$mn_k.add" "$mn_k.merge"; do
			lc "$mn_n"
			case $LC in "$mn_lc")
				case $mn_n in "$mn_c") ;; *) WHY_MEANT="$WHY_MEANT${WHY_MEANT:+; }names are case-sensitive on the NAS" ;; esac
				case $WHY_MEANT in '') return 1 ;; esac
				MEANT=$mn_n
				return 0
				;;
			esac
		done
	done
	WHY_MEANT=
	return 1
}

# uncopy NAME sets UC to NAME without the suffix or prefix of a copy or a
# duplicate Windows or macOS made, and UC_WHY to which; false (UC_WHY
# empty) when NAME has none.
uncopy() {
	UC=
	UC_WHY=
	uc_n=$1
	# "X - Copy", "X - Kopie", "X - Copie", "X - Copia", maybe " (N)" after
	case $uc_n in ?*' ('*')')
		uc_d=${uc_n##* (}
		uc_d=${uc_d%)}
		digits "$uc_d" && uc_n=${uc_n% (*}
		;;
	esac
	case $uc_n in
	?*' - '[Cc][Oo][Pp][Yy] | ?*' - '[Kk][Oo][Pp][Ii][Ee] | ?*' - '[Cc][Oo][Pp][Ii][Ee] | ?*' - '[Cc][Oo][Pp][Ii][Aa])
		UC=${uc_n% - *}
		UC_WHY="it looks like a copy Windows made"
		return 0
		;;
	esac
	uc_n=$1
	# "Copy of X", "Copy (N) of X", "Kopie von X"
	case $uc_n in
	[Cc][Oo][Pp][Yy]' '[Oo][Ff]' '?* | [Cc][Oo][Pp][Yy]' '[Vv][Oo][Nn]' '?* | [Kk][Oo][Pp][Ii][Ee]' '[Oo][Ff]' '?* | [Kk][Oo][Pp][Ii][Ee]' '[Vv][Oo][Nn]' '?*)
		UC=${uc_n#* * }
		UC_WHY="it looks like a copy Windows made"
		return 0
		;;
	[Cc][Oo][Pp][Yy]' ('*') '[Oo][Ff]' '?* | [Cc][Oo][Pp][Yy]' ('*') '[Vv][Oo][Nn]' '?* | [Kk][Oo][Pp][Ii][Ee]' ('*') '[Oo][Ff]' '?* | [Kk][Oo][Pp][Ii][Ee]' ('*') '[Vv][Oo][Nn]' '?*)
		uc_d=${uc_n#*(}
		uc_d=${uc_d%%)*}
		if digits "$uc_d"; then
			UC=${uc_n#*) * }
			UC_WHY="it looks like a copy Windows made"
			return 0
		fi
		;;
	esac
	# "X copy", "X Kopie", "X copy N"
	uc_t=$uc_n
	case $uc_t in ?*' '?*' '[0-9]*)
		digits "${uc_t##* }" && uc_t=${uc_t% *}
		;;
	esac
	case $uc_t in ?*' '[Cc][Oo][Pp][Yy] | ?*' '[Kk][Oo][Pp][Ii][Ee])
		UC=${uc_t% *}
		UC_WHY="it looks like a copy macOS made"
		return 0
		;;
	esac
	# "X (N)"
	case $uc_n in ?*' ('*')')
		uc_d=${uc_n##* (}
		if digits "${uc_d%)}"; then
			UC=${uc_n% (*}
			UC_WHY="Windows added a number to a second file of the same name"
			return 0
		fi
		;;
	esac
	# "X N"
	case $uc_n in ?*' '[0-9]*)
		if digits "${uc_n##* }"; then
			UC=${uc_n% *}
			UC_WHY="macOS added a number to a second file of the same name"
			return 0
		fi
		;;
	esac
	return 1
}

# digits TEXT is true when TEXT is one or more digits.
digits() {
	case $1 in '' | *[!0-9]*) return 1 ;; esac
	return 0
}

# lc TEXT sets LC to TEXT with ASCII letters in lower case (no process:
# only the capitals are replaced, one at a time).
lc() {
	LC=
	lc_r=$1
	while :; do
		case $lc_r in
		*[A-Z]*)
			lc_p=${lc_r%%[A-Z]*}
			lc_r=${lc_r#"$lc_p"}
			lc_c=${lc_r%"${lc_r#?}"}
			lc_r=${lc_r#?}
			case $lc_c in
			A) lc_c=a ;; B) lc_c=b ;; C) lc_c=c ;; D) lc_c=d ;; E) lc_c=e ;;
			F) lc_c=f ;; G) lc_c=g ;; H) lc_c=h ;; I) lc_c=i ;; J) lc_c=j ;;
			K) lc_c=k ;; L) lc_c=l ;; M) lc_c=m ;; N) lc_c=n ;; O) lc_c=o ;;
			P) lc_c=p ;; Q) lc_c=q ;; R) lc_c=r ;; S) lc_c=s ;; T) lc_c=t ;;
			U) lc_c=u ;; V) lc_c=v ;; W) lc_c=w ;; X) lc_c=x ;; Y) lc_c=y ;;
			Z) lc_c=z ;;
			esac
			LC=$LC$lc_p$lc_c
			;;
		*)
			LC=$LC$lc_r
			return 0
			;;
		esac
	done
}

# unused_names sets UNUSED to the lines DOCTOR.txt lists under "files in
# conf.d that are not used" (each ending in a newline): the unknown names
# scan kept (UNK: safe names, with a status; ODD: the others).
unused_names() {
	UNUSED=
	un_count=0
	un_all=
	for un_t in $TARGETS $TUNING_FILES; do
		un_all="$un_all${un_all:+, }$un_t"
	done
	un_ifs=$IFS
	IFS=$NL
	set -f
	# shellcheck disable=SC2086 # one name a line
	set -- $ODD
	set +f
	IFS=$un_ifs
	for un_u in $UNK; do
		sources_of "$un_u"
		# shellcheck disable=SC2086 # safe names, one word each
		set -- "$@" $SOURCES
	done
	for un_n in "$@"; do
		case $un_count in "$UNK_MAX")
			UNUSED="$UNUSED… and more$NL"
			break
			;;
		esac
		un_count=$((un_count + 1))
		printable "$un_n"
		un_l="\"$PR\": not used"
		if meant "$un_n"; then
			un_l="$un_l; did you mean $MEANT? ($WHY_MEANT): rename it to $MEANT, or delete it"
		else
			un_l="$un_l: this NAS has no file of that name (known: $un_all)"
		fi
		if safe_name "$un_n"; then
			case $un_n in
			*.add) un_l="$un_l; see conf.d/${un_n%.add}.status" ;;
			*.merge) un_l="$un_l; see conf.d/${un_n%.merge}.status" ;;
			*) un_l="$un_l; see conf.d/$un_n.status" ;;
			esac
		fi
		UNUSED="$UNUSED$un_l$NL"
	done
}

# printable NAME sets PR to NAME as DOCTOR.txt quotes it: control
# characters as ?, " and \ escaped, cut at 80 bytes with "…".
printable() {
	PR=
	pr_r=$1
	while :; do
		case $pr_r in
		*[[:cntrl:]\"\\]*)
			pr_p=${pr_r%%[[:cntrl:]\"\\]*}
			pr_r=${pr_r#"$pr_p"}
			pr_c=${pr_r%"${pr_r#?}"}
			pr_r=${pr_r#?}
			case $pr_c in
			\" | \\) pr_c=\\$pr_c ;;
			*) pr_c='?' ;;
			esac
			PR=$PR$pr_p$pr_c
			;;
		*)
			PR=$PR$pr_r
			break
			;;
		esac
	done
}
