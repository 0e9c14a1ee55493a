// Package source reads the user's sources from conf.d: it decides which
// files are sources, of which kind and for which target, refuses what is
// not safe to read (symlinks, devices, FIFOs, oversized files) and
// normalises text written on Windows.
package source
