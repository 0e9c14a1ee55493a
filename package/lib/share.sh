# shellcheck shell=sh
# userscript sh engine: who can write conf.d through the live smb.conf,
# for the doctor (doctor.sh): the share whose path holds the app folder
# and its guest ok, read only and write list. The Go engine's
# internal/doctor/share.go is the reference. Sourced by doctor.sh.
# shellcheck disable=SC2154,SC2034,SC2153

# dr_share APP sets SHARE: who can write the app folder through the live
# smb.conf (the share whose path holds it, the longest such; its guest
# ok, read only and write list, else [global]'s, else Samba's defaults).
dr_share() {
	SHARE=
	for sh_n in $TARGETS; do
		profile_target "$sh_n"
		case $TVAL in testparm) break ;; esac
		sh_n=
	done
	case $sh_n in '')
		SHARE="not checked: this profile has no smb.conf"
		return 0
		;;
	esac
	if ! target_plain "$sh_n"; then
		SHARE="not checked: $TPATH cannot be read"
		return 0
	fi
	smb_shares "$ROOT$TPATH" "$1"
	case $SH_BEST in '')
		SHARE="no share of the live smb.conf holds the app folder ($1)"
		return 0
		;;
	esac
	sh_where="the app folder is in the share [$SH_BEST] (path $SH_PATH)"
	sh_get "$SH_BEST_P" available yes
	if ! is_yes "$GV"; then
		SHARE="$sh_where: the share is switched off (available = no)"
		return 0
	fi
	sh_get "$SH_BEST_P" guestok no
	sh_guest=no
	is_yes "$GV" && sh_guest=yes
	sh_get "$SH_BEST_P" readonly yes
	sh_ro=no
	is_yes "$GV" && sh_ro=yes
	sh_get "$SH_BEST_P" writelist ""
	sh_wl=$GV
	sh_get "$SH_BEST_P" guestaccount nobody
	sh_ga=$GV
	sh_facts="guest ok = $sh_guest, read only = $sh_ro"
	case $sh_wl in ?*) sh_facts="$sh_facts, write list = $sh_wl" ;; esac
	sh_listed=
	subst "$sh_wl" , " "
	for sh_w in $SUB; do
		sh_w=${sh_w#[@+&]}
		sh_w=${sh_w#[@+&]}
		case $sh_w in "$sh_ga" | nobody | nogroup) sh_listed=yes ;; esac
	done
	case $sh_guest:$sh_ro:$sh_listed in
	yes:no:* | yes:*:yes) SHARE="$sh_where: GUESTS CAN WRITE IT ($sh_facts): anyone on your network, without a password, can change conf.d" ;;
	*:no:*) SHARE="$sh_where: every user the share lets in can write it ($sh_facts)" ;;
	*)
		case $sh_wl in
		?*) SHARE="$sh_where: the users of its write list can write it ($sh_facts)" ;;
		*) SHARE="$sh_where: read-only over the network ($sh_facts)" ;;
		esac
		;;
	esac
}

# smb_shares FILE APP reads an smb.conf: [global]'s parameters into
# SH_G, and the share whose path holds APP (the longest; paths with %
# skipped) into SH_BEST (its name), SH_PATH and SH_BEST_P. Parameters are
# kept as "key=value" lines, keys in lower case without spaces, Samba's
# synonyms folded (writable, writeable, write ok: read only inverted;
# public: guest ok); the last value of a key wins.
smb_shares() {
	part names
	SH_G=$NL
	SH_BEST=
	SH_BEST_P=
	SH_PATH=
	ss_cur=global
	ss_p=$NL
	ss_name=
	ss_cont=
	while IFS= read -r ss_l || case $ss_l in '') false ;; esac; do
		trim "$ss_l"
		case $TR in *\\)
			ss_cont="$ss_cont${TR%\\} "
			continue
			;;
		esac
		trim "$ss_cont$TR"
		ss_cont=
		case $TR in
		'' | '#'* | ';'*) ;;
		'['*)
			smb_share_end "$2"
			ss_s=${TR#[}
			trim "${ss_s%]}"
			ss_name=$TR
			ss_p=$NL
			case $TR in [Gg][Ll][Oo][Bb][Aa][Ll]) ss_cur=global ;; *) ss_cur=share ;; esac
			;;
		*=*)
			ss_k=${TR%%=*}
			trim "${TR#*=}"
			ss_v=$TR
			while :; do
				case $ss_k in
				*[[:space:]]*) ss_k=${ss_k%%[[:space:]]*}${ss_k#*[[:space:]]} ;;
				*) break ;;
				esac
			done
			lc "$ss_k"
			ss_k=$LC
			case $ss_k in
			writable | writeable | writeok)
				ss_k='readonly'
				if is_yes "$ss_v"; then ss_v=no; else ss_v=yes; fi
				;;
			public) ss_k=guestok ;;
			onlyguest) ss_k=guestonly ;;
			esac
			case $ss_cur in
			global) SH_G="$SH_G$ss_k=$ss_v$NL" ;;
			*) ss_p="$ss_p$ss_k=$ss_v$NL" ;;
			esac
			;;
		esac
	done <"$1"
	smb_share_end "$2"
}

# smb_share_end APP: the share just read holds APP? (its path, the last
# value of `path`, without a trailing /)
smb_share_end() {
	case $ss_cur in share) ;; *) return 0 ;; esac
	kv_last "$ss_p" path
	se_p=$KV
	case $se_p in '' | *%*) return 0 ;; esac
	while :; do
		case $se_p in ?*/) se_p=${se_p%/} ;; *) break ;; esac
	done
	case $1 in "$se_p" | "$se_p"/*) ;; *) return 0 ;; esac
	case $((${#se_p} > ${#SH_PATH})) in 1)
		SH_BEST=$ss_name
		SH_BEST_P=$ss_p
		SH_PATH=$se_p
		;;
	esac
}

# kv_last LINES KEY sets KV to the last value of KEY in "key=value" lines;
# false when there is none.
kv_last() {
	KV=
	case $1 in *"$NL$2="*) ;; *) return 1 ;; esac
	KV=${1##*"$NL$2="}
	KV=${KV%%"$NL"*}
}

# sh_get PARAMS KEY DEFAULT sets GV: the share's KEY, else [global]'s,
# else DEFAULT.
sh_get() {
	kv_last "$1" "$2" && GV=$KV && return 0
	kv_last "$SH_G" "$2" && GV=$KV && return 0
	GV=$3
}
