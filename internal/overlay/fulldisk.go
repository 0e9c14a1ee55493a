package overlay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/nas-userscript/userscript/internal/status"
)

// RestoreCommitted is the boot of a device whose data disk is full (the
// lock cannot be made, why says so): nothing new is applied, but every
// target with sources gets its last committed content back over what
// the firmware restored, since that needs no new bytes on the data disk.
// No generation is recorded and state/ is not written; each affected
// service restarts once (its output is not kept); a status is written
// wherever one still can be.
func (e *Engine) RestoreCommitted(ctx context.Context, why string) (*Result, error) {
	plan, err := e.Plan(false)
	if err != nil {
		return nil, err
	}
	res := &Result{}
	committed := e.committed()
	var services []string
	var errs []error
	for _, it := range plan.Items {
		g := committed[it.Target.Name]
		if len(it.Sources) == 0 || g == nil {
			continue
		}
		want, err := e.history().Content(g, it.Target.Name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		o := &Outcome{Item: it, Report: e.report(it)}
		res.Outcomes = append(res.Outcomes, o)
		o.Report.Word, o.Report.Generation = status.Failed, g.ID
		o.Report.Reason = fmt.Sprintf("%s: nothing new is applied; generation %d, the last version that worked, is live", why, g.ID)
		o.Report.Todo = "free some space on the data disk, then save the file again"
		if it.LiveOK && bytes.Equal(it.Live, want) {
			continue
		}
		if err := e.Sys.WriteFile(it.LivePath, want, it.Target.FileMode()); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", it.Target.Path, err))
			continue
		}
		o.Written = true
		o.Report.Reason = fmt.Sprintf("%s: nothing new is applied; generation %d is live again at this start", why, g.ID)
		if s := it.Target.Service; s != "" && !slices.Contains(services, s) {
			services = append(services, s)
		}
	}
	slices.Sort(services)
	for _, name := range services {
		x := e.restartTo(context.WithoutCancel(ctx), name, "")
		res.Restarts = append(res.Restarts, x)
		if !x.OK() {
			errs = append(errs, fmt.Errorf("service %s: %s", name, restartFailure(x)))
		}
	}
	for _, o := range res.Outcomes {
		e.writeStatus(o.Item.Target.Name, o.Report)
	}
	return res, errors.Join(append([]error{errors.New(why)}, errs...)...)
}
