package overlay

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/nas-userscript/userscript/internal/profile"
	"github.com/nas-userscript/userscript/internal/source"
	"github.com/nas-userscript/userscript/internal/state"
)

// FirmwareDir is conf.d/.firmware: the firmware's own version of every
// target, kept for the owner (who may have no shell) to copy, edit and
// drop back into conf.d. The engines write it and never read it as a
// source.
const FirmwareDir = ".firmware"

// maxDiffLines bounds the diff of the firmware's files in a status.
const maxDiffLines = 40

func (e *Engine) firmwarePath(name string) string {
	return filepath.Join(e.confDir(), FirmwareDir, name)
}

// keepFirmware puts data, the firmware's own file of target name, into
// conf.d/.firmware/NAME unless it is there already.
func (e *Engine) keepFirmware(name string, data []byte) {
	dir := filepath.Join(e.confDir(), FirmwareDir)
	if fi, err := e.Sys.Lstat(dir); err == nil && !fi.IsDir() {
		e.logger().Error("conf.d/.firmware is not a folder (a symlink?); not writing through it", "target", name)
		return
	}
	p := e.firmwarePath(name)
	if old, err := e.Sys.ReadFile(p); err == nil && bytes.Equal(old, data) {
		return
	}
	if err := e.Sys.MkdirAll(dir, 0o755); err != nil {
		e.logger().Error("keep the firmware's file", "target", name, "err", err)
		return
	}
	if err := e.Sys.WriteFile(p, data, 0o644); err != nil {
		e.logger().Error("keep the firmware's file", "target", name, "err", err)
		return
	}
	e.logger().Info("kept the firmware's own file", "target", name, "in", "conf.d/.firmware/"+name)
}

// keepFirmwareOf keeps the live file of a target nobody manages (it is
// the firmware's) in conf.d/.firmware.
func (e *Engine) keepFirmwareOf(t profile.Target) {
	data, err := e.Sys.ReadFile(e.Sys.Root(t.Path))
	if err != nil {
		return
	}
	e.keepFirmware(t.Name, data)
}

// Fingerprint is what the sources of a target were when a record was
// made: md5 of their normalised texts in the order they apply.
func Fingerprint(srcs []source.Source) string {
	h := md5.New()
	for _, s := range srcs {
		h.Write(s.Data)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// noteRebase records, when the firmware's own file of the item changed
// (old is the base before; changed says it differs from the live base),
// what its status must say: for a replacement, until the owner edits
// its sources (state/rebased/NAME); for a .merge or .add, once. It also
// reads an earlier record.
func (e *Engine) noteRebase(it *Item, old []byte, changed, capture bool) {
	st := e.state()
	name := it.Target.Name
	if len(it.Sources) == 0 {
		if capture {
			st.ClearRebased(name)
		}
		return
	}
	replaced := !needsBase(it.Sources)
	fp := Fingerprint(it.Sources)
	if changed && replaced && capture {
		if err := st.SetRebased(name, state.Rebase{Fingerprint: fp, OldBase: old}); err != nil {
			e.logger().Error("record that the firmware's file changed", "target", name, "err", err)
		}
	}
	if changed && !replaced {
		it.OldBase, it.rebasedOnce = old, true
		return
	}
	r, ok, err := st.Rebased(name)
	switch {
	case err != nil || !ok:
	case r.Fingerprint == fp && replaced:
		it.OldBase = r.OldBase
	case capture:
		// The owner edited the sources since: the note has done its job.
		if err := st.ClearRebased(name); err != nil {
			e.logger().Error("clear state/rebased", "target", name, "err", err)
		}
	}
}

// rebaseNotes are the status lines of an item whose firmware file changed:
// a note, and for a replacement the diff of the firmware's two files.
func (e *Engine) rebaseNotes(it *Item) (notes, diff []string) {
	if it.OldBase == nil {
		return nil, nil
	}
	name := it.Target.Name
	if it.rebasedOnce {
		return []string{fmt.Sprintf("the firmware's own %s changed (a firmware update, or its web GUI rewrote it): your %s was applied to the new one; conf.d/.firmware/%s holds it", name, strings.Join(it.SourceFiles(), ", "), name)}, nil
	}
	notes = []string{fmt.Sprintf("the firmware's own %s changed (a firmware update, or its web GUI rewrote it) since your conf.d/%s was applied, which replaces the whole file and was written for the old one: compare the new one (conf.d/.firmware/%s) with yours and take over what you need, then save conf.d/%s again (this note stays until you do); how the firmware's file changed:", name, name, name, name)}
	return notes, baseDiff(it.OldBase, it.Base, name)
}

// baseDiff is the unified diff (no context) of the firmware's old and
// new file, one line each, at most maxDiffLines.
func baseDiff(old, now []byte, name string) []string {
	text, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(string(old)), B: difflib.SplitLines(string(now)),
		FromFile: "firmware before", ToFile: "firmware now", Context: 0,
	})
	var out []string
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i, l := range lines {
		if i == maxDiffLines {
			out = append(out, fmt.Sprintf("… %d more lines: see conf.d/.firmware/%s", len(lines)-i, name))
			break
		}
		if q := quote(l); q != "" {
			out = append(out, q)
		}
	}
	return out
}
