// Package needtool is for tests that use real tools (testparm, proftpd,
// busybox, qemu-arm ...) or root. A test asks for what it needs with Tool
// or Root: when it is missing the test is skipped with the reason, and
// Main sums the skips up in one line per reason ("24 skipped: testparm
// not installed") at the end of the test binary; with
// USERSCRIPT_SKIPS=DIR (make test sets it) the counts also go to a file
// in DIR, so that `make test` prints one summary for the whole run.
// Under CI=true a missing tool or root fails the test instead: CI
// installs everything (make deps) and runs as root. Deliberate skips
// (-short, a known bug) do not go through this package.
package needtool
