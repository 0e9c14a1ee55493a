package overlay

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nas-userscript/userscript/internal/history"
	"github.com/nas-userscript/userscript/internal/source"
	"github.com/nas-userscript/userscript/internal/state"
	"github.com/nas-userscript/userscript/internal/status"
	"github.com/nas-userscript/userscript/internal/tuning"
)

// SafeModeStarts is how many starts in a row may end without finishing
// their apply before the next one enters safe mode.
const SafeModeStarts = 3

// Apply applies conf.d (see apply), unless the owner switched userscript
// off (conf.d/DISABLE or DISABLE.txt, any content) or it is in safe mode
// (conf.d/SAFE-MODE): then it applies nothing, restarts nothing, undoes
// nothing, and every status file says why.
//
// When CountStart is set, this apply is a start (the boot's apply, a
// daemon's first): it is counted in state/starts before anything else
// and the count is cleared once it has ended, whatever its outcome. A
// start that never gets there (the device was reset, the engine was
// killed or hung) stays counted; after SafeModeStarts of them in a row
// the next start writes conf.d/SAFE-MODE and applies nothing.
func (e *Engine) Apply(ctx context.Context) (*Result, error) {
	if err := e.CheckDirs(); err != nil {
		return nil, err
	}
	counting := e.CountStart
	e.CountStart = false
	if why := e.Stopped(); why != "" {
		return e.stop(why), nil
	}
	if counting {
		if why := e.countStart(); why != "" {
			return e.stop(why), nil
		}
	}
	e.sweepStaging()
	res, err := e.apply(ctx)
	if counting {
		if err := e.state().SetStarts(0); err != nil {
			e.logger().Error("state/starts", "err", err)
		}
	}
	return res, err
}

// Stopped says why nothing may be applied now (conf.d/DISABLE, or
// conf.d/SAFE-MODE), or "".
func (e *Engine) Stopped() string {
	entries, err := e.Sys.ReadDir(e.confDir())
	if err != nil {
		return ""
	}
	for _, ent := range entries {
		if source.IsDisable(ent.Name()) {
			return fmt.Sprintf("conf.d/%s exists: userscript applies nothing, at boot or while the NAS runs, until you delete it", ent.Name())
		}
	}
	for _, ent := range entries {
		if strings.EqualFold(ent.Name(), source.SafeMode) {
			return fmt.Sprintf("conf.d/%s exists: userscript is in safe mode (that file says why) and applies nothing until you delete it", ent.Name())
		}
	}
	return ""
}

// stop writes why into the status of every target and tuning file that
// has sources or is managed, and applies nothing.
func (e *Engine) stop(why string) *Result {
	e.logger().Warn("nothing applied", "why", why)
	set, err := source.Scan(e.Sys, e.confDir(), func(string) bool { return false })
	if err != nil {
		return &Result{Stopped: why}
	}
	file := strings.Fields(why)[0]
	todo := fmt.Sprintf("delete %s to apply conf.d again: at once while userscript runs, else at the next boot; the files live now stay as they are (after a reboot, the firmware's own)", file)
	for _, name := range e.KnownNames() {
		srcs := set.ByTarget[name]
		if w, _ := e.state().Written(name); len(srcs) == 0 && w == "" {
			continue
		}
		r := &status.Report{Word: status.Disabled, File: "conf.d/" + name, Reason: why, Todo: todo, Time: e.Sys.Now()}
		for _, s := range Ordered(srcs) {
			r.Sources = append(r.Sources, s.File)
		}
		statusName := name
		if slices.Contains(tuning.Files, name) {
			statusName = tuning.StatusName(name)
		} else if t, ok := e.Profile.Target(name); ok {
			r.Target = t.Path
		}
		e.writeStatus(statusName, r)
	}
	return &Result{Stopped: why}
}

// countStart counts a start in state/starts; after SafeModeStarts
// unfinished ones it enters safe mode and says why.
func (e *Engine) countStart() string {
	st := e.state()
	n := st.Starts()
	if n < SafeModeStarts {
		if err := st.SetStarts(n + 1); err != nil {
			e.logger().Error("state/starts", "err", err)
		}
		return ""
	}
	if err := e.Sys.WriteFile(filepath.Join(e.confDir(), source.SafeMode), e.safeModeText(n), 0o644); err != nil {
		e.logger().Error("write conf.d/SAFE-MODE", "err", err)
	}
	if err := st.SetStarts(0); err != nil {
		e.logger().Error("state/starts", "err", err)
	}
	e.logger().Warn("safe mode: the last starts did not finish", "starts", n)
	return e.Stopped()
}

// safeModeText is conf.d/SAFE-MODE (CRLF, for Notepad).
func (e *Engine) safeModeText(n int) []byte {
	lines := []string{
		"userscript is in SAFE MODE: it applies nothing until you delete this file.",
		"",
		fmt.Sprintf("why: the last %d starts of userscript did not finish applying conf.d: each time the NAS was reset or switched off, or userscript crashed or hung, before it was done. Something in conf.d may be what brings the NAS down.", n),
		"since: " + e.Sys.Now().UTC().Format("2006-01-02 15:04:05 UTC"),
	}
	gens, _ := e.history().List()
	if len(gens) > 0 && gens[len(gens)-1].Result == history.Pending {
		g := gens[len(gens)-1]
		lines = append(lines, fmt.Sprintf("being applied then: generation %d (%s), never proved healthy", g.ID, strings.Join(g.Changed, ", ")))
	}
	lines = append(lines, "",
		"what to do: look at the status files in conf.d and at state/log; move the file you changed last out of conf.d; then delete this file. userscript applies conf.d again at once if it runs, else at the next boot.")
	return []byte(strings.Join(lines, "\r\n") + "\r\n")
}

// Starts is how many starts in a row did not finish (state/starts).
func (e *Engine) Starts() int { return e.state().Starts() }

// Uninstall switches userscript off and gives the device back to the
// firmware: it writes conf.d/DISABLE (first, so that a daemon still
// running applies nothing more), puts back the firmware's own files (a
// rollback to generation 0: their services restart once), releases the
// sources that rollback holds (deleting DISABLE applies conf.d again as
// it is), puts back the kernel values userscript changed, and says so in
// every status file. conf.d itself is left as it is.
func (e *Engine) Uninstall(ctx context.Context) (*Result, error) {
	if err := e.CheckDirs(); err != nil {
		return nil, err
	}
	text := "Written by `userscript uninstall` at " + e.Sys.Now().UTC().Format("2006-01-02 15:04:05 UTC") +
		": userscript applies nothing while this file exists.\r\nDelete it to switch userscript on again (at the next boot, or at once while it runs).\r\n"
	if err := e.Sys.WriteFile(filepath.Join(e.confDir(), source.Disable), []byte(text), 0o644); err != nil {
		return nil, fmt.Errorf("conf.d/DISABLE: %w", err)
	}
	var errs []error
	res, err := e.Rollback(ctx, 0)
	errs = append(errs, err)
	for _, t := range e.Profile.Targets {
		errs = append(errs, e.state().SetHeld(t.Name, state.Hold{}))
	}
	if _, err := e.Tuner().Revert(); err != nil {
		errs = append(errs, fmt.Errorf("kernel values: %w", err))
	}
	stopped := e.stop(e.Stopped())
	if res == nil {
		res = &Result{}
	}
	res.Stopped = stopped.Stopped
	return res, errors.Join(errs...)
}
