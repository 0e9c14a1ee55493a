package merge

import (
	"errors"
	"slices"
	"strconv"
	"strings"
)

// A merger applies a parsed fragment to a parsed file in place.
type merger struct {
	syn  *syntax
	root *node
	unit string // indentation of a block's lines relative to the block
	sep  string // the base's separator, when new lines follow the file's

	errs     []error       // what refuses the fragment (twin blocks, positions)
	warnings []string      // what it says that does nothing (a deletion that matches nothing)
	baseLine map[*node]int // the line of each block of the file, before the merge
	checks   []blockCheck  // fragment blocks that must match one block once merged
}

func newMerger(syn *syntax, root *node) *merger {
	m := &merger{syn: syn, root: root, unit: fileUnit(root, syn.unit), baseLine: map[*node]int{}}
	visit(root, func(n *node, _ []*node, line int) {
		if n.kind == block {
			m.baseLine[n] = line
		}
	})
	var link func(b *node)
	link = func(b *node) {
		for _, k := range b.kids {
			k.parent = b
			if k.kind == block {
				link(k)
			}
		}
	}
	link(root)
	if syn.sepFromFile {
		visit(root, func(n *node, _ []*node, _ int) {
			if m.sep == "" && n.kind == entry && n.value != "" {
				m.sep = n.sep
			}
		})
	}
	return m
}

// A scope is where the lines of one fragment block apply.
type scope struct {
	look   []*node      // containers searched for entries and blocks
	own    []*node      // the blocks the fragment block matched; new lines go into the last …
	make   func() *node // creates the block when it matched none
	first  bool         // new lines go into the first block it matched, not the last
	place  string       // how messages name it: "the file", "[global]", "<Global>"
	absent string       // the fragment block (or one around it) the file lacks, "" when there
}

// target returns the block new lines go into, creating it if need be.
func (s *scope) target() *node {
	if len(s.own) == 0 {
		b := s.make()
		s.own = []*node{b}
		s.look = append(slices.Clip(s.look), b)
	}
	if s.first {
		return s.own[0]
	}
	return s.own[len(s.own)-1]
}

// apply merges frag into the file; the error lists what refuses it.
func (m *merger) apply(frag *node) error {
	m.applyKids(&scope{look: []*node{m.root}, own: []*node{m.root}, place: "the file"}, frag.kids)
	m.checkBlocks()
	return errors.Join(m.errs...)
}

// A blockGroup is what a fragment says about one block: the fragment
// blocks with one identity, read in order.
type blockGroup struct {
	proto   *node   // the first fragment block after the last deletion
	del     *node   // the last deletion
	kids    []*node // their lines, in order
	remove  bool    // the last word was a deletion
	replace bool    // a deletion followed by a block: the block replaces the old one
}

// applyKids applies the lines of one fragment block to scope s. The
// fragment says what the result holds, so the order of its lines only
// matters for one key: the last line about it wins. Deletions go first,
// then keys are set in order, then blocks are merged in order.
func (m *merger) applyKids(s *scope, kids []*node) {
	ents, order, groups := sortKids(kids)
	sets, dels := collapse(ents)
	m.warnEntries(s, ents, m.removeEntries(s.look, dels))
	var gone []*node
	for _, key := range order {
		if g := groups[key]; g.remove {
			gone = append(gone, m.deleteBlocks(s, g.del)...)
		}
	}
	m.removeNodes(gone)
	for _, e := range sets {
		m.set(s, e)
	}
	for _, key := range order {
		switch g := groups[key]; {
		case g.replace:
			m.replaceBlock(s, g)
		case !g.remove:
			m.mergeBlock(s, g)
		}
	}
}

// sortKids splits the lines of a fragment block into its entries and
// its blocks, grouped by the block they name, in the order first named.
func sortKids(kids []*node) (ents []*node, order []string, groups map[string]*blockGroup) {
	groups = map[string]*blockGroup{}
	for _, k := range kids {
		if k.kind == entry {
			ents = append(ents, k)
			continue
		}
		key := k.id
		if k.nth > 0 {
			key += "\x00#" + strconv.Itoa(k.nth)
		}
		g := groups[key]
		if g == nil {
			g = &blockGroup{}
			groups[key] = g
			order = append(order, key)
		}
		if k.del {
			*g = blockGroup{remove: true, del: k}
			continue
		}
		if g.remove {
			g.remove, g.replace = false, true
		}
		if g.proto == nil {
			g.proto = k
		}
		g.kids = append(g.kids, k.kids...)
	}
	return ents, order, groups
}

// deletions are what the "!" lines of one fragment block remove.
type deletions struct {
	ids   map[string]bool            // lines with these identities go
	names map[string]map[string]bool // lines with these names go, but for the identities kept
}

func (d *deletions) removes(n *node) bool {
	if n.kind != entry {
		return false
	}
	if d.ids[n.id] {
		return true
	}
	keep, ok := d.names[n.name]
	return ok && !keep[n.id]
}

// collapse keeps, for every key, what the fragment says last: a set is
// dropped when a later line sets or deletes the same key, and a
// deletion spares what later lines set. A bare "!name" removes every
// line of that name, "!" before a whole line the lines that line would
// replace.
func collapse(ents []*node) (sets []*node, dels deletions) {
	dels = deletions{ids: map[string]bool{}, names: map[string]map[string]bool{}}
	laterSet := map[string]bool{}           // ids set further down
	laterSetByName := map[string][]string{} // those ids by name
	laterDel := map[string]bool{}           // ids deleted further down
	for i := len(ents) - 1; i >= 0; i-- {
		e := ents[i]
		switch {
		case !e.del:
			if !laterSet[e.id] && !laterDel[e.id] && dels.names[e.name] == nil {
				sets = append(sets, e)
			}
			if !laterSet[e.id] {
				laterSet[e.id] = true
				laterSetByName[e.name] = append(laterSetByName[e.name], e.id)
			}
		case e.sep == "" && e.value == "":
			// The last bare deletion of a name spares the least.
			if dels.names[e.name] == nil {
				keep := map[string]bool{}
				for _, id := range laterSetByName[e.name] {
					keep[id] = true
				}
				dels.names[e.name] = keep
			}
		case !laterDel[e.id]:
			laterDel[e.id] = true
			if !laterSet[e.id] {
				dels.ids[e.id] = true
			}
		}
	}
	slices.Reverse(sets)
	return sets, dels
}

// set gives every line for e's key e's value, or adds e when there is
// none. Where the format wants one line per key and block, the first
// line of each block takes the value and the others go.
func (m *merger) set(s *scope, e *node) {
	found := m.lookup(s.look, "e"+e.id)
	if m.syn.onePerBlock {
		found = m.firstPerBlock(found)
	}
	for _, n := range found {
		key := n.key
		if m.syn.keyFor != nil {
			key = m.syn.keyFor(n, e)
		}
		sep := n.sep
		if sep == "" {
			sep = m.newSep(e)
		}
		n.raw, n.key, n.sep = m.entryLine(n.indent, key, sep, e)
		n.value, n.origin = e.value, e.origin
	}
	if len(found) > 0 {
		return
	}
	c := s.target()
	n := &node{kind: entry, indent: m.kidIndent(c), value: e.value, name: e.name, id: e.id, origin: e.origin}
	n.raw, n.key, n.sep = m.entryLine(n.indent, e.key, m.newSep(e), e)
	m.insert(c, m.insertPos(c, e.name), n)
}

// firstPerBlock keeps the first of the lines found in each block and
// removes the others from the file.
func (m *merger) firstPerBlock(found []*node) []*node {
	var keep, drop []*node
	seen := map[*node]bool{}
	for _, n := range found {
		if seen[n.parent] {
			drop = append(drop, n)
			continue
		}
		seen[n.parent] = true
		keep = append(keep, n)
	}
	m.removeNodes(drop)
	return keep
}

// entryLine writes e's value after key and sep; when that would not read
// back as one line with e's key, it writes the line as the fragment does.
func (m *merger) entryLine(indent, key, sep string, e *node) (raw, k, s string) {
	raw = indent + key + sep + e.value + "\n"
	if ls := splitLines(raw, m.syn.cont); len(ls) == 1 && !ls[0].open {
		if n := m.syn.line(raw); n.kind == entry && n.id == e.id {
			return raw, key, sep
		}
	}
	return indent + e.key + e.sep + e.value + "\n", e.key, e.sep
}

// newSep is the separator for a new line: the fragment's, or the
// base's when the format wants it.
func (m *merger) newSep(e *node) string {
	if m.sep != "" {
		return m.sep
	}
	return e.sep
}

// mergeBlock merges a fragment block into the blocks it matches, or
// creates it when a line needs it.
func (m *merger) mergeBlock(s *scope, g *blockGroup) {
	own, ok := m.matchBlocks(s, g.proto, false)
	if !ok {
		return
	}
	var look []*node
	if m.syn.extra != nil {
		look = m.syn.extra(m.root, g.proto)
	}
	child := &scope{look: append(look, own...), own: own, first: m.syn.newInFirst, place: g.proto.raw, absent: s.absent}
	if child.absent == "" && len(child.look) == 0 {
		child.absent = g.proto.raw
	}
	child.make = func() *node { return m.newBlock(s, g.proto) }
	if len(g.kids) == 0 {
		child.target()
	}
	m.applyKids(child, g.kids)
	m.mustMatchOne(s, g.proto)
}

// replaceBlock empties the first block g matches, removes the others
// and fills it with g's lines.
func (m *merger) replaceBlock(s *scope, g *blockGroup) {
	own, ok := m.matchBlocks(s, g.del, false)
	if !ok {
		return
	}
	if len(own) == 0 {
		m.mergeBlock(s, g)
		return
	}
	b := own[0]
	b.kidIndent, b.hinted = m.kidIndent(b), true
	b.kids, b.idx = leftover(b), nil
	m.removeNodes(own[1:])
	m.applyKids(&scope{look: []*node{b}, own: []*node{b}, place: g.proto.raw}, g.kids)
	m.mustMatchOne(s, g.proto)
}

// newBlock adds a block like proto to the scope s.
func (m *merger) newBlock(s *scope, proto *node) *node {
	parent := s.target()
	b := &node{kind: block, key: proto.key, name: proto.name, id: proto.id, line: proto.line}
	if m.syn.blocksAtEnd {
		b.raw = strings.TrimSpace(proto.raw) + "\n"
		if m.syn.blockPos != nil {
			if pos := m.syn.blockPos(parent, proto); pos >= 0 {
				m.insertBefore(parent, pos, b)
				return b
			}
		}
		if t := suffix(m.root, 2); t != "" && t != "\n" && t != "\n\n" {
			m.insert(parent, len(parent.kids), &node{kind: trivia, raw: "\n"})
		}
		m.insert(parent, len(parent.kids), b)
		return b
	}
	b.indent = m.kidIndent(parent)
	b.raw = b.indent + strings.TrimSpace(proto.raw) + "\n"
	if proto.tail != "" {
		b.tail = b.indent + strings.TrimSpace(proto.tail) + "\n"
	}
	m.insert(parent, m.insertPos(parent, ""), b)
	return b
}

// insertBefore puts the new section b at pos in parent, before a
// section that follows: a blank line ends b, and one goes before it
// unless a blank line is already there.
func (m *merger) insertBefore(parent *node, pos int, b *node) {
	b.kids = []*node{{kind: trivia, raw: "\n", parent: b}}
	if pos > 0 && !isBlankLine(parent.kids[pos-1]) {
		m.insert(parent, pos, &node{kind: trivia, raw: "\n"})
		pos++
	}
	m.insert(parent, pos, b)
}

// isBlankLine reports whether n is an empty line.
func isBlankLine(n *node) bool {
	return n.kind == trivia && strings.TrimSpace(n.raw) == ""
}

// insertPos is where a new line called name goes in c: after the last
// line of that name when the name repeats, else after the last line
// that is not a comment or blank (so a section's closing comments stay
// last), else at the top of a block or the end of a file.
func (m *merger) insertPos(c *node, name string) int {
	if name != "" && m.syn.repeats != nil && m.syn.repeats(name) {
		for i := len(c.kids) - 1; i >= 0; i-- {
			if k := c.kids[i]; k.kind == entry && k.name == name {
				return i + 1
			}
		}
	}
	pos := 0
	if c == m.root {
		pos = len(c.kids)
	}
	for i := len(c.kids) - 1; i >= 0; i-- {
		if c.kids[i].kind != trivia {
			pos = i + 1
			break
		}
	}
	if b := m.firstNamed(c, name); b >= 0 && b < pos {
		pos = b
	}
	// A block never closed in the file takes in every line after it,
	// so nothing may go after it.
	for pos > 0 && c.kids[pos-1].kind == block && c.kids[pos-1].tail == "" {
		pos--
	}
	return pos
}

// firstNamed is the index in c of the first line a new line called
// name must go before (see syntax.before), or -1.
func (m *merger) firstNamed(c *node, name string) int {
	if m.syn.before == nil {
		return -1
	}
	bn := m.syn.before(name)
	if bn == "" || len(m.index(c)["n"+bn]) == 0 {
		return -1
	}
	return slices.IndexFunc(c.kids, func(k *node) bool { return k.kind == entry && k.name == bn })
}

// kidIndent is the indentation of a new line in c: that of its last
// line, else what c remembers from before it was emptied, else c's own
// plus one step.
func (m *merger) kidIndent(c *node) string {
	for i := len(c.kids) - 1; i >= 0; i-- {
		if c.kids[i].kind != trivia {
			return c.kids[i].indent
		}
	}
	switch {
	case c.hinted:
		return c.kidIndent
	case c == m.root:
		return ""
	}
	return c.indent + m.step(c)
}

// step is how much further than block c its lines are indented. Inside
// a replaced block it follows that block's lines, which the replacement
// keeps, so that merging again indents the same; elsewhere it is the
// file's unit.
func (m *merger) step(c *node) string {
	for a := c.parent; a != nil; a = a.parent {
		if a.hinted {
			if len(a.kidIndent) > len(a.indent) && strings.HasPrefix(a.kidIndent, a.indent) {
				return a.kidIndent[len(a.indent):]
			}
			return m.syn.unit
		}
	}
	return m.unit
}

// fileUnit finds how far the file indents a block's lines.
func fileUnit(root *node, fallback string) string {
	unit := ""
	visit(root, func(n *node, path []*node, _ int) {
		if unit != "" || n.kind == trivia || len(path) == 0 {
			return
		}
		in := path[len(path)-1].indent
		if len(n.indent) > len(in) && strings.HasPrefix(n.indent, in) {
			unit = n.indent[len(in):]
		}
	})
	if unit == "" {
		return fallback
	}
	return unit
}

// suffix returns the last n bytes (or fewer) of the text of b.
func suffix(b *node, n int) string {
	s := b.tail
	for i := len(b.kids) - 1; i >= 0 && len(s) < n; i-- {
		s = suffix(b.kids[i], n-len(s)) + s
	}
	if len(s) < n {
		s = b.raw + s
	}
	if len(s) > n {
		s = s[len(s)-n:]
	}
	return s
}
