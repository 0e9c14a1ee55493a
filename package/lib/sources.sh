# shellcheck shell=sh
# userscript sh engine: reading conf.d: sources, base capture, validation.
# Sourced by engine.sh, never run on its own; globals (ROOT, APP, CONF,
# STATE, WORK, CR, TAB, BOM, NL ...) are set by its setup().
# shellcheck disable=SC2154,SC2034,SC2153

# ---- sources ----------------------------------------------------------------

# ignored NAME: editor droppings, the owner's backups and our own files,
# never reported.
ignored() {
	case $1 in
	.* | '~$'* | *.[Tt][Mm][Pp] | *.[Ss][Ww][Pp] | *.[Ss][Ww][Xx] | *'~' | *.status | README* | examples) return 0 ;;
	esac
	# What Windows Explorer leaves, and the reserved names but the two
	# that stop an apply (DISABLE, SAFE-MODE: scan looks for those):
	# words.sh, generated from the Go engine's lists.
	dropping "$1" && return 0
	backup "$1" && return 0
	reserved "$1" || return 1
	is_disable "$1" && return 1
	is_safe_mode "$1" && return 1
	return 0
}

# safe_name NAME: letters, digits and . _ - only, not starting with - or .
safe_name() {
	case $1 in
	'' | -* | .* | *[!A-Za-z0-9._-]*) return 1 ;;
	esac
	return 0
}

# TUNING_FILES are the kernel tuning sources (tuning.sh).
TUNING_FILES="sysctl.conf tuning.conf"

is_tuning() {
	case " $TUNING_FILES " in *" $1 "*) return 0 ;; esac
	return 1
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
	NAMES=' '
	RESERVED_DISABLE=
	RESERVED_SAFE=
	ODD=
	ODD_N=0
	# Without a `[` or a subshell in the loop (each is a process on
	# BusyBox 1.00): ten thousand names cost seconds, not minutes.
	for sc_f in "$CONF"/*; do
		sc_n=${sc_f##*/}
		# An empty conf.d gives the pattern itself. A name the folder lists
		# that cannot be examined (a file of 2 GiB or more on a 32-bit
		# device) is kept: take_source says so in its status.
		case $sc_n in '*') [ -e "$sc_f" ] || [ -L "$sc_f" ] || continue ;; esac
		ignored "$sc_n" && continue
		# The reserved names that stop an apply (wayout.sh).
		if is_disable "$sc_n"; then
			case $RESERVED_DISABLE in '') RESERVED_DISABLE=$sc_n ;; esac
			continue
		fi
		if is_safe_mode "$sc_n"; then
			RESERVED_SAFE=$sc_n
			continue
		fi
		if ! safe_name "$sc_n"; then
			# DOCTOR.txt lists the first UNK_MAX of them.
			sc_odd=$((sc_odd + 1))
			case $((sc_odd > UNK_MAX)) in 0) ODD="$ODD$sc_n$NL" ;; esac
			continue
		fi
		case $sc_n in
		*.add) sc_b=${sc_n%.add} ;;
		*.merge) sc_b=${sc_n%.merge} ;;
		*) sc_b=$sc_n ;;
		esac
		case $sc_b in '') continue ;; esac
		sc_why=
		case $sc_b in
		*.add | *.merge | *.status | *.[Tt][Mm][Pp] | *.[Ss][Ww][Pp])
			sc_why="its target part ends in ${sc_b##*.}"
			;;
		esac
		case $((${#sc_b} > 64)) in 1) sc_why="its target part is longer than 64 bytes" ;; esac
		case $sc_why in
		?*)
			sc_bad=$((sc_bad + 1))
			case $((sc_bad > UNK_MAX)) in
			0) log WARN "ignored: no target can have this name" name="$sc_n" reason="$sc_why" ;;
			esac
			continue
			;;
		esac
		# NAMES holds the names sources_of may ask for: those of targets,
		# tuning files and the unknown names that get a status (a list of
		# ten thousand stray names would cost the shell minutes).
		if is_target "$sc_b"; then
			NAMES="$NAMES$sc_n "
			case " $SRC " in *" $sc_b "*) ;; *) SRC="$SRC $sc_b" ;; esac
		elif is_tuning "$sc_b"; then
			NAMES="$NAMES$sc_n "
			case " $TUNE " in *" $sc_b "*) ;; *) TUNE="$TUNE $sc_b" ;; esac
		else
			case " $UNK " in *" $sc_b "*)
				NAMES="$NAMES$sc_n "
				continue
				;;
			esac
			case $((sc_nunk < UNK_MAX)) in
			1)
				NAMES="$NAMES$sc_n "
				UNK="$UNK $sc_b"
				sc_nunk=$((sc_nunk + 1))
				;;
			*)
				case $sc_b in
				"$sc_last") ;;
				*)
					UNK_MORE=$((UNK_MORE + 1))
					sc_last=$sc_b
					;;
				esac
				;;
			esac
		fi
	done
	case $sc_odd in 0) ;; *)
		log WARN "ignored files in conf.d whose names hold characters other than letters, digits and . _ -" count="$sc_odd"
		;;
	esac
	case $((sc_bad > UNK_MAX)) in 1)
		log WARN "ignored more files in conf.d that no target can be named after" count="$((sc_bad - UNK_MAX))"
		;;
	esac
}

# sweep_statuses removes the status files nobody needs any more: an
# UNKNOWN status whose file is gone or is ignored now (an older version
# reported smb.conf.bak), and any status of a reserved name.
# A target's or a tuning file's status stays, even when its sources are
# gone (it says the firmware's file is back). Only a status of another
# name is read (its first line, in the shell).
sweep_statuses() {
	for ss_f in "$CONF"/*.status; do
		ss_n=${ss_f##*/}
		ss_n=${ss_n%.status}
		is_target "$ss_n" && continue
		case $ss_n in
		'*') continue ;;
		sysctl | tuning) continue ;;
		esac
		if ! reserved "$ss_n"; then
			in_list "$UNK" "$ss_n" && continue
			if ! ignored "$ss_n"; then
				for ss_s in "$ss_n" "$ss_n.add" "$ss_n.merge"; do
					if looked "$CONF/$ss_s"; then
						case $LR_MODE in ?*) continue 2 ;; esac
					elif [ -e "$CONF/$ss_s" ] || [ -L "$CONF/$ss_s" ]; then
						continue 2
					fi
				done
			fi
			plain "$ss_f" || continue
			ss_w=
			{ IFS= read -r ss_w <"$ss_f"; } 2>/dev/null
			case $ss_w in "status: $W_UNKNOWN"*) ;; *) continue ;; esac
		fi
		touched "$ss_f"
		rm -f "$ss_f" && log INFO "removed the status of a file that is gone" status="${ss_f##*/}"
	done
}

# sources_of NAME sets SOURCES to NAME NAME.merge NAME.add, those present,
# in the order they apply (from the names scan found in conf.d: a file
# that cannot be examined is still a source).
sources_of() {
	SOURCES=
	for so_s in "$1" "$1.merge" "$1.add"; do
		case $NAMES in *" $so_s "*) SOURCES="$SOURCES $so_s" ;; esac
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
	if ! [ -e "$ts_f" ]; then
		REASON="conf.d/$1 cannot be examined on this device: a file of 2 GiB or more (a 32-bit system cannot open it; userscript takes files up to 1 MiB), or a disk error"
		TODO="put the file itself into conf.d, at most 1 MiB"
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
	if ! eq "$LS_LINKS" 1; then
		REASON="conf.d/$1: has other hard links; userscript does not read files that are also elsewhere: save it as a plain copy"
		TODO="save conf.d/$1 as a plain copy (not a hard link of another file)"
		return 1
	fi
	rm -rf "$ts_l" "$2.raw"
	if ln -- "$ts_f" "$ts_l" 2>/dev/null; then
		ls_fields "$ts_l"
		case $LS_MODE in
		-*) eq "$LS_LINKS" 2 && ! too_big "$LS_SIZE" ;;
		*) false ;;
		esac || {
			rm -f "$ts_l"
			REASON="conf.d/$1 changed while it was read"
			TODO="save it again"
			return 1
		}
		cat -- "$ts_l" >"$2.raw" 2>"$2.err"
		ts_rc=$?
		rm -f "$ts_l"
	else
		cat -- "$ts_f" >"$2.raw" 2>"$2.err"
		ts_rc=$?
	fi
	# BusyBox 1.00's cat exits 0 on a read error: its message counts too.
	if [ "$ts_rc" -ne 0 ] || [ -s "$2.err" ]; then
		REASON="conf.d/$1 could not be read"
		return 1
	fi
	# It may have been swapped for a link or a big file while it was read.
	size_of "$2.raw"
	if [ -L "$ts_f" ] || too_big "$FSIZE"; then
		REASON="conf.d/$1 changed while it was read"
		TODO="save it again"
		return 1
	fi
	# An empty .merge or .add: a save in progress or a failed copy.
	case $FSIZE:$1 in 0:*.merge | 0:*.add)
		REASON="conf.d/$1: is empty (0 bytes): a save in progress or a copy that failed leaves such a file, so it is not applied; to drop these changes, delete it"
		TODO="copy conf.d/$1 again whole, or delete it to drop these changes"
		return 1
		;;
	esac
	# shellcheck disable=SC2094 # both only read it
	if ! tr -d '\000' <"$2.raw" | cmp -s - "$2.raw"; then
		nul_reason "$1" "$2.raw"
		return 1
	fi
	normalise "$2.raw" "$2"
}

# nul_reason NAME RAW sets REASON and TODO for a source holding NUL bytes:
# Notepad's "Unicode" (UTF-16 with a byte order mark, FF FE or FE FF),
# which the sh engine cannot convert, or no text at all. The marks are
# mapped to printable bytes a `case` can test.
nul_reason() {
	nr_first=
	tr '\000\376\377' '_<>' <"$2" >"$2.mark" 2>/dev/null
	{ IFS= read -r nr_first <"$2.mark"; } 2>/dev/null
	rm -f "$2.mark"
	case $nr_first in
	'><'*) nr_enc="UTF-16 LE" ;;
	'<>'*) nr_enc="UTF-16 BE" ;;
	*)
		REASON="conf.d/$1: holds NUL bytes; it is not a text file (saved as Unicode without a mark? in Notepad use Save As → Encoding: UTF-8)"
		TODO="save conf.d/$1 as plain text (UTF-8) and save it again"
		return 0
		;;
	esac
	REASON="conf.d/$1: saved as Unicode ($nr_enc): in Notepad use Save As → Encoding: UTF-8"
	TODO="open conf.d/$1 in Notepad, use Save As with Encoding: UTF-8 and save it over the file; this device cannot convert it"
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
	chars
	sed -e "1s/^\($BOM\)*//" -e "s/$CR*\$//" "$1" >"$2" || return 1
	ends_nl "$2" || echo >>"$2"
}

ends_nl() {
	[ ! -s "$1" ] || [ -z "$(tail -c 1 "$1")" ]
}

# ---- base and composition -------------------------------------------------

# base_ok NAME is true when state/base/NAME is a regular file, not a link.
base_ok() {
	! [ -L "$STATE/base/$1" ] && [ -f "$STATE/base/$1" ]
}

# set_base NAME LIVE stores the live file (the firmware's) as the base; a
# missing live file is an empty base.
set_base() {
	rm -rf "$STATE/base/$1.tmp"
	if filled "$LIVE_OK"; then
		cat "$2" >"$STATE/base/$1.tmp" || return 1
	else
		: >"$STATE/base/$1.tmp" || return 1
	fi
	if base_ok "$1"; then
		if cmp -s "$STATE/base/$1.tmp" "$STATE/base/$1"; then
			rm -f "$STATE/base/$1.tmp"
			return 0
		fi
		# The firmware's own file changed (firmware.sh): the old one is
		# kept for the note and the diff.
		case $LIVE_OK in yes)
			need_work && cp "$STATE/base/$1" "$WORK/$1.oldbase" && REBASED_NOW="${REBASED_NOW:-} $1"
			;;
		esac
	fi
	put_file "$STATE/base/$1.tmp" "$STATE/base/$1" || return 1
	log INFO "base captured" target="$1" md5="${LIVE_HASH:-none}"
}

# compose NAME BASE writes WORK/NAME.target: the replacement (or BASE),
# then the merge (lib/merge.sh, where this device has it), then the
# addition unless the text already ends with it (a base taken from our
# own file when state/ was lost must not get the addition twice). It
# fails with REASON and TODO set.
compose() {
	co_out=$WORK/$1.target
	CO_FILE=${FIRST:-$1}
	CO_WARNINGS=
	if [ -f "$WORK/$1.n" ]; then
		cp "$WORK/$1.n" "$co_out"
	elif [ -n "$2" ]; then
		cat "$2" >"$co_out"
	else
		: >"$co_out"
	fi
	if [ -f "$WORK/$1.merge.n" ]; then
		CO_FILE=$1.merge
		# .merge fragments, where this package has the sh merge.
		filled "${MERGE_SH:-}" || ! [ -f "$ENGINE_DIR/merge.sh" ] || {
			part merge
			MERGE_SH=yes
		}
		if blank "${MERGE_SH:-}"; then
			REASON="conf.d/$1.merge: not supported on this device — render it on a PC"
			TODO="render the merge with userscript on a PC (userscript render --profile $PROFILE --base $1.from-nas $1.merge > $1) and put the result here as $1"
			return 1
		fi
		# lib/merge.sh: merge_format, merge_unsupported, merge_file.
		co_fmt=$(merge_format "$1")
		if blank "$co_fmt"; then
			REASON=
			merge_unsupported "$1" "$PROFILE"
			filled "$REASON" || REASON="conf.d/$1.merge: $1 cannot be merged on this device"
			TODO="put the whole file in conf.d/$1, or render the merge with userscript on a PC (userscript render --profile $PROFILE --base $1.from-nas $1.merge > $1)"
			return 1
		fi
		REASON=
		MERGE_WARNINGS=
		if ! merge_file "$co_fmt" "$co_out" "$WORK/$1.merge.n" "conf.d/$1.merge" "$co_out.merged"; then
			REASON=${REASON:-conf.d/$1.merge could not be merged}
			TODO="fix conf.d/$1.merge and save it again"
			return 1
		fi
		mv -f "$co_out.merged" "$co_out"
		CO_WARNINGS=$MERGE_WARNINGS
	fi
	if [ -f "$WORK/$1.add.n" ] && ! ends_with "$co_out" "$WORK/$1.add.n"; then
		ends_nl "$co_out" || echo >>"$co_out"
		cat "$WORK/$1.add.n" >>"$co_out"
	fi
	return 0
}

# ends_with FILE TAIL is true when FILE's last bytes are TAIL's content.
ends_with() {
	size_of "$2"
	ew_n=$FSIZE
	num "$ew_n" || return 1
	case $ew_n in 0) return 0 ;; esac
	size_of "$1"
	num "$FSIZE" || return 1
	case $((FSIZE >= ew_n)) in 1) ;; *) return 1 ;; esac
	tail -c "$ew_n" "$1" | cmp -s - "$2"
}
