package shmerge

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
)

// A gen draws bases and fragments from the constructs docs/FORMATS.md
// names: synonyms and inverted synonyms in any case and spacing,
// includes, sections written twice, keys before the first section,
// continuation lines, comments and blank lines where a new line must not
// go, deletions that match and that do not, replacements, and every
// mistake a fragment can make. Bytes stay ASCII (and lower-case UTF-8
// letters, which both engines treat alike): see TestDeviations.
type gen struct{ r *rand.Rand }

// newGen seeds from USERSCRIPT_SHMERGE_SEED, else from n.
func newGen(n uint64) *gen {
	seed := n
	if s, err := strconv.ParseUint(os.Getenv("USERSCRIPT_SHMERGE_SEED"), 10, 64); err == nil {
		seed = s
	}
	return &gen{rand.New(rand.NewPCG(seed, 0x5eed))}
}

func (g *gen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }
func (g *gen) one(in int) bool          { return g.r.IntN(in) == 0 }

var (
	indents  = []string{"", "", "\t", "   ", "  ", " \t", "\t\t", "\r", "\v", "\f "}
	seps     = []string{" = ", " = ", "=", " =", "= ", "\t=\t", "  =  ", " =\t"}
	sections = []string{"global", "Global", "GLOBALS", " global ", "glo bal", "media", "Media", "public", "printers",
		"print$", "homes", "a b", "a", "A", "[x", "ü"}
	sambaKeys = []string{"log level", "loglevel", "Log Level", "debuglevel", "read only", "writable", "writeable",
		"write ok", "readonly", "path", "directory", "browseable", "browsable", "guest ok", "public", "include",
		"Include", "include", "workgroup", "socket options", "write cache size", "vfs objects", "vfs object",
		"enable spoolss", "disable spoolss", "max protocol", "protocol", "comment", "hide dot files", "ü key",
		"a:b", "x", "passwd chat"}
	values = []string{"yes", "no", "1", "/srv/x", "/etc/a.conf", "/etc/b.conf", "TCP_NODELAY SO_RCVBUF=8192", "",
		`a\b`, "$x `y` \"q\" 'z'", "%m", "ü", "a  b", "no ", "x = y", "*?[]", "a \\\n  b", "c\\ \n\td", "a\rb", "\x7f", "EOF", "$(echo hi) ${x}"}
	kvKeys = []string{"net.core.rmem_max", "net/core/rmem_max", "-net.core.rmem_max", "vm.swappiness",
		"-vm.swappiness", "listen", "anonymous_enable", "a b", "a", "x/y", "-", "ü"}
)

// sambaCase is a random smb.conf base and fragment.
func (g *gen) sambaCase(i int) mergeCase {
	return mergeCase{
		name: fmt.Sprintf("random smb.conf %d", i), format: "smb.conf",
		base: g.sambaBase(), frag: g.sambaFrag(), fragName: fragNames[i%len(fragNames)],
	}
}

// keyValueCase is a random key = value base and fragment.
func (g *gen) keyValueCase(i int) mergeCase {
	return mergeCase{
		name: fmt.Sprintf("random keyvalue %d", i), format: "keyvalue",
		base: g.kvBase(), frag: g.kvFrag(), fragName: fragNames[i%len(fragNames)],
	}
}

func (g *gen) sambaBase() string {
	var b strings.Builder
	for range g.r.IntN(3) {
		b.WriteString(g.sambaLine(false))
	}
	for range g.r.IntN(8) {
		fmt.Fprintf(&b, "%s[%s]%s\n", g.pick(indents[:4]...), g.pick(sections...), g.pick("", "", " ; c", " x"))
		for range g.r.IntN(9) {
			b.WriteString(g.sambaLine(false))
		}
	}
	return g.ending(b.String())
}

// ending takes away the final newline, or ends with a continuation.
func (g *gen) ending(s string) string {
	switch g.r.IntN(12) {
	case 0:
		return strings.TrimSuffix(s, "\n")
	case 1:
		return s + "comment = a \\\n"
	case 2:
		return s + "  \n"
	}
	return s
}

// sambaLine is a line of a smb.conf base, or of a fragment.
func (g *gen) sambaLine(frag bool) string {
	in := g.pick(indents...)
	switch g.r.IntN(14) {
	case 0:
		return in + g.pick("#", ";", "# [x]", "#a = b") + "\n"
	case 1:
		return g.pick("", " ", "\t") + "\n"
	case 2:
		return in + g.pick("no equals", "= x", "[unclosed", "a \\", "x\\ ", "bell\a here", "del\x7f", "cr\rmid",
			"\x1b[0m", "\x01\x02\x1f", "q\"uo\\te", "[x\f") + "\n"
	case 3:
		if frag {
			return in + "!" + g.pick("", " ") + g.pick(sambaKeys...) + "\n"
		}
	case 4:
		if frag {
			return in + "! " + g.pick(sambaKeys...) + g.pick(seps...) + g.pick(values...) + "\n"
		}
	}
	return in + g.pick(sambaKeys...) + g.pick(seps...) + g.pick(values...) + g.pick("", "", "", " ", "\t") + "\n"
}

func (g *gen) sambaFrag() string {
	var b strings.Builder
	if g.one(15) {
		b.WriteString(g.sambaLine(true))
	}
	for range 1 + g.r.IntN(4) {
		switch g.r.IntN(8) {
		case 0:
			fmt.Fprintf(&b, "!%s[%s]\n", g.pick("", " "), g.pick(sections...))
			continue
		case 1:
			b.WriteString(g.pick("[]\n", "[ ]\n", "[unclosed\n", "!\n", "!# c\n", "!; c\n", "![x \\\ny\n"))
		}
		fmt.Fprintf(&b, "%s[%s]\n", g.pick(indents[:3]...), g.pick(sections...))
		for range g.r.IntN(5) {
			b.WriteString(g.sambaLine(true))
		}
	}
	s := b.String()
	if g.one(20) {
		s += "comment = open \\\n"
	}
	return s
}

func (g *gen) kvLine(frag bool) string {
	in := g.pick(indents...)
	switch g.r.IntN(12) {
	case 0:
		return in + g.pick("#", ";", "# a = b", ";x=1") + "\n"
	case 1:
		return g.pick("", " ", "\t") + "\n"
	case 2:
		return in + g.pick("no equals", "= x", "include /etc/x", "- = 1", "bell\a here", "del\x7f", "cr\rmid",
			"\x1b[0m", "\x01\x02\x1f", "q\"uo\\te", "\v\b") + "\n"
	case 3:
		if frag {
			return in + "!" + g.pick("", " ") + g.pick(append(kvKeys, "", "# c")...) + "\n"
		}
	case 4:
		if frag {
			return in + "! " + g.pick(kvKeys...) + g.pick(seps...) + g.pick(values[:8]...) + "\n"
		}
	}
	v := strings.ReplaceAll(g.pick(values...), "\n", " ")
	return in + g.pick(kvKeys...) + g.pick(seps...) + v + g.pick("", "", " ") + "\n"
}

func (g *gen) kvBase() string {
	var b strings.Builder
	for range g.r.IntN(24) {
		b.WriteString(g.kvLine(false))
	}
	s := b.String()
	if g.one(8) {
		s = strings.TrimSuffix(s, "\n")
	}
	return s
}

func (g *gen) kvFrag() string {
	var b strings.Builder
	for range 1 + g.r.IntN(6) {
		b.WriteString(g.kvLine(true))
	}
	return b.String()
}
