package merge

import (
	"errors"
	"strings"
)

var keyValueSyntax = &syntax{
	parse:         parseKeyValue,
	line:          keyValueLine,
	parseFragment: parseKeyValueFragment,
	section:       func([]*node) string { return "" },
	sepFromFile:   true,
}

// parseKeyValue reads key = value lines; there are no continuation lines.
func parseKeyValue(text string) *node {
	root := &node{kind: block}
	for _, l := range splitLines(text, nil) {
		root.kids = append(root.kids, keyValueLine(l.text))
	}
	return root
}

func keyValueLine(text string) *node {
	indent, t := cutIndent(text)
	n := &node{kind: other, raw: text, indent: indent}
	if isBlank(t) || t[0] == '#' || t[0] == ';' {
		n.kind = trivia
		return n
	}
	eq := strings.IndexByte(t, '=')
	if eq < 0 {
		return n
	}
	key := strings.TrimRight(t[:eq], blanks)
	if key == "" {
		return n
	}
	sep, value := cutValue(t[eq+1:])
	n.kind, n.key, n.sep, n.value = entry, key, t[len(key):eq+1]+sep, value
	n.name = keyValueID(key)
	n.id = n.name
	return n
}

// keyValueID: sysctl reads "net/ipv4/tcp_sack" as "net.ipv4.tcp_sack",
// and a leading "-" (ignore errors) does not change the key.
func keyValueID(key string) string {
	return strings.ReplaceAll(strings.TrimPrefix(key, "-"), "/", ".")
}

// parseKeyValueFragment reads key = value lines and "!key" deletions.
func parseKeyValueFragment(text, src string) (*node, error) {
	root := &node{kind: block}
	var errs []error
	for _, l := range fragmentLines(text, nil) {
		_, t := cutIndent(l.text)
		del := strings.HasPrefix(t, "!")
		if del {
			_, t = cutIndent(t[1:])
		}
		n := keyValueLine(t)
		n.raw, n.indent, n.del, n.line, n.origin = strings.TrimSpace(t), "", del, l.no, origin(src, l.no)
		switch {
		case n.kind == trivia && !del:
			continue
		case n.kind == entry:
		case del && n.kind == other:
			key := strings.TrimSpace(t)
			n.kind, n.key, n.sep, n.value, n.name, n.id = entry, key, "", "", keyValueID(key), keyValueID(key)
		case del:
			errs = append(errs, fragError(src, l.no, "! names nothing: write !key"))
			continue
		case strings.HasPrefix(t, "="):
			errs = append(errs, fragError(src, l.no, "a line starting with = names no key"))
			continue
		default:
			errs = append(errs, fragError(src, l.no, "%q is not key = value", strings.TrimSpace(t)))
			continue
		}
		if n.name == "" {
			errs = append(errs, fragError(src, l.no, "%q names no key", n.key))
			continue
		}
		root.kids = append(root.kids, n)
	}
	return root, errors.Join(errs...)
}
