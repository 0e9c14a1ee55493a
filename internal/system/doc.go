// Package system is the seam between userscript and the device: files,
// processes and the clock. Real works on the real file system with every
// device path resolved under a root directory (the test seam of
// DESIGN.md); DryRun records what would change and changes nothing.
package system
