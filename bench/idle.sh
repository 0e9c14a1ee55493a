#!/bin/sh
# Measures what the daemon costs while nothing changes: resident memory
# and context switches (wake-ups) of `userscript run` over a quiet
# period, on a fake NAS root. Prints one line of numbers.
#
#   sh bench/idle.sh [SECONDS]     (default 60)
set -eu
secs=${1:-60}
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
go build -o "$tmp/userscript" "$top/cmd/userscript"
root=$tmp/root app=$tmp/app
mkdir -p "$root/system/hddapp/etc/samba" "$root/system/hddapp/etc/rc.d" "$root/etc" "$app/conf.d"
printf '[global]\n\tworkgroup = X\n' >"$root/system/hddapp/etc/samba/smb.conf"
printf '#!/bin/sh\nexit 0\n' >"$root/system/hddapp/etc/rc.d/S80samba.sh"
chmod +x "$root/system/hddapp/etc/rc.d/S80samba.sh"
printf 'profile = "nas4220b"\n[services.samba]\nports = []\nprocess = ""\n' >"$app/userscript.toml"
printf '[global]\n\tworkgroup = HOME\n' >"$app/conf.d/smb.conf"
"$tmp/userscript" --root "$root" --app "$app" run >"$tmp/out" 2>&1 &
pid=$!
sleep 3 # start-up and the first apply
field() { awk -v k="$1" '$1 == k":" {print $2}' "/proc/$pid/status"; }
sw() { echo $(($(field voluntary_ctxt_switches) + $(field nonvoluntary_ctxt_switches))); }
threads_sw() {
	t=0
	for f in /proc/"$pid"/task/*/status; do
		v=$(awk '$1 ~ /ctxt_switches:/ {s += $2} END {print s}' "$f")
		t=$((t + v))
	done
	echo "$t"
}
s0=$(threads_sw)
sleep "$secs"
s1=$(threads_sw)
echo "idle ${secs}s: rss_kb=$(field VmRSS) hwm_kb=$(field VmHWM) threads=$(field Threads) wakeups=$((s1 - s0)) wakeups_per_min=$(( (s1 - s0) * 60 / secs ))"
