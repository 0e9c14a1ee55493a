package overlay

import (
	"path/filepath"

	"github.com/pmezard/go-difflib/difflib"
)

// captureDrift keeps a live file that something else (the firmware, its
// web GUI) wrote over ours: it is saved to conf.d/.captured/NAME.TIME for
// the owner to look at, and the difference to ours goes to the log.
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
