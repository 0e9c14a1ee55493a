package overlay

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// captureDrift keeps a live file that something else (the firmware, its
// web GUI) wrote over ours: it is saved to conf.d/.captured/NAME.TIME for
// the owner to look at (once a distinct content, the newest CapturedKeep
// kept), and the difference to ours goes to the log.
func (e *Engine) captureDrift(it *Item) {
	dir := filepath.Join(e.confDir(), ".captured")
	name := it.Target.Name + "." + e.Sys.Now().UTC().Format("20060102T150405Z")
	if fi, err := e.Sys.Lstat(dir); err == nil && !fi.IsDir() {
		e.logger().Error("capture drift: conf.d/.captured is not a folder (a symlink?); not writing through it", "target", it.Target.Name)
		return
	}
	if err := e.Sys.MkdirAll(dir, 0o755); err != nil {
		e.logger().Error("capture drift", "target", it.Target.Name, "err", err)
		return
	}
	copies := e.capturedCopies(dir, it.Target.Name)
	for _, c := range copies {
		if data, err := e.Sys.ReadFile(filepath.Join(dir, c)); err == nil && bytes.Equal(data, it.Live) {
			e.logger().Warn("drift: the live file was rewritten behind us, as before", "target", it.Target.Name, "saved", "conf.d/.captured/"+c)
			return // one copy a distinct content
		}
	}
	for len(copies) >= CapturedKeep {
		e.Sys.Remove(filepath.Join(dir, copies[0]))
		copies = copies[1:]
	}
	if err := e.Sys.WriteFile(filepath.Join(dir, name), it.Live, 0o644); err != nil {
		e.logger().Error("capture drift", "target", it.Target.Name, "err", err)
		return
	}
	ours := e.lastWritten(it.Target.Name)
	diff, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(string(ours)), B: difflib.SplitLines(string(it.Live)),
		FromFile: "ours", ToFile: "live", Context: 1,
	})
	e.logger().Warn("drift: the live file was rewritten behind us", "target", it.Target.Name, "saved", "conf.d/.captured/"+name, "diff", diff)
}

// CapturedKeep is how many copies of one target conf.d/.captured keeps
// (the oldest go first); a content already kept is not copied again.
const CapturedKeep = 10

// capturedCopies lists the copies of target in dir (.captured), oldest
// first: NAME.YYYYMMDDTHHMMSSZ, regular files only.
func (e *Engine) capturedCopies(dir, target string) []string {
	entries, _ := e.Sys.ReadDir(dir)
	var names []string
	for _, ent := range entries {
		stamp, ok := strings.CutPrefix(ent.Name(), target+".")
		if ok && len(stamp) == len("20060102T150405Z") && strings.HasSuffix(stamp, "Z") && ent.Type().IsRegular() {
			names = append(names, ent.Name())
		}
	}
	slices.Sort(names)
	return names
}

// lastWritten is the content of target in the newest generation that
// holds it, or nil.
func (e *Engine) lastWritten(target string) []byte {
	gens, _ := e.history().List()
	for i := len(gens) - 1; i >= 0; i-- {
		if data, err := e.history().Content(gens[i], target); err == nil {
			return data
		}
	}
	return nil
}
