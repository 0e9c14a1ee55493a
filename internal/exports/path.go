package exports

import (
	"path"
	"strconv"
	"strings"
)

// PathOf is the path a token of an exports line names, as exportfs reads it: quotes
// removed, \040-style octal escapes decoded, and cleaned so that
// "/mnt/a/" is "/mnt/a".
func PathOf(tok string) string {
	tok = strings.ReplaceAll(tok, `"`, "")
	var b strings.Builder
	for i := 0; i < len(tok); i++ {
		if tok[i] == '\\' && i+3 < len(tok) {
			if c, err := strconv.ParseUint(tok[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(c))
				i += 3
				continue
			}
		}
		b.WriteByte(tok[i])
	}
	p := b.String()
	if strings.HasPrefix(p, "/") {
		p = path.Clean(p)
	}
	return p
}
