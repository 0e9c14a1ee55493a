package merge

import (
	"errors"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

var sambaSyntax = &syntax{
	parse:         parseSamba,
	line:          sambaLine,
	parseFragment: parseSambaFragment,
	cont:          sambaCont,
	extra:         sambaExtra,
	repeats:       func(name string) bool { return name == "include" },
	section:       sambaSection,
	blocksAtEnd:   true,
	blockPos:      sambaGlobalPos,
	before:        sambaBeforeInclude,
	onePerBlock:   true,
	newInFirst:    true,
	keyFor:        sambaKeyFor,
	unit:          "\t",
}

// sambaCont: a line that ends with a backslash, white space after it
// allowed, goes on; comments and section lines do not.
func sambaCont(first, cur string) bool {
	_, t := cutIndent(first)
	if t != "" && strings.ContainsRune("#;[", rune(t[0])) {
		return false
	}
	return strings.HasSuffix(strings.TrimRight(cur, blanks), `\`)
}

// parseSamba reads smb.conf: what comes before the first section is in
// the root, every section holds the lines up to the next one.
func parseSamba(text string) *node {
	root := &node{kind: block}
	cur := root
	for _, l := range splitLines(text, sambaCont) {
		n := sambaLine(l.text)
		if n.kind == block {
			root.kids = append(root.kids, n)
			cur = n
			continue
		}
		cur.kids = append(cur.kids, n)
	}
	return root
}

// sambaLine reads one logical line of smb.conf.
func sambaLine(text string) *node {
	indent, t := cutIndent(text)
	n := &node{kind: other, raw: text, indent: indent}
	switch {
	case isBlank(t) || t[0] == '#' || t[0] == ';':
		n.kind = trivia
	case t[0] == '[':
		name, ok := sambaHeader(t)
		if ok {
			n.kind, n.key, n.name, n.id = block, name, "section", sambaSectionID(name)
		}
	default:
		eq := strings.IndexByte(t, '=')
		if eq < 0 {
			break
		}
		key := strings.TrimRight(t[:eq], blanks)
		if key == "" {
			break
		}
		sep, value := cutValue(t[eq+1:])
		n.kind, n.key, n.sep, n.value = entry, key, t[len(key):eq+1]+sep, value
		n.name, n.id = sambaKeyID(key, value)
	}
	return n
}

// sambaHeader returns the name in a "[name]" line.
func sambaHeader(t string) (string, bool) {
	line := firstLine(t)
	end := strings.IndexByte(line, ']')
	if end < 0 {
		return "", false
	}
	return line[1:end], true
}

// sambaSectionID compares section names the way Samba does: without
// regard to case, and "global" and "globals" (spaces ignored) are the
// global section.
func sambaSectionID(name string) string {
	if squeeze(name) == "global" || squeeze(name) == "globals" {
		return "global"
	}
	return "[" + fold(name, nil)
}

// sambaKeyID compares parameter names the way Samba does (strwicmp):
// without regard to case or white space, so "getwd cache" is
// "GetWDCache", and a synonym is its parameter ("writable" is "read
// only", inverted). include repeats: each include is its own line, told
// apart by its value.
func sambaKeyID(key, value string) (name, id string) {
	name, _ = sambaParam(key)
	if name == "include" {
		return name, name + "\x00" + joinValue(value)
	}
	return name, name
}

// squeeze lowers s and drops its white space.
func squeeze(s string) string { return fold(s, unicode.IsSpace) }

// fold lowers s for comparing names without regard to case, dropping the
// characters drop says to. A byte that is not UTF-8 (a Latin-1 name
// written by old firmware) stays itself: two different names must never
// fold into one, as strings.ToLower would make them (every such byte
// becomes U+FFFD there).
func fold(s string, drop func(rune) bool) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteByte(s[i])
		case drop != nil && drop(r):
		default:
			b.WriteRune(unicode.ToLower(r))
		}
		i += n
	}
	return b.String()
}

// sambaGlobalPos: a new [global] goes before the first section of the
// file, above the comments right above it, so that Samba reads its
// share defaults before any share; -1 (the end) for other sections, or
// in a file without sections.
func sambaGlobalPos(parent, proto *node) int {
	if proto.id != "global" {
		return -1
	}
	first := slices.IndexFunc(parent.kids, func(k *node) bool { return k.kind == block })
	if first < 0 {
		return -1
	}
	for first > 0 && parent.kids[first-1].kind == trivia && !isBlankLine(parent.kids[first-1]) {
		first--
	}
	return first
}

// sambaBeforeInclude: a new key goes before the first include of its
// section, since the included file may end in a share, which would take
// every line that follows the include.
func sambaBeforeInclude(name string) string {
	if name == "include" {
		return ""
	}
	return "include"
}

// sambaExtra: keys before the first section are global.
func sambaExtra(root, frag *node) []*node {
	if frag.id == "global" {
		return []*node{root}
	}
	return nil
}

func sambaSection(path []*node) string {
	if len(path) == 0 {
		return "global"
	}
	return path[0].key
}

// parseSambaFragment reads a smb.conf fragment: [section] lines, key =
// value lines under them, "!key" and "![section]" deletions.
func parseSambaFragment(text, src string) (*node, error) {
	root := &node{kind: block}
	var cur *node
	var errs []error
	for _, l := range fragmentLines(text, sambaCont) {
		bad := func(format string, args ...any) { errs = append(errs, fragError(src, l.no, format, args...)) }
		if l.open {
			errs = append(errs, continuedAtEnd(src, l))
			continue
		}
		_, t := cutIndent(l.text)
		del := strings.HasPrefix(t, "!")
		if del {
			_, t = cutIndent(t[1:])
			if isBlank(t) {
				bad("! names nothing: write !key to delete a key or ![section] to delete a section")
				continue
			}
		}
		n := sambaLine(t)
		n.raw, n.indent, n.del, n.line, n.origin = strings.TrimSpace(firstLine(t)), "", del, l.no, origin(src, l.no)
		switch {
		case n.kind == trivia && !del:
			continue
		case t[0] == '[':
			if n.kind != block {
				bad("%q has no closing ]", strings.TrimSpace(t))
				continue
			}
			if strings.TrimSpace(n.key) == "" {
				bad("[] names no section")
				continue
			}
			root.kids = append(root.kids, n)
			cur = n
			if del {
				cur = nil
			}
			continue
		case n.kind == entry:
		case del && n.kind != trivia:
			key := strings.TrimSpace(joinValue(t))
			n.kind, n.key, n.sep, n.value = entry, key, "", ""
			n.name, n.id = sambaKeyID(key, "")
		case strings.HasPrefix(t, "="):
			bad("a line starting with = names no key")
			continue
		default:
			bad("%q is not key = value", strings.TrimSpace(joinValue(t)))
			continue
		}
		if cur == nil {
			bad("a key outside any section: put it under [global] or the share's [name]")
			continue
		}
		cur.kids = append(cur.kids, n)
	}
	return root, errors.Join(errs...)
}
