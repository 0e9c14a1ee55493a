// Package state keeps what the engine knows between runs in the app's
// state/ folder on the data disk: the bases, the hashes of what it wrote,
// the held sources, the apply lock and the log. The layout is shared with
// the sh engine (docs/FORMATS.md).
package state
