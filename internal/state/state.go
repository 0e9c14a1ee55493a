package state

import (
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/nas-userscript/userscript/internal/system"
)

// Dir is an app's state/ folder.
type Dir struct {
	Path string
	Sys  system.System
}

// Hash is the hash both engines record: md5, as BusyBox has md5sum.
func Hash(data []byte) string {
	sum := md5.Sum(data)
	return hex.EncodeToString(sum[:])
}

func (d *Dir) file(parts ...string) string {
	return filepath.Join(append([]string{d.Path}, parts...)...)
}

// Base returns the stored base of target, and whether there is one.
func (d *Dir) Base(target string) ([]byte, bool, error) {
	data, err := d.Sys.ReadFile(d.file("base", target))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	return data, err == nil, err
}

// SetBase stores the base of target.
func (d *Dir) SetBase(target string, data []byte) error {
	return d.write(data, "base", target)
}

// Written returns the hash of what was last written to target, or "".
func (d *Dir) Written(target string) (string, error) {
	return d.readWord("written", target)
}

// SetWritten records the hash of what was written to target.
func (d *Dir) SetWritten(target, hash string) error {
	return d.write([]byte(hash+"\n"), "written", target)
}

// Held returns the hash of the sources that must not be applied to target
// (they were rolled back), or "".
func (d *Dir) Held(target string) (string, error) {
	return d.readWord("held", target)
}

// SetHeld holds target's sources with the given hash; "" releases them.
func (d *Dir) SetHeld(target, hash string) error {
	if hash == "" {
		err := d.Sys.Remove(d.file("held", target))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	return d.write([]byte(hash+"\n"), "held", target)
}

func (d *Dir) readWord(parts ...string) (string, error) {
	data, err := d.Sys.ReadFile(d.file(parts...))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(data)), nil
}

func (d *Dir) write(data []byte, parts ...string) error {
	name := d.file(parts...)
	if err := d.Sys.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	if err := d.Sys.WriteFile(name, data, 0o644); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// Forget stops managing target: the live file is the firmware's again.
func (d *Dir) Forget(target string) error {
	err := d.Sys.Remove(d.file("written", target))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
