package merge

import "slices"

// Each block keeps an index of what it holds, built when first needed,
// so that a fragment of many lines does not search the whole file for
// each: "e"+id lists its entries with that identity, "n"+name those
// with that name, "b"+id its blocks, "t" its transparent blocks. Adding a node updates the index; removing
// nodes drops it, to be built again.

func (m *merger) index(c *node) map[string][]*node {
	if c.idx == nil {
		c.idx = map[string][]*node{}
		for _, k := range c.kids {
			m.indexAdd(c, k)
		}
	}
	return c.idx
}

func (m *merger) indexAdd(c, k *node) {
	if c.idx == nil {
		return
	}
	switch k.kind {
	case entry:
		c.idx["e"+k.id] = append(c.idx["e"+k.id], k)
		c.idx["n"+k.name] = append(c.idx["n"+k.name], k)
	case block:
		c.idx["b"+k.id] = append(c.idx["b"+k.id], k)
		if m.transparent(k) {
			c.idx["t"] = append(c.idx["t"], k)
		}
	}
}

func (m *merger) transparent(b *node) bool {
	return m.syn.transparent != nil && m.syn.transparent(b)
}

// lookup returns what the containers look hold under key, seeing
// through transparent blocks.
func (m *merger) lookup(look []*node, key string) []*node {
	var out []*node
	seen := map[*node]bool{}
	var in func(c *node)
	in = func(c *node) {
		if seen[c] {
			return
		}
		seen[c] = true
		idx := m.index(c)
		out = append(out, idx[key]...)
		for _, t := range idx["t"] {
			in(t)
		}
	}
	for _, c := range look {
		in(c)
	}
	return out
}

func (m *merger) findBlocks(look []*node, id string) []*node {
	return m.lookup(look, "b"+id)
}

// insert puts n into c at pos.
func (m *merger) insert(c *node, pos int, n *node) {
	n.parent = c
	c.kids = slices.Insert(c.kids, pos, n)
	m.indexAdd(c, n)
}

// removeEntries drops the lines d removes from the containers look and
// the transparent blocks in them, and returns them.
func (m *merger) removeEntries(look []*node, d deletions) (removed []*node) {
	if len(d.ids) == 0 && len(d.names) == 0 {
		return nil
	}
	seen := map[*node]bool{}
	var in func(c *node)
	in = func(c *node) {
		if seen[c] {
			return
		}
		seen[c] = true
		n := len(c.kids)
		c.kids = slices.DeleteFunc(c.kids, func(k *node) bool {
			if d.removes(k) {
				removed = append(removed, k)
				return true
			}
			return false
		})
		if len(c.kids) != n {
			c.idx = nil
		}
		for _, k := range c.kids {
			if k.kind == block && m.transparent(k) {
				in(k)
			}
		}
	}
	for _, c := range look {
		in(c)
	}
	return removed
}

// removeNodes takes the lines and blocks bs out of the file.
func (m *merger) removeNodes(bs []*node) {
	gone, listed := map[*node]bool{}, map[*node]bool{}
	var parents []*node
	for _, b := range bs {
		gone[b] = true
		if p := b.parent; p != nil && !listed[p] {
			listed[p] = true
			parents = append(parents, p)
		}
	}
	for _, p := range parents {
		var kids []*node
		for _, k := range p.kids {
			if !gone[k] {
				kids = append(kids, k)
				continue
			}
			for _, l := range leftover(k) {
				l.parent = p
				kids = append(kids, l)
			}
		}
		p.kids, p.idx = kids, nil
	}
}

// leftover is what stays of block b when it is removed or emptied: a
// block without a closing line (an smb.conf section) ends with the
// comments and blank lines before the next one, which describe what
// follows, so they stay.
func leftover(b *node) []*node {
	if b.tail != "" {
		return nil
	}
	i := len(b.kids)
	for i > 0 && b.kids[i-1].kind == trivia {
		i--
	}
	return slices.Clone(b.kids[i:])
}
