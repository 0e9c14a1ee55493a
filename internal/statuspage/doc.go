// Package statuspage writes conf.d/STATUS.html: one page an owner opens
// from the share (a double-click in Explorer) that shows at a glance
// whether everything is fine and, if not, which file, why and what to do.
//
// The page is built only from what is on disk (the status files, the
// generations in state/gen, state/held, DOCTOR.txt, SAFE-MODE, DISABLE,
// conf.d/.bench), read line by line by the rules docs/FORMATS.md gives,
// so that the sh engine (package/lib/page.sh) builds the same bytes from
// the same files. Its fixed text is the templates of this package, in
// English and German; package/lib/pagetext.sh is rendered from them
// (`go test ./internal/statuspage -update`), and a test fails when it is
// stale. The page is an output: no engine ever reads it back.
package statuspage
