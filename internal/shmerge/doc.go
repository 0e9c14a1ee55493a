// Package shmerge holds the differential test of the sh engine's
// .merge (package/lib/merge.sh) against the Go engine's internal/merge,
// which is the reference: for every base and fragment, merge_file run
// under BusyBox ash must give the bytes merge.MergeWarn gives, refuse
// with the same message, and warn with the same lines.
//
// The sh runs with a PATH that holds only the applets the sh engine may
// use (firmsim.AllowedApplets, which hold "["), under Debian's busybox and,
// where they are found, the old static builds of BusyBox 1.00, 1.2.0 and
// 1.7.2 that the IcyBox era's firmware ran (the folder named by
// USERSCRIPT_OLD_BUSYBOX, else ../shared/busybox-old beside the
// repository, laid out as its README says: TAG/busybox).
//
// The cases are the Go merge tests' own inputs, the merge corpus
// (internal/merge/testdata) through every operation, and random bases
// and fragments drawn from the constructs docs/FORMATS.md names.
// Where sh cannot give Go's bytes (docs/FORMATS.md, "What the sh engine
// does differently") the generator stays within ASCII, and
// TestDeviations pins each difference so that it cannot grow unnoticed.
package shmerge
