// Package cli is the userscript command line: one file per verb, each
// parsing its flags and calling the engine. Main turns errors into a
// message and an exit code (0 ok, 1 error, 2 usage, 3 validation
// refused).
package cli
