# shellcheck shell=sh
# userscript sh engine: reading conf.d: sources, base capture, validation.
# Sourced by engine.sh, never run on its own; globals (ROOT, APP, CONF,
# STATE, WORK, CR, TAB, BOM, NL ...) are set by its setup().
# shellcheck disable=SC2154,SC2034

# ---- sources ----------------------------------------------------------------

# ignored NAME: editor droppings and our own files, never reported.
ignored() {
	case $1 in
	.* | '~$'* | *.[Tt][Mm][Pp] | *.[Ss][Ww][Pp] | *.[Ss][Ww][Xx] | *'~' | *.status | README* | examples) return 0 ;;
	esac
	return 1
}

# safe_name NAME: letters, digits and . _ - only, not starting with - or .
safe_name() {
	case $1 in
	'' | -* | .* | *[!A-Za-z0-9._-]*) return 1 ;;
	esac
	return 0
}

# UNK_MAX: at most this many unknown names get a status file per apply.
UNK_MAX=20

# scan sets SRC (targets with sources), TUNE (tuning files with sources)
# and UNK (unknown names, at most UNK_MAX; UNK_MORE counts the rest) from
# conf.d. A name no target can have (over 64 bytes, or one whose target
# part ends in .add, .merge, .status, .tmp, .swp) gets a log line only.
scan() {
	SRC=
	TUNE=
	UNK=
	UNK_MORE=0
	sc_nunk=0
	sc_last=
	sc_odd=0
	sc_bad=0
	for sc_f in "$CONF"/*; do
		[ -e "$sc_f" ] || [ -L "$sc_f" ] || continue
		sc_n=${sc_f##*/}
		ignored "$sc_n" && continue
		if ! safe_name "$sc_n"; then
			sc_odd=$((sc_odd + 1))
			continue
		fi
		case $sc_n in
		*.add) sc_b=${sc_n%.add} ;;
		*.merge) sc_b=${sc_n%.merge} ;;
		*) sc_b=$sc_n ;;
		esac
		[ -n "$sc_b" ] || continue
		sc_why=
		case $sc_b in
		*.add | *.merge | *.status | *.[Tt][Mm][Pp] | *.[Ss][Ww][Pp])
			sc_why="its target part ends in ${sc_b##*.}"
			;;
		esac
		[ "${#sc_b}" -le 64 ] || sc_why="its target part is longer than 64 bytes"
		if [ -n "$sc_why" ]; then
			sc_bad=$((sc_bad + 1))
			[ "$sc_bad" -gt "$UNK_MAX" ] ||
				log WARN "ignored: no target can have this name" name="$sc_n" reason="$sc_why"
			continue
		fi
		if is_target "$sc_b"; then
			case " $SRC " in *" $sc_b "*) ;; *) SRC="$SRC $sc_b" ;; esac
		elif is_tuning "$sc_b"; then
			case " $TUNE " in *" $sc_b "*) ;; *) TUNE="$TUNE $sc_b" ;; esac
		else
			case " $UNK " in *" $sc_b "*) continue ;; esac
			if [ "$sc_nunk" -lt "$UNK_MAX" ]; then
				UNK="$UNK $sc_b"
				sc_nunk=$((sc_nunk + 1))
			elif [ "$sc_b" != "$sc_last" ]; then
				UNK_MORE=$((UNK_MORE + 1))
				sc_last=$sc_b
			fi
		fi
	done
	if [ "$sc_odd" -gt 0 ]; then
		log WARN "ignored files in conf.d whose names hold characters other than letters, digits and . _ -" count="$sc_odd"
	fi
	if [ "$sc_bad" -gt "$UNK_MAX" ]; then
		log WARN "ignored more files in conf.d that no target can be named after" count="$((sc_bad - UNK_MAX))"
	fi
}

# sources_of NAME sets SOURCES to NAME NAME.add NAME.merge, those present.
sources_of() {
	SOURCES=
	for so_s in "$1" "$1.add" "$1.merge"; do
		if [ -e "$CONF/$so_s" ] || [ -L "$CONF/$so_s" ]; then
			SOURCES="$SOURCES $so_s"
		fi
	done
	SOURCES=${SOURCES# }
}

# take_source NAME OUT copies conf.d/NAME to OUT, normalised, or sets
# REASON and TODO and fails. It reads a hard link of the source made in
# state/tmp (same file system), checked after it is made: swapped in the
# meantime for a link or a FIFO, the hard link is a link or a FIFO too, and
# is never opened. Only when ln fails is the source itself read.
take_source() {
	ts_f=$CONF/$1
	ts_l=$WORK/src.$1
	TODO="put the file itself into conf.d (not a link, not a folder, at most 1 MiB)"
	if [ -L "$ts_f" ]; then
		REASON="conf.d/$1 is a symbolic link; links in conf.d are never followed"
		return 1
	fi
	if ! [ -f "$ts_f" ]; then
		REASON="conf.d/$1 is not a regular file"
		return 1
	fi
	ls_fields "$ts_f"
	if too_big "$LS_SIZE"; then
		REASON="conf.d/$1 is larger than 1 MiB ($LS_SIZE bytes)"
		return 1
	fi
	if [ "$LS_LINKS" != 1 ]; then
		REASON="conf.d/$1: has other hard links; userscript does not read files that are also elsewhere: save it as a plain copy"
		TODO="save conf.d/$1 as a plain copy (not a hard link of another file)"
		return 1
	fi
	rm -rf "$ts_l" "$2.raw"
	if ln -- "$ts_f" "$ts_l" 2>/dev/null; then
		ls_fields "$ts_l"
		case $LS_MODE in
		-*) [ "$LS_LINKS" = 2 ] && ! too_big "$LS_SIZE" ;;
		*) false ;;
		esac || {
			rm -f "$ts_l"
			REASON="conf.d/$1 changed while it was read"
			TODO="save it again"
			return 1
		}
		cat -- "$ts_l" >"$2.raw"
		ts_rc=$?
		rm -f "$ts_l"
	else
		cat -- "$ts_f" >"$2.raw"
		ts_rc=$?
	fi
	if [ "$ts_rc" -ne 0 ]; then
		REASON="conf.d/$1 could not be read"
		return 1
	fi
	# It may have been swapped for a link or a big file while it was read.
	if [ -L "$ts_f" ] || too_big "$(file_size "$2.raw")"; then
		REASON="conf.d/$1 changed while it was read"
		TODO="save it again"
		return 1
	fi
	# shellcheck disable=SC2094 # both only read it
	if ! tr -d '\000' <"$2.raw" | cmp -s - "$2.raw"; then
		REASON="conf.d/$1: holds NUL bytes; it is not a text file"
		TODO="save conf.d/$1 as plain text"
		return 1
	fi
	normalise "$2.raw" "$2"
}

# ls_fields PATH sets LS_MODE, LS_LINKS and LS_SIZE from `ls -lnd` (the
# entry itself, never what a link points to).
ls_fields() {
	set -f
	# shellcheck disable=SC2046 # split ls's fields on purpose
	set -- $(ls -lnd -- "$1" 2>/dev/null)
	set +f
	LS_MODE=${1:-}
	LS_LINKS=${2:-}
	LS_SIZE=${5:-}
}

# normalise IN OUT: drop leading UTF-8 BOMs and every CR at a line end,
# end with a newline unless empty.
normalise() {
	sed -e "1s/^\($BOM\)*//" -e "s/$CR*\$//" "$1" >"$2" || return 1
	ends_nl "$2" || echo >>"$2"
}

ends_nl() {
	[ ! -s "$1" ] || [ -z "$(tail -c 1 "$1")" ]
}

# ---- per-target result fields (state/tmp/NAME.f) --------------------------

# fset NAME KEY VALUE records a status field; the last value of a key wins,
# warnings add up.
fset() {
	echo "$2 $3" >>"$WORK/$1.f"
}

refuse() { # NAME FILE REASON TODO
	fset "$1" status REFUSED
	fset "$1" file "conf.d/$2"
	fset "$1" reason "$3"
	fset "$1" todo "$4"
	log WARN "refused" target="$1" file="conf.d/$2" reason="$3"
}

failed() { # NAME REASON TODO
	fset "$1" status FAILED
	fset "$1" reason "$2"
	fset "$1" todo "$3"
	log ERROR "failed" target="$1" reason="$2"
}

# ---- base capture -------------------------------------------------------------

# capture_base NAME LIVE: the live file is the firmware's unless its md5 is
# what we last wrote; then state/base/NAME is kept.
capture_base() {
	cb_lh=
	if [ -f "$2" ]; then
		cb_lh=$(md5sum <"$2")
		cb_lh=${cb_lh%% *}
	fi
	CB_MISSING=
	if [ -n "$cb_lh" ] && written_has "$1" "$cb_lh"; then
		# The live file is ours: the stored base is the firmware's file. A
		# base that is a link or not a regular file counts as missing (it
		# is removed, never read); it is needed unless a replacement is.
		base_ok "$1" && return 0
		plain_slot "$STATE/base/$1" || return 1
		[ -f "$WORK/$1.n" ] && return 0
		CB_MISSING=yes
		return 1
	fi
	rm -rf "$STATE/base/$1.tmp"
	if [ -f "$2" ]; then
		cat "$2" >"$STATE/base/$1.tmp" || return 1
	else
		: >"$STATE/base/$1.tmp"
	fi
	put_file "$STATE/base/$1.tmp" "$STATE/base/$1" || return 1
	rm -f "$STATE/written/$1"
	log INFO "base captured" target="$1" md5="${cb_lh:-none}"
}

# base_ok NAME is true when state/base/NAME is a regular file, not a link.
base_ok() {
	! [ -L "$STATE/base/$1" ] && [ -f "$STATE/base/$1" ]
}

# compose NAME writes WORK/NAME.target: the replacement or the base, then
# the addition, unless the text already ends with it (a base taken from
# our own file when state/ was lost must not get the addition twice).
compose() {
	co_out=$WORK/$1.target
	if [ -f "$WORK/$1.n" ]; then
		cp "$WORK/$1.n" "$co_out"
	elif base_ok "$1"; then
		cat "$STATE/base/$1" >"$co_out"
	else
		: >"$co_out"
	fi
	if [ -f "$WORK/$1.add.n" ] && ! ends_with "$co_out" "$WORK/$1.add.n"; then
		ends_nl "$co_out" || echo >>"$co_out"
		cat "$WORK/$1.add.n" >>"$co_out"
	fi
}

# ends_with FILE TAIL is true when FILE's last bytes are TAIL's content.
ends_with() {
	ew_n=$(file_size "$2")
	case $ew_n in '' | *[!0-9]*) return 1 ;; esac
	[ "$ew_n" -gt 0 ] || return 0
	[ "$(file_size "$1")" -ge "$ew_n" ] 2>/dev/null || return 1
	tail -c "$ew_n" "$1" | cmp -s - "$2"
}

# ---- validation -----------------------------------------------------------------

# validate NAME FILE sets the status fields; it fails when FILE is refused.
validate() {
	case $TVAL in
	testparm) validate_testparm "$1" "$2" ;;
	proftpd) validate_proftpd "$1" "$2" ;;
	exports) validate_exports "$1" "$2" ;;
	*)
		fset "$1" status "NOT VALIDATED"
		fset "$1" reason "not validated: the profile names no validator for $1"
		;;
	esac
}

not_found() { # NAME TOOL
	fset "$1" status "NOT VALIDATED"
	fset "$1" reason "not validated: $2 not found"
	log INFO "not validated" target="$1" reason="$2 not found"
}

validate_testparm() {
	vt_bin=$(find_tool testparm) || {
		not_found "$1" testparm
		return 0
	}
	"$vt_bin" -s "$2" </dev/null >"$WORK/$1.vout" 2>&1
	vt_rc=$?
	log INFO "validate" target="$1" argv="testparm -s" exit="$vt_rc"
	testparm_warnings "$1" "$2"
	if [ "$vt_rc" -ne 0 ]; then
		vt_last=$(tail -n 1 "$WORK/$1.vout")
		vt_line=$(grep -n '^[[:space:]]*\[[^]]*$' "$2" | head -n 1)
		vt_line=${vt_line%%:*}
		if [ -n "$vt_line" ]; then
			vt_reason="line $vt_line: section header without a closing ] (testparm -s: $vt_last)"
		else
			vt_reason="testparm -s refused it: $vt_last"
		fi
		refuse "$1" "$FIRST" "$vt_reason" "fix conf.d/$FIRST and save it again; the live file was not changed"
		return 1
	fi
	fset "$1" status OK
	fset "$1" validated "testparm -s"
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
		if [ -n "$tw_p" ] && [ "$tw_p" != "$tw_w" ]; then
			tw_line=$(grep -n -i -F -e "$tw_p" "$2" | head -n 1)
			tw_line=${tw_line%%:*}
		fi
		if [ -z "$tw_line" ]; then
			# Not a line of ours: never echo another file.
			tw_inc=yes
			continue
		fi
		fset "$1" warning "line $tw_line: $tw_w"
	done <"$WORK/$1.warn"
	[ -z "$tw_inc" ] ||
		fset "$1" warning "an included file sets unknown or deprecated parameters (not shown: the file is not yours to read here)"
}

validate_proftpd() {
	vp_bin=$(find_tool proftpd) || {
		not_found "$1" proftpd
		return 0
	}
	"$vp_bin" -t -c "$2" </dev/null >"$WORK/$1.vout" 2>&1
	vp_rc=$?
	log INFO "validate" target="$1" argv="proftpd -t -c" exit="$vp_rc"
	if [ "$vp_rc" -ne 0 ]; then
		# A line of another (included) file is never echoed: it may be
		# /etc/shadow's, and the status file is on the share.
		vp_reason=
		vp_at=$(sed -n 's/.*fatal: .* on line \([0-9][0-9]*\) of \(.*\)$/\1 \2/p' "$WORK/$1.vout" | head -n 1)
		vp_file=${vp_at#* }
		vp_file=${vp_file#\'}
		vp_file=${vp_file%\'}
		if [ -n "$vp_at" ] && [ "$vp_file" = "$2" ]; then
			vp_reason=$(sed -n 's/.*fatal: \(.*\) on line \([0-9][0-9]*\) of .*/line \2: \1/p' "$WORK/$1.vout" | head -n 1)
		elif [ -n "$vp_at" ]; then
			vp_reason="the included file $vp_file has an error on its line ${vp_at%% *} (not shown); fix or remove the Include"
		fi
		[ -n "$vp_reason" ] || vp_reason="proftpd -t refused it: $(tail -n 1 "$WORK/$1.vout")"
		refuse "$1" "$FIRST" "$vp_reason" "fix conf.d/$FIRST and save it again; the live file was not changed"
		return 1
	fi
	fset "$1" status OK
	fset "$1" validated "proftpd -t"
}

# validate_exports only checks that every entry starts with a path:
# exportfs cannot check a file other than /etc/exports without a private
# mount namespace, which the sh engine cannot make.
validate_exports() {
	if ! grep -q '\\$' "$2"; then
		ve_bad=$(grep -n -v -e '^[[:space:]]*$' -e '^[[:space:]]*#' -e '^[[:space:]]*/' -e '^[[:space:]]*"/' "$2" | head -n 1)
		if [ -n "$ve_bad" ]; then
			refuse "$1" "$FIRST" "line ${ve_bad%%:*}: an export must start with an absolute path" \
				"fix conf.d/$FIRST and save it again; the live file was not changed"
			return 1
		fi
	fi
	fset "$1" status "NOT VALIDATED"
	fset "$1" reason "not validated: the sh engine cannot check exports (it only checked that each entry starts with a path)"
}
