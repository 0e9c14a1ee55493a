# shellcheck shell=sh
# userscript sh engine: conf.d/.firmware and a changed base
# (docs/FORMATS.md, "conf.d/.firmware and a changed base"). The
# firmware's own file of every target is kept in conf.d/.firmware/NAME
# for an owner without a shell; when the firmware's file changes under a
# replacement (a firmware update), state/rebased/NAME records it and the
# replacement's status says so, with the lines that changed, until the
# owner saves the replacement again. The Go engine's
# internal/overlay/firmware.go is the reference. Sourced by engine.sh
# when the look shows something to do: nothing runs on an apply where the
# firmware's files are what .firmware holds.
# shellcheck disable=SC2154,SC2034,SC2153

# FW_DIFF_MAX bounds the diff: lines in a status.
FW_DIFF_MAX=40

# firmware_keep writes conf.d/.firmware/NAME for every target whose
# firmware file this apply saw (FW_SEEN: NAME:FILE:MD5, the live file of
# a target nobody manages, or the base just captured; only files up to
# 1 MiB) and that .firmware does not hold (the look's hashes).
firmware_keep() {
	fk_dir=$CONF/.firmware
	fk_made=
	for fk_e in $FW_SEEN; do
		fk_n=${fk_e%%:*}
		fk_src=${fk_e#*:}
		fk_h=${fk_src##*:}
		fk_src=${fk_src%:*}
		h_of "$fk_dir/$fk_n"
		case $H in "$fk_h") continue ;; esac
		case $fk_made in
		'')
			fk_ok=
			if looked "$fk_dir"; then
				case $LR_MODE in d*) fk_ok=yes ;; '') mkdir "$fk_dir" 2>/dev/null && fk_ok=yes ;; esac
			elif ! [ -L "$fk_dir" ] && { [ -d "$fk_dir" ] || mkdir "$fk_dir" 2>/dev/null; }; then
				fk_ok=yes
			fi
			case $fk_ok in '')
				log ERROR "conf.d/.firmware is not a folder (a symlink?); not writing through it"
				return 0
				;;
			esac
			fk_made=yes
			;;
		esac
		need_work || return 0
		if cat -- "$fk_src" >"$WORK/fw.$fk_n" 2>/dev/null && mv -f "$WORK/fw.$fk_n" "$fk_dir/$fk_n"; then
			log INFO "kept the firmware's own file" target="$fk_n" in="conf.d/.firmware/$fk_n"
		fi
	done
}


# rebase NAME: after the base of NAME was planned and its sources taken
# (WORK/SRC.n), record or read that the firmware's file changed, and put
# the note (and for a replacement the diff of the two firmware files)
# into its report. REBASED_NOW lists the targets whose base changed in
# this apply (set_base kept the old one in WORK/NAME.oldbase).
rebase() {
	rb_rec=$STATE/rebased/$1
	rb_had=
	plain "$rb_rec" && rb_had=yes
	case $SOURCES in '')
		case $rb_had:$CAPTURED in yes:yes) rebase_clear "$1" ;; esac
		return 0
		;;
	esac
	rb_changed=
	in_list "${REBASED_NOW:-}" "$1" && rb_changed=yes
	case $rb_changed$rb_had in '') return 0 ;; esac
	rb_repl=
	in_list "$SOURCES" "$1" && rb_repl=yes
	case $rb_changed:$rb_repl in
	yes:)
		rb_list=
		for rb_s in "$1" "$1.merge" "$1.add"; do
			in_list "$SOURCES" "$rb_s" && rb_list="$rb_list${rb_list:+, }$rb_s"
		done
		fset "$1" note "the firmware's own $1 changed (a firmware update, or its web GUI rewrote it): your $rb_list was applied to the new one; conf.d/.firmware/$1 holds it"
		RB_NOTED="${RB_NOTED:-} $1"
		return 0
		;;
	esac
	fingerprint "$1"
	rb_old=
	case $rb_changed in
	yes)
		mkdir -p "$STATE/rebased" 2>/dev/null
		rm -rf "$rb_rec.tmp"
		{ echo "$FP" && cat "$WORK/$1.oldbase"; } >"$rb_rec.tmp" 2>/dev/null &&
			put_file "$rb_rec.tmp" "$rb_rec" &&
			log INFO "the firmware's own file changed under a replacement" target="$1"
		rb_old=$WORK/$1.oldbase
		;;
	*)
		rb_fp=
		{ read -r rb_fp <"$rb_rec"; } 2>/dev/null
		case $rb_fp:$rb_repl in
		"$FP:yes")
			need_work || return 0
			sed 1d "$rb_rec" >"$WORK/$1.oldbase" 2>/dev/null
			rb_old=$WORK/$1.oldbase
			;;
		*)
			rebase_clear "$1"
			return 0
			;;
		esac
		;;
	esac
	fset "$1" note "the firmware's own $1 changed (a firmware update, or its web GUI rewrote it) since your conf.d/$1 was applied, which replaces the whole file and was written for the old one: compare the new one (conf.d/.firmware/$1) with yours and take over what you need, then save conf.d/$1 again (this note stays until you do); how the firmware's file changed:"
	base_diff "$1" "$rb_old" "$STATE/base/$1"
	RB_NOTED="${RB_NOTED:-} $1"
}

# rebase_clear NAME: the owner saved the sources since: the note has done
# its job.
rebase_clear() {
	touched "$STATE/rebased/$1"
	rm -f "$STATE/rebased/$1" && log INFO "the sources changed since the firmware's file did: note removed" target="$1"
}

# fingerprint NAME sets FP: the md5 of the normalised sources of NAME in
# the order they apply (NAME, NAME.merge, NAME.add).
fingerprint() {
	fp_files=
	for fp_s in "$1" "$1.merge" "$1.add"; do
		in_list "$SOURCES" "$fp_s" && fp_files="$fp_files $WORK/$fp_s.n"
	done
	# shellcheck disable=SC2086 # paths without blanks
	FP=$(cat $fp_files | md5sum)
	FP=${FP%% *}
}

# base_diff NAME OLD NEW puts the lines of OLD that NEW lacks (-LINE) and
# the reverse (+LINE), in file order, into NAME's report as diff: lines:
# the sh engine has no diff, so no hunks and no context (FORMATS allows
# it). At most FW_DIFF_MAX lines.
base_diff() {
	# (one cat each: the shell's read takes a system call a byte)
	bd_old="$NL$(cat "$2" 2>/dev/null)$NL"
	bd_new="$NL$(cat "$3" 2>/dev/null)$NL"
	BD_N=0
	BD_MORE=0
	diff_side "$1" - "$bd_old" "$bd_new"
	diff_side "$1" + "$bd_new" "$bd_old"
	case $BD_MORE in 0) ;; *) fset "$1" diff "… $BD_MORE more lines: see conf.d/.firmware/$1" ;; esac
}

# diff_side NAME SIGN THESE OTHERS: the lines of THESE that OTHERS lacks.
diff_side() {
	part offending
	set -f
	ds_ifs=$IFS
	IFS=$NL
	for ds_l in $3; do
		case $4 in *"$NL$ds_l$NL"*) continue ;; esac
		case $((BD_N < FW_DIFF_MAX)) in
		1)
			IFS=$ds_ifs
			quote "$2$ds_l"
			fset "$1" diff "$QT"
			IFS=$NL
			BD_N=$((BD_N + 1))
			;;
		*) BD_MORE=$((BD_MORE + 1)) ;;
		esac
	done
	IFS=$ds_ifs
	set +f
}
