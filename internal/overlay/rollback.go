package overlay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/nas-userscript/userscript/internal/history"
	"github.com/nas-userscript/userscript/internal/state"
	"github.com/nas-userscript/userscript/internal/status"
	"github.com/nas-userscript/userscript/internal/system"
)

// Rollback makes generation id live again (0 means the firmware's own
// files, the bases; -1 means the previous good generation), restarts the
// services whose targets changed and records a new generation. The
// sources that were rolled back are held: they are not applied again
// until the user edits them.
func (e *Engine) Rollback(ctx context.Context, id int) (*Result, error) {
	recovered, err := e.recover(ctx)
	if err != nil {
		return nil, err
	}
	to, err := e.rollbackTarget(id)
	if err != nil {
		return nil, err
	}
	wants, err := e.rollbackContents(to)
	if err != nil {
		return nil, err
	}
	plan, err := e.Plan(false)
	if err != nil {
		return nil, err
	}
	fromID := 0
	if to != nil {
		fromID = to.ID
	}
	reason := fmt.Sprintf("rolled back to generation %d", fromID)
	if fromID == 0 {
		reason = "rolled back to the firmware's own file"
	}
	res := &Result{Restarts: recovered}
	var outs []*Outcome
	holds := map[string]state.Hold{}
	for _, it := range plan.Items {
		want, ok := wants[it.Target.Name]
		if !ok {
			continue
		}
		o := &Outcome{Item: it, Report: e.report(it)}
		res.Outcomes = append(res.Outcomes, o)
		if it.Problem == nil && len(it.Sources) > 0 && !bytes.Equal(it.Want, want) {
			holds[it.Target.Name] = state.Hold{Hash: Fingerprint(it.Sources), Word: status.Held, Reason: reason}
		}
		if it.LiveOK && bytes.Equal(it.Live, want) {
			continue
		}
		it.Want, it.Problem, it.Held = want, nil, false
		o.Report.Word, o.Report.Reason = status.Held, reason
		o.Report.Todo = fmt.Sprintf("edit %s and save it to apply it again", sourcesToFix(it))
		outs = append(outs, o)
	}
	if len(outs) == 0 {
		return res, e.holdLive(holds)
	}
	err = e.transact(ctx, res, outs, &history.Generation{Kind: history.Rollback, From: fromID}, holds)
	for _, o := range outs {
		e.writeStatus(o.Item.Target.Name, o.Report)
	}
	return res, err
}

// holdLive holds the sources of targets whose rolled-back content is
// live already: nothing is written, so nothing is left to prove.
func (e *Engine) holdLive(holds map[string]state.Hold) error {
	var errs []error
	for name, h := range holds {
		errs = append(errs, e.state().SetHeld(name, h))
	}
	return errors.Join(errs...)
}

// rollbackTarget is the generation id names (nil: the firmware's files).
func (e *Engine) rollbackTarget(id int) (*history.Generation, error) {
	hist := e.history()
	switch {
	case id < 0:
		gens, listErr := hist.List()
		g, err := history.Previous(gens)
		if err != nil {
			return nil, fmt.Errorf("%w; `userscript rollback 0` returns to the firmware's own files", errors.Join(err, listErr))
		}
		return g, nil
	case id > 0:
		g, err := hist.Get(id)
		if err != nil {
			return nil, fmt.Errorf("%w; `userscript history` lists the generations there are", err)
		}
		return g, nil
	}
	return nil, nil
}

// rollbackContents is every target's content in generation to (nil: the
// bases), with the bases for targets managed now that it does not hold.
func (e *Engine) rollbackContents(to *history.Generation) (map[string][]byte, error) {
	wants := map[string][]byte{}
	hist := e.history()
	if to != nil {
		for _, f := range to.Files {
			data, err := hist.Content(to, f.Name)
			if err != nil {
				return nil, err
			}
			wants[f.Name] = data
		}
	}
	st := e.state()
	for _, t := range e.Profile.Targets {
		if _, ok := wants[t.Name]; ok {
			continue
		}
		if w, _ := st.Written(t.Name); w == "" {
			continue
		}
		base, ok, err := st.Base(t.Name)
		if err != nil || !ok {
			return nil, fmt.Errorf("%s: the firmware's own file (state/base/%s) is missing, so it cannot be rolled back to; reboot the NAS to get it back", t.Path, t.Name)
		}
		wants[t.Name] = base
	}
	return wants, nil
}

// interrupted is the note of a generation that was pending at a start.
const interrupted = "interrupted before its services proved healthy (a crash, a stop or a power cut)"

// recover undoes what a crash, a kill or a power cut interrupted: a
// generation still pending was never proven healthy. Its targets that
// still hold its content get back what they held before, it is marked
// rejected, and its services are restarted at once, so that they run the
// committed files before the next transaction (which applies conf.d
// again and has to prove itself) observes them. A change interrupted
// twice in a row is held instead (it may be what brings the device
// down). It does nothing when none is pending, and returns the restarts
// it ran.
func (e *Engine) recover(ctx context.Context) ([]system.Exec, error) {
	gens, _ := e.history().List()
	if len(gens) == 0 || gens[len(gens)-1].Result != history.Pending {
		return nil, nil
	}
	g := gens[len(gens)-1]
	var errs []error
	for _, name := range g.Changed {
		errs = append(errs, e.undo(g, name))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("recovering interrupted generation %d: %w", g.ID, err)
	}
	if g.Kind == history.Rollback {
		if err := e.releaseRollbackHolds(g); err != nil {
			return nil, err
		}
	}
	again := len(gens) > 1 && interruptedAlike(gens[len(gens)-2], g)
	g.Result, g.Rejected, g.Note = history.Rejected, g.Changed, interrupted
	if err := e.history().Update(g); err != nil {
		return nil, fmt.Errorf("state/gen: recording that generation %d was interrupted: %w", g.ID, err)
	}
	e.recovered = map[string]string{}
	for _, name := range g.Changed {
		e.recovered[name] = fmt.Sprintf("generation %d was interrupted before its services proved healthy (a crash, a stop or a power cut): it was undone, and this start applied conf.d again", g.ID)
		if f, ok := g.File(name); ok && again && g.Kind == history.Apply {
			reason := fmt.Sprintf("generations %d and %d, the same change, were both interrupted before their services proved healthy: it is not tried again", g.ID-1, g.ID)
			if err := e.state().SetHeld(name, state.Hold{Hash: f.Hash, Word: status.Rejected, Reason: reason}); err != nil {
				return nil, err
			}
		}
	}
	e.logger().Warn("recover: undid an interrupted generation", "generation", g.ID, "held", again)
	return e.restartUndone(context.WithoutCancel(ctx), g), nil
}

// restartUndone restarts the services of the targets an interrupted
// generation g wrote and waits until each serves (proven as a
// transaction proves, against no earlier instance). Until then a service
// may still run g's files, or be down because of them (a power cut
// while it proved them leaves them on disk for the boot to start it
// with), and the next transaction would take that for how it was before
// the change: not serving, so judged by its restart's exit code alone.
// A service that does not serve with the committed files either is left
// so, with a warning: the next transaction judges it by its exit code;
// one with nothing to check it by is not waited for.
func (e *Engine) restartUndone(ctx context.Context, g *history.Generation) []system.Exec {
	var xs []system.Exec
	for _, name := range e.servicesOf(g.Changed) {
		svc := e.Profile.Services[name]
		x := e.restart(ctx, name)
		xs = append(xs, x)
		if !x.OK() {
			e.logger().Warn("recover: the committed files did not restart", "service", name, "why", restartFailure(x))
			continue
		}
		l := e.listenOf(svc, e.liveOf(name), false)
		if !e.checkable(svc, l) {
			continue
		}
		if err := e.prove(ctx, svc, observation{}, l); err != nil {
			e.logger().Warn("recover: not serving with the committed files", "service", name, "why", err.Error())
		}
	}
	return xs
}

// servicesOf is the services of targets, sorted, each once.
func (e *Engine) servicesOf(targets []string) []string {
	var names []string
	for _, name := range targets {
		t, ok := e.Profile.Target(name)
		if ok && t.Service != "" && !slices.Contains(names, t.Service) {
			names = append(names, t.Service)
		}
	}
	slices.Sort(names)
	return names
}

// liveOf is the live files of service's targets, as outcomes that wrote
// nothing: what listenOf reads the service's addresses from.
func (e *Engine) liveOf(service string) []*Outcome {
	var outs []*Outcome
	for _, t := range e.Profile.Targets {
		if t.Service != service {
			continue
		}
		data, err := e.Sys.ReadFile(e.Sys.Root(t.Path))
		if err == nil {
			outs = append(outs, &Outcome{Item: &Item{Target: t, Live: data, LiveOK: true}})
		}
	}
	return outs
}

// releaseRollbackHolds releases the holds an interrupted rollback g set
// before it could commit: undone, it holds nothing.
func (e *Engine) releaseRollbackHolds(g *history.Generation) error {
	for _, name := range g.Changed {
		h, err := e.state().Held(name)
		if err != nil {
			return err
		}
		if h.Word == status.Held {
			if err := e.state().SetHeld(name, state.Hold{}); err != nil {
				return err
			}
		}
	}
	return nil
}

// undo gives target back what it held before generation g, when it still
// holds what g wrote.
func (e *Engine) undo(g *history.Generation, name string) error {
	t, ok := e.Profile.Target(name)
	if !ok {
		return nil
	}
	f, managed := g.File(name)
	live := e.Sys.Root(t.Path)
	data, err := e.Sys.ReadFile(live)
	exists := err == nil
	if managed != exists || exists && state.Hash(data) != f.Hash {
		return nil // g's content is not live: nothing of it to undo
	}
	prev, had, err := e.history().Prev(g, name)
	if err != nil {
		return err
	}
	if !had {
		if err := e.Sys.Remove(live); err != nil {
			return err
		}
		return e.state().Forget(name)
	}
	if err := e.state().Expect(name, state.Hash(prev)); err != nil {
		return err
	}
	if err := e.Sys.WriteFile(live, prev, t.FileMode()); err != nil {
		return err
	}
	return e.state().SetWritten(name, state.Hash(prev))
}

// interruptedAlike reports whether a was interrupted too, writing the
// same content to the same targets as b.
func interruptedAlike(a, b *history.Generation) bool {
	if a.Note != interrupted || !slices.Equal(a.Changed, b.Changed) {
		return false
	}
	for _, name := range b.Changed {
		fa, oka := a.File(name)
		fb, okb := b.File(name)
		if oka != okb || fa.Hash != fb.Hash {
			return false
		}
	}
	return true
}
