package overlay

import (
	"context"
	"errors"
	"fmt"

	"github.com/nas-userscript/userscript/internal/status"
)

// Validate validates every target as it would be applied, writes the
// status files and changes nothing else; a held target keeps its status. The error wraps ErrRefused when
// a source was refused.
func (e *Engine) Validate(ctx context.Context) ([]*status.Report, error) {
	plan, err := e.Plan(false)
	if err != nil {
		return nil, err
	}
	var reports []*status.Report
	var outs []*Outcome
	var errs []error
	for _, it := range plan.Items {
		if it.Held {
			// Held sources are not live: their REJECTED or HELD status
			// stays, as the next apply would leave it.
			r := status.ReadReport(e.Sys, e.statusPath(it.Target.Name))
			reports = append(reports, &r)
			continue
		}
		o := &Outcome{Item: it, Report: e.report(it)}
		outs = append(outs, o)
		if it.Problem != nil {
			o.Report.Word, o.Report.Reason = status.Refused, it.Problem.Error()
		} else if !e.validate(ctx, o) {
			o.Report.Word = status.Refused
		}
		if o.Report.Word != status.Refused && it.Changed() {
			o.Report.Reason = "valid, not applied yet: run userscript apply"
		}
		if o.Report.Word == status.Refused {
			errs = append(errs, fmt.Errorf("%s: %w: %s", it.Target.Name, ErrRefused, o.Report.Reason))
		}
		reports = append(reports, o.Report)
	}
	e.writeStatuses(outs, plan)
	return reports, errors.Join(errs...)
}
