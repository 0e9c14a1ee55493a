// Package system is the seam between userscript and the device: files,
// commands, the network, free space and the clock. Real works on the
// real system with every device path resolved under a root directory
// (--root: how every test runs against a fake NAS); DryRun records what
// would change and changes nothing. Test doubles are in
// internal/systest.
package system
