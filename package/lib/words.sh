# shellcheck shell=sh
# userscript sh engine: the names in conf.d and the status words both
# engines use. GENERATED from internal/source/names.go and
# internal/status/status.go by `go test ./internal/shwords -update`:
# do not edit. Names compare without case (a case pattern per name).
# Sourced by engine.sh.
# shellcheck disable=SC2034

# reserved NAME: NAME is one of conf.d's reserved names: never a source, never a status of its own.
reserved() {
	case $1 in
	[Dd][Ii][Ss][Aa][Bb][Ll][Ee] | [Dd][Ii][Ss][Aa][Bb][Ll][Ee].[Tt][Xx][Tt] | [Dd][Ii][Ss][Aa][Bb][Ll][Ee].[Tt][Xx][Tt].[Tt][Xx][Tt] | [Ss][Aa][Ff][Ee]-[Mm][Oo][Dd][Ee] | [Dd][Oo][Cc][Tt][Oo][Rr].[Tt][Xx][Tt] | [Ss][Tt][Aa][Tt][Uu][Ss].[Hh][Tt][Mm][Ll]) return 0 ;;
	esac
	return 1
}

# is_disable NAME: NAME is the owner's off switch.
is_disable() {
	case $1 in
	[Dd][Ii][Ss][Aa][Bb][Ll][Ee] | [Dd][Ii][Ss][Aa][Bb][Ll][Ee].[Tt][Xx][Tt] | [Dd][Ii][Ss][Aa][Bb][Ll][Ee].[Tt][Xx][Tt].[Tt][Xx][Tt]) return 0 ;;
	esac
	return 1
}

# is_safe_mode NAME: NAME says the engines are in safe mode.
is_safe_mode() {
	case $1 in
	[Ss][Aa][Ff][Ee]-[Mm][Oo][Dd][Ee]) return 0 ;;
	esac
	return 1
}

# dropping NAME: NAME is a file Windows Explorer leaves (macOS's start with a dot).
dropping() {
	case $1 in
	[Tt][Hh][Uu][Mm][Bb][Ss].[Dd][Bb] | [Ee][Hh][Tt][Hh][Uu][Mm][Bb][Ss].[Dd][Bb] | [Dd][Ee][Ss][Kk][Tt][Oo][Pp].[Ii][Nn][Ii]) return 0 ;;
	esac
	return 1
}

# backup NAME: NAME is one of the owner's backups (smb.conf.bak), also with the ".txt" Notepad adds.
backup() {
	case $1 in
	?*.[Bb][Aa][Kk] | ?*.[Bb][Aa][Kk].[Tt][Xx][Tt] | ?*.[Oo][Ll][Dd] | ?*.[Oo][Ll][Dd].[Tt][Xx][Tt] | ?*.[Oo][Rr][Ii][Gg] | ?*.[Oo][Rr][Ii][Gg].[Tt][Xx][Tt]) return 0 ;;
	esac
	return 1
}

# The words of the status: line.
W_OK='OK'
W_NOT_VALIDATED='NOT VALIDATED'
W_REFUSED='REFUSED'
W_REJECTED='REJECTED'
W_FAILED='FAILED'
W_UNKNOWN='UNKNOWN'
W_HELD='HELD'
W_DISABLED='DISABLED'
