package merge

import (
	"errors"
	"github.com/nas-userscript/userscript/internal/exports"
	"strings"
)

var exportsSyntax = &syntax{
	parse:         parseExports,
	line:          exportsLine,
	parseFragment: parseExportsFragment,
	cont:          exportsCont,
	section:       func([]*node) string { return "" },
	onePerBlock:   true,
	unit:          "",
}

// exportsCont: as in nfs-utils, a backslash right before the newline
// joins the next line; comments end at their newline.
func exportsCont(first, cur string) bool {
	if _, t := cutIndent(first); strings.HasPrefix(t, "#") {
		return false
	}
	return strings.HasSuffix(cur, `\`)
}

func parseExports(text string) *node {
	root := &node{kind: block}
	for _, l := range splitLines(text, exportsCont) {
		root.kids = append(root.kids, exportsLine(l.text))
	}
	return root
}

// exportsLine reads one logical line: a path, then its clients.
func exportsLine(text string) *node {
	indent, t := cutIndent(text)
	n := &node{kind: other, raw: text, indent: indent}
	switch {
	case isBlank(t) || t[0] == '#':
		n.kind = trivia
	case t[0] == '/' || t[0] == '"':
		tok := exportsToken(t)
		sep, value := cutValue(t[len(tok):])
		n.kind, n.key, n.sep, n.value = entry, tok, sep, value
		n.name = exports.PathOf(tok)
		n.id = n.name
	}
	return n
}

// exportsToken returns the path at the start of t: up to white space or
// a continuation outside double quotes, and never past the line's end.
func exportsToken(t string) string {
	quoted := false
	for i := 0; i < len(t); i++ {
		switch c := t[i]; {
		case c == '\n', c == '\\' && strings.HasPrefix(t[i:], "\\\n"):
			return t[:i]
		case c == '"':
			quoted = !quoted
		case quoted:
		case strings.IndexByte(blanks, c) >= 0:
			return t[:i]
		}
	}
	return t
}

// parseExportsFragment reads an exports fragment: export lines, and
// "!/path" deletions.
func parseExportsFragment(text, src string) (*node, error) {
	root := &node{kind: block}
	var errs []error
	for _, l := range fragmentLines(text, exportsCont) {
		if l.open {
			errs = append(errs, continuedAtEnd(src, l))
			continue
		}
		_, t := cutIndent(l.text)
		del := strings.HasPrefix(t, "!")
		if del {
			_, t = cutIndent(t[1:])
		}
		n := exportsLine(t)
		n.raw, n.indent, n.del, n.line, n.origin = strings.TrimSpace(t), "", del, l.no, origin(src, l.no)
		switch {
		case n.kind == trivia && !del:
			continue
		case n.kind != entry:
			what := strings.TrimSpace(joinValue(t))
			if what == "" {
				what = "!"
			}
			errs = append(errs, fragError(src, l.no, "%q does not start with a path: write /path client(options) or !/path", what))
			continue
		case n.name == "":
			errs = append(errs, fragError(src, l.no, "%q names no path", n.key))
			continue
		}
		if del {
			n.sep, n.value = "", ""
		}
		root.kids = append(root.kids, n)
	}
	return root, errors.Join(errs...)
}
