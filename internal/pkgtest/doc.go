// Package pkgtest holds the tests of the package as users get it: the
// archives `make dist` writes, installed into a simulated IB-NAS4220-B
// (internal/firmsim) and booted, the Go binaries under qemu-arm, and a
// real smbd serving what conf.d asked for; and the Synology packages
// (dsm_*_test.go), read as Package Center reads them and installed,
// upgraded and uninstalled on a simulated DiskStation of each DSM.
package pkgtest
