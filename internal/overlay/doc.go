// Package overlay is the engine: it puts conf.d back over the
// firmware's files. Plan computes each target from its base and sources;
// Apply recovers an interrupted transaction, validates the changed
// targets and applies them in one transaction (transaction.go: journal,
// write, restart, prove, commit — or put back and hold); held targets
// get their last committed content (committed.go); Rollback returns to
// an earlier generation. Every device access goes through Engine.Sys.
package overlay
