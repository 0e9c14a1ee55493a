// Package status writes conf.d/NAME.status, the file a NAS owner reads
// (in Notepad, over the share) to learn what became of a source. The
// words and layout are shared with the sh engine (docs/FORMATS.md).
package status
