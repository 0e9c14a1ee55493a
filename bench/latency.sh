#!/bin/sh
# Edit-to-live latency, side by side in one run: the Go watcher
# (`userscript run`, inotify, 300 ms quiet time) against the sh engine's
# poll loop (`engine.sh poll`, every USERSCRIPT_POLL seconds, default 5)
# on the same fake NAS root. Prints the median and the worst of N edits
# for each, in milliseconds. Needs GNU date (for %N) and busybox.
#
#   sh bench/latency.sh [EDITS]     (default 10)
set -eu
edits=${1:-10}
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	sleep 1
	rm -rf "$tmp"
}
trap cleanup EXIT
go build -o "$tmp/userscript" "$top/cmd/userscript"

setup() { # DIR
	mkdir -p "$1/root/system/hddapp/etc/samba" "$1/root/system/hddapp/etc/rc.d" "$1/app/conf.d" "$1/app/lib"
	printf '[global]\n\tworkgroup = ROM\n' >"$1/root/system/hddapp/etc/samba/smb.conf"
	printf '#!/bin/sh\nexit 0\n' >"$1/root/system/hddapp/etc/rc.d/S80samba.sh"
	chmod +x "$1/root/system/hddapp/etc/rc.d/S80samba.sh"
	printf 'profile = "nas4220b"\n[services.samba]\nports = []\nprocess = ""\n' >"$1/app/userscript.toml"
	cp "$top"/package/lib/*.sh "$1/app/lib/"
	"$tmp/userscript" profiles --sh nas4220b >"$1/app/lib/profile"
	echo bench >"$1/app/lib/version"
	printf '[global]\n\tworkgroup = V0\n' >"$1/app/conf.d/smb.conf"
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# measure DIR NAME: edits conf.d/smb.conf and waits for the live file.
measure() {
	name=$2
	live=$1/root/system/hddapp/etc/samba/smb.conf
	lat=
	i=1
	while [ "$i" -le "$edits" ]; do
		sleep 1
		t0=$(now_ms)
		printf '[global]\n\tworkgroup = V%s\n' "$i" >"$1/app/conf.d/smb.conf"
		until grep -q "workgroup = V$i\$" "$live" 2>/dev/null; do sleep 0.01; done
		lat="$lat $(($(now_ms) - t0))"
		i=$((i + 1))
	done
	sorted=$(echo "$lat" | tr ' ' '\n' | sed '/^$/d' | sort -n)
	med=$(echo "$sorted" | sed -n "$(((edits + 1) / 2))p")
	worst=$(echo "$sorted" | tail -n 1)
	echo "$name: edits=$edits median_ms=$med worst_ms=$worst"
}

setup "$tmp/go"
USERSCRIPT_ROOT=$tmp/go/root USERSCRIPT_APP=$tmp/go/app "$tmp/userscript" run >/dev/null 2>&1 &
pids="$pids $!"
sleep 2
measure "$tmp/go" "go watcher (inotify, 300 ms quiet)"

setup "$tmp/sh"
USERSCRIPT_ROOT=$tmp/sh/root USERSCRIPT_APP=$tmp/sh/app busybox sh "$tmp/sh/app/lib/engine.sh" apply >/dev/null 2>&1
USERSCRIPT_ROOT=$tmp/sh/root USERSCRIPT_APP=$tmp/sh/app USERSCRIPT_POLL=${USERSCRIPT_POLL:-5} busybox sh "$tmp/sh/app/lib/engine.sh" poll >/dev/null 2>&1 &
pids="$pids $!"
sleep 2
measure "$tmp/sh" "sh poll loop (every ${USERSCRIPT_POLL:-5} s)"
