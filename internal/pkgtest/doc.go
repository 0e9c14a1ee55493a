// Package pkgtest holds the tests of the package as users get it: the
// archives `make dist` writes, installed into a simulated IB-NAS4220-B
// (internal/firmsim) and booted, the Go binaries under qemu-arm, and a
// real smbd serving what conf.d asked for.
package pkgtest
