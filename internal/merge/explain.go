package merge

import (
	"cmp"
	"fmt"
	"strings"
)

// Layer kinds, in the order the engine applies them.
const (
	KindBase    = "base"    // the firmware's file
	KindReplace = "replace" // conf.d/NAME: replaces everything before it
	KindMerge   = "merge"   // conf.d/NAME.merge: merged key by key
	KindAdd     = "add"     // conf.d/NAME.add: appended
)

// A Layer is one step that made a target: its source's name, its kind
// and its (normalised) text.
type Layer struct {
	Name string // "base", "smb.conf", "smb.conf.merge", "smb.conf.add"
	Kind string // KindBase, KindReplace, KindMerge or KindAdd
	Data []byte
}

// An Origin says which source set one value of a target.
type Origin struct {
	Section string // smb.conf: the section ("global" before any); proftpd.conf: the enclosing blocks, "<Global>"; else ""
	Key     string // the key, directive or exported path as written
	Value   string // its value on one line
	Source  string // the layer's name, with the line for a merge: "base", "smb.conf.merge line 4"
	Line    int    // the line in the target, 1-based
}

// Explain builds the target from layers, in the order the engine
// applied them, and says for every value in it which layer set it. A
// base or replace layer starts over: everything comes from it; a merge
// layer claims the lines it sets (its Source names the fragment's line);
// an add layer is appended, after a newline when the text before it
// lacks one, and claims the lines it brings. The warnings are those of
// the merge layers (see MergeWarn).
func Explain(format string, layers []Layer) ([]Origin, []string, error) {
	syn, err := syntaxFor(format)
	if err != nil {
		return nil, nil, err
	}
	doc := syn.parse("")
	var warnings []string
	for _, l := range layers {
		name := cmp.Or(l.Name, l.Kind)
		switch l.Kind {
		case KindBase, KindReplace:
			doc = syn.parse(string(l.Data))
			visit(doc, func(n *node, _ []*node, _ int) { n.origin = name })
		case KindMerge:
			frag, err := syn.parseFragment(string(l.Data), name)
			if err != nil {
				return nil, nil, err
			}
			doc = reparse(syn, doc, prepare(syn, render(doc)), name)
			m := newMerger(syn, doc)
			if err := m.apply(frag); err != nil {
				return nil, nil, err
			}
			warnings = append(warnings, m.warnings...)
		case KindAdd:
			text := render(doc)
			if text != "" && !strings.HasSuffix(text, "\n") {
				text += "\n"
			}
			doc = reparse(syn, doc, text+string(l.Data), name)
		default:
			return nil, nil, fmt.Errorf("%s: unknown layer kind %q (use %s, %s, %s or %s)", name, l.Kind, KindBase, KindReplace, KindMerge, KindAdd)
		}
	}
	var out []Origin
	visit(doc, func(n *node, path []*node, line int) {
		if n.kind == entry {
			out = append(out, Origin{Section: syn.section(path), Key: n.key, Value: joinValue(n.value), Source: n.origin, Line: line})
		}
	})
	return out, warnings, nil
}

// reparse parses text, which begins with the text of old, and carries
// the origins of old's lines over; lines that are new come from fallback.
func reparse(syn *syntax, old *node, text, fallback string) *node {
	byLine := map[int]string{}
	visit(old, func(n *node, _ []*node, line int) {
		if n.kind == entry {
			byLine[line] = n.origin
		}
	})
	doc := syn.parse(text)
	visit(doc, func(n *node, _ []*node, line int) {
		if o, ok := byLine[line]; ok {
			n.origin = o
		} else {
			n.origin = fallback
		}
	})
	return doc
}
