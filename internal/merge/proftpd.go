package merge

import (
	"errors"
	"strconv"
	"strings"
)

var proftpdSyntax = &syntax{
	parse:         parseProftpd,
	line:          func(text string) *node { n, _ := proftpdLine(text); return n },
	parseFragment: parseProftpdFragment,
	cont:          proftpdCont,
	transparent:   func(b *node) bool { return proftpdTransparent[b.name] },
	repeats:       func(name string) bool { return proftpdByFirstArg[name] || proftpdByArgs[name] },
	section:       proftpdSection,
	twins:         true,
	unit:          "  ",
}

// proftpdNoArgs are the directives that take no value (mod_core's
// set_allowall and set_denyall refuse any); every other one needs one.
var proftpdNoArgs = map[string]bool{"allowall": true, "denyall": true}

// proftpdTransparent are the blocks that only decide whether proftpd
// reads their lines: a directive set outside them is looked for inside
// them too, so the firmware's guard stays around it.
var proftpdTransparent = map[string]bool{"ifmodule": true, "ifdefine": true, "ifversion": true}

// proftpdByFirstArg are directives that repeat, one line per first
// argument: a line replaces the one with the same first argument.
var proftpdByFirstArg = map[string]bool{
	"include": true, "loadmodule": true, "defaultroot": true, "defaultchdir": true,
	"setenv": true, "unsetenv": true, "useralias": true, "extendedlog": true,
	"logformat": true, "sqlnamedquery": true, "sqllog": true, "sftphostkey": true,
	"modulecontrolsacls": true, "controlsacls": true, "admincontrolsacls": true,
	"rewritemap": true, "execoncommand": true, "execonevent": true,
}

// proftpdByArgs are directives that repeat and are told apart by all
// their arguments: a line is added unless the very same line is there.
var proftpdByArgs = map[string]bool{
	"allow": true, "deny": true, "allowuser": true, "denyuser": true,
	"allowgroup": true, "denygroup": true, "allowclass": true, "denyclass": true,
	"allowall": true, "denyall": true, "bind": true, "serveralias": true,
	"rewriterule": true, "rewritecondition": true, "define": true, "class": true,
}

// proftpdCont: a line whose very last character is a backslash goes on;
// comments do not.
func proftpdCont(first, cur string) bool {
	if _, t := cutIndent(first); strings.HasPrefix(t, "#") {
		return false
	}
	return strings.HasSuffix(cur, `\`)
}

// parseProftpd reads proftpd.conf into its blocks. A closing line that
// matches no open block is kept as a line of its own; blocks left open
// at the end simply end there.
func parseProftpd(text string) *node {
	root := &node{kind: block}
	stack := []*node{root}
	for _, l := range splitLines(text, proftpdCont) {
		n, closes := proftpdLine(l.text)
		top := stack[len(stack)-1]
		if closes != "" {
			i := len(stack) - 1
			for i > 0 && stack[i].name != closes[1:] {
				i--
			}
			if i > 0 {
				stack[i].tail = l.text
				stack = stack[:i]
				continue
			}
		}
		top.kids = append(top.kids, n)
		if n.kind == block {
			stack = append(stack, n)
		}
	}
	return root
}

// proftpdLine reads one logical line. For a closing line "</Name>" it
// returns "/name" as closes, and the line as an other node.
func proftpdLine(text string) (n *node, closes string) {
	indent, t := cutIndent(text)
	n = &node{kind: other, raw: text, indent: indent}
	switch {
	case isBlank(t) || t[0] == '#':
		n.kind = trivia
	case strings.HasPrefix(t, "</"):
		name, _, _ := strings.Cut(joinValue(t[2:]), ">")
		return n, "/" + fold(strings.TrimSpace(name), nil)
	case t[0] == '<':
		inner := joinValue(t[1:])
		if i := strings.LastIndexByte(inner, '>'); i >= 0 {
			inner = inner[:i]
		}
		name := strings.TrimSpace(inner)
		if i := strings.IndexAny(name, blanks); i >= 0 {
			name = name[:i]
		}
		n.kind, n.key, n.name = block, name, fold(name, nil)
		n.id = proftpdBlockID(n.name, words(strings.TrimSpace(inner)[len(name):]))
	default:
		name := t
		if i := strings.IndexAny(t, blanks+"\n"); i >= 0 {
			name = t[:i]
		}
		sep, value := cutValue(t[len(name):])
		n.kind, n.key, n.sep, n.value = entry, name, sep, value
		n.name = fold(name, nil)
		n.id = proftpdEntryID(n.name, value)
	}
	return n, ""
}

// proftpdBlockID: blocks are matched by name and arguments; <Limit>
// commands and <IfModule> names are compared without regard to case,
// and "mod_tls" is "mod_tls.c".
func proftpdBlockID(name string, args []string) string {
	for i, a := range args {
		switch name {
		case "limit":
			args[i] = fold(a, nil)
		case "ifmodule":
			args[i] = strings.TrimSuffix(fold(a, nil), ".c")
		}
	}
	return name + "\x00" + strings.Join(args, " ")
}

// proftpdEntryID: a directive is matched by its name, except the
// repeating ones, matched by name and first argument or all arguments.
func proftpdEntryID(name, value string) string {
	switch args := words(joinValue(value)); {
	case proftpdByFirstArg[name] && len(args) > 0:
		return name + "\x00" + args[0]
	case proftpdByArgs[name]:
		return name + "\x00" + strings.Join(args, " ")
	}
	return name
}

func proftpdSection(path []*node) string {
	parts := make([]string, len(path))
	for i, b := range path {
		parts[i] = strings.TrimSpace(joinValue(b.raw))
	}
	return strings.Join(parts, " ")
}

// cutPosition cuts "[N]" from a block line "<Block args>[N]": the
// position, from the top of the file, of the block it means among those
// it matches. nth is 0 without one; ok is false for a position that is
// not a number from 1.
func cutPosition(t string) (line string, nth int, ok bool) {
	body := strings.TrimRight(t, blanks+"\n")
	i := strings.LastIndex(body, ">[")
	if !strings.HasPrefix(body, "<") || i < 0 || !strings.HasSuffix(body, "]") {
		return t, 0, true
	}
	n, err := strconv.Atoi(body[i+2 : len(body)-1])
	if err != nil || n < 1 {
		return t, 0, false
	}
	return body[:i+1] + "\n", n, true
}

// parseProftpdFragment reads a proftpd.conf fragment: directives and
// blocks as in the file, "!Directive [args]" and "!<Block args>"
// deletions. Blocks must be closed.
func parseProftpdFragment(text, src string) (*node, error) {
	root := &node{kind: block}
	stack := []*node{root}
	var errs []error
	for _, l := range fragmentLines(text, proftpdCont) {
		bad := func(format string, args ...any) { errs = append(errs, fragError(src, l.no, format, args...)) }
		if l.open {
			errs = append(errs, continuedAtEnd(src, l))
			continue
		}
		_, t := cutIndent(l.text)
		del := strings.HasPrefix(t, "!")
		if del {
			if _, t = cutIndent(t[1:]); isBlank(t) {
				bad("! names nothing: write !Directive or !<Block arguments>")
				continue
			}
		}
		t, nth, ok := cutPosition(t)
		if !ok {
			bad("%s: a position is written [N], N a number from 1", strings.TrimSpace(joinValue(t)))
			continue
		}
		n, closes := proftpdLine(t)
		n.raw, n.indent, n.del, n.line, n.origin, n.nth = strings.TrimSpace(t), "", del, l.no, origin(src, l.no), nth
		top, shown := stack[len(stack)-1], joinValue(n.raw)
		switch {
		case closes != "" && del:
			bad("%s cannot be deleted: write !<Block arguments> to delete a block", shown)
		case closes != "" && len(stack) == 1:
			bad("%s closes no open block", shown)
		case closes != "" && closes[1:] != top.name:
			bad("%s where </%s> was expected", shown, top.key)
		case closes != "":
			top.tail = n.raw
			stack = stack[:len(stack)-1]
		case n.kind == trivia && !del:
		case n.kind == block && n.key == "":
			bad("%s names no block", shown)
		case n.kind == block:
			top.kids = append(top.kids, n)
			if !del {
				stack = append(stack, n)
			}
		case n.kind == entry && !del && joinValue(n.value) == "" && !proftpdNoArgs[n.name]:
			bad("%s has no value: write %s VALUE, or !%s to delete it", n.key, n.key, n.key)
		case n.kind == entry:
			top.kids = append(top.kids, n)
		default:
			bad("%s is not a directive", shown)
		}
	}
	for _, b := range stack[1:] {
		errs = append(errs, fragError(src, b.line, "%s is not closed: add </%s>", firstLine(b.raw), b.key))
	}
	return root, errors.Join(errs...)
}
