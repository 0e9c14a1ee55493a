package state

import (
	"bytes"
	"errors"
	"io/fs"
)

// A Rebase records that the firmware's own file of a target changed
// under a replacement written for the old one: state/rebased/NAME holds
// the fingerprint of the sources at that moment (Fingerprint) on its
// first line, then the old base. It lasts until the sources change.
type Rebase struct {
	Fingerprint string
	OldBase     []byte
}

// Rebased returns the record of target, and whether there is one.
func (d *Dir) Rebased(target string) (Rebase, bool, error) {
	data, err := d.Sys.ReadFile(d.file("rebased", target))
	if errors.Is(err, fs.ErrNotExist) {
		return Rebase{}, false, nil
	}
	if err != nil {
		return Rebase{}, false, err
	}
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	return Rebase{Fingerprint: string(bytes.TrimSpace(first)), OldBase: rest}, true, nil
}

// SetRebased records r for target.
func (d *Dir) SetRebased(target string, r Rebase) error {
	return d.write(append([]byte(r.Fingerprint+"\n"), r.OldBase...), "rebased", target)
}

// ClearRebased drops the record of target.
func (d *Dir) ClearRebased(target string) error {
	err := d.Sys.Remove(d.file("rebased", target))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
