#!/bin/sh
# scripts/third-party.sh writes THIRD_PARTY_LICENSES.txt: the licence of
# every module compiled into userscript for any GOOS it is built for, and
# of Go's own standard library. The binaries carry their code, so the
# packages and the CLI archives carry these notices. Run it after a
# change to go.mod; internal/release's test checks that none is missing.
set -eu
: "${GO:=go}"
mods=$(for os in linux windows darwin; do
	GOOS=$os "$GO" list -deps -f '{{with .Module}}{{if not .Main}}{{.Path}} {{.Version}}{{end}}{{end}}' ./cmd/userscript
done | sort -u)
{
	echo "userscript is built from its own code (see LICENSE) and the code below,"
	echo "each under its own licence, reproduced here as each requires."
	echo
	echo "==== Go (standard library and runtime), https://go.dev ===="
	echo
	cat "$("$GO" env GOROOT)/LICENSE"
	echo "$mods" | while read -r path version; do
		[ -n "$path" ] || continue
		dir=$("$GO" list -m -f '{{.Dir}}' "$path")
		echo
		echo "==== $path $version ===="
		echo
		for f in "$dir"/LICENSE "$dir"/LICENSE.* "$dir"/COPYING; do
			if [ -f "$f" ]; then cat "$f"; fi
		done
	done
} >THIRD_PARTY_LICENSES.txt
