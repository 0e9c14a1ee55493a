// Package bench measures what an owner's tuning did: the NAS-4220
// community's throughput tests (dd and cp to and from /dev/null and
// /dev/zero, hdparm -tT, disk-to-disk and USB copies) run on the NAS, the
// network services (SMB, FTP, NFS, a bare TCP stream) measured from a PC,
// and a comparison of two result files as a table and an SVG bar chart.
//
// Results are one CSV row per test and run, in the columns of Columns;
// MB/s means 2^20 bytes per second, as on the community's page. The sh
// engine's package/lib/bench.sh writes the same CSV on devices that
// cannot run Go. docs/BENCH.md is the owner's guide.
//
// Safety: the local tests write only into a fresh folder
// (userscript-bench.PID) on each disk they test, refuse to start when a
// disk has less than twice the test size free, and remove that folder
// when they end, fail or are interrupted.
package bench
