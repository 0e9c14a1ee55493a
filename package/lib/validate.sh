# shellcheck shell=sh
# userscript sh engine: validation of a composed target (testparm -s,
# proftpd -t, a check of exports), each validator bounded by
# validate_timeout. Sourced by engine.sh; globals come from its setup().
# shellcheck disable=SC2154,SC2034,SC2153

# ---- validation -----------------------------------------------------------------

# validate NAME FILE sets the status fields; it fails when FILE is refused.
validate() {
	case ,$TFLAGS, in *,globalonly,*) share_note "$1" "$2" ;; esac
	case $TVAL in
	testparm) validate_testparm "$1" "$2" ;;
	proftpd) validate_proftpd "$1" "$2" ;;
	exports) validate_exports "$1" "$2" ;;
	*)
		fset "$1" status "$W_NOT_VALIDATED"
		fset "$1" reason "not validated: the profile names no validator for $1"
		;;
	esac
}

# share_note NAME FILE notes the share sections of a `globalonly`
# target (DSM 6 and 7 keep the shares in smb.share.conf).
share_note() {
	sn_s=$(grep '^[[:space:]]*\[' "$2" | grep -v '^[[:space:]]*\[[Gg][Ll][Oo][Bb][Aa][Ll]\]' | head -n 3 | tr -d ' \t\r' | tr '\n' ' ')
	case $sn_s in '') return 0 ;; esac
	fset "$1" note "$1 has share sections (${sn_s% }): this device keeps its shares in smb.share.conf, which the firmware writes from its shared-folder settings, and a share here collides with its share of the same name; keep [global] here and put share settings into conf.d/smb.share.conf (docs/DSM.md)"
}

not_found() { # NAME TOOL
	case ,$TFLAGS, in *,checked,*)
		lines "$TOOLS" "$2"
		nf_at=
		nf_r=$LINES
		while :; do
			case $nf_r in '') break ;; esac
			nf_at="$nf_at${nf_r%%"$NL"*}, "
			nf_r=${nf_r#*"$NL"}
		done
		refuse "$1" "$FIRST" "$2 is not on this device (looked in ${nf_at}PATH), so the file was not applied unchecked" \
			"install the firmware's $2, or set validator = \"none\" under [targets.\"$1\"] in userscript.toml to apply $1 unchecked; the live file was not changed"
		return 1
		;;
	esac
	fset "$1" status "$W_NOT_VALIDATED"
	fset "$1" reason "not validated: $2 not found"
	log INFO "not validated" target="$1" reason="$2 not found"
}

# device_tool NAME sets TOOL to the first of the profile's places for
# the validator NAME (lib/profile's tool lines) that holds it, else
# looks it up on PATH.
device_tool() {
	lines "$TOOLS" "$1"
	dt_rest=$LINES
	while :; do
		case $dt_rest in '') break ;; esac
		dt_p=${dt_rest%%"$NL"*}
		dt_rest=${dt_rest#*"$NL"}
		if [ -f "$ROOT$dt_p" ] && [ -x "$ROOT$dt_p" ]; then
			TOOL=$ROOT$dt_p
			return 0
		fi
	done
	find_tool "$1"
}

validate_testparm() {
	device_tool testparm || {
		not_found "$1" testparm
		return
	}
	run_bounded "$VTIMEOUT" "$WORK/$1.vout" "$TOOL" -s "$2"
	vt_rc=$?
	log INFO "validate" target="$1" argv="testparm -s" exit="$vt_rc"
	timed_out "$1" "testparm -s" "$vt_rc" && return 1
	testparm_warnings "$1" "$2"
	if [ "$vt_rc" -ne 0 ]; then
		vt_last=$(tail -n 1 "$WORK/$1.vout")
		vt_line=$(grep -n '^[[:space:]]*\[[^]]*$' "$2" | head -n 1)
		vt_line=${vt_line%%:*}
		vt_dir=$(sed -n 's/.*ERROR: \([A-Za-z]* directory [^ ]* does not exist\).*/\1/p' "$WORK/$1.vout" | head -n 1)
		if filled "$vt_line"; then
			vt_reason="line $vt_line: section header without a closing ] (testparm -s: $vt_last)"
		elif filled "$vt_dir"; then
			# Not the file's fault: this host lacks Samba's folders (the Go
			# engine says the same).
			fset "$1" status "$W_NOT_VALIDATED"
			fset "$1" reason "not validated: testparm cannot run on this host: $vt_dir"
			return 0
		else
			vt_reason="testparm -s refused it: $vt_last"
		fi
		fix_list "$1"
		refuse "$1" "$FIRST" "$vt_reason" "fix $FIX and save it again; $TPATH was not changed"
		return 1
	fi
	rp_get "$1"
	if filled "$STRICT" && case $NL$RPV in *"${NL}warning "*) true ;; *) false ;; esac; then
		refuse "$1" "$FIRST" "testparm -s warns about it and strict = true in userscript.toml" "fix the lines the warnings name, or set strict = false"
		return 1
	fi
	fset "$1" status "$W_OK"
	fset "$1" validated "testparm -s"
}

# timed_out NAME TOOL RC refuses the file when its validator did not
# answer in time (an include of a FIFO or of /proc/kmsg blocks testparm).
timed_out() {
	[ "$3" -eq 124 ] || return 1
	fix_list "$1"
	refuse "$1" "$FIRST" "$2 did not answer within ${VTIMEOUT}s, so the file was not applied: does it include a FIFO, a device or a file on a disk that is not there?" \
		"fix $FIX and save it again; $TPATH was not changed"
	return 0
}

# testparm_warnings NAME FILE: unknown and deprecated parameters, with the
# line of FILE that names them.
testparm_warnings() {
	grep -e 'Unknown parameter encountered' -e 'deprecated' "$WORK/$1.vout" |
		head -n 10 >"$WORK/$1.warn"
	tw_inc=
	while read -r tw_w; do
		case $tw_w in
		*'Unknown parameter encountered'*) tw_w="Unknown parameter encountered${tw_w#*Unknown parameter encountered}" ;;
		esac
		tw_p=${tw_w#*\"}
		tw_p=${tw_p%%\"*}
		tw_line=
		if filled "$tw_p" && ! eq "$tw_p" "$tw_w"; then
			# grep -i -F is case-sensitive up to BusyBox 1.10: both sides
			# are lowered instead.
			[ -f "$WORK/$1.lower" ] || lower <"$2" >"$WORK/$1.lower"
			tw_line=$(grep -n -F -e "$(echo "$tw_p" | lower)" "$WORK/$1.lower" | head -n 1)
			tw_line=${tw_line%%:*}
		fi
		if blank "$tw_line"; then
			# Not a line of ours: never echo another file.
			tw_inc=yes
			continue
		fi
		fset "$1" warning "line $tw_line: $tw_w"
	done <"$WORK/$1.warn"
	blank "$tw_inc" ||
		fset "$1" warning "an included file sets unknown or deprecated parameters (not shown: the file is not yours to read here)"
}

validate_proftpd() {
	device_tool proftpd || {
		not_found "$1" proftpd
		return
	}
	run_bounded "$VTIMEOUT" "$WORK/$1.vout" "$TOOL" -t -c "$2"
	vp_rc=$?
	log INFO "validate" target="$1" argv="proftpd -t -c" exit="$vp_rc"
	timed_out "$1" "proftpd -t" "$vp_rc" && return 1
	if [ "$vp_rc" -ne 0 ]; then
		# A line of another (included) file is never echoed: it may be
		# /etc/shadow's, and the status file is on the share.
		vp_reason=
		vp_at=$(sed -n 's/.*fatal: .* on line \([0-9][0-9]*\) of \(.*\)$/\1 \2/p' "$WORK/$1.vout" | head -n 1)
		vp_file=${vp_at#* }
		vp_file=${vp_file#\'}
		vp_file=${vp_file%\'}
		if filled "$vp_at" && [ "$vp_file" = "$2" ]; then
			vp_reason=$(sed -n 's/.*fatal: \(.*\) on line \([0-9][0-9]*\) of .*/line \2: \1/p' "$WORK/$1.vout" | head -n 1)
		elif filled "$vp_at"; then
			vp_reason="the included file $vp_file has an error on its line ${vp_at%% *} (not shown); fix or remove the Include"
		fi
		filled "$vp_reason" || vp_reason="proftpd -t refused it: $(tail -n 1 "$WORK/$1.vout")"
		fix_list "$1"
		refuse "$1" "$FIRST" "$vp_reason" "fix $FIX and save it again; $TPATH was not changed"
		return 1
	fi
	fset "$1" status "$W_OK"
	fset "$1" validated "proftpd -t"
}

# validate_exports only checks that every entry starts with a path:
# exportfs cannot check a file other than /etc/exports without a private
# mount namespace, which the sh engine cannot make.
validate_exports() {
	if ! grep -q '\\$' "$2"; then
		ve_bad=$(grep -n -v -e '^[[:space:]]*$' -e '^[[:space:]]*#' -e '^[[:space:]]*/' -e '^[[:space:]]*"/' "$2" | head -n 1)
		if filled "$ve_bad"; then
			fix_list "$1"
			refuse "$1" "$FIRST" "line ${ve_bad%%:*}: an export must start with an absolute path" \
				"fix $FIX and save it again; $TPATH was not changed"
			return 1
		fi
	fi
	fset "$1" status "$W_NOT_VALIDATED"
	fset "$1" reason "not validated: the sh engine cannot check exports (it only checked that each entry starts with a path)"
}
