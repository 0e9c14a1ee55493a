package merge

import "strings"

// kind is what a node of a parsed file is.
type kind int

const (
	trivia kind = iota // a blank line or a comment
	entry              // key = value, a directive, an export line
	other              // a line the format does not understand, kept as it is
	block              // a [section] or a <Block>; the root of a file is a block too
)

// A node is one logical line of a file (physical lines joined by a
// continuation backslash), or a block holding nodes. Rendering the nodes
// in order gives back the text they were parsed from, byte for byte.
type node struct {
	kind kind
	raw  string  // the text of the line(s), newline included; for a block, its opening line
	tail string  // block: its closing line ("</Global>\n"), "" when it has none
	kids []*node // block: what it holds

	indent string // leading white space of raw
	key    string // entry: the key as written; block: the section or block name as written
	sep    string // entry: what lies between key and value ("=", " = ", "  ")
	value  string // entry: the value as written, continuation lines included, final newline not
	name   string // entry: the key as compared; block: the block name, lower case
	id     string // entry, block: what a fragment line is matched by

	origin    string // entry: the source that set it ("base", "smb.conf.merge line 4")
	line      int    // fragment: the line number in the fragment; a block added by a merge: its fragment line
	nth       int    // fragment block: "<Block args>[N]" names the Nth match in the file; 0 when not given
	del       bool   // fragment: a "!" line
	kidIndent string // block: indentation for new lines once its own lines are gone …
	hinted    bool   // … when it was emptied to be replaced

	parent *node              // the block holding it, while merging
	idx    map[string][]*node // block: index of what it holds, while merging (see index.go)
}

// render returns the text of n and everything it holds.
func render(n *node) string {
	var b strings.Builder
	renderTo(&b, n)
	return b.String()
}

func renderTo(b *strings.Builder, n *node) {
	b.WriteString(n.raw)
	for _, k := range n.kids {
		renderTo(b, k)
	}
	b.WriteString(n.tail)
}

// visit calls fn for every node below root in the order they are
// rendered, with the blocks that hold it and the number of its first
// line (1-based).
func visit(root *node, fn func(n *node, path []*node, line int)) {
	line := 1
	var walk func(n *node, path []*node)
	walk = func(n *node, path []*node) {
		for _, k := range n.kids {
			fn(k, path, line)
			line += strings.Count(k.raw, "\n")
			if k.kind == block {
				walk(k, append(path[:len(path):len(path)], k))
				line += strings.Count(k.tail, "\n")
			}
		}
	}
	walk(root, nil)
}

// A logical is one logical line: a physical line and the lines its
// continuation backslashes pull in.
type logical struct {
	text string // the physical lines, newlines included
	no   int    // number of its first physical line, 1-based
	open bool   // its last physical line asks for a continuation that never comes
}

// splitLines cuts text into logical lines. cont reports whether the
// logical line that began with the physical line first goes on after
// the physical line cur (both without their newline).
func splitLines(text string, cont func(first, cur string) bool) []logical {
	var out []logical
	no := 1
	for len(text) > 0 {
		l := logical{no: no}
		end := 0
		first := true
		var head string
		for {
			phys := text[end:]
			i := strings.IndexByte(phys, '\n')
			if i >= 0 {
				phys = phys[:i]
				end += i + 1
				no++
			} else {
				end = len(text)
			}
			if first {
				head, first = phys, false
			}
			if cont == nil || !cont(head, phys) {
				break
			}
			if end == len(text) {
				l.open = true
				break
			}
		}
		l.text = text[:end]
		out = append(out, l)
		text = text[end:]
	}
	return out
}

// blanks is the white space the formats skip around keys and values.
const blanks = " \t\r\v\f"

// cutIndent splits s into its leading white space and the rest.
func cutIndent(s string) (indent, rest string) {
	rest = strings.TrimLeft(s, blanks)
	return s[:len(s)-len(rest)], rest
}

// isBlank reports whether rest (a line after its indentation) is empty.
func isBlank(rest string) bool {
	return rest == "" || rest[0] == '\n'
}

// cutValue splits what follows a key: the separator (white space, with
// eq when the format has one) and the value up to the final newline.
func cutValue(rest string) (sep, value string) {
	body := strings.TrimSuffix(rest, "\n")
	value = strings.TrimLeft(body, " \t")
	return body[:len(body)-len(value)], value
}

// joinValue turns a value with continuation lines into one line, the way
// the daemons read it: each backslash-newline joins the next line.
func joinValue(v string) string {
	parts := strings.Split(v, "\n")
	for i, p := range parts {
		p = strings.TrimRight(p, blanks)
		if i < len(parts)-1 {
			p = strings.TrimSuffix(p, `\`)
		}
		parts[i] = strings.TrimSpace(p)
	}
	return strings.TrimSpace(strings.Join(parts, " "))
}

// words splits s at white space; double quotes group words and are
// removed, a backslash inside quotes escapes the next character.
func words(s string) []string {
	var out []string
	var cur strings.Builder
	in, quoted := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted && c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
		case c == '"':
			quoted = !quoted
			in = true
		case !quoted && strings.IndexByte(blanks+"\n", c) >= 0:
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// firstLine returns s up to its first newline.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
