// Package shwords renders package/lib/words.sh: the names and status
// words of conf.d that the sh engine needs, from the Go engine's own
// definitions (internal/source, internal/status), so that the two
// engines share one list. The file is committed; a test fails when it is
// stale, and `go test ./internal/shwords -update` writes it again.
package shwords
