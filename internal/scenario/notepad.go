package scenario

import (
	"strings"
	"unicode/utf16"
)

// utf16Notepad is text as Notepad's "Unicode" save writes it (CRLF, a
// byte order mark, two bytes a character; big endian for "Unicode big
// endian").
func utf16Notepad(text string, big bool) []byte {
	out := []byte{0xFF, 0xFE}
	if big {
		out = []byte{0xFE, 0xFF}
	}
	for _, u := range utf16.Encode([]rune(strings.ReplaceAll(text, "\n", "\r\n"))) {
		if big {
			out = append(out, byte(u>>8), byte(u))
		} else {
			out = append(out, byte(u), byte(u>>8))
		}
	}
	return out
}
