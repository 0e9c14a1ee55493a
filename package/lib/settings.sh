# shellcheck shell=sh
# userscript sh engine: the profile (lib/profile) and the owner's settings
# (userscript.toml), read by a small parser of the subset docs/FORMATS.md
# lists. Sourced by engine.sh. A mistake in the settings never stops the
# engine: an unknown key is a warning in the log and a `note:` in every
# status file; a value that cannot be used gives way to the defaults.
# shellcheck disable=SC2154,SC2034,SC2153

# ---- profile (lib/profile) ------------------------------------------------

profile_load() {
	{ : <"$LIB/profile"; } 2>/dev/null || die "$LIB/profile is missing; reinstall the package"
	PROFILE=
	TARGETS=
	TPATHS=
	# One line a target ("NAME PATH VALIDATOR SERVICE FLAGS MODE"), a
	# service ("NAME TIMEOUT ARGV..."), a fallback ("NAME ARGV..."), a
	# health check ("NAME SETTLE PROCESS PORTS") and a tool ("VALIDATOR
	# PATH"), each list starting with a newline: looked up by parameter
	# expansion, lib/profile is read once.
	TDEF=$NL
	SVCS=
	SDEF=$NL
	HDEF=$NL
	FDEF=$NL
	TOOLS=$NL
	while read -r pl_kind pl_a pl_b pl_rest; do
		case $pl_kind in
		profile) PROFILE=$pl_a ;;
		target)
			TARGETS="$TARGETS $pl_a"
			TPATHS="$TPATHS $ROOT$pl_b"
			TDEF="$TDEF$pl_a $pl_b $pl_rest$NL"
			;;
		service)
			SVCS="$SVCS $pl_a"
			SDEF="$SDEF$pl_a $pl_b $pl_rest$NL"
			;;
		health) HDEF="$HDEF$pl_a $pl_b $pl_rest$NL" ;;
		fallback) FDEF="$FDEF$pl_a $pl_b${pl_rest:+ $pl_rest}$NL" ;;
		tool) TOOLS="$TOOLS$pl_a $pl_b$NL" ;;
		esac
	done <"$LIB/profile"
}

# def LIST NAME sets DEF to the words after NAME on its line of LIST
# (TDEF, SDEF or HDEF), or fails.
def() {
	case $1 in *"$NL$2 "*) ;; *) return 1 ;; esac
	DEF=${1#*"$NL$2 "}
	DEF=${DEF%%"$NL"*}
}

# lines LIST NAME sets LINES to the words after NAME on each of its
# lines of LIST (FDEF or TOOLS), one a line.
lines() {
	LINES=
	ln_rest=$1
	while :; do
		case $ln_rest in *"$NL$2 "*) ;; *) return 0 ;; esac
		ln_rest=${ln_rest#*"$NL$2 "}
		LINES="$LINES${ln_rest%%"$NL"*}$NL"
		ln_rest=$NL${ln_rest#*"$NL"}
	done
}

# profile_target NAME sets TPATH TVAL TSVC, TFLAGS (nonempty, checked,
# both joined by a comma, or -) and
# TMODE (the mode of a new file, e.g. 0644).
profile_target() {
	def "$TDEF" "$1" || return 1
	set -f
	# shellcheck disable=SC2086 # the profile's words hold no blanks
	set -- $DEF
	set +f
	TPATH=$1
	TVAL=${2:--}
	TSVC=${3:--}
	TFLAGS=${4:--}
	TMODE=${5:-0644}
	return 0
}

# profile_service NAME sets STIMEOUT and SARGV (the restart command, words
# without spaces), SSETTLE (seconds), SPROC (process name or -), SPORTS
# (comma-separated or -) and SPINNED (yes when the owner set the ports),
# the owner's settings applied.
profile_service() {
	SARGV=
	SSETTLE=3
	SPROC=-
	SPORTS=-
	SPINNED=
	ps_name=$1
	def "$SDEF" "$1" || return 1
	STIMEOUT=${DEF%% *}
	SARGV=${DEF#* }
	if def "$HDEF" "$1"; then
		set -f
		# shellcheck disable=SC2086 # the profile's words hold no blanks
		set -- $DEF
		set +f
		SSETTLE=${1:-3}
		SPROC=${2:--}
		SPORTS=${3:--}
	fi
	svc_opt "$ps_name" timeout && STIMEOUT=$OPT
	svc_opt "$ps_name" settle && SSETTLE=$OPT
	svc_opt "$ps_name" process && SPROC=${OPT:--}
	if svc_opt "$ps_name" ports; then
		SPORTS=${OPT:--}
		SPINNED=yes
	fi
	num "$STIMEOUT" || STIMEOUT=60
	num "$SSETTLE" || SSETTLE=3
	return 0
}

is_target() {
	case " $TARGETS " in *" $1 "*) return 0 ;; esac
	return 1
}

# ---- userscript.toml ------------------------------------------------------

# settings_defaults sets every setting to its default.
settings_defaults() {
	KEEP=20
	VTIMEOUT=30
	STRICT=
	PAGE_LANG=en
	POLL_SET=
	LOG_MAX=262144
	SVC_SET=
}

# settings_load reads APP/userscript.toml. SET_NOTES gets one line per
# note for the status files (each is also logged).
settings_load() {
	settings_defaults
	SET_NOTES=
	sl_f=$APP/userscript.toml
	if looked "$sl_f"; then
		sl_m=$LR_MODE
	else
		sl_m=-
		[ -f "$sl_f" ] || sl_m=
		[ -L "$sl_f" ] && sl_m=l
	fi
	case $sl_m in
	l*)
		set_note "$sl_f: is a symbolic link, not read; the defaults are used instead"
		return 0
		;;
	-*) ;;
	*) return 0 ;;
	esac
	sl_sec=
	sl_n=0
	sl_bad=
	sl_only=
	while IFS= read -r sl_l || case $sl_l in '') false ;; esac; do
		sl_n=$((sl_n + 1))
		# Notepad starts the file with a UTF-8 byte order mark: not a key
		# (chars, a process, only for a first line that starts oddly).
		case $sl_n:$sl_l in 1:[!#A-Za-z0-9_[\ ]*)
			chars
			sl_l=${sl_l#"$BOM"}
			;;
		esac
		trim "$sl_l"
		case $TR in '' | '#'*) continue ;; esac
		case $TR in
		'['*)
			sl_sec=${TR#[}
			sl_sec=${sl_sec%%]*}
			trim "$sl_sec"
			unquote_key "$TR"
			sl_sec=$UK
			continue
			;;
		*=*) ;;
		*)
			sl_bad="line $sl_n: expected key = value"
			break
			;;
		esac
		trim "${TR%%=*}"
		sl_k=$TR
		trim "${TR#*=}"
		toml_value "$sl_l" || {
			sl_bad="line $sl_n: cannot read the value of $sl_k"
			break
		}
		sl_full=${sl_sec:+$sl_sec.}$sl_k
		setting "$sl_sec" "$sl_k" "$sl_full" || break
	done <"$sl_f"
	case $sl_bad in '') ;; *)
		settings_defaults
		set_note "$sl_f: $sl_bad; the defaults are used instead"
		;;
	esac
	for sl_o in $sl_only; do
		set_note "$sl_f: [$sl_o] is read by the Go engine only; this device's sh engine uses the profile it was built with"
	done
}

set_note() {
	SET_NOTES="$SET_NOTES$1$NL"
	log WARN "settings" note="$1"
}

# unquote_key KEY sets UK to a dotted key with its quotes removed
# (targets."smb.conf" is targets.smb.conf).
unquote_key() {
	UK=$1
	while :; do
		case $UK in
		*'"'*) UK=${UK%%\"*}${UK#*\"} ;;
		*) break ;;
		esac
	done
}

# toml_value LINE sets TV to the value of a `key = value` line: a string
# ("..." or '...'), a number, a boolean or a one-line array of those
# (comma-separated, quotes removed), with a trailing # comment dropped.
toml_value() {
	trim "${1#*=}"
	tv_v=$TR
	case $tv_v in
	'"'*)
		tv_v=${tv_v#\"}
		case $tv_v in *'"'*) ;; *) return 1 ;; esac
		TV=${tv_v%%\"*}
		tv_rest=${tv_v#*\"}
		;;
	"'"*)
		tv_v=${tv_v#\'}
		case $tv_v in *"'"*) ;; *) return 1 ;; esac
		TV=${tv_v%%\'*}
		tv_rest=${tv_v#*\'}
		;;
	'['*)
		case $tv_v in *']'*) ;; *) return 1 ;; esac
		tv_a=${tv_v#[}
		tv_rest=${tv_a#*]}
		tv_a=${tv_a%%]*}
		TV=
		tv_ifs=$IFS
		IFS=,
		set -f
		# shellcheck disable=SC2086 # split the array on commas
		set -- $tv_a
		set +f
		IFS=$tv_ifs
		for tv_e in "$@"; do
			trim "$tv_e"
			tv_e=${TR#[\"\']}
			tv_e=${tv_e%[\"\']}
			blank "$tv_e" || TV="$TV${TV:+,}$tv_e"
		done
		;;
	*)
		TV=${tv_v%%#*}
		trim "$TV"
		TV=$TR
		tv_rest=
		;;
	esac
	trim "$tv_rest"
	case $TR in '' | '#'*) return 0 ;; esac
	return 1
}

# setting SECTION KEY FULL: one key of the file, its value in TV. It
# fails (with sl_bad set) for a value that cannot be used.
setting() {
	case $1 in
	'')
		case $2 in
		keep)
			if ! num "$TV" || [ "$TV" -lt 1 ]; then
				sl_bad="keep = $TV: keep at least 1 generation"
				return 1
			fi
			KEEP=$TV
			;;
		validate_timeout) seconds "$3" "$TV" pos && VTIMEOUT=$SECS ;;
		poll_interval) seconds "$3" "$TV" pos && POLL_SET=$SECS ;;
		strict) case $TV in true) STRICT=yes ;; false) STRICT= ;; *) sl_bad="strict = $TV: write true or false" ;; esac ;;
		log_size) log_bytes "$TV" ;;
		language) PAGE_LANG=$TV ;;
		profile)
			case $TV in '' | "$PROFILE") ;; *) set_note "$sl_f: profile = \"$TV\": this device's sh engine has only the profile it was built with ($PROFILE); it is used" ;; esac
			;;
		*) unknown_key "$3" ;;
		esac
		;;
	services.*)
		sg_svc=${1#services.}
		case $2 in
		timeout) seconds "$3" "$TV" pos && SVC_SET="$SVC_SET$sg_svc timeout $SECS$NL" ;;
		settle) seconds "$3" "$TV" zero && SVC_SET="$SVC_SET$sg_svc settle $SECS$NL" ;;
		process | ports) SVC_SET="$SVC_SET$sg_svc $2 $TV$NL" ;;
		restart) only_go "$1" ;;
		*) unknown_key "$3" ;;
		esac
		;;
	targets.*)
		case $2 in
		path | validator | service | remove | never_empty | mode) only_go "$1" ;;
		*) unknown_key "$3" ;;
		esac
		;;
	*) unknown_key "$3" ;;
	esac
	case $sl_bad in '') return 0 ;; esac
	return 1
}

unknown_key() {
	set_note "$sl_f: unknown key $1, ignored: check the spelling against userscript.toml.example"
}

only_go() {
	case " $sl_only " in *" $1 "*) ;; *) sl_only="$sl_only $1" ;; esac
}

# seconds KEY VALUE pos|zero sets SECS from a duration such as "30s",
# "1m30s", "500ms" (rounded up to whole seconds) or "2h"; `zero` allows
# "0s". It sets sl_bad and fails otherwise.
seconds() {
	sc_v=$2
	SECS=0
	sc_ms=0
	case $sc_v in '' | *[!0-9hms]*) sc_v=x ;; esac
	while case $sc_v in '' | x) false ;; esac; do
		sc_n=${sc_v%%[!0-9]*}
		sc_v=${sc_v#"$sc_n"}
		case $sc_n in '') sc_v=x && break ;; esac
		case $sc_v in
		ms*) sc_ms=$((sc_ms + sc_n)) && sc_v=${sc_v#ms} ;;
		s*) SECS=$((SECS + sc_n)) && sc_v=${sc_v#s} ;;
		m*) SECS=$((SECS + sc_n * 60)) && sc_v=${sc_v#m} ;;
		h*) SECS=$((SECS + sc_n * 3600)) && sc_v=${sc_v#h} ;;
		*) sc_v=x ;;
		esac
	done
	SECS=$((SECS + (sc_ms + 999) / 1000))
	case $sc_v:$3:$SECS in x:* | *:pos:0) ;; *) return 0 ;; esac
	if [ "$3" = pos ]; then
		sl_bad="$1 = \"$2\": write a positive duration like \"60s\""
	else
		sl_bad="$1 = \"$2\": write a duration like \"3s\" (\"0s\": no settle period)"
	fi
	return 1
}

# log_bytes VALUE sets LOG_MAX from "256KiB", "1MiB" or a number of bytes.
log_bytes() {
	lb_n=${1%%[!0-9]*}
	case ${1#"$lb_n"} in
	'' | B) lb_m=1 ;;
	K | KB | KiB) lb_m=1024 ;;
	M | MB | MiB) lb_m=1048576 ;;
	*) lb_n= ;;
	esac
	if ! num "$lb_n" || [ "$lb_n" -le 0 ]; then
		sl_bad="log_size = \"$1\": write a size like \"256KiB\""
		return 1
	fi
	LOG_MAX=$((lb_n * lb_m))
}

# svc_opt SERVICE KEY sets OPT to the owner's value, or fails.
svc_opt() {
	case $NL$SVC_SET in
	*"$NL$1 $2 "*)
		OPT=${NL}$SVC_SET
		OPT=${OPT##*"$NL$1 $2 "}
		OPT=${OPT%%"$NL"*}
		return 0
		;;
	esac
	return 1
}

# trim TEXT sets TR to TEXT without leading and trailing blanks.
trim() {
	TR=$1
	TR=${TR#"${TR%%[![:space:]]*}"}
	TR=${TR%"${TR##*[![:space:]]}"}
}
