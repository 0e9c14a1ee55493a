package state

import (
	"errors"
	"io/fs"
	"strconv"
)

// Starts is the number of starts in a row that did not finish their
// apply (state/starts: one decimal number; no file is 0). Both engines
// count in it; see docs/FORMATS.md, "Safe mode".
func (d *Dir) Starts() int {
	s, err := d.readWord("starts")
	if err != nil {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// SetStarts records n; 0 removes the file.
func (d *Dir) SetStarts(n int) error {
	if n > 0 {
		return d.write([]byte(strconv.Itoa(n)+"\n"), "starts")
	}
	err := d.Sys.Remove(d.file("starts"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
