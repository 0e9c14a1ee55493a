package merge

import (
	"fmt"
	"slices"
	"strings"
)

// Which blocks of the file a fragment block means. In smb.conf a
// section written twice is one section, and a fragment's section is
// both. In proftpd.conf two <VirtualHost 0.0.0.0> are two servers:
// a fragment block that matches both is refused, never guessed, with
// both named and the ways to say which: "<VirtualHost 0.0.0.0>[2]", the
// second of them counted from the top of the file, or the <IfModule>
// around the one it means.

// A blockCheck is a fragment block that must match at most one block
// of the result: merging again would otherwise be refused.
type blockCheck struct {
	s *scope
	f *node
}

// matchBlocks returns the blocks of the file the fragment block f means
// in scope s; ok is false when f is refused. deleting says f is a
// deletion alone, not the start of a replacement.
func (m *merger) matchBlocks(s *scope, f *node, deleting bool) (found []*node, ok bool) {
	found = m.findBlocks(s.look, f.id)
	if f.nth == 0 && (len(found) < 2 || !m.syn.twins || m.transparent(f)) {
		return found, true
	}
	m.byPosition(found)
	switch {
	case f.nth == 0:
		m.errs = append(m.errs, m.twinError(s, f, found, "", deleting))
	case f.nth > len(found):
		m.errs = append(m.errs, m.positionError(s, f, found))
	default:
		return found[f.nth-1 : f.nth], true
	}
	return nil, false
}

// deleteBlocks returns the blocks the deletion f removes, and warns when
// there is none. A position cannot say which block to delete: once it
// is gone, the next one takes its place.
func (m *merger) deleteBlocks(s *scope, f *node) []*node {
	if f.nth > 0 {
		m.errs = append(m.errs, fmt.Errorf("%s: %s: a position says which block to change, not which to delete "+
			"(the next block would take its place when merged again): write the deletion inside the <IfModule> around the block, "+
			"or replace the whole file instead of merging", f.origin, shownBlock(f)))
		return nil
	}
	found, ok := m.matchBlocks(s, f, true)
	if ok && len(found) == 0 {
		m.warnNothing(s, f)
	}
	return found
}

// mustMatchOne remembers that f, merged, must match one block when the
// merge is done.
func (m *merger) mustMatchOne(s *scope, f *node) {
	if m.syn.twins && f.nth == 0 && !m.transparent(f) {
		m.checks = append(m.checks, blockCheck{s, f})
	}
}

// checkBlocks refuses a fragment that makes twins of its own: a block
// added inside an <IfModule> that another of its blocks sees through.
// Merging it again would be refused.
func (m *merger) checkBlocks() {
	for _, c := range m.checks {
		if found := m.findBlocks(c.s.look, c.f.id); len(found) > 1 {
			m.byPosition(found)
			m.errs = append(m.errs, m.twinError(c.s, c.f, found, " once merged", false))
		}
	}
}

// byPosition sorts blocks in the order they appear in the file.
func (m *merger) byPosition(bs []*node) {
	pos := map[*node]int{}
	i := 0
	visit(m.root, func(n *node, _ []*node, _ int) {
		pos[n] = i
		i++
	})
	slices.SortFunc(bs, func(a, b *node) int { return pos[a] - pos[b] })
}

// twinError refuses f, which matches the blocks found.
func (m *merger) twinError(s *scope, f *node, found []*node, when string, deleting bool) error {
	msg := fmt.Sprintf("%s: %s matches %d blocks of the file%s: %s: ", f.origin, shownBlock(f), len(found), when, m.describeAll(s, found))
	if deleting {
		return fmt.Errorf("%swrite the deletion inside the <IfModule> around the one to delete, or replace the whole file instead of merging", msg)
	}
	var which []string
	for i, b := range found {
		which = append(which, fmt.Sprintf("%s[%d] (%s)", f.raw, i+1, m.lineOf(b)))
	}
	return fmt.Errorf("%ssay which with %s, counted from the top of the file", msg, orList(which))
}

// positionError refuses "<Block>[N]" when the file has fewer than N.
func (m *merger) positionError(s *scope, f *node, found []*node) error {
	if len(found) == 0 {
		return fmt.Errorf("%s: %s: the file has no such block; write %s without [%d] to add one", f.origin, shownBlock(f), f.raw, f.nth)
	}
	such := "such blocks"
	if len(found) == 1 {
		such = "such block"
	}
	return fmt.Errorf("%s: %s: the file has only %d %s (%s)", f.origin, shownBlock(f), len(found), such, m.describeAll(s, found))
}

// describeAll names blocks by line and the guards around them:
// "line 2, and line 7 inside <IfModule mod_sftp.c>".
func (m *merger) describeAll(s *scope, bs []*node) string {
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = m.lineOf(b)
		if g := m.guards(s, b); g != "" {
			parts[i] += " inside " + g
		}
	}
	return andList(parts)
}

// lineOf names a block by its line in the file before the merge, or by
// the fragment line that added it.
func (m *merger) lineOf(b *node) string {
	if l := m.baseLine[b]; l > 0 {
		return fmt.Sprintf("line %d", l)
	}
	return fmt.Sprintf("the block fragment line %d adds", b.line)
}

// guards are the transparent blocks between the containers of s and b.
func (m *merger) guards(s *scope, b *node) string {
	var out []string
	for p := b.parent; p != nil && !slices.Contains(s.look, p); p = p.parent {
		if m.transparent(p) {
			out = append(out, strings.TrimSpace(firstLine(p.raw)))
		}
	}
	slices.Reverse(out)
	return strings.Join(out, " ")
}

// shownBlock is a fragment block line as the owner wrote it.
func shownBlock(f *node) string {
	s := f.raw
	if f.nth > 0 {
		s += fmt.Sprintf("[%d]", f.nth)
	}
	if f.del {
		s = "!" + s
	}
	return s
}

func andList(parts []string) string {
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + ", and " + parts[len(parts)-1]
}

func orList(parts []string) string {
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}
