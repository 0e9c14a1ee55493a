// Package history records every apply as a generation in state/gen/: the
// content and hash of every target userscript manages at that moment, the
// services restarted and the result, so rollback can return to any of the
// last few.
package history
