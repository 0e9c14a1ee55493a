package merge

import (
	"fmt"
	"strings"
	"testing"
)

// proftpdOps are the operations on a proftpd.conf of the corpus, each
// proved on the parsed result and by proftpd -t. A block the file has
// twice (two <VirtualHost 0.0.0.0>) must be refused with both named,
// then reached one at a time with [N].
func proftpdOps(f corpusFile) []op {
	ops := []op{{
		name:    "set a top-level directive",
		frag:    "ServerName \"corpus\"\n",
		touches: topLevel("servername"),
		check:   proftpdWants(f, "", "servername", `"corpus"`),
	}, {
		name:    "add a top-level directive",
		frag:    "MaxLoginAttempts 3\n",
		touches: topLevel("maxloginattempts"),
		check:   proftpdWants(f, "", "maxloginattempts", "3"),
	}, {
		name:    "merge <Global> and a <Limit> in it",
		frag:    "<Global>\n  AllowOverwrite on\n  <Limit SITE_CHMOD>\n    DenyAll\n  </Limit>\n</Global>\n",
		touches: func(place, name string) bool { return strings.Contains(place, "global\x00") },
		check:   proftpdWants(f, "global\x00", "allowoverwrite", "on"),
	}, {
		name:    "refuse a directive without value, naming the fragment's line",
		frag:    "UseReverseDNS off\nServerName\n",
		refused: []string{"proftpd.conf.merge line 2: ServerName has no value"},
	}, {
		name:    "delete a misspelt block",
		frag:    "!<Anonymous ~corpus-nosuch>\n",
		touches: named(nil, nil, nil),
		warns:   "proftpd.conf.merge line 1: !<Anonymous ~corpus-nosuch> deletes nothing: the file has no <Anonymous ~corpus-nosuch>",
		check:   proftpdWants(f, "", "", ""),
	}}
	if d := proftpdDeletable(f.text); d != "" {
		ops = append(ops, op{
			name:    "delete a top-level directive",
			frag:    "!" + d + "\n",
			touches: topLevel(strings.ToLower(d)),
			check:   proftpdWants(f, "", strings.ToLower(d), ""),
		})
	}
	for _, g := range proftpdBlocks(f.text) {
		ops = append(ops, blockOps(f, g)...)
	}
	return ops
}

// A blockTwins is the blocks of a file with one identity, seen from the
// top through <IfModule>s, in file order.
type blockTwins struct {
	id, line string // identity; the opening line as written
	name     string // lower case: virtualhost, anonymous, directory
	lines    []int  // where each one opens
}

// proftpdSets is what the corpus sets in a block of each kind.
var proftpdSets = map[string][2]string{
	"virtualhost": {"MaxClients", "7"}, "anonymous": {"MaxClients", "7"}, "directory": {"Umask", "002"},
}

// blockOps set a directive in a block, or refuse to and then set it in
// each twin by its position; delete or replace a block that is alone.
func blockOps(f corpusFile, g blockTwins) []op {
	d, v := proftpdSets[g.name][0], proftpdSets[g.name][1]
	in := func(place, name string) bool { return strings.Contains(place, g.id) }
	if len(g.lines) == 1 {
		ops := []op{{
			name:    "set in " + g.line,
			frag:    fmt.Sprintf("%s\n  %s %s\n</%s>\n", g.line, d, v, blockName(g.line)),
			touches: func(place, name string) bool { return in(place, name) && name == strings.ToLower(d) },
			check:   proftpdWants(f, g.id, strings.ToLower(d), v),
		}, {
			name:    "delete " + g.line,
			frag:    "!" + g.line + "\n",
			touches: in,
			check:   proftpdWants(f, g.id, "", ""),
		}}
		if g.name == "anonymous" {
			ops = append(ops, op{
				name:    "replace " + g.line,
				frag:    fmt.Sprintf("!%s\n%s\n  User nobody\n  Group nogroup\n  MaxClients 2\n</Anonymous>\n", g.line, g.line),
				touches: in,
				check:   proftpdWants(f, g.id, "maxclients", "2"),
			})
		}
		return ops
	}
	refused := []string{fmt.Sprintf("proftpd.conf.merge line 1: %s matches %d blocks of the file: ", g.line, len(g.lines))}
	for _, l := range g.lines {
		refused = append(refused, fmt.Sprintf("line %d", l))
	}
	deleting := append([]string{"!" + refused[0][len("proftpd.conf.merge line 1: "):], "write the deletion inside the <IfModule>"}, refused[1:]...)
	ops := []op{{
		name:    "refuse to guess between the twins " + g.line,
		frag:    fmt.Sprintf("%s\n  %s %s\n</%s>\n", g.line, d, v, blockName(g.line)),
		refused: refused,
	}, {
		name:    "refuse to guess which twin " + g.line + " to delete",
		frag:    "!" + g.line + "\n",
		refused: deleting,
	}}
	for i := range g.lines {
		ops = append(ops, op{
			name:    fmt.Sprintf("set in twin %d of %s", i+1, g.line),
			frag:    fmt.Sprintf("%s[%d]\n  %s %s\n</%s>\n", g.line, i+1, d, v, blockName(g.line)),
			touches: func(place, name string) bool { return in(place, name) && name == strings.ToLower(d) },
			check:   proftpdTwinSet(f, g, i, strings.ToLower(d), v),
		})
	}
	return ops
}

func blockName(line string) string {
	name, _, _ := strings.Cut(strings.TrimPrefix(line, "<"), " ")
	return strings.TrimSuffix(name, ">")
}

// topLevel touches the lines called name outside any block but guards.
func topLevel(name string) func(place, n string) bool {
	return func(place, n string) bool { return n == name && guardsOnly(place) }
}

func guardsOnly(place string) bool {
	for _, id := range strings.Split(place, "/") {
		if b, _, _ := strings.Cut(id, "\x00"); id != "" && !proftpdTransparent[b] {
			return false
		}
	}
	return true
}

// proftpdDeletable is the first directive at the top level that the
// corpus may delete without making the file one proftpd refuses.
func proftpdDeletable(text []byte) string {
	keep := map[string]bool{"user": true, "group": true, "include": true, "loadmodule": true, "modulepath": true,
		"moduleorder": true, "servertype": true, "servername": true}
	for _, e := range entriesOf(ProFTPD, text) {
		if guardsOnly(e.place) && !keep[e.name] && !proftpdByFirstArg[e.name] && !proftpdByArgs[e.name] {
			n, _ := proftpdLine(e.raw)
			return n.key
		}
	}
	return ""
}

// proftpdBlocks are the <VirtualHost>, <Anonymous> and <Directory>
// blocks seen from the top, grouped by identity.
func proftpdBlocks(text []byte) []blockTwins {
	var out []blockTwins
	at := map[string]int{}
	visit(parseProftpd(string(text)), func(n *node, path []*node, line int) {
		if n.kind != block || proftpdSets[n.name][0] == "" {
			return
		}
		for _, p := range path {
			if !proftpdTransparent[p.name] {
				return
			}
		}
		i, ok := at[n.id]
		if !ok {
			i = len(out)
			at[n.id] = i
			out = append(out, blockTwins{id: n.id, line: strings.TrimSpace(joinValue(n.raw)), name: n.name})
		}
		out[i].lines = append(out[i].lines, line)
	})
	return out
}

// proftpdWants proves that in the result every directive name in the
// blocks with identity in ("" for the top level) has value v, and that
// there is one ("" for v: that there is none; "" for name: nothing to
// look for), then that proftpd -t accepts it.
func proftpdWants(f corpusFile, in, name, v string) func(*testing.T, []byte) {
	return func(t *testing.T, got []byte) {
		found := 0
		for _, e := range entriesOf(ProFTPD, got) {
			inside := in == "" && guardsOnly(e.place) || in != "" && directlyIn(e.place, in)
			if name == "" || e.name != name || !inside {
				continue
			}
			found++
			if n, _ := proftpdLine(e.raw); v == "" || joinValue(n.value) != v {
				t.Errorf("%s: %q, want %s %s", e.place, e.raw, name, v)
			}
		}
		if name != "" && v != "" && found == 0 {
			t.Errorf("no %s in the result", name)
		}
		if in != "" && v == "" && name == "" && strings.Contains(placesOf(got), in) {
			t.Errorf("the deleted block is still there:\n%s", got)
		}
		proftpdAccepts(t, f, got)
	}
}

// directlyIn reports whether a line at place is in the block id, with
// nothing but guards between.
func directlyIn(place, id string) bool {
	i := strings.LastIndex(place, id)
	return i >= 0 && guardsOnly(strings.TrimPrefix(place[i+len(id):], "/"))
}

func placesOf(text []byte) string {
	var b strings.Builder
	for _, e := range entriesOf(ProFTPD, text) {
		b.WriteString(e.place + "\n")
	}
	visit(parseProftpd(string(text)), func(n *node, _ []*node, _ int) {
		if n.kind == block {
			b.WriteString(n.id + "\n")
		}
	})
	return b.String()
}

// proftpdTwinSet proves that twin i, and only it, got name v.
func proftpdTwinSet(f corpusFile, g blockTwins, i int, name, v string) func(*testing.T, []byte) {
	return func(t *testing.T, got []byte) {
		before, after := twinTexts(f.text, g.id), twinTexts(got, g.id)
		if len(before) != len(after) {
			t.Fatalf("%d blocks %s before, %d after", len(before), g.line, len(after))
		}
		for j := range after {
			changed := after[j] != before[j]
			if j == i && !strings.Contains(strings.ToLower(after[j]), name) {
				t.Errorf("twin %d has no %s:\n%s", j+1, name, after[j])
			}
			if j != i && changed {
				t.Errorf("twin %d changed, only %d should:\n%s", j+1, i+1, after[j])
			}
		}
		proftpdAccepts(t, f, got)
	}
}

// twinTexts are the texts of the blocks with identity id, in order.
func twinTexts(text []byte, id string) []string {
	var out []string
	visit(parseProftpd(string(text)), func(n *node, _ []*node, _ int) {
		if n.kind == block && n.id == id {
			out = append(out, render(n))
		}
	})
	return out
}

// proftpdAccepts proves that proftpd -t accepts the result, when it
// accepts the base on this host (a base that names a group or host this
// host lacks is merged but not checked).
func proftpdAccepts(t *testing.T, f corpusFile, got []byte) {
	t.Helper()
	tool(t, "proftpd", "proftpd-core")
	f.base.once.Do(func() { f.base.err = proftpdRun(t, f.text) })
	if f.base.err != "" {
		t.Skipf("proftpd -t refuses the base on this host, so it cannot judge the result: %s", firstLine(f.base.err))
	}
	proftpdCheck(t, got)
}
