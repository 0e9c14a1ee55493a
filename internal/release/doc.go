// Package release writes the archives of a release reproducibly: the
// same files give the same bytes (entries sorted, one fixed time, owner
// 0, modes 0755 for programs and 0644 for the rest), as a .zip (for
// Windows) or a .tar.gz. cmd/archive is its command line, used by
// `make dist-cli`.
package release
