package validate

import (
	"fmt"
	"slices"
	"strings"
)

// FormatExports writes exports in exports(5) syntax, one line per export
// (more when the default options of its clients cannot be written on one
// line). ParseExports of the result gives the same paths and clients.
func FormatExports(exports []Export) []byte {
	var b strings.Builder
	for _, e := range exports {
		path := exportsToken(e.Path)
		b.WriteString(path)
		var prev []string // default options written on this line
		atStart := true   // right after the path or "-opts": a missing client means everyone
		newLine := func() {
			b.WriteString("\n" + path)
			prev, atStart = nil, true
		}
		for i, c := range e.Clients {
			if len(c.Defaults) < len(prev) || !slices.Equal(c.Defaults[:len(prev)], prev) {
				newLine() // default options cannot be taken back on a line
			}
			world := c.Host == "" && c.Options == nil
			if world && !atStart && len(c.Defaults) == len(prev) {
				newLine() // a missing client reads as everyone only after the path or "-opts"
			}
			if len(c.Defaults) > len(prev) {
				b.WriteString(" " + exportsToken("-"+strings.Join(c.Defaults[len(prev):], ",")))
				prev, atStart = c.Defaults, true
			}
			if world {
				if i < len(e.Clients)-1 {
					b.WriteString(` ""`) // an empty token: everyone, and the line goes on
					atStart = false
				}
				continue
			}
			host := c.Host
			if host == "" {
				host = "*"
			}
			if c.Options != nil {
				host += "(" + strings.Join(c.Options, ",") + ")"
			}
			b.WriteString(" " + exportsToken(host))
			atStart = false
		}
		b.WriteString("\n")
	}
	return []byte(b.String())
}

// exportsToken escapes s as exportfs writes paths: white space, control
// characters, ", \ and # as \ooo. An octal digit three bytes after a
// backslash is escaped too, or exportfs would read the two as one escape.
func exportsToken(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c == 0x7f || c == '"' || c == '\\' || c == '#' || isOctal(c) && i >= 3 && s[i-3] == '\\' {
			fmt.Fprintf(&b, `\%03o`, c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
