// Package history is state/gen/: every change is a generation, written
// first as the journal of its transaction (the content of every managed
// target after it, what each changed target held before, and meta.json
// saying "pending") and then given its result (ok, rejected, failed).
// Recovery undoes a pending one; rollback returns to an earlier ok one;
// boot puts back the newest ok one. meta.json has one layout, written by
// both engines (Marshal, docs/FORMATS.md).
package history
