// Package overlay puts conf.d back over the firmware's files. Plan
// computes each target from its base and sources; Apply validates the
// changed targets, writes them atomically, restarts each affected
// service once and records the generation; Rollback returns to an
// earlier generation.
package overlay
