package state

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nas-userscript/userscript/internal/status"
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
// The file holds one hash a line, newest first: while a write is under
// way it holds the new hash and the one before, so a crash between the
// two leaves either file recognised as ours (never taken for a base).
func (d *Dir) Written(target string) (string, error) {
	hashes, err := d.writtenHashes(target)
	if len(hashes) == 0 {
		return "", err
	}
	return hashes[0], err
}

// Ours reports whether hash is one we wrote (or were writing) to target.
func (d *Dir) Ours(target, hash string) (bool, error) {
	hashes, err := d.writtenHashes(target)
	return slices.Contains(hashes, hash), err
}

// Expect records, before a write, that hash is about to be live, keeping
// the hash that is live now.
func (d *Dir) Expect(target, hash string) error {
	hashes, err := d.writtenHashes(target)
	if err != nil {
		return err
	}
	lines := hash + "\n"
	if len(hashes) > 0 && hashes[0] != hash {
		lines += hashes[0] + "\n"
	}
	return d.write([]byte(lines), "written", target)
}

func (d *Dir) writtenHashes(target string) ([]string, error) {
	data, err := d.readWord("written", target)
	return strings.Fields(data), err
}

// SetWritten records the hash of what was written to target.
func (d *Dir) SetWritten(target, hash string) error {
	return d.write([]byte(hash+"\n"), "written", target)
}

// A Hold keeps a target's sources from being applied: they were
// rejected, interrupted or rolled back, and wait for an edit. Hash is the
// fingerprint of the sources (md5 of their normalised texts in the order
// they apply), so a new base — the firmware or its web GUI rewriting the
// file — does not release them; a hold an older version wrote holds the
// hash of the target they gave, which is still honoured. Word and Reason
// are what the status file said when they were held, for the status the
// next boot writes.
type Hold struct {
	Hash   string
	Word   status.Word
	Reason string
}

// Held returns the hold on target (Hash "" when there is none).
// state/held/NAME holds the hash, the word and the reason, a line each.
func (d *Dir) Held(target string) (Hold, error) {
	data, err := d.Sys.ReadFile(d.file("held", target))
	if errors.Is(err, fs.ErrNotExist) {
		return Hold{}, nil
	}
	if err != nil {
		return Hold{}, err
	}
	lines := strings.SplitN(strings.TrimRight(string(data), "\n"), "\n", 3)
	h := Hold{Hash: strings.TrimSpace(lines[0])}
	if len(lines) > 1 {
		h.Word = status.Word(lines[1])
	}
	if len(lines) > 2 {
		h.Reason = strings.ReplaceAll(lines[2], "\n", " ")
	}
	return h, nil
}

// SetHeld holds target's sources; a Hold without a Hash releases them.
func (d *Dir) SetHeld(target string, h Hold) error {
	if h.Hash == "" {
		err := d.Sys.Remove(d.file("held", target))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	oneLine := strings.NewReplacer("\r", " ", "\n", " ")
	return d.write([]byte(h.Hash+"\n"+oneLine.Replace(string(h.Word))+"\n"+oneLine.Replace(h.Reason)+"\n"), "held", target)
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

// write replaces a state file, unless it already holds data: an apply
// that changes nothing writes nothing to the data disk.
func (d *Dir) write(data []byte, parts ...string) error {
	name := d.file(parts...)
	if old, err := d.Sys.ReadFile(name); err == nil && bytes.Equal(old, data) {
		return nil
	}
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
