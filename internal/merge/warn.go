package merge

import "fmt"

// A deletion that matches nothing is a warning, not a mistake: what it
// asks for, that the line or block is gone, holds. But it is often a
// typo ("![nosuchshare]"), and a typo must never look like success.

// warnEntries warns about the deletions among ents that removed none of
// the lines removed, unless the fragment sets the same key again (a
// replacement: "!key" then "key = value").
func (m *merger) warnEntries(s *scope, ents, removed []*node) {
	ids, names := map[string]bool{}, map[string]bool{} // set, or removed
	for _, e := range ents {
		if !e.del {
			ids[e.id], names[e.name] = true, true
		}
	}
	for _, n := range removed {
		ids[n.id], names[n.name] = true, true
	}
	for _, e := range ents {
		if bare := e.sep == "" && e.value == ""; e.del && !(bare && names[e.name] || !bare && ids[e.id]) {
			m.warnNothing(s, e)
		}
	}
}

// warnNothing says that the deletion f matched nothing in scope s.
func (m *merger) warnNothing(s *scope, f *node) {
	where, what := s.place, f.raw
	if s.absent != "" {
		where, what = "the file", s.absent
	}
	shown := "!" + f.raw
	if f.kind == block {
		shown = shownBlock(f)
	}
	m.warnings = append(m.warnings, fmt.Sprintf("%s: %s deletes nothing: %s has no %s (misspelt, or already gone?)", f.origin, shown, where, what))
}
