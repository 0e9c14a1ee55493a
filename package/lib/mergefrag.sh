# mergefrag.sh: lib/merge.sh's strings (Go's TrimSpace, squeeze,
# joinValue, %q) and its reading of the fragment. Sourced by merge.sh.
# shellcheck shell=sh
# shellcheck disable=SC2034,SC2154 # set through eval; read by merge.sh

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
