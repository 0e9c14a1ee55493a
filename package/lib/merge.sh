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

# ---- strings (Go's TrimSpace, squeeze, joinValue, %q; ASCII) --------

# _m_lower S: _mr is S with A-Z lowered.
_m_lower() {
	_mr='' _ms=$1
	while :; do
		case $_ms in
		*[[:upper:]]*) ;;
		*) _mr=$_mr$_ms; return ;;
		esac
		_mp=${_ms%%[[:upper:]]*}
		_ms=${_ms#"$_mp"}
		_mc=${_ms%"${_ms#?}"}
		_ms=${_ms#?}
		case $_mc in
		A) _mc=a ;; B) _mc=b ;; C) _mc=c ;; D) _mc=d ;; E) _mc=e ;; F) _mc=f ;;
		G) _mc=g ;; H) _mc=h ;; I) _mc=i ;; J) _mc=j ;; K) _mc=k ;; L) _mc=l ;;
		M) _mc=m ;; N) _mc=n ;; O) _mc=o ;; P) _mc=p ;; Q) _mc=q ;; R) _mc=r ;;
		S) _mc=s ;; T) _mc=t ;; U) _mc=u ;; V) _mc=v ;; W) _mc=w ;; X) _mc=x ;;
		Y) _mc=y ;; Z) _mc=z ;;
		esac
		_mr=$_mr$_mp$_mc
	done
}

# _m_squeeze S: _mr is S lowered, without white space (Samba's strwicmp).
_m_squeeze() {
	_ms=$1
	while :; do
		case $_ms in
		*[[:space:]]*) _ms=${_ms%%[[:space:]]*}${_ms#*[[:space:]]} ;;
		*) break ;;
		esac
	done
	_m_lower "$_ms"
}

# _m_trim S: _mr is S without the white space at its ends.
_m_trim() {
	_mr=${1#"${1%%[![:space:]]*}"}
	_mr=${_mr%"${_mr##*[![:space:]]}"}
}

# _m_rtrim S: _mr is S without the blanks at its end (a newline stays).
_m_rtrim() {
	_mrt=${1##*[![:space:]]}
	case $_mrt in *"$_mNL"*) _mrt=${_mrt##*"$_mNL"} ;; esac
	_mr=${1%"$_mrt"}
}

# _m_join V: _mr is the value V read as one line: a backslash-newline
# joins the next line, every part trimmed.
_m_join() {
	_mv=$1 _mj=''
	while :; do
		case $_mv in
		*"$_mNL"*) _mjp=${_mv%%"$_mNL"*} _mv=${_mv#*"$_mNL"} _mjk=1 ;;
		*) _mjp=$_mv _mjk='' ;;
		esac
		_mjp=${_mjp%"${_mjp##*[![:space:]]}"}
		case $_mjk in 1) _mjp=${_mjp%"$_mBS"} ;; esac
		_m_trim "$_mjp"
		_mj=$_mj$_mr
		case $_mjk in '') break ;; esac
		_mj="$_mj "
	done
	_m_trim "$_mj"
}

# _m_quote S: _mr is S as Go's %q writes it (bytes over 127 as they are).
_m_quote() {
	_mqs=$1 _mq=''
	while :; do
		case $_mqs in
		*[\\\"[:cntrl:]]*) ;;
		*) _mr=\"$_mq$_mqs\"; return ;;
		esac
		_mqp=${_mqs%%[\\\"[:cntrl:]]*}
		_mqs=${_mqs#"$_mqp"}
		_mqc=${_mqs%"${_mqs#?}"}
		_mqs=${_mqs#?}
		case $_mqc in
		"$_mBS") _mqc=\\\\ ;;
		\") _mqc='\"' ;;
		"$_mNL") _mqc='\n' ;;
		"$_mTAB") _mqc='\t' ;;
		*) _m_ctl "$_mqc" ;;
		esac
		_mq=$_mq$_mqp$_mqc
	done
}

# _m_ctl C: _mqc is the escape of the control character C. Only for
# messages about a refused line: the table costs a tr.
_m_ctl() {
	case ${_mCTL-} in '')
		_mCTL=$(echo ABCDEFGHIJKLMNOPQRSTUVWXYZabcde | tr ABCDEFGHIJKLMNOPQRSTUVWXYZabcde \
			'\001\002\003\004\005\006\007\010\011\012\013\014\015\016\017\020\021\022\023\024\025\026\027\030\031\032\033\034\035\036\037')
		;;
	esac
	_mqt=${_mCTL%%"$1"*}
	case $_mqt in "$_mCTL") _mqc='\x7f'; return ;; esac
	_mqn=$((${#_mqt} + 1))
	case $_mqn in
	7) _mqc='\a' ;; 8) _mqc='\b' ;; 11) _mqc='\v' ;; 12) _mqc='\f' ;; 13) _mqc='\r' ;;
	*)
		_mqc=$((_mqn % 16))
		case $_mqc in 10) _mqc=a ;; 11) _mqc=b ;; 12) _mqc=c ;; 13) _mqc=d ;; 14) _mqc=e ;; 15) _mqc=f ;; esac
		_mqc='\x'$((_mqn / 16))$_mqc
		;;
	esac
}

# _m_syn KEY: _mmain is the main name of the Samba parameter KEY
# (squeezed) names, _minv 1 when KEY means its opposite (FORMATS S1).
_m_syn() {
	_minv=''
	case $1 in
	writeable | writable | writeok) _mmain=readonly _minv=1 ;;
	enablespoolss) _mmain=disablespoolss _minv=1 ;;
	directory) _mmain=path ;;
	browsable) _mmain=browseable ;;
	public) _mmain=guestok ;;
	onlyguest) _mmain=guestonly ;;
	printok) _mmain=printable ;;
	printer) _mmain=printername ;;
	printcap) _mmain=printcapname ;;
	group) _mmain=forcegroup ;;
	createmode) _mmain=createmask ;;
	directorymode) _mmain=directorymask ;;
	allowhosts) _mmain=hostsallow ;;
	denyhosts) _mmain=hostsdeny ;;
	rootdir | root) _mmain=rootdirectory ;;
	exec) _mmain=preexec ;;
	default) _mmain=defaultservice ;;
	preload) _mmain=autoservices ;;
	lockdir) _mmain=lockdirectory ;;
	debuglevel) _mmain=loglevel ;;
	debugtimestamp) _mmain=timestamplogs ;;
	casesignames) _mmain=casesensitive ;;
	preferedmaster) _mmain=preferredmaster ;;
	maxprotocol | protocol) _mmain=servermaxprotocol ;;
	minprotocol) _mmain=serverminprotocol ;;
	vfsobject) _mmain=vfsobjects ;;
	winbinduid) _mmain=idmapuid ;;
	winbindgid) _mmain=idmapgid ;;
	ldappasswordsync) _mmain=ldappasswdsync ;;
	user | users) _mmain=username ;;
	unixextensions) _mmain=smb1unixextensions ;;
	privatedirectory) _mmain=privatedir ;;
	binddnsdirectory) _mmain=binddnsdir ;;
	socketaddress) _mmain=nbtclientsocketaddress ;;
	smbencrypt) _mmain=serversmbencrypt ;;
	*) _mmain=$1 ;;
	esac
}

# ---- the fragment ----------------------------------------------------
# Entry J: _mfdJ deletion, _mfbJ bare deletion (!key), _mfkJ key as
# written, _mfsJ separator, _mfvJ value, _mfmJ name (squeezed, main
# name), _mfiJ identity (include=VALUE for an include), _mfxJ inverted,
# _mfrJ the line as messages show it, _mfoJ its line. Group G (one per
# section name; key = value files have one): _mgiG identity, _mgsG m
# (merge), r (remove) or p (replace), _mgpG the [section] line to create
# it with, _mgdG/_mglG the deletion and its line, _mgeG its entries,
# _mgIG/_mgNG the identities set or deleted and the names deleted
# (newline-delimited), _mgSG its sections in the file. _mG lists groups.

# _m_err LINE MSG adds a mistake of the fragment.
_m_err() {
	_me=$_me${_me:+$_mNL}"$_mFRAG line $1: $2"
}

# _m_cont FIRST CUR: 0 when the logical line that began with the
# physical line FIRST goes on after CUR (smb.conf, FORMATS S6).
_m_cont() {
	_mx=${1#"${1%%[![:space:]]*}"}
	case $_mx in '#'* | ';'* | '['*) return 1 ;; esac
	_mx=${2%"${2##*[![:space:]]}"}
	case $_mx in *"$_mBS") return 0 ;; esac
	return 1
}

# _m_newgroup ID: _mg is a new group.
_m_newgroup() {
	_mgn=$((_mgn + 1))
	_mg=$_mgn
	_mG="$_mG$_mg "
	eval "_mgi$_mg=\$1 _mgs$_mg=m _mgp$_mg= _mge$_mg=' ' _mgI$_mg=\$_mNL _mgN$_mg=\$_mNL _mgS$_mg=' '"
}

# _m_group ID: the fragment's section line (_mt, _md, _mfr, _mlno)
# names group ID: sortKids in Go.
_m_group() {
	_mg=''
	for _mx in $_mG; do
		eval "_my=\$_mgi$_mx"
		case $_my in "$1") _mg=$_mx; break ;; esac
	done
	case $_mg in '') _m_newgroup "$1" ;; esac
	case $_md in
	1)
		eval "_mgs$_mg=r _mgd$_mg=\$_mfr _mgl$_mg=\$_mlno _mgp$_mg= _mge$_mg=' ' _mgI$_mg=\$_mNL _mgN$_mg=\$_mNL"
		_mcg=''
		;;
	*)
		eval "_my=\$_mgs$_mg _mz=\$_mgp$_mg"
		case $_my in r) eval "_mgs$_mg=p" ;; esac
		case $_mz in '') eval "_mgp$_mg=\$_mfr" ;; esac
		_mcg=$_mg
		;;
	esac
}

# _m_entry: adds the entry parsed (_md _mb _mkey _msep _mval _mmain _mid
# _minv _mfr _mlno) to the current group _mcg.
_m_entry() {
	_mfn=$((_mfn + 1))
	eval "_mfd$_mfn=\$_md _mfb$_mfn=\$_mb _mfk$_mfn=\$_mkey _mfs$_mfn=\$_msep _mfv$_mfn=\$_mval" \
		"_mfm$_mfn=\$_mmain _mfi$_mfn=\$_mid _mfx$_mfn=\$_minv _mfr$_mfn=\$_mfr _mfo$_mfn=\$_mlno" \
		"_mge$_mcg=\"\${_mge$_mcg}$_mfn \""
	case $_mb in
	1) eval "_mgN$_mcg=\$_mgN$_mcg\$_mmain\$_mNL" ;;
	*) eval "_mgI$_mcg=\$_mgI$_mcg\$_mid\$_mNL" ;;
	esac
}

# _m_kv T: parses key = value text T (from a line, after its indentation
# and "!"): _mkey, _msep, _mval.
_m_kv() {
	_mp=${1%%=*}
	_m_rtrim "$_mp"
	_mkey=$_mr
	_mx=${1#*=}
	_my=${_mx%%[![:blank:]]*}
	_mval=${_mx#"$_my"}
	_mval=${_mval%"$_mNL"}
	_msep=${_mp#"$_mkey"}=$_my
}

# _m_notkv: the mistake of a line that is not key = value.
_m_notkv() {
	_m_join "$_mt"
	_m_quote "$_mr"
	_m_err "$_mlno" "$_mr is not key = value"
}

# _m_fline_smb: one logical line _mt of a smb.conf fragment, line _mlno
# (parseSambaFragment in Go).
_m_fline_smb() {
	_mt=${_mt#"${_mt%%[![:space:]]*}"}
	_md='' _mb=''
	case $_mt in
	'') return ;;
	'!'*)
		_md=1 _mt=${_mt#?}
		_mt=${_mt#"${_mt%%[![:space:]]*}"}
		case $_mt in '') _m_err "$_mlno" '! names nothing: write !key to delete a key or ![section] to delete a section'; return ;; esac
		;;
	esac
	# (trimmed in an assignment: BusyBox 1.00's ash cuts a long text
	# trimmed of a newline in a command's argument)
	_mx=${_mt%%"$_mNL"*}
	_m_trim "$_mx"
	_mfr=$_mr _mx=''
	case $_mt in
	'#'* | ';'*)
		case $_md in 1) _m_notkv ;; esac
		return
		;;
	'['*)
		_mx=${_mt%%"$_mNL"*}
		case $_mx in *']'*) ;; *)
			_m_trim "$_mt"
			_m_quote "$_mr"
			_m_err "$_mlno" "$_mr has no closing ]"
			return
			;;
		esac
		_mx=${_mx#?}
		_mx=${_mx%%]*}
		_m_trim "$_mx"
		case $_mr in '') _m_err "$_mlno" '[] names no section'; return ;; esac
		_m_secid "$_mx"
		_m_group "$_mr"
		return
		;;
	'='*) ;;
	*=*)
		_m_kv "$_mt"
		_mx=1
		;;
	esac
	case $_mx in 1) ;; *)
		case $_md:$_mt in
		1:*) _m_join "$_mt"; _mkey=$_mr _msep='' _mval='' _mb=1 ;;
		:=*) _m_err "$_mlno" 'a line starting with = names no key'; return ;;
		*) _m_notkv; return ;;
		esac
		;;
	esac
	case $_mcg in '') _m_err "$_mlno" "a key outside any section: put it under [global] or the share's [name]"; return ;; esac
	_m_squeeze "$_mkey"
	_m_syn "$_mr"
	_mid=$_mmain
	case $_mid in include) _m_join "$_mval"; _mid=include=$_mr ;; esac
	_m_entry
}

# _m_secid NAME: _mr is the identity of section NAME (FORMATS S2).
_m_secid() {
	_m_squeeze "$1"
	case $_mr in global | globals) _mr=global; return ;; esac
	_m_lower "$1"
	_mr=[$_mr
}

# _m_fline_kv: one line _mt of a key = value fragment, line _mlno
# (parseKeyValueFragment in Go).
_m_fline_kv() {
	_mt=${_mt#"${_mt%%[![:space:]]*}"}
	_md='' _mb='' _mx=''
	case $_mt in '!'*)
		_md=1 _mt=${_mt#?}
		_mt=${_mt#"${_mt%%[![:space:]]*}"}
		;;
	esac
	_m_trim "$_mt"
	_mfr=$_mr
	case $_mt in
	'' | '#'* | ';'*)
		case $_md in 1) _m_err "$_mlno" '! names nothing: write !key' ;; esac
		return
		;;
	'='*) ;;
	*=*) _m_kv "$_mt"; _mx=1 ;;
	esac
	case $_mx in 1) ;; *)
		case $_md:$_mt in
		1:*) _mkey=$_mfr _msep='' _mval='' _mb=1 ;;
		:=*) _m_err "$_mlno" 'a line starting with = names no key'; return ;;
		*) _m_quote "$_mfr"; _m_err "$_mlno" "$_mr is not key = value"; return ;;
		esac
		;;
	esac
	_m_kvid "$_mkey"
	case $_mr in '') _m_quote "$_mkey"; _m_err "$_mlno" "$_mr names no key"; return ;; esac
	_mmain=$_mr _mid=$_mr _minv=''
	_m_entry
}

# _m_kvid KEY: _mr is the identity of KEY: sysctl's leading - does not
# count, / is . (FORMATS K1).
_m_kvid() {
	_mr=${1#-}
	while :; do
		case $_mr in */*) _mr=${_mr%%/*}.${_mr#*/} ;; *) return ;; esac
	done
}

# _m_fragment FRAGMENT: reads the fragment into entries and groups;
# _me holds its mistakes, _mok is set when it could be read.
_m_fragment() {
	_me='' _mfn=0 _mgn=0 _mG=' ' _mcg='' _mno=0 _mt='' _mlno='' _mfirst=''
	case $_mS in '') _m_newgroup ''; _mcg=1 ;; esac
	{
		while IFS= read -r _ml || case $_ml in '') false ;; esac; do
			_mno=$((_mno + 1))
			case $_mS in '')
				_mt=$_ml _mlno=$_mno
				_m_fline_kv
				continue
				;;
			esac
			case $_mt in
			'') _mt=$_ml$_mNL _mlno=$_mno _mfirst=$_ml ;;
			*) _mt=$_mt$_ml$_mNL ;;
			esac
			_m_cont "$_mfirst" "$_ml" && continue
			_m_fline_smb
			_mt=''
		done
		_mok=1
	} 2>/dev/null <"$1"
	case $_mS:$_mt in 1:?*) _m_err "$_mlno" "the last line ends with $_mBS but no line follows: remove the $_mBS" ;; esac
}

# ---- the base --------------------------------------------------------
# sed writes a blank line or a comment (always one physical line) as
# "b" or "c" and its text; any other logical line as one line, o<indent>
# (other), e<indent>|<key> (key squeezed and lowered for smb.conf, its
# identity for key = value) or s<indent>|<identity> (section), followed
# by its physical lines, each after "=". A base ending in a continuation gets the empty line Go's
# prepare() gives it. BusyBox 1.00 sed matches $ at every newline in an
# address, so addresses only ever see one physical line.
# shellcheck disable=SC2016 # a sed program
_mSEDSMB='h
/^[[:space:]]*[#;[]/b d
:c
/\\[[:space:]]*$/!b d
$b o
n
H
b c
:o
s/.*//
H
:d
g
t r
:r
s/^[[:space:]]*$/b/
t t
s/^[[:space:]]*[#;].*/c/
t t
s/^\([[:space:]]*\)\[\([^]]*\)\].*/s\1|\2/
t s
s/^\([[:space:]]*\)\[.*/o\1/
t e
s/^\([[:space:]]*\)\([^=]*\)=.*/e\1|\2/
t k
s/^\([[:space:]]*\).*/o\1/
b e
:t
G
s/\n//
p
d
:s
y/ABCDEFGHIJKLMNOPQRSTUVWXYZ/abcdefghijklmnopqrstuvwxyz/
s/^\(s[^|]*|\)[[:space:]]*g[[:space:]]*l[[:space:]]*o[[:space:]]*b[[:space:]]*a[[:space:]]*l[[:space:]]*\(s[[:space:]]*\)\{0,1\}$/\1global/
t e
s/|/|\[/
b e
:k
s/^e\([^|]*\)|$/o\1/
t e
:w
s/^\(e[^|]*|.*\)[[:space:]]/\1/
t w
y/ABCDEFGHIJKLMNOPQRSTUVWXYZ/abcdefghijklmnopqrstuvwxyz/
:e
p
g
s/^/=/
s/\n/&=/g
p'
# shellcheck disable=SC2016 # a sed program
_mSEDKV='h
s/^[[:space:]]*$/b/
t t
s/^[[:space:]]*[#;].*/c/
t t
s/^\([[:space:]]*\)\([^=]*\)=.*/e\1|\2/
t k
s/^\([[:space:]]*\).*/o\1/
b e
:t
G
s/\n//
p
d
:k
s/^e\([^|]*\)|$/o\1/
t e
s/[[:space:]]*$//
s/^\(e[^|]*|\)-/\1/
s/\//./g
:e
p
g
s/^/=/
p'

# Node N of the base or the result: _mKN kind (B blank, C comment, O
# lines the fragment does not name, ending with one that is not blank or
# a comment; E a key; S a section), _mRN text, _mIN indentation; a key
# the fragment names has _mNN name, _mDN identity, _mVN inverted. A
# section has _mLN (its lines, " 3 4 "), _mTN (its keys the fragment
# names), _mQN (its includes), _mBN its group, _mHN "x" + the
# indentation of its lines once replaced, _mON 1 when the fragment does
# not name it (then _mRN holds all its text). Node 0 is the file.
#
# Lines the fragment does not name are kept together (_mck, indentation
# _mci), but for the blank lines and comments after the last of them
# (_mtl), where new lines go before: each is a node of its own. Long
# texts grow in two steps (_mck2 into _mck, _mac2 into _macc): ash copies
# a variable byte by byte each time it is appended to.

# _m_flush: the lines kept together so far become nodes.
_m_flush() {
	case $_mck$_mck2 in ?*)
		_mn=$((_mn + 1))
		eval "_mK$_mn=O _mR$_mn=\$_mck\$_mck2 _mI$_mn=\$_mci"
		_mcl="$_mcl$_mn " _mck='' _mck2=''
		;;
	esac
	while :; do
		case $_mtl in '') return ;; esac
		_mx=${_mtl%%"$_mNL"*}$_mNL
		_mtl=${_mtl#*"$_mNL"}
		_mn=$((_mn + 1))
		case $_mx in *[![:space:]]*) eval "_mK$_mn=C _mR$_mn=\$_mx" ;; *) eval "_mK$_mn=B _mR$_mn=\$_mx" ;; esac
		_mcl="$_mcl$_mn "
	done
}

# _m_close: the section or the top of the file being read is complete.
_m_close() {
	case $_mopq in 1)
		eval "_mR$_mcur=\$_macc\$_mac2"
		_mopq='' _mac2=''
		return
		;;
	esac
	_m_flush
	eval "_mL$_mcur=\$_mcl _mT$_mcur=\$_mct _mQ$_mcur=\$_mcq"
}

# _m_unit IND: the first line inside a section indented further than it
# gives the file's indentation step (fileUnit in Go).
_m_unit() {
	case $_mcur:$1 in 0:*) ;; *:"$_msind"?*) _munit=${1#"$_msind"} ;; esac
}

# _m_section: a section line (_mann, _mlr) of a smb.conf base.
_m_section() {
	_m_close
	_ma=${_mann#s}
	_mind=${_ma%%|*}
	_mn=$((_mn + 1))
	_mL0="$_mL0$_mn " _mcur=$_mn _msind=$_mind
	_mcl=' ' _mct=' ' _mcq=' ' _mcgr=''
	_my=${_ma#*|}
	for _mx in $_mG; do
		eval "_mz=\$_mgi$_mx"
		case $_mz in "$_my") _mcgr=$_mx && break ;; esac
	done
	case $_mcgr in
	'')
		_mopq=1 _macc=$_mlr _mac2=''
		eval "_mK$_mn=S _mI$_mn=\$_mind _mO$_mn=1"
		;;
	*)
		eval "_mK$_mn=S _mR$_mn=\$_mlr _mI$_mn=\$_mind _mO$_mn='' _mH$_mn='' _mB$_mn=$_mcgr" \
			"_mgS$_mcgr=\"\${_mgS$_mcgr}$_mn \" _mcgI=\$_mgI$_mcgr _mcgN=\$_mgN$_mcgr"
		;;
	esac
}

# _m_line: one logical line (_mann, _mlr) of the base that is not a
# section, a blank line or a comment.
_m_line() {
	_ma=${_mann#?}
	_mind=${_ma%%|*}
	case $_munit in '') _m_unit "$_mind" ;; esac
	case $_mopq in 1) _mac2=$_mac2$_mlr && return ;; esac
	case $_mann:$_mcgr in
	o*) ;;
	*:) ;;
	*)
		_m_special "${_ma#*|}"
		case $_msp in 1) return ;; esac
		;;
	esac
	_mck2=$_mck2$_mtl$_mlr _mtl='' _mci=$_mind
	case ${#_mck2} in ????*) _mck=$_mck$_mck2 _mck2='' ;; esac
}

# _m_special KEY: the key line (_mlr, _mind) is one the fragment may name
# (_msp 1): a node of its own, found by a lookup.
_m_special() {
	case $_mS in
	1) _m_syn "$1" ;;
	*) _mmain=$1 _minv='' ;;
	esac
	_mid=$_mmain _msp=''
	case $_mS:$_mid in 1:include)
		_my=${_mlr#*=}
		_my=${_my#"${_my%%[![:blank:]]*}"}
		_my=${_my%"$_mNL"}
		_m_join "$_my"
		_mid=include=$_mr _msp=1
		;;
	esac
	case $_mcgI in *"$_mNL$_mid$_mNL"*) _msp=1 ;; esac
	case $_mcgN in *"$_mNL$_mmain$_mNL"*) _msp=1 ;; esac
	case $_msp in '') return ;; esac
	_m_flush
	_mn=$((_mn + 1))
	eval "_mK$_mn=E _mR$_mn=\$_mlr _mI$_mn=\$_mind _mN$_mn=\$_mmain _mD$_mn=\$_mid _mV$_mn=\$_minv"
	_mcl="$_mcl$_mn " _mct="$_mct$_mn "
	case $_mmain in include) _mcq="$_mcq$_mn " ;; esac
}

# _m_load BASE: reads the base, annotated by sed, into nodes; _mok is
# set when it could be read.
_m_load() {
	case $_mS in 1) _mx=$_mSEDSMB ;; *) _mx=$_mSEDKV ;; esac
	_mx=$(sed -n -e "$_mx" "$1" 2>/dev/null) || return
	_mn=0 _mcur=0 _mcl=' ' _mct=' ' _mcq=' ' _mopq='' _macc='' _munit='' _msind='' _mann='' _mlr=''
	_mL0=' ' _mcgr='' _mck='' _mck2='' _mci='' _mtl='' _msepf='' _mac2=''
	for _my in $_mG; do
		eval "_mz=\$_mgi$_my"
		case $_mz in global | '') _mcgr=$_my ;; esac
	done
	eval "_mcgI=\${_mgI$_mcgr-} _mcgN=\${_mgN$_mcgr-}"
	# One line a field: sed writes no empty line.
	_my=${IFS+set}:${IFS-}
	IFS=$_mNL
	# shellcheck disable=SC2086 # split on purpose
	case $- in *f*) set -- $_mx ;; *) set -f && set -- $_mx && set +f ;; esac
	case $_my in set:*) IFS=${_my#set:} ;; *) unset IFS ;; esac
	case $_mS in
	1)
		# A logical line is complete when the next one begins.
		for _ml do
			case $_ml in =*)
				_mlr=$_mlr${_ml#=}$_mNL
				continue
				;;
			esac
			# The logical line read is complete. Fast paths: the lines of
			# a section nobody names, once the file's indentation step is
			# known.
			case $_mann in
			'') ;;
			s*) _m_section ;;
			*)
				case $_mopq$_munit in
				1?*) _mac2=$_mac2$_mlr ;;
				*) _m_line ;;
				esac
				;;
			esac
			case $_ml in
			[bc]*)
				_mlr=${_ml#?}$_mNL _mann=''
				case $_mopq in 1) _mac2=$_mac2$_mlr ;; *) _mtl=$_mtl$_mlr ;; esac
				;;
			*) _mann=$_ml _mlr='' ;;
			esac
			case ${#_mac2} in ????*) _macc=$_macc$_mac2 _mac2='' ;; esac
		done
		case $_mann in s*) _m_section ;; ?*) _m_line ;; esac
		;;
	*)
		for _ml do
			case $_ml in
			=*)
				_mlr=${_ml#=}$_mNL
				_m_line
				_m_kvsep
				;;
			[bc]*) _mtl=$_mtl${_ml#?}$_mNL ;;
			*) _mann=$_ml ;;
			esac
		done
		;;
	esac
	_m_close
	case $_munit in '') _munit=$_mTAB ;; esac
	_mok=1
}

# _m_kvsep: new keys of a key = value file take the separator of its
# first key with a value (_msepf).
_m_kvsep() {
	case $_msepf:$_mann in :e*)
		_mp=${_mlr%%=*} _mx=${_mlr#*=}
		_my=${_mx%%[![:blank:]]*}
		_mx=${_mx#"$_my"}
		case ${_mx%"$_mNL"} in ?*) _msepf=${_mp##*[![:space:]]}=$_my ;; esac
		;;
	esac
}

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
