package overlay

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"

	"github.com/nas-userscript/userscript/internal/history"
	"github.com/nas-userscript/userscript/internal/state"
	"github.com/nas-userscript/userscript/internal/status"
)

// committed is, by target, the generation holding its last committed
// content (history.Committed).
func (e *Engine) committed() map[string]*history.Generation {
	gens, _ := e.history().List()
	return history.Committed(gens)
}

// sameContent reports whether generation g holds data for target.
func sameContent(g *history.Generation, target string, data []byte) bool {
	if g == nil {
		return false
	}
	f, ok := g.File(target)
	return ok && f.Hash == state.Hash(data)
}

// committedContent is the target's last committed content, with the
// generation holding it; without one, the firmware's own file (the
// base) and id 0.
func (e *Engine) committedContent(it *Item) ([]byte, int, error) {
	if g := e.committed()[it.Target.Name]; g != nil {
		data, err := e.history().Content(g, it.Target.Name)
		return data, g.ID, err
	}
	return it.Base, 0, nil
}

// holdBack handles a target whose sources are held (rejected,
// interrupted or rolled back): they are not applied, and the last
// committed content is live instead — after a reboot the firmware has
// put its ROM file back, and the boot must not leave it there. It reports
// whether the item must be written.
func (e *Engine) holdBack(o *Outcome) bool {
	it := o.Item
	hold, err := e.state().Held(it.Target.Name)
	if err != nil {
		o.Report.Word, o.Report.Reason = status.Failed, err.Error()
		return false
	}
	want, gen, err := e.committedContent(it)
	if err != nil {
		o.Report.Word = status.Failed
		o.Report.Reason = fmt.Sprintf("%v; the held sources are not applied and the live file was left as it is", err)
		return false
	}
	o.Report.Word, o.Report.Reason = hold.Word, hold.Reason
	if o.Report.Word == "" {
		o.Report.Word = status.Held
		o.Report.Reason = "rolled back; the live file is an earlier generation"
	}
	o.Report.Todo = heldTodo(it)
	if it.LiveOK && bytes.Equal(it.Live, want) {
		if status.Read(e.Sys, e.statusPath(it.Target.Name)) == o.Report.Word {
			o.Report = nil // it already says so
		}
		return false
	}
	it.Want, o.restore = want, true
	o.Report.Reason += fmt.Sprintf("; %s is live again at this start", committedName(gen))
	return true
}

// keepCommitted handles a target whose sources were refused: its last
// committed content stays live. When the live file is not that content
// (a boot after the ROM was restored, the web GUI rewrote it), it is put
// back, not validated again and not recorded again; without committed
// content the live file stays as it is. It reports whether the item must
// be written.
func (e *Engine) keepCommitted(o *Outcome) bool {
	it := o.Item
	if len(it.Sources) == 0 || e.Paused[it.Target.Name] != "" {
		return false // a paused target is left to whatever rewrites it
	}
	if fi, err := e.Sys.Lstat(it.LivePath); err == nil && !fi.Mode().IsRegular() || err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false // never written over: not a regular file
	}
	g := e.committed()[it.Target.Name]
	if g == nil {
		return false
	}
	want, err := e.history().Content(g, it.Target.Name)
	if err != nil || it.LiveOK && bytes.Equal(it.Live, want) {
		return false
	}
	it.Want, o.restore = want, true
	o.Report.Todo = fmt.Sprintf("fix %s and save it again; until then generation %d, the last version that worked, stays live", toFix(it, o.Report.Reason), g.ID)
	o.Report.Reason += fmt.Sprintf("; %s is live again at this start", committedName(g.ID))
	return true
}

// heldTodo is what to do about held sources: edit one, or delete them.
func heldTodo(it *Item) string {
	them := "it"
	if len(it.Sources) > 1 {
		them = "them"
	}
	return fmt.Sprintf("edit %s and save it to apply it again, or delete %s to return to the firmware's file", sourcesToFix(it), them)
}

func committedName(gen int) string {
	if gen == 0 {
		return "the firmware's own file"
	}
	return fmt.Sprintf("generation %d", gen)
}
