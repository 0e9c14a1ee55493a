#!/bin/sh
# Power cuts on the test machines (internal/vm): each box (the firmware
# box with the sh engine under BusyBox 1.00, the systemd box with the Go
# engine) is killed N times (qemu SIGKILL: the guest's page cache is
# lost) at random moments of an apply, a rollback and a boot, booted
# again and checked. Prints each box's counts: the newest committed
# generation at the cut (old / new / torn), the owner's conf.d files
# (lost / torn), and whether every target and status was true after
# the next boot. Needs root, qemu-system-x86_64 and mmdebstrap
# (make vmdeps); the first run builds the image (minutes).
#
#   sh bench/powercut.sh [N]      N cuts per box (default 200)
#   USERSCRIPT_VM_SEED=S          repeat a run's random moments
set -eu
cd "$(dirname "$0")/.."
n=${1:-200}
USERSCRIPT_VMTEST=1 USERSCRIPT_VM_CUTS=$n go test -count=1 -timeout 0 -v -run 'PowerCuts' ./internal/vm/ |
	grep --line-buffered -E 'box cuts:|seed|apply .*rejection|^(ok|FAIL|---)|cut [0-9]+ '
