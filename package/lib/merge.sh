# merge.sh: .merge fragments in the sh engine, for smb.conf and key =
# value files (sysctl.conf, tuning.conf ...). docs/FORMATS.md ".merge
# fragments" states the rules; the Go engine's internal/merge is the
# reference, and internal/shmerge proves this file gives its bytes, its
# refusals and its warnings.
#
#   merge_format NAME        prints smb.conf, keyvalue or nothing (NAME
#                            cannot be merged here), sets MERGE_FORMAT to
#                            the same; status 0 when it can be merged
#   merge_unsupported NAME [PROFILE]
#                            sets REASON to what the status says of
#                            conf.d/NAME.merge when NAME cannot be merged
#                            (else to nothing), and MERGE_FORMAT as
#                            merge_format does, printing nothing: no fork,
#                            where merge_format's echo forks on BusyBox 1.00
#   merge_file FORMAT BASE FRAGMENT FRAGNAME OUT
#                            merges FRAGMENT (normalised) onto BASE (an
#                            empty file when there is none) into OUT: 0.
#                            FORMAT is smb.conf or keyvalue. A mistake in
#                            the fragment: 1, OUT untouched, REASON
#                            "FRAGNAME line N: ...", one a line (as the Go
#                            engine words it). A base or fragment that
#                            cannot be read: 1, REASON names it.
#                            MERGE_WARNINGS: the deletions that matched
#                            nothing, one a line.
#
# Assumes LC_ALL=C; works under set -u and set -e; keeps the caller's IFS,
# noglob and arguments; needs no scratch file (OUT may be BASE; OUT is
# written with cat, not atomically: give a staging file). Processes: one
# sed and one cat, and the child ash forks to feed cat its here-document:
# 3 forks a merge (the message for a refused line holding a control
# character costs a tr more). No file content is ever evaluated: eval
# only builds variable names from numbers. Every other global this file
# sets starts with _m.

# shellcheck shell=sh
# shellcheck disable=SC2034,SC2154 # set through eval; REASON and MERGE_* are for the caller

_mNL='
'
_mBS=\\
_mTAB='	'

# The merge's other parts lie next to this file, in the folder the caller
# names in ENGINE_DIR (the engine's own; a test or a benchmark sets it):
# mergefrag.sh (strings, the fragment) and mergebase.sh (the base).
for _mp in mergefrag mergebase; do
	# shellcheck source=/dev/null
	. "$ENGINE_DIR/$_mp.sh" || {
		echo "userscript: $ENGINE_DIR/$_mp.sh is missing: reinstall the package" >&2
		exit 1
	}
done

# ---- merging (Go's merger.applyKids and what it calls) ---------------
# A scope: _mlook the containers searched, _mown those new lines go into
# (the first), _ments the fragment's entries, _mplace and _mabsent how
# warnings name it, _mcg its group.

# _m_warn LINE SHOWN WHERE WHAT adds a warning: a deletion did nothing.
_m_warn() {
	_mW=$_mW${_mW:+$_mNL}"$_mFRAG line $1: $2 deletes nothing: $3 has no $4 (misspelt, or already gone?)"
}

# _m_lastnt C: _mlnt is the last line of C that is not blank or a
# comment, or empty.
_m_lastnt() {
	eval "_mx=\$_mL$1"
	_mx=${_mx% }
	while :; do
		case $_mx in '') _mlnt=; return ;; esac
		_my=${_mx##* } _mx=${_mx% *}
		eval "_mz=\$_mK$_my"
		case $_mz in B | C) ;; *) _mlnt=$_my; return ;; esac
	done
}

# _m_kidindent C: _mr is the indentation of a new line of C.
_m_kidindent() {
	_m_lastnt "$1"
	case $_mlnt in ?*) eval "_mr=\$_mI$_mlnt"; return ;; esac
	eval "_mx=\${_mH$1-}"
	case $_mx:$1 in x*) _mr=${_mx#x} ;; *:0) _mr='' ;; *) eval "_mr=\$_mI$1\$_munit" ;; esac
}

# _m_leftover S: _mr lists what stays of section S when it goes: the
# comments and blank lines that end it (they describe what follows).
_m_leftover() {
	eval "_mx=\$_mL$1"
	_mr=' ' _mx=${_mx% }
	while :; do
		case $_mx in '') return ;; esac
		_my=${_mx##* }
		eval "_mz=\$_mK$_my"
		case $_mz in B | C) _mr=" $_my$_mr" _mx=${_mx% *} ;; *) return ;; esac
	done
}

# _m_unsection S takes section S out of the file, but for its leftover.
_m_unsection() {
	_m_leftover "$1"
	_mL0=${_mL0%%" $1 "*}$_mr${_mL0#*" $1 "}
}

# _m_drop C N takes line N out of container C.
_m_drop() {
	eval "_mw=\$_mL$1 _mv=\$_mT$1 _mu=\$_mQ$1"
	_mw=${_mw%%" $2 "*}" "${_mw#*" $2 "}
	case $_mv in *" $2 "*) _mv=${_mv%%" $2 "*}" "${_mv#*" $2 "} ;; esac
	case $_mu in *" $2 "*) _mu=${_mu%%" $2 "*}" "${_mu#*" $2 "} ;; esac
	eval "_mL$1=\$_mw _mT$1=\$_mv _mQ$1=\$_mu"
}

# _m_insert C HOW AT NEW puts node NEW into C: a(fter) or b(efore) node
# AT, at the t(op) or the e(nd).
_m_insert() {
	eval "_mw=\$_mL$1"
	case $2 in
	a) _mw="${_mw%%" $3 "*} $3 $4 ${_mw#*" $3 "}" ;;
	b) _mw="${_mw%%" $3 "*} $4 $3 ${_mw#*" $3 "}" ;;
	t) _mw=" $4$_mw" ;;
	*) _mw="$_mw$4 " ;;
	esac
	eval "_mL$1=\$_mw"
}

# _m_blank: _mb2 is a new blank line.
_m_blank() {
	_mn=$((_mn + 1))
	_mb2=$_mn
	eval "_mK$_mn=B _mR$_mn=\$_mNL"
}

# _m_collapse: what the fragment says last of each key (Go's collapse):
# _msets the entries to set, in order; _mdI the identities and _mdN the
# names to delete, but for the identities in _mkeep.
_m_collapse() {
	_mrev=''
	for _mx in $_ments; do _mrev="$_mx $_mrev"; done
	_mlS=$_mNL _mlD=$_mNL _mlSj='' _mdN=$_mNL _mdI=$_mNL _mkeep=$_mNL _msets=''
	for _mx in $_mrev; do
		eval "_md=\$_mfd$_mx _mb=\$_mfb$_mx _mnm=\$_mfm$_mx _mid=\$_mfi$_mx"
		case $_md:$_mb in
		:*)
			case $_mlS in *"$_mNL$_mid$_mNL"*) ;; *)
				case $_mlD in *"$_mNL$_mid$_mNL"*) ;; *)
					case $_mdN in *"$_mNL$_mnm$_mNL"*) ;; *) _msets="$_mx $_msets" ;; esac
					;;
				esac
				_mlS=$_mlS$_mid$_mNL _mlSj="$_mlSj $_mx"
				;;
			esac
			;;
		1:1)
			case $_mdN in *"$_mNL$_mnm$_mNL"*) continue ;; esac
			_mdN=$_mdN$_mnm$_mNL
			for _my in $_mlSj; do
				eval "_mz=\$_mfm$_my"
				case $_mz in "$_mnm") eval "_mkeep=\$_mkeep\$_mfi$_my\$_mNL" ;; esac
			done
			;;
		*)
			case $_mlD in *"$_mNL$_mid$_mNL"*) continue ;; esac
			_mlD=$_mlD$_mid$_mNL
			case $_mlS in *"$_mNL$_mid$_mNL"*) ;; *) _mdI=$_mdI$_mid$_mNL ;; esac
			;;
		esac
	done
}

# _m_remove: takes out the lines the deletions name (_mrI/_mrN: their
# identities and names).
_m_remove() {
	_mrI=$_mNL _mrN=$_mNL
	case $_mdI$_mdN in "$_mNL$_mNL") return ;; esac
	for _mc in $_mlook; do
		eval "_mx=\$_mT$_mc"
		for _my in $_mx; do
			eval "_mnm=\$_mN$_my _mid=\$_mD$_my"
			case $_mdI in *"$_mNL$_mid$_mNL"*) ;; *)
				case $_mdN in *"$_mNL$_mnm$_mNL"*) ;; *) continue ;; esac
				case $_mkeep in *"$_mNL$_mid$_mNL"*) continue ;; esac
				;;
			esac
			_m_drop "$_mc" "$_my"
			_mrI=$_mrI$_mid$_mNL _mrN=$_mrN$_mnm$_mNL
		done
	done
}

# _m_warnents: a deletion that removed nothing, and is not followed by
# the same key, is a warning.
_m_warnents() {
	_mwI=$_mrI _mwN=$_mrN
	for _mx in $_ments; do
		eval "_md=\$_mfd$_mx"
		case $_md in '') eval "_mwI=\$_mwI\$_mfi$_mx\$_mNL _mwN=\$_mwN\$_mfm$_mx\$_mNL" ;; esac
	done
	for _mx in $_ments; do
		eval "_md=\$_mfd$_mx _mb=\$_mfb$_mx _mnm=\$_mfm$_mx _mid=\$_mfi$_mx"
		case $_md:$_mb in
		:*) continue ;;
		1:1) case $_mwN in *"$_mNL$_mnm$_mNL"*) continue ;; esac ;;
		*) case $_mwI in *"$_mNL$_mid$_mNL"*) continue ;; esac ;;
		esac
		eval "_my=\$_mfr$_mx _mz=\$_mfo$_mx"
		case $_mabsent in
		'') _m_warn "$_mz" "!$_my" "$_mplace" "$_my" ;;
		*) _m_warn "$_mz" "!$_my" 'the file' "$_mabsent" ;;
		esac
	done
}

# _m_target: _mtgt is the block new lines of the scope go into; a
# section the file lacks is made.
_m_target() {
	case $_mown in ' ')
		_m_newsection "$_mcg"
		_mown=" $_mb " _mlook="$_mlook$_mb "
		;;
	esac
	_mtgt=${_mown# }
	_mtgt=${_mtgt%% *}
}

# _m_setline N J gives line N the value of entry J, keeping its
# indentation, separator and key, unless its key means the opposite.
_m_setline() {
	eval "_msx=\$_mR$1 _msy=\${_mV$1-}"
	_msp=${_msx%%=*} _msx=${_msx#*=}
	_msx=${_msx%%[![:blank:]]*}
	case $_mS:$_msy in "1:$_minv" | :*) ;; *)
		_msz=${_msp##*[![:space:]]}
		case $_msz in *"$_mNL"*) _msz=${_msz##*"$_mNL"} ;; esac
		eval "_msp=\$_mI$1\$_mfk$2\$_msz"
		;;
	esac
	eval "_mR$1=\$_msp=\$_msx\$_mval\$_mNL"
}

# _m_set J: entry J sets its key in the scope (Go's merger.set).
_m_set() {
	eval "_mid=\$_mfi$1 _mnm=\$_mfm$1 _minv=\$_mfx$1 _mval=\$_mfv$1"
	_mfound=''
	for _mc in $_mlook; do
		eval "_mt=\$_mT$_mc"
		_mfirst=''
		for _msn in $_mt; do
			eval "_mz=\$_mD$_msn"
			case $_mz in "$_mid") ;; *) continue ;; esac
			case $_mS:$_mfirst in
			1:?*) _m_drop "$_mc" "$_msn" ;;
			*) _m_setline "$_msn" "$1" ;;
			esac
			_mfirst=$_msn _mfound=1
		done
	done
	case $_mfound in 1) return ;; esac
	_m_target
	_m_kidindent "$_mtgt"
	_mind=$_mr
	# Where (Go's insertPos): an include after the last include, another
	# key before the first include, else after the last line that is not
	# a comment or blank; at the top of an empty section, the end of a
	# file.
	eval "_mx=\$_mQ$_mtgt"
	_mhow=''
	case $_mS:$_mx in 1:*[0-9]*)
		case $_mnm in
		include) _mx=${_mx% } && _mhow=a _mat=${_mx##* } ;;
		*) _mx=${_mx# } && _mhow=b _mat=${_mx%% *} ;;
		esac
		;;
	esac
	case $_mhow in '')
		_m_lastnt "$_mtgt"
		case $_mlnt:$_mtgt in
		:0) _mhow=e ;;
		:*) _mhow=t ;;
		*) _mhow=a _mat=$_mlnt ;;
		esac
		;;
	esac
	eval "_mx=\$_mfk$1 _my=\$_mfs$1"
	case $_msepf in ?*) _my=$_msepf ;; esac
	_mn=$((_mn + 1))
	eval "_mK$_mn=E _mR$_mn=\$_mind\$_mx\$_my\$_mval\$_mNL _mI$_mn=\$_mind"
	_m_insert "$_mtgt" "$_mhow" "${_mat-}" "$_mn"
	case $_mnm in include) eval "_mQ$_mtgt=\"\${_mQ$_mtgt}$_mn \"" ;; esac
}

# _m_kids: the fragment's lines of one scope (Go's applyKids): deletions
# first, then keys set in order.
_m_kids() {
	_m_collapse
	_m_remove
	_m_warnents
	for _mj in $_msets; do _m_set "$_mj"; done
}

# _m_newsection G: _mb is a new section for group G: at the end of the
# file after a blank line, a new [global] before the first section, above
# the comments right above it (FORMATS S4).
_m_newsection() {
	_m_blank
	_mn=$((_mn + 1))
	_mb=$_mn
	eval "_mx=\$_mgp$1 _my=\$_mgi$1"
	eval "_mK$_mb=S _mR$_mb=\$_mx\$_mNL _mI$_mb= _mO$_mb= _mH$_mb= _mB$_mb=$1 _mL$_mb=' ' _mT$_mb=' ' _mQ$_mb=' '" \
		"_mgS$1=\"\${_mgS$1}$_mb \""
	_mat=''
	case $_my in global)
		for _mx in $_mL0; do
			eval "_mz=\$_mK$_mx"
			case $_mz in S) _mat=$_mx; break ;; esac
		done
		;;
	esac
	case $_mat in ?*)
		_mx=${_mL0%%" $_mat "*}
		while :; do
			case $_mx in '') break ;; esac
			_my=${_mx##* }
			eval "_mz=\$_mK$_my"
			case $_mz in C) _mat=$_my _mx=${_mx% *} ;; *) break ;; esac
		done
		eval "_mL$_mb=' $_mb2 '"
		case $_mx in *[0-9]*)
			_my=${_mx##* }
			eval "_mz=\$_mK$_my"
			case $_mz in B) ;; *)
				_m_blank
				_m_insert 0 b "$_mat" "$_mb2"
				;;
			esac
			;;
		esac
		_m_insert 0 b "$_mat" "$_mb"
		return
		;;
	esac
	# After a blank line, unless the file is empty or ends with one.
	_mx=${_mL0% }
	_mx=${_mx##* }
	case $_mx in ?*)
		eval "_my=\$_mK$_mx\${_mO$_mx-} _mz=\${_mL$_mx-}"
		case $_my:$_mz in S:*[0-9]*) _mz=${_mz% } && _mx=${_mz##* } ;; esac
		eval "_mz=\$_mR$_mx"
		case $_mz in "$_mNL" | *"$_mNL$_mNL") ;; *) _mL0="$_mL0$_mb2 " ;; esac
		;;
	esac
	_mL0="$_mL0$_mb "
}

# _m_mergeblock G: group G's lines merged into its sections, or into a
# new one (Go's mergeBlock).
_m_mergeblock() {
	_mcg=$1
	eval "_mown=\$_mgS$1 _mplace=\$_mgp$1 _mx=\$_mgi$1 _ments=\$_mge$1"
	case $_mx in global) _mlook=" 0$_mown" ;; *) _mlook=$_mown ;; esac
	case $_mlook in ' ') _mabsent=$_mplace ;; *) _mabsent='' ;; esac
	case $_ments in ' ') _m_target ;; esac
	_m_kids
}

# _m_replace G: group G deletes its section and writes it again: the
# first keeps its place and its closing comments, the others go.
_m_replace() {
	eval "_mown=\$_mgS$1"
	case $_mown in ' ') _m_mergeblock "$1"; return ;; esac
	_mtgt=${_mown# }
	_mtgt=${_mtgt%% *}
	_m_kidindent "$_mtgt"
	eval "_mH$_mtgt=x\$_mr"
	_m_leftover "$_mtgt"
	eval "_mL$_mtgt=\$_mr _mT$_mtgt=' ' _mQ$_mtgt=' '"
	for _mx in $_mown; do
		case $_mx in "$_mtgt") ;; *) _m_unsection "$_mx" ;; esac
	done
	_mcg=$1 _mown=" $_mtgt " _mlook=" $_mtgt " _mabsent=''
	eval "_mgS$1=\$_mown _mplace=\$_mgp$1 _ments=\$_mge$1"
	_m_kids
}

# _m_apply: the whole fragment onto the file.
_m_apply() {
	_mW=''
	case $_mS in '')
		_mcg=1 _mlook=' 0 ' _mown=' 0 ' _mplace='the file' _mabsent='' _ments=$_mge1
		_m_kids
		return
		;;
	esac
	_mgone=''
	for _mgg in $_mG; do
		eval "_mx=\$_mgs$_mgg _my=\$_mgS$_mgg _mz=\${_mgd$_mgg-} _mt=\${_mgl$_mgg-}"
		case $_mx:$_my in
		r:' ') _m_warn "$_mt" "!$_mz" 'the file' "$_mz" ;;
		r:*) _mgone="$_mgone$_my" ;;
		esac
	done
	for _mx in $_mgone; do _m_unsection "$_mx"; done
	for _mgg in $_mG; do
		eval "_mx=\$_mgs$_mgg"
		case $_mx in
		p) _m_replace "$_mgg" ;;
		m) _m_mergeblock "$_mgg" ;;
		esac
	done
}

# ---- the result ------------------------------------------------------

# _m_write OUT: writes the nodes' text to OUT.
_m_write() {
	_mo='' _mo2=''
	for _mx in $_mL0; do
		eval "_mz=\$_mR$_mx _my=\$_mK$_mx\${_mO$_mx-}"
		_mo2=$_mo2$_mz
		case $_my in S)
			eval "_mz=\$_mL$_mx"
			for _my in $_mz; do
				eval "_mo2=\$_mo2\$_mR$_my"
			done
			;;
		esac
		case ${#_mo2} in ????*) _mo=$_mo$_mo2 _mo2='' ;; esac
	done
	_mo=$_mo$_mo2
	case $_mo in
	'') : >"$1" ;;
	*)
		_mo=${_mo%?}
		cat >"$1" <<EOF
$_mo
EOF
		;;
	esac
}

_m_merge() {
	REASON='' MERGE_WARNINGS=''
	case $1 in
	smb.conf) _mS=1 ;;
	keyvalue) _mS='' ;;
	*)
		REASON="unknown merge format \"$1\" (use smb.conf or keyvalue)"
		return 1
		;;
	esac
	_mFRAG=$4 _mok=''
	_m_fragment "$3"
	case $_mok:$_me in
	:*) REASON="$4: cannot be read" ;;
	*:?*) REASON=$_me ;;
	esac
	case $REASON in ?*) return 1 ;; esac
	_mok=''
	_m_load "$2"
	case $_mok in '') REASON="$2: cannot be read" && return 1 ;; esac
	_m_apply
	_m_write "$5" || {
		REASON="$5: cannot be written"
		return 1
	}
	MERGE_WARNINGS=$_mW
}

merge_file() {
	# Lists of nodes are split at blanks, whatever the caller's IFS.
	_mifs=${IFS+set}:${IFS-}
	IFS=" $_mTAB$_mNL"
	_m_merge "$@"
	_mrc=$?
	case $_mifs in set:*) IFS=${_mifs#set:} ;; *) unset IFS ;; esac
	return $_mrc
}

# _m_kind NAME: _mk is smb, ftp, nfs, no (cannot be merged) or kv for a
# target NAME (Go's merge.FormatFor).
_m_kind() {
	_m_lower "$1"
	_mx=$_mr
	while :; do
		case $_mx in *"$_mBS"*) _mx=${_mx%%"$_mBS"*}/${_mx#*"$_mBS"} ;; *) break ;; esac
	done
	while :; do
		case $_mx in ?*/) _mx=${_mx%/} ;; *) break ;; esac
	done
	case $_mx in / | '') ;; *) _mx=${_mx##*/} ;; esac
	case $_mx in *.*) _my=.${_mx##*.} ;; *) _my='' ;; esac
	_mk=kv
	case $_mx in proftpd*) case $_my in .conf) _mk=ftp ;; esac ;; esac
	case $_mx in exports) _mk=nfs ;; esac
	case $_my in .exports) _mk=nfs ;; esac
	case $_mk:$_mx in kv:hosts | kv:hosts.allow | kv:hosts.deny | kv:hostname | kv:passwd | kv:group | \
		kv:shadow | kv:gshadow | kv:smbpasswd | kv:fstab | kv:mtab | kv:crypttab | kv:inittab | kv:crontab | \
		kv:resolv.conf | kv:nsswitch.conf | kv:services | kv:protocols | kv:shells | kv:ftpusers | kv:modules | \
		kv:motd | kv:issue | kv:.htpasswd | kv:.htaccess | kv:httpd.conf | kv:apache2.conf | kv:lighttpd.conf | \
		kv:nginx.conf | kv:vsftpd.user_list | kv:authorized_keys | kv:known_hosts | kv:sshd_config | \
		kv:ssh_config | kv:rc.* | kv:. | kv:/ | kv:)
		_mk=no
		;;
	esac
	case $_mk:$_my in kv:.sh | kv:.ini | kv:.xml | kv:.json | kv:.yaml | kv:.yml | kv:.toml | kv:.html | \
		kv:.js | kv:.php | kv:.pem | kv:.crt | kv:.key | kv:.db | kv:.tdb)
		_mk=no
		;;
	esac
	case $_mx in smb.conf | *.smb.conf | smb.conf.* | rsyncd.conf) _mk=smb ;; esac
}

merge_format() {
	_m_format "$1" || return 1
	echo "$MERGE_FORMAT"
}

# _m_format NAME sets MERGE_FORMAT; status 0 when NAME can be merged.
_m_format() {
	_m_kind "$1"
	case $_mk in
	smb) MERGE_FORMAT=smb.conf ;;
	kv) MERGE_FORMAT=keyvalue ;;
	*) MERGE_FORMAT='' && return 1 ;;
	esac
}

merge_unsupported() {
	_m_format "$1"
	case $_mk in
	no) REASON="conf.d/$1.merge: $1 is not a key = value file userscript can merge into: put the whole file in conf.d/$1" ;;
	ftp | nfs) REASON="conf.d/$1.merge: this device's sh engine merges only smb.conf and key = value files: make $1 on a PC with userscript render${2:+ --profile $2} --base $1.from-nas $1.merge > $1 (see the README) and put it in conf.d/$1 instead" ;;
	*) REASON='' ;;
	esac
}
