# shellcheck shell=sh
# userscript sh engine: where a service listens, read from its own
# config the way the daemon reads it (smb.conf's interfaces, bind
# interfaces only and smb ports; proftpd.conf's Port and
# DefaultAddress), before and after a change. Sourced by service.sh.
# shellcheck disable=SC2154,SC2034,SC2153

# listen_of SERVICE WHEN sets LHOSTS and LPORTS (comma-separated): where
# the service listens with the files of the transaction WHEN (`after`:
# the new ones; `before`: what was live; `live`: the files live now, of
# all its targets): smb.conf's `smb ports`, and
# `interfaces` with `bind interfaces only`; proftpd.conf's main `Port`,
# and `DefaultAddress` with `SocketBindTight on`; else the profile's
# ports on 127.0.0.1. Ports the owner set in userscript.toml win.
listen_of() {
	LHOSTS=127.0.0.1
	LPORTS=$SPORTS
	# Ports set to none in userscript.toml: nothing to listen on to read.
	case $SPINNED:$SPORTS in yes:- | yes:) return 0 ;; esac
	lo_names=${WRITTEN:-}
	case $2 in live) lo_names=$TARGETS ;; esac
	for lo_n in $lo_names; do
		profile_target "$lo_n" || continue
		case $TSVC in "$1") ;; *) continue ;; esac
		case $2 in
		after)
			src_of "$lo_n"
			lo_f=$SO
			;;
		live)
			lo_f=$ROOT$TPATH
			[ -f "$lo_f" ] || continue
			;;
		*)
			prev_of "$lo_n"
			lo_f=$PO
			;;
		esac
		case $lo_f in '') continue ;; esac
		CPORTS=
		CHOSTS=
		case $TVAL in
		testparm) samba_listen "$lo_f" ;;
		proftpd) proftpd_listen "$lo_f" ;;
		esac
		case $CPORTS:$SPINNED in ?*:) LPORTS=$CPORTS ;; esac
		case $CHOSTS in ?*) LHOSTS=$CHOSTS ;; esac
	done
	profile_service "$1"
}

# samba_listen FILE sets CPORTS and CHOSTS from [global].
samba_listen() {
	sa_global=yes
	sa_names=
	sa_bind=
	while IFS= read -r sa_l; do
		trim "$sa_l"
		case $TR in
		'['*)
			sa_s=${TR#[}
			trim "${sa_s%%]*}"
			case $TR in [Gg][Ll][Oo][Bb][Aa][Ll]) sa_global=yes ;; *) sa_global= ;; esac
			continue
			;;
		'#'* | ';'*) continue ;;
		*=*) ;;
		*) continue ;;
		esac
		case $sa_global in '') continue ;; esac
		sa_k=${TR%%=*}
		sa_v=${TR#*=}
		while :; do
			case $sa_k in
			*[[:space:]]*) sa_k=${sa_k%%[[:space:]]*}${sa_k#*[[:space:]]} ;;
			*) break ;;
			esac
		done
		case $sa_k in
		[Ss][Mm][Bb][Pp][Oo][Rr][Tt][Ss])
			CPORTS=
			subst "$sa_v" , " "
			subst "$SUB" ";" " "
			for sa_p in $SUB; do
				port_ok "$sa_p" && CPORTS="$CPORTS${CPORTS:+,}$sa_p"
			done
			;;
		[Ii][Nn][Tt][Ee][Rr][Ff][Aa][Cc][Ee][Ss])
			subst "$sa_v" , " "
			subst "$SUB" ";" " "
			sa_names=$SUB
			;;
		[Bb][Ii][Nn][Dd][Ii][Nn][Tt][Ee][Rr][Ff][Aa][Cc][Ee][Ss][Oo][Nn][Ll][Yy])
			sa_bind=
			is_yes "$sa_v" && sa_bind=yes
			;;
		esac
	done <"$1"
	case $sa_bind in '') return 0 ;; esac
	for sa_n in $sa_names; do
		sa_a=${sa_n%%/*}
		case $sa_a in
		*[!0-9.]*) CHOSTS="$CHOSTS${CHOSTS:+,}*" ;;
		*.*.*.*) CHOSTS="$CHOSTS${CHOSTS:+,}$sa_a" ;;
		esac
	done
}

# proftpd_listen FILE sets CPORTS and CHOSTS from the main server's
# directives (outside any block).
proftpd_listen() {
	pf_depth=0
	pf_addrs=
	pf_tight=
	while read -r pf_d pf_v pf_rest; do
		case $pf_d in
		'' | '#'*) continue ;;
		'</'*) pf_depth=$((pf_depth - 1)) && continue ;;
		'<'*) pf_depth=$((pf_depth + 1)) && continue ;;
		esac
		case $pf_depth:$pf_v in 0:?*) ;; *) continue ;; esac
		case $pf_d in
		[Pp][Oo][Rr][Tt]) port_ok "$pf_v" && CPORTS=$pf_v ;;
		[Dd][Ee][Ff][Aa][Uu][Ll][Tt][Aa][Dd][Dd][Rr][Ee][Ss][Ss]) pf_addrs="$pf_v $pf_rest" ;;
		[Ss][Oo][Cc][Kk][Ee][Tt][Bb][Ii][Nn][Dd][Tt][Ii][Gg][Hh][Tt])
			pf_tight=
			is_yes "$pf_v" && pf_tight=yes
			;;
		esac
	done <"$1"
	case $pf_tight in '') return 0 ;; esac
	for pf_a in $pf_addrs; do
		case $pf_a in *[!0-9.]* | *..*) ;; *.*.*.*) CHOSTS="$CHOSTS${CHOSTS:+,}$pf_a" ;; esac
	done
}

# port_ok N is true for a TCP port number (1-65535).
port_ok() {
	num "$1" || return 1
	case $(($1 > 0 && $1 < 65536)) in 1) return 0 ;; esac
	return 1
}

is_yes() {
	trim "$1"
	case $TR in [Yy][Ee][Ss] | [Tt][Rr][Uu][Ee] | 1 | [Oo][Nn]) return 0 ;; esac
	return 1
}
