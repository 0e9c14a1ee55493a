package validate

import (
	"fmt"
	"strings"
)

// smbConf is smb.conf read the way Samba's own parser (lib/util/tini.c)
// reads it, kept only to put line numbers on testparm's messages.
type smbConf struct {
	text         string // the candidate itself
	params       []smbParam
	syntax       string // the first line Samba cannot parse, as "line N: ..."
	emptySection int    // line of the first "[]"
}

type smbParam struct {
	line        int
	name, value string
	key         string // name without white space, lower case
}

// smbKey is how Samba compares parameter names: case and white space do
// not count ("Read  Size" is "readsize").
func smbKey(name string) string {
	return strings.ToLower(strings.Join(strings.FieldsFunc(name, isCSpace), ""))
}

func isCSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\v' || r == '\f' || r == '\r'
}

// parseSmbConf reads logical lines: leading white space is skipped, lines
// starting with # or ; are comments, a line ending in a backslash (and at
// most white space) continues on the next, runs of white space count as
// one. A line starting with [ must have a ]; a line with = must have a
// name before it; other lines are ignored by Samba.
func parseSmbConf(data []byte) smbConf {
	c := smbConf{text: string(data)}
	phys := strings.Split(string(data), "\n")
	for i := 0; i < len(phys); i++ {
		start := i + 1
		text := strings.TrimLeftFunc(phys[i], isCSpace)
		if text == "" || text[0] == '#' || text[0] == ';' {
			continue
		}
		text = zapSpace(text)
		for i+1 < len(phys) {
			t := strings.TrimRightFunc(text, isCSpace)
			if !strings.HasSuffix(t, `\`) || len(text)-len(t) > 1 {
				break
			}
			i++
			text = zapSpace(t[:len(t)-1] + phys[i])
		}
		c.line(start, text)
	}
	return c
}

func (c *smbConf) line(n int, text string) {
	if text[0] == '[' {
		end := strings.IndexByte(text, ']')
		switch {
		case end < 0:
			c.fail(n, fmt.Sprintf("bad section header %q: no closing \"]\"", strings.TrimRightFunc(text, isCSpace)))
		case end == 1 && c.emptySection == 0:
			c.emptySection = n
		}
		return
	}
	eq := strings.IndexByte(text, '=')
	if eq < 0 {
		return // Samba ignores a line without "="
	}
	name, value := trimOneSpace(text[:eq]), trimOneSpace(text[eq+1:])
	if name == "" {
		c.fail(n, fmt.Sprintf("parameter without a name: %q", strings.TrimRightFunc(text, isCSpace)))
		return
	}
	c.params = append(c.params, smbParam{line: n, name: name, value: value, key: smbKey(name)})
}

func (c *smbConf) fail(n int, msg string) {
	if c.syntax == "" {
		c.syntax = atLine(n, msg)
	}
}

// zapSpace turns each run of white space into its first character, as
// Samba does.
func zapSpace(s string) string {
	var b strings.Builder
	prevSpace := false
	for _, r := range s {
		sp := isCSpace(r)
		if sp && prevSpace {
			continue
		}
		prevSpace = sp
		b.WriteRune(r)
	}
	return b.String()
}

// trimOneSpace drops one white space character at each end (Samba's
// trim_one_space; runs are already single).
func trimOneSpace(s string) string {
	if s != "" && isCSpace(rune(s[0])) {
		s = s[1:]
	}
	if s != "" && isCSpace(rune(s[len(s)-1])) {
		s = s[:len(s)-1]
	}
	return s
}

// lineOf returns the line of the next occurrence of parameter name;
// seen counts the occurrences already used, so a parameter repeated in
// two sections gets both lines. 0 means not in this file.
func (c *smbConf) lineOf(name string, seen map[string]int) int {
	key := smbKey(name)
	n := seen[key]
	seen[key]++
	for _, p := range c.params {
		if p.key != key {
			continue
		}
		if n == 0 {
			return p.line
		}
		n--
	}
	return 0
}

// paramWithValue returns the first parameter whose value is value.
func (c *smbConf) paramWithValue(value string) (smbParam, bool) {
	for _, p := range c.params {
		if p.value == value || strings.TrimSpace(p.value) == strings.TrimSpace(value) {
			return p, true
		}
	}
	return smbParam{}, false
}
