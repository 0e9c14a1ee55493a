package overlay

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nas-userscript/userscript/internal/history"
	"github.com/nas-userscript/userscript/internal/profile"
	"github.com/nas-userscript/userscript/internal/state"
	"github.com/nas-userscript/userscript/internal/status"
	"github.com/nas-userscript/userscript/internal/system"
)

// ErrRefused is wrapped by Apply's error when a validator refused a source.
var ErrRefused = errors.New("refused")

// An Outcome is what became of one target.
type Outcome struct {
	Item    *Item
	Report  *status.Report
	Written bool
}

// A Result is what one apply did.
type Result struct {
	Outcomes   []*Outcome
	Generation *history.Generation // nil when nothing was written
	Restarts   []system.Exec
}

// Apply validates every changed target, writes the good ones, restarts
// each affected service once, records a generation and writes the status
// files. The error wraps ErrRefused when a source was refused.
func (e *Engine) Apply(ctx context.Context) (*Result, error) {
	plan, err := e.Plan(true)
	if err != nil {
		return nil, err
	}
	res := &Result{}
	var errs []error
	var toWrite []*Outcome
	for _, it := range plan.Items {
		o := &Outcome{Item: it, Report: e.report(it)}
		res.Outcomes = append(res.Outcomes, o)
		if it.Drifted && e.CaptureDrift && e.Paused[it.Target.Name] == "" {
			e.captureDrift(it)
		}
		switch {
		case it.Problem != nil:
			o.Report.Word, o.Report.Reason = status.Refused, it.Problem.Error()
			o.Report.Todo = fmt.Sprintf("fix what the reason says and save the file again; %s was not changed", it.Target.Path)
			errs = append(errs, fmt.Errorf("%s: %w: %w", it.Target.Name, ErrRefused, it.Problem))
			e.logger().Warn("refused", "target", it.Target.Name, "reason", it.Problem.Error())
		case it.Held:
			e.held(o)
		case !it.Changed():
			e.keepStatus(ctx, o)
		default:
			if e.validate(ctx, o) {
				toWrite = append(toWrite, o)
			} else {
				errs = append(errs, fmt.Errorf("%s: %w: %s", it.Target.Name, ErrRefused, o.Report.Reason))
			}
		}
	}
	e.tune(plan.Tuning)
	if len(toWrite) > 0 {
		if err := e.commit(ctx, res, toWrite, &history.Generation{Kind: "apply"}); err != nil {
			errs = append(errs, err)
		}
	}
	e.writeStatuses(res.Outcomes, plan)
	return res, errors.Join(errs...)
}

// report starts the status report of an item.
func (e *Engine) report(it *Item) *status.Report {
	r := &status.Report{
		File:    "conf.d/" + it.Target.Name,
		Target:  it.Target.Path,
		Sources: it.SourceFiles(),
		Time:    e.Sys.Now(),
	}
	if len(it.Sources) == 0 {
		r.Reason = "no source in conf.d any more: the firmware's own file is live again"
	}
	return r
}

// keepStatus handles a target that is already live: its status file is
// left alone when it already says so; otherwise it is validated again so
// the status tells the truth.
func (e *Engine) keepStatus(ctx context.Context, o *Outcome) {
	it := o.Item
	if it.LiveOK && (it.Captured || len(it.Sources) == 0) {
		// The live file already is the target: mark it ours, so the next
		// run does not take it for the firmware's (or, without sources,
		// let it go).
		if err := e.mark(it, it.Live); err != nil {
			e.logger().Error("record written hash", "target", it.Target.Name, "err", err)
		}
	}
	switch status.Read(e.Sys, e.statusPath(it.Target.Name)) {
	case status.OK, status.NotValidated:
		o.Report = nil // nothing to say that the file does not say
		return
	}
	e.validate(ctx, o)
}

// mark records that data is now live at the item's target: ours when it
// has sources, the firmware's again when its sources are gone.
func (e *Engine) mark(it *Item, data []byte) error {
	if len(it.Sources) == 0 {
		return e.state().Forget(it.Target.Name)
	}
	return e.state().SetWritten(it.Target.Name, state.Hash(data))
}

// held reports a target whose sources were rolled back, unless its
// status file already says why (REJECTED, HELD).
func (e *Engine) held(o *Outcome) {
	switch status.Read(e.Sys, e.statusPath(o.Item.Target.Name)) {
	case status.Rejected, status.Held:
		o.Report = nil
		return
	}
	o.Report.Word = status.Held
	o.Report.Reason = "rolled back; the live file is an earlier generation"
	o.Report.Todo = fmt.Sprintf("edit conf.d/%s and save it to apply it again, or delete it to return to the firmware's file", o.Item.Target.Name)
}

// validate checks the item's target in a private staging folder and fills
// in the report. It reports whether the target may be written.
func (e *Engine) validate(ctx context.Context, o *Outcome) bool {
	it, r := o.Item, o.Report
	kind := it.Target.Validator
	if kind == profile.ValidateNone {
		r.Word, r.Reason = status.NotValidated, "not validated: no validator for this target"
		return true
	}
	dir, err := os.MkdirTemp("", "userscript-stage-")
	if err != nil {
		r.Word, r.Reason = status.Failed, "staging: "+err.Error()
		return false
	}
	defer os.RemoveAll(dir)
	staged := filepath.Join(dir, it.Target.Name)
	if err := os.WriteFile(staged, it.Want, 0o600); err != nil {
		r.Word, r.Reason = status.Failed, "staging: "+err.Error()
		return false
	}
	v := e.check(ctx, kind, staged)
	for _, x := range v.Execs {
		// The validator's own output is not logged: it can quote files the
		// candidate includes (the log is on the share); its verdict is.
		e.logger().Info("exec", "argv", strings.Join(x.Argv, " "), "exit", x.ExitCode, "err", errString(x.Err))
	}
	r.Validated = v.Tool
	r.Warnings = v.Warnings
	r.Notes = v.Notes
	switch {
	case v.Refused:
		r.Word, r.Reason = status.Refused, v.Reason
		r.Todo = fmt.Sprintf("fix conf.d/%s and save it again; %s was not changed", sourceToFix(it), it.Target.Path)
		e.logger().Warn("validation refused", "target", it.Target.Name, "tool", v.Tool, "reason", v.Reason)
		return false
	case !v.Validated:
		r.Word, r.Reason = status.NotValidated, v.Reason
	default:
		r.Word = status.OK
	}
	e.logger().Info("validated", "target", it.Target.Name, "tool", v.Tool, "warnings", len(v.Warnings))
	return true
}

// sourceToFix names the source the user most likely has to edit.
func sourceToFix(it *Item) string {
	if len(it.Sources) == 0 {
		return it.Target.Name
	}
	return it.Sources[len(it.Sources)-1].File
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// commit writes the items' targets, records gen as pending, restarts the
// affected services once each and records the result.
func (e *Engine) commit(ctx context.Context, res *Result, outs []*Outcome, gen *history.Generation) error {
	id, err := e.history().Next()
	if err != nil {
		return fmt.Errorf("state/gen: %w", err)
	}
	gen.ID, gen.Time, gen.Result = id, e.Sys.Now(), history.Pending
	var errs []error
	var services []string
	for _, o := range outs {
		it := o.Item
		if err := e.Sys.MkdirAll(filepath.Dir(it.LivePath), 0o755); err != nil {
			errs = append(errs, e.failed(o, err))
			continue
		}
		if len(it.Sources) > 0 {
			if err := e.state().Expect(it.Target.Name, state.Hash(it.Want)); err != nil {
				errs = append(errs, e.failed(o, err))
				continue
			}
		}
		if err := e.Sys.WriteFile(it.LivePath, it.Want, 0o644); err != nil {
			errs = append(errs, e.failed(o, err))
			continue
		}
		if err := e.mark(it, it.Want); err != nil {
			errs = append(errs, fmt.Errorf("%s: recording what was written: %w", it.Target.Name, err))
		}
		if gen.Kind == "apply" {
			if err := e.state().SetHeld(it.Target.Name, ""); err != nil {
				errs = append(errs, err)
			}
		}
		o.Written = true
		o.Report.Generation = id
		gen.Changed = append(gen.Changed, it.Target.Name)
		e.logger().Info("wrote", "target", it.Target.Name, "path", it.Target.Path, "hash", state.Hash(it.Want), "bytes", len(it.Want))
		if s := it.Target.Service; s != "" && !slices.Contains(services, s) {
			services = append(services, s)
		}
	}
	if len(gen.Changed) == 0 {
		return errors.Join(errs...)
	}
	if err := e.record(gen); err != nil {
		errs = append(errs, err)
	}
	res.Generation = gen
	slices.Sort(services)
	gen.Result = history.OK
	// A service that was not serving before (the owner does not use NFS,
	// say) cannot prove the new files wrong by not serving after.
	servingBefore := map[string]bool{}
	if e.Confirm {
		for _, name := range services {
			servingBefore[name] = e.probe(ctx, e.Profile.Services[name]) == ""
			if !servingBefore[name] {
				e.logger().Info("service was not serving before the restart; its health is not checked", "service", name)
			}
		}
	}
	for _, name := range services {
		x := e.restart(ctx, name)
		res.Restarts = append(res.Restarts, x)
		gen.Restarted = append(gen.Restarted, name)
		why := ""
		if !x.OK() {
			why = restartFailure(x)
		} else if e.Confirm && servingBefore[name] {
			if err := e.healthy(ctx, e.Profile.Services[name]); err != nil {
				why = fmt.Sprintf("%s did not prove healthy: %v", name, err)
			}
		}
		if why == "" {
			continue
		}
		errs = append(errs, fmt.Errorf("service %s: %s", name, why))
		if e.Confirm {
			gen.Result = history.Rejected
			errs = append(errs, e.reject(ctx, res, outs, name, why))
			continue
		}
		gen.Result = history.Failed
		for _, o := range outs {
			if o.Written && o.Item.Target.Service == name {
				o.Report.Word = status.Failed
				o.Report.Reason = fmt.Sprintf("written, but restarting %s failed: %s", name, why)
				o.Report.Todo = "look at the service's own log; `userscript rollback` returns to the previous generation"
			}
		}
	}
	if err := e.history().Update(gen); err != nil {
		errs = append(errs, err)
	}
	if err := e.history().Prune(); err != nil {
		e.logger().Warn("prune history", "err", err)
	}
	e.logger().Info(gen.Kind, "generation", id, "from", gen.From, "changed", strings.Join(gen.Changed, " "), "restarted", strings.Join(gen.Restarted, " "), "result", gen.Result)
	return errors.Join(errs...)
}

// reject puts back what was live before this apply for every target of
// service, holds their sources until they are edited, and restarts the
// service again.
func (e *Engine) reject(ctx context.Context, res *Result, outs []*Outcome, service, why string) error {
	var errs []error
	for _, o := range outs {
		it := o.Item
		if !o.Written || it.Target.Service != service {
			continue
		}
		var err error
		if it.LiveOK {
			err = e.Sys.WriteFile(it.LivePath, it.Live, 0o644)
		} else {
			err = e.Sys.Remove(it.LivePath)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: putting the previous file back: %w", it.Target.Path, err))
			continue
		}
		if it.LiveOK {
			errs = append(errs, e.state().SetWritten(it.Target.Name, state.Hash(it.Live)))
		} else {
			errs = append(errs, e.state().Forget(it.Target.Name))
		}
		errs = append(errs, e.state().SetHeld(it.Target.Name, state.Hash(it.Want)))
		o.Report.Word = status.Rejected
		o.Report.Reason = fmt.Sprintf("applied, but %s; the previous file was put back", why)
		o.Report.Todo = fmt.Sprintf("fix conf.d/%s and save it again; it is not applied again until it changes", sourceToFix(it))
		e.logger().Warn("rejected", "target", it.Target.Name, "service", service, "why", why)
	}
	x := e.restart(ctx, service)
	res.Restarts = append(res.Restarts, x)
	if !x.OK() {
		errs = append(errs, fmt.Errorf("service %s: restarting with the previous files: %s", service, restartFailure(x)))
	}
	return errors.Join(errs...)
}

func (e *Engine) failed(o *Outcome, err error) error {
	o.Report.Word = status.Failed
	o.Report.Reason = err.Error()
	o.Report.Todo = "the live file was not changed; check the device's free space and permissions, then save the source again"
	e.logger().Error("write", "target", o.Item.Target.Name, "err", err)
	return fmt.Errorf("%s: %w", o.Item.Target.Name, err)
}

func restartFailure(x system.Exec) string {
	why := fmt.Sprintf("%s exited %d", filepath.Base(x.Argv[0]), x.ExitCode)
	if x.Err != nil {
		why = fmt.Sprintf("%s: %v", filepath.Base(x.Argv[0]), x.Err)
	}
	if x.Output != "" {
		why += ": " + lastLine(x.Output)
	}
	return why
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// restart runs a service's restart command with its timeout.
func (e *Engine) restart(ctx context.Context, name string) system.Exec {
	svc := e.Profile.Services[name]
	ctx, cancel := context.WithTimeout(ctx, svc.Timeout)
	defer cancel()
	x := e.Sys.Run(ctx, svc.Restart)
	e.logger().Info("exec", "service", name, "argv", strings.Join(svc.Restart, " "), "exit", x.ExitCode, "err", errString(x.Err), "output", x.Output, "took", x.Duration.String())
	return x
}

// record stores gen with the content of every target userscript manages
// now.
func (e *Engine) record(gen *history.Generation) error {
	contents := map[string][]byte{}
	st := e.state()
	for _, t := range e.Profile.Targets {
		w, err := st.Written(t.Name)
		if err != nil || w == "" {
			continue
		}
		data, err := e.Sys.ReadFile(e.Sys.Root(t.Path))
		if err != nil || state.Hash(data) != w {
			continue // drifted or gone: nothing of ours to keep
		}
		contents[t.Name] = data
		gen.Files = append(gen.Files, history.File{Name: t.Name, Path: t.Path, Hash: w, Size: len(data)})
	}
	return e.history().Record(gen, contents)
}

// maxUnknownStatus bounds the UNKNOWN status files one apply writes: ten
// thousand stray files must not keep the lock for minutes.
const maxUnknownStatus = 20

// writeStatuses writes every report, and one for each source that names
// no target.
func (e *Engine) writeStatuses(outs []*Outcome, plan *Plan) {
	for _, o := range outs {
		if o.Report == nil || o.Report.Word == "" {
			continue
		}
		e.writeStatus(o.Item.Target.Name, o.Report)
	}
	written := 0
	for _, src := range plan.Unknown {
		if written == maxUnknownStatus {
			e.logger().Warn("more files name no target; no status files written for them", "count", len(plan.Unknown)-maxUnknownStatus)
			break
		}
		if profile.CheckName(src.Target) != nil {
			e.logger().Warn("ignored a file with an unusable name", "file", src.File)
			continue
		}
		e.writeStatus(src.Target, &status.Report{
			Word:    status.Unknown,
			File:    "conf.d/" + src.File,
			Reason:  fmt.Sprintf("conf.d/%s: no such target in profile %s", src.File, e.Profile.Name),
			Time:    e.Sys.Now(),
			Todo:    fmt.Sprintf("rename it to one of: %s; or add the target to userscript.toml", strings.Join(e.targetNames(), ", ")),
			Sources: []string{src.File},
		})
		e.logger().Warn("no such target", "file", src.File, "profile", e.Profile.Name)
		written++
	}
}

func (e *Engine) writeStatus(target string, r *status.Report) {
	if err := status.Write(e.Sys, e.statusPath(target), r); err != nil {
		e.logger().Error("status", "target", target, "err", err)
	}
}

func (e *Engine) targetNames() []string {
	var names []string
	for _, t := range e.Profile.Targets {
		names = append(names, t.Name)
	}
	return names
}
