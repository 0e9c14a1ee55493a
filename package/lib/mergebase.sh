# mergebase.sh: lib/merge.sh's reading of the base (the live file), one
# sed and no other process. Sourced by merge.sh.
# shellcheck shell=sh
# shellcheck disable=SC2034,SC2154 # set through eval; read by merge.sh

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
