#!/bin/sh
# scripts/spk.sh: the Synology package (.spk) part of scripts/dist.sh,
# which sources it and calls make_spk for a target whose vars say
# FORMAT=spk. The layout and every INFO field follow Synology's Package
# Developer Guide (docs/DSM.md names the pages):
#
#   INFO                 key="value" lines
#   package.tgz          unpacked by Package Center into SYNOPKG_PKGDEST:
#                          app/       the app dir's engine files (copied into
#                                     the shared folder userscript at install)
#                          engines/   userscript-amd64, -arm64, -arm (ARMv5, runs
#                                     on ARMv7 too), -386 (DSM 6, 7)
#   scripts/             installer + one two-line script per lifecycle step
#   conf/                privilege and resource (DSM 7 only)
#   PACKAGE_ICON.PNG     72×72 (64×64 for DSM 7), PACKAGE_ICON_256.PNG
#   LICENSE              when the source tree has one
#
# The .spk is a plain tar; like the .tgz it is reproducible: sorted
# entries, every mtime $SOURCE_DATE_EPOCH, owner 0/0.

# spk_version prints the package version X.Y.Z-BUILD: $SPK_VERSION when
# set; else X.Y.Z from the VERSION file (the release's semantic version)
# and BUILD the number of commits up to HEAD, which rises with every
# commit on the release branch (Package Center wants a build number that
# rises with every release).
spk_version() {
	if [ -n "${SPK_VERSION:-}" ]; then
		echo "$SPK_VERSION"
		return
	fi
	sv_feat=
	[ -f VERSION ] && read -r sv_feat <VERSION
	case $sv_feat in
	'' | *[!0-9.]* | *..* | .* | *.) sv_feat=0.0.0 ;;
	*.*.*.*) sv_feat=0.0.0 ;;
	*.*.*) ;;
	*) sv_feat=0.0.0 ;;
	esac
	sv_build=$(git rev-list --count HEAD 2>/dev/null) || sv_build=0
	echo "$sv_feat-${sv_build:-0}"
}

# reproducible_tar DIR OUT [gzip] writes DIR's contents (not DIR itself)
# to OUT as a sorted ustar archive, gzip'ed without name or time if asked.
reproducible_tar() {
	rt_list=$(cd "$1" && find . -mindepth 1 | sed 's|^\./||' | LC_ALL=C sort)
	# shellcheck disable=SC2086 # names without spaces, built here
	if [ "${3:-}" = gzip ]; then
		(cd "$1" && tar --format=ustar --no-recursion --mtime="@$SOURCE_DATE_EPOCH" \
			--owner=0 --group=0 --numeric-owner -cf - $rt_list) | gzip -n -9 >"$2"
	else
		(cd "$1" && tar --format=ustar --no-recursion --mtime="@$SOURCE_DATE_EPOCH" \
			--owner=0 --group=0 --numeric-owner -cf - $rt_list) >"$2"
	fi
}

# write_info prints INFO. Fields and formats: "INFO: Necessary Fields"
# and "Optional Fields"; firmware is what DSM before 6.1 reads, os_min_ver
# what 6.1 and later read (DSM 7 only it, at least 7.0-40000).
write_info() {
	echo "package=\"userscript\""
	echo "version=\"$1\""
	echo "displayname=\"userscript\""
	echo "description=\"$SPK_DESCRIPTION\""
	echo "maintainer=\"nas-userscript\""
	echo "maintainer_url=\"https://github.com/nas-userscript/userscript\""
	echo "arch=\"$SPK_ARCH\""
	[ -z "$SPK_FIRMWARE" ] || echo "firmware=\"$SPK_FIRMWARE\""
	[ -z "$SPK_OS_MIN_VER" ] || echo "os_min_ver=\"$SPK_OS_MIN_VER\""
	[ -z "$SPK_OS_MAX_VER" ] || echo "os_max_ver=\"$SPK_OS_MAX_VER\""
	echo "thirdparty=\"yes\""
}

# make_spk TARGET STAGE APP builds $DIST/userscript-$VERSION-TARGET.spk
# from the app dir staged in APP, working in the folder STAGE.
make_spk() {
	ms_target=$1
	ms_pkg=$2/pkg
	ms_spk=$2/spk
	ms_icon=$2/spkicon
	mkdir -p "$ms_pkg" "$ms_spk/scripts"
	mv "$3" "$ms_pkg/app"
	# The app ships userscript.toml.example only (dist.sh): the owner's
	# userscript.toml is made from it at install and never overwritten.
	for ms_arch in $GOARCHES; do
		mkdir -p "$ms_pkg/engines"
		CGO_ENABLED=0 GOOS=linux GOARCH=$ms_arch GOARM=5 "$GO" build -tags noclients \
			-trimpath -buildvcs=false \
			-ldflags "-s -w -buildid= -X main.version=$VERSION" \
			-o "$ms_pkg/engines/userscript-$ms_arch" ./cmd/userscript
	done
	find "$ms_pkg" -type d -exec chmod 0755 {} +
	find "$ms_pkg" -type f -exec chmod 0644 {} +
	chmod 0755 "$ms_pkg/app/init" "$ms_pkg/app/lib/engine.sh"
	[ -z "$GOARCHES" ] || chmod 0755 "$ms_pkg"/engines/*
	reproducible_tar "$ms_pkg" "$ms_spk/package.tgz" gzip

	write_info "$(spk_version)" >"$ms_spk/INFO"
	cp package/dsm/installer "$ms_spk/scripts/installer"
	for ms_s in preinst postinst preuninst postuninst preupgrade postupgrade start-stop-status; do
		# shellcheck disable=SC2016 # the stub's own $0 and variables
		{
			echo "#!/bin/sh"
			echo "# userscript: Synology Package Center runs this; the work is in installer."
			echo "PKG_DSM=$DSM"
			echo 'case $0 in */*) PKG_SCRIPTS=${0%/*} ;; *) PKG_SCRIPTS=. ;; esac'
			echo '. "$PKG_SCRIPTS/installer"'
			echo "dsm_main $ms_s \"\$@\""
		} >"$ms_spk/scripts/$ms_s"
	done
	if [ "$DSM" -ge 7 ]; then
		mkdir -p "$ms_spk/conf"
		cp package/dsm/privilege package/dsm/resource "$ms_spk/conf/"
	fi
	"$GO" build -o "$ms_icon" ./scripts/spkicon
	"$ms_icon" "$SPK_ICON" >"$ms_spk/PACKAGE_ICON.PNG"
	"$ms_icon" 256 >"$ms_spk/PACKAGE_ICON_256.PNG"
	[ ! -f LICENSE ] || cp LICENSE "$ms_spk/LICENSE"
	find "$ms_spk" -type d -exec chmod 0755 {} +
	find "$ms_spk" -type f -exec chmod 0644 {} +
	chmod 0755 "$ms_spk"/scripts/*

	ms_out=$DIST/userscript-$VERSION-$ms_target.spk
	reproducible_tar "$ms_spk" "$ms_out.tmp"
	mv -f "$ms_out.tmp" "$ms_out"
	echo "$ms_out"
}
