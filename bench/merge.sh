#!/bin/sh
# What a .merge costs the sh engine (package/lib/merge.sh): a typical
# fragment merged into a 300-line smb.conf under BusyBox 1.00's ash, with
# only the applets the sh engine may use on PATH. Prints, for a fragment
# of 3 keys and one of 10 (the seeds' tuning, a new share, a deleted
# one), the processes one merge forks (counted by strace), and the wall
# time and CPU time (user + system, the shell's and its children's, as
# ash's `times` gives them) of one merge, the mean of RUNS. The CPU time
# is the steadier number on a busy machine. For scale, the same for a
# bare cp of the base. Needs strace and GNU date.
#
#   sh bench/merge.sh [RUNS]     (default 50)
#
# BusyBox: $USERSCRIPT_OLD_BUSYBOX/1_00/busybox (default
# ../shared/busybox-old beside the repository), else Debian's busybox.
set -eu
runs=${1:-50}
top=$(cd "$(dirname "$0")/.." && pwd)
old=${USERSCRIPT_OLD_BUSYBOX:-$top/../shared/busybox-old}
bb=$old/1_00/busybox
[ -x "$bb" ] || bb=$(command -v busybox)
strace=$(command -v strace) || {
	echo "bench/merge.sh: needs strace (apt-get install strace)" >&2
	exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin"
for a in sh [ cat cp mv rm mkdir ln ls cmp grep sed sleep date kill ps find echo test tr wc head tail md5sum; do
	ln -s "$bb" "$tmp/bin/$a"
done

# 300 lines: Debian's smb.conf, then shares as a NAS writes them.
base=$tmp/smb.conf
cp "$top/internal/merge/testdata/debian-smb.conf" "$base"
i=1
while [ "$(wc -l <"$base")" -lt 300 ]; do
	printf '\n[share%d]\n\tcomment = Share %d\n\tpath = /mnt/ide1/share%d\n\tread only = no\n\tbrowseable = yes\n' "$i" "$i" "$i" >>"$base"
	i=$((i + 1))
done
printf '[global]\n   socket options = TCP_NODELAY\n   dead time = 5\n   !write cache size\n' >"$tmp/three.merge"
printf '[global]\n   getwd cache = yes\n   dead time = 5\n   log level = 1\n   read raw = yes\n   write raw = yes\n   oplocks = yes\n   max xmit = 65535\n   use sendfile = yes\n   socket options = TCP_NODELAY\n   !write cache size\n[media]\n   path = /mnt/ide1/media\n   read only = no\n![printers]\n' >"$tmp/ten.merge"

# one FRAGMENT: the driver merges RUNS times.
cat >"$tmp/run.sh" <<'EOF'
set -u
ENGINE_DIR=${1%/*}
. "$1"
i=0
while :; do
	case $i in "$4") break ;; esac
	i=$((i + 1))
	case $3 in
	cp) cp "$2" "$5" ;;
	*) merge_file smb.conf "$2" "$3" conf.d/smb.conf.merge "$5" || exit 1 ;;
	esac
done
times >"$5.times"
EOF

echo "$("$bb" 2>&1 | head -n 1 | cut -d' ' -f1-2); base: $(wc -l <"$base") lines, $(wc -c <"$base") bytes"
for frag in three ten cp; do
	f=$tmp/$frag.merge
	[ "$frag" = cp ] && f="cp"
	env -i PATH="$tmp/bin" "$strace" -f -qq -e trace=fork,vfork,clone,clone3 -o "$tmp/strace" \
		"$tmp/bin/sh" "$tmp/run.sh" "$top/package/lib/merge.sh" "$base" "$f" 1 "$tmp/out"
	forks=$(grep -c -E 'fork|clone' "$tmp/strace")
	t0=$(date +%s%N)
	env -i PATH="$tmp/bin" "$tmp/bin/sh" "$tmp/run.sh" "$top/package/lib/merge.sh" "$base" "$f" "$runs" "$tmp/out"
	t1=$(date +%s%N)
	cpu=$(tr 'ms\n' '   ' <"$tmp/out.times" | awk -v n="$runs" '{ for (i = 1; i <= NF; i += 2) s += $i * 60 + $(i + 1); printf "%d", s * 1e6 / n }')
	what="bare cp of the base"
	[ "$frag" = cp ] || what="fragment $frag ($(grep -c . "$f") lines)"
	echo "$what: forks=$forks, wall=$(((t1 - t0) / runs / 1000)) us, cpu=$cpu us (mean of $runs), result $(wc -c <"$tmp/out") bytes"
done
