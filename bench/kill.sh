#!/bin/sh
# The power-cut loop at full size: both engines killed with SIGKILL at
# random moments during apply (and the Go engine during rollback), RUNS
# times each (default 500; CI runs 60). Prints each engine's count and
# time.
#
#   sh bench/kill.sh [RUNS]
set -eu
cd "$(dirname "$0")/.."
USERSCRIPT_KILL_RUNS=${1:-500} go test -count=1 -timeout 60m -v ./internal/killtest/ | grep -E 'runs|^(ok|FAIL|---)'
