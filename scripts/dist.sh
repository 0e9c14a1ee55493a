#!/bin/sh
# scripts/dist.sh TARGET builds $DIST/userscript-$VERSION-TARGET.tgz from
# build/TARGET/vars (see the Makefile's dist target), or, for FORMAT=spk,
# the Synology package $DIST/userscript-$VERSION-TARGET.spk
# (scripts/spk.sh). The archive is reproducible: sorted entries, every
# mtime $SOURCE_DATE_EPOCH, owner 0/0, fixed modes, gzip without name or
# time.
set -eu

target=${1:?usage: scripts/dist.sh TARGET}
: "${DIST:=dist}" "${VERSION:=0.0.0-dev}" "${SOURCE_DATE_EPOCH:=0}" "${GO:=go}"
# HOSTBIN (optional): a host build of cmd/userscript to render lib/profile
vars=build/$target/vars
[ -f "$vars" ] || {
	echo "dist: $vars: no such target" >&2
	exit 2
}

GOARCH=none
GOARM=
PROFILE=
POLL=5
FORMAT=tgz
# Synology packages (FORMAT=spk): the DSM major version the package is
# for, the Go engines it holds, and its INFO fields (scripts/spk.sh).
DSM=
GOARCHES=
SPK_ARCH=
SPK_FIRMWARE=
SPK_OS_MIN_VER=
SPK_OS_MAX_VER=
SPK_ICON=72
SPK_DESCRIPTION=
# shellcheck source=/dev/null
. "./$vars"
[ -n "$PROFILE" ] || {
	echo "dist: $vars: PROFILE is not set" >&2
	exit 2
}

# owner_files TOP puts what the owner reads and keeps into the package:
# conf.d/README.txt (English, then German; CRLF, for Notepad), the
# examples, userscript.toml.example only (the owner's userscript.toml is
# created at the first start and never shipped, so that installing a
# newer package over an older one keeps it), the licences.
owner_files() {
	{
		cat conf.d/README.md
		echo
		echo "----------------------------------------------------------------------"
		echo
		cat conf.d/README.de.md
	} | sed 's/$/\r/' >"$1/conf.d/README.txt"
	cp conf.d/examples/* "$1/conf.d/examples/"
	cp userscript.toml.example "$1/userscript.toml.example"
	cp LICENSE THIRD_PARTY_LICENSES.txt "$1/"
}

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT INT TERM
top=$stage/userscript
mkdir -p "$top/lib" "$top/conf.d/examples" "$DIST"

# lib/profile comes from the Go engine's own renderer: $HOSTBIN is a host
# build of cmd/userscript (the Makefile makes one per `make dist`).
if [ -z "${HOSTBIN:-}" ]; then
	HOSTBIN=$stage/host
	CGO_ENABLED=0 "$GO" build -o "$HOSTBIN" ./cmd/userscript
fi
if [ -n "$DSM" ]; then
	# The dsm profile follows the DSM version (/etc.defaults/VERSION):
	# render the one of the DSM this package is for.
	mkdir -p "$stage/dsm/etc.defaults"
	echo "majorversion=\"$DSM\"" >"$stage/dsm/etc.defaults/VERSION"
	echo "buildnumber=\"0\"" >>"$stage/dsm/etc.defaults/VERSION"
	"$HOSTBIN" --root "$stage/dsm" profiles --sh "$PROFILE" >"$top/lib/profile"
	rm -rf "$stage/dsm"
else
	"$HOSTBIN" profiles --sh "$PROFILE" >"$top/lib/profile"
fi
rm -f "$stage/host"

cp package/init "$top/init"
cp package/lib/*.sh "$top/lib/"
{
	echo "# sh engine settings, rendered at build time (USERSCRIPT_POLL overrides)"
	echo "poll $POLL"
} >"$top/lib/settings"
echo "$VERSION" >"$top/lib/version"
owner_files "$top"

if [ "$GOARCH" != none ]; then
	mkdir -p "$top/bin"
	# -tags noclients: the bench's SMB and FTP clients are for the PC.
	CGO_ENABLED=0 GOOS=linux GOARCH=$GOARCH GOARM=$GOARM "$GO" build -tags noclients \
		-trimpath -buildvcs=false \
		-ldflags "-s -w -buildid= -X main.version=$VERSION" \
		-o "$top/bin/userscript" ./cmd/userscript
fi

if [ "$FORMAT" = spk ]; then
	# shellcheck source=scripts/spk.sh
	. ./scripts/spk.sh
	make_spk "$target" "$stage" "$top"
	exit 0
fi

find "$top" -type d -exec chmod 0755 {} +
find "$top" -type f -exec chmod 0644 {} +
chmod 0755 "$top/init" "$top/lib/engine.sh"
[ ! -f "$top/bin/userscript" ] || chmod 0755 "$top/bin/userscript"

out=$DIST/userscript-$VERSION-$target.tgz
tar -C "$stage" --sort=name --format=ustar \
	--mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner \
	-cf - userscript | gzip -n -9 >"$out.tmp"
mv -f "$out.tmp" "$out"
echo "$out"
