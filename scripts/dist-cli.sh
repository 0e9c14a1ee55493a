#!/bin/sh
# scripts/dist-cli.sh GOOS/GOARCH... builds the command line for the
# owner's PC (render, explain, profiles) as plain archives in $DIST:
# userscript-cli-$VERSION-GOOS-GOARCH.zip for Windows, .tar.gz for the
# others. Each holds one folder with the program, README.md, LICENSE and
# THIRD_PARTY_LICENSES.txt. Reproducible: -trimpath, no build id or VCS
# stamp, every entry dated $SOURCE_DATE_EPOCH (see internal/release).
set -eu

: "${DIST:=dist}" "${VERSION:=0.0.0-dev}" "${SOURCE_DATE_EPOCH:=0}" "${GO:=go}"
[ "$#" -gt 0 ] || exit 0
mkdir -p "$DIST"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT INT TERM

# The packer itself is built for this machine once.
CGO_ENABLED=0 "$GO" build -o "$stage/archive" ./internal/release/cmd/archive

for pair in "$@"; do
	os=${pair%/*}
	arch=${pair#*/}
	name=userscript-cli-$VERSION-$os-$arch
	exe=userscript
	ext=tar.gz
	if [ "$os" = windows ]; then
		exe=userscript.exe
		ext=zip
	fi
	dir=$stage/$name
	mkdir -p "$dir"
	CGO_ENABLED=0 GOOS=$os GOARCH=$arch "$GO" build \
		-trimpath -buildvcs=false \
		-ldflags "-s -w -buildid= -X main.version=$VERSION" \
		-o "$dir/$exe" ./cmd/userscript
	cp README.md LICENSE THIRD_PARTY_LICENSES.txt "$dir/"
	"$stage/archive" -o "$DIST/$name.$ext" -C "$dir" -top "$name" -mtime "$SOURCE_DATE_EPOCH"
	echo "$DIST/$name.$ext"
done
