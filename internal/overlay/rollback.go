package overlay

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/nas-userscript/userscript/internal/history"
	"github.com/nas-userscript/userscript/internal/state"
	"github.com/nas-userscript/userscript/internal/status"
)

// Rollback makes generation id live again (0 means the firmware's own
// files, the bases; -1 means the previous good generation), restarts the
// services whose targets changed and records a new generation. The
// sources that were rolled back are held: they are not applied again
// until the user edits them.
func (e *Engine) Rollback(ctx context.Context, id int) (*Result, error) {
	return e.rollback(ctx, id, status.Held, "")
}

// Recover finishes what a crash or power cut interrupted: when the newest
// generation is still pending (written, services not yet proven
// healthy), its files are replaced by the previous good generation's,
// the services restarted, the generation marked rejected and its sources
// held. It does nothing when no generation is pending.
func (e *Engine) Recover(ctx context.Context) (*Result, error) {
	gens, err := e.history().List()
	if len(gens) == 0 || gens[len(gens)-1].Result != history.Pending {
		return nil, err
	}
	last := gens[len(gens)-1]
	to := 0
	if prev, err := history.Previous(gens); err == nil {
		to = prev.ID
	}
	last.Result = history.Rejected
	last.Note = "interrupted before its services proved healthy (crash or power cut)"
	if err := e.history().Update(last); err != nil {
		return nil, err
	}
	e.logger().Warn("recover", "generation", last.ID, "to", to)
	reason := fmt.Sprintf("generation %d was interrupted before its services proved healthy (crash or power cut); generation %d was put back", last.ID, to)
	return e.rollback(ctx, to, status.Rejected, reason)
}

func (e *Engine) rollback(ctx context.Context, id int, word, reason string) (*Result, error) {
	hist := e.history()
	gens, listErr := hist.List()
	var to *history.Generation
	switch {
	case id < 0:
		g, err := history.Previous(gens)
		if err != nil {
			return nil, fmt.Errorf("%w; `userscript rollback 0` returns to the firmware's own files", errors.Join(err, listErr))
		}
		to = g
	case id > 0:
		g, err := hist.Get(id)
		if err != nil {
			return nil, fmt.Errorf("%w; `userscript history` lists the generations there are", err)
		}
		to = g
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
	res := &Result{}
	var outs []*Outcome
	for _, it := range plan.Items {
		want, ok := wants[it.Target.Name]
		if !ok {
			continue
		}
		o := &Outcome{Item: it, Report: e.report(it)}
		res.Outcomes = append(res.Outcomes, o)
		if it.Problem == nil && !bytes.Equal(it.Want, want) {
			if err := e.state().SetHeld(it.Target.Name, state.Hash(it.Want)); err != nil {
				return nil, err
			}
		}
		if it.LiveOK && bytes.Equal(it.Live, want) {
			continue
		}
		it.Want, it.Problem, it.Held = want, nil, false
		o.Report.Word, o.Report.Reason = word, reason
		if reason == "" {
			o.Report.Reason = fmt.Sprintf("rolled back to generation %d", fromID)
		}
		if reason == "" && fromID == 0 {
			o.Report.Reason = "rolled back to the firmware's own file"
		}
		o.Report.Todo = fmt.Sprintf("edit conf.d/%s and save it to apply it again", it.Target.Name)
		outs = append(outs, o)
	}
	if len(outs) == 0 {
		return res, nil
	}
	err = e.commit(ctx, res, outs, &history.Generation{Kind: "rollback", From: fromID})
	for _, o := range outs {
		e.writeStatus(o.Item.Target.Name, o.Report)
	}
	return res, err
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
