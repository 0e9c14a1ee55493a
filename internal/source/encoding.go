package source

import (
	"bytes"
	"errors"
	"unicode/utf16"
	"unicode/utf8"
)

// Encodings a source can be saved in, as the status names them.
const (
	UTF16LE = "UTF-16 LE" // Notepad's "Unicode"
	UTF16BE = "UTF-16 BE" // Notepad's "Unicode big endian"
)

var (
	bomLE = []byte{0xFF, 0xFE}
	bomBE = []byte{0xFE, 0xFF}
)

// ErrNUL is the reason a file with NUL bytes (and no UTF-16 mark) is
// not used.
var ErrNUL = errors.New("holds NUL bytes; it is not a text file (saved as Unicode without a mark? in Notepad use Save As → Encoding: UTF-8)")

// Decode turns what an editor saved into UTF-8: UTF-16 with a byte order
// mark (Notepad's "Unicode" saves) is converted, and enc names what it
// was ("" for text that needed no conversion). Text with NUL bytes that
// is not UTF-16 with a mark is refused, and so is UTF-16 cut short.
func Decode(data []byte) (text []byte, enc string, err error) {
	switch {
	case bytes.HasPrefix(data, bomLE):
		enc = UTF16LE
	case bytes.HasPrefix(data, bomBE):
		enc = UTF16BE
	default:
		if bytes.IndexByte(data, 0) >= 0 {
			return nil, "", ErrNUL
		}
		return data, "", nil
	}
	body := data[2:]
	if len(body)%2 != 0 {
		return nil, enc, errors.New("saved as " + enc + " but cut short (an odd number of bytes): save it again")
	}
	units := make([]uint16, len(body)/2)
	for i := range units {
		lo, hi := body[2*i], body[2*i+1]
		if enc == UTF16BE {
			lo, hi = hi, lo
		}
		units[i] = uint16(lo) | uint16(hi)<<8
	}
	out := make([]byte, 0, len(units)+len(units)/8)
	for _, r := range utf16.Decode(units) {
		switch r {
		case 0:
			return nil, enc, errors.New("saved as " + enc + " and holds NUL characters; it is not a text file")
		case utf8.RuneError:
			return nil, enc, errors.New("saved as " + enc + " but holds a broken character (a half surrogate pair): save it again as UTF-8")
		}
		out = utf8.AppendRune(out, r)
	}
	return out, enc, nil
}

// EncodingNote is the status note of a source that was converted.
func EncodingNote(file, enc string) string {
	return "conf.d/" + file + ": saved as " + enc + "; converted to UTF-8"
}
