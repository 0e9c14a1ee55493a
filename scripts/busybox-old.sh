#!/bin/sh
# make deps: let the old BusyBox builds the sh engine is tested under run.
# They are static i386 binaries. A kernel without IA32 emulation (some
# virtual machines: "exec format error") refuses them; there, qemu-i386
# is registered for i386 ELF executables with binfmt_misc, as
# qemu-user-binfmt does for other architectures (it leaves out i386 on
# amd64): qemu-user-static's build when installed, as a process of it
# starts in some 27 ms against 43 ms for qemu-user's (measured: 50 ×
# `busybox echo`; the dynamic one spends it linking its libraries), and
# every `[` of BusyBox 1.00 is a process. Needs root. Where they run
# already, nothing changes.
#   sh scripts/busybox-old.sh DIR    DIR holds 1_00/busybox (../shared/busybox-old)
set -eu
bb=${1:-}/1_00/busybox
if [ -z "${1:-}" ] || [ ! -x "$bb" ]; then
	echo "busybox-old: no $bb: the tests under old BusyBox builds are skipped"
	exit 0
fi
misc=/proc/sys/fs/binfmt_misc
if "$bb" echo >/dev/null 2>&1 && [ ! -e "$misc/qemu-i386" ]; then
	exit 0
fi
qemu=$(command -v qemu-i386-static || command -v qemu-i386 || true)
if [ -z "$qemu" ]; then
	echo "busybox-old: $bb does not run here and qemu-i386 is missing (apt-get install qemu-user-static)" >&2
	exit 1
fi
[ -e "$misc/register" ] || mount -t binfmt_misc binfmt_misc "$misc"
if [ -e "$misc/qemu-i386" ] && ! grep -qx "interpreter $qemu" "$misc/qemu-i386"; then
	echo -1 >"$misc/qemu-i386"	# registered with another build: replace it
fi
if [ ! -e "$misc/qemu-i386" ]; then
	# The kernel reads the \x escapes itself. F: qemu-i386 is opened now,
	# so it is found inside other mount namespaces too.
	printf '%s' ":qemu-i386:M::\\x7fELF\\x01\\x01\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x02\\x00\\x03\\x00:\\xff\\xff\\xff\\xff\\xff\\xfe\\xfe\\x00\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xfe\\xff\\xff\\xff:$qemu:F" >"$misc/register"
fi
if ! "$bb" echo >/dev/null 2>&1; then
	echo "busybox-old: $bb does not run even under $qemu" >&2
	exit 1
fi
echo "busybox-old: the kernel runs no i386 binaries: they run under $qemu (binfmt_misc)"
