// Package systest holds test doubles of the System seam: Faulty fails the
// changes an engine makes, one at a time, the way a disk can (nothing
// written, written but not synced, a staging file torn half-way). WriteFile
// writes the scripts and programs tests run without "text file busy".
package systest
