package overlay

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nas-userscript/userscript/internal/history"
	"github.com/nas-userscript/userscript/internal/profile"
	"github.com/nas-userscript/userscript/internal/source"
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
	// restore marks a held target whose last committed content is put
	// back: its sources stay held.
	restore bool
}

// A Result is what one apply did.
type Result struct {
	Outcomes   []*Outcome
	Generation *history.Generation // nil when nothing was written
	Restarts   []system.Exec
	// Stopped says why nothing was applied at all: conf.d/DISABLE or
	// conf.d/SAFE-MODE (see Apply).
	Stopped string
}

// apply recovers an interrupted transaction, validates every changed
// target and applies the good ones in one transaction (see transact),
// then writes the status files. A held target gets its last committed
// content back. The error wraps ErrRefused when a source was refused.
func (e *Engine) apply(ctx context.Context) (*Result, error) {
	recovered, err := e.recover(ctx)
	if err != nil {
		return nil, err
	}
	e.sweepTornTargets()
	plan, err := e.Plan(true)
	if err != nil {
		return nil, err
	}
	res := &Result{Restarts: recovered}
	var errs []error
	var toWrite []*Outcome
	full := e.diskFull()
	committed := e.committed()
	for _, it := range plan.Items {
		o := &Outcome{Item: it, Report: e.report(it)}
		res.Outcomes = append(res.Outcomes, o)
		if it.Drifted && e.CaptureDrift && e.Paused[it.Target.Name] == "" {
			e.captureDrift(it)
		}
		switch {
		case it.Problem != nil:
			errs = append(errs, e.refuse(o, it.Problem.Error()))
			if e.keepCommitted(o) {
				toWrite = append(toWrite, o)
			}
		case it.Held:
			if e.holdBack(o) {
				toWrite = append(toWrite, o)
			}
		case !it.Changed():
			e.endHold(it)
			e.keepStatus(ctx, o)
		case sameContent(committed[it.Target.Name], it.Target.Name, it.Want):
			// A boot after the ROM was restored: this content was
			// validated and proven when it was committed.
			e.recommit(o)
			toWrite = append(toWrite, o)
		case full != "":
			o.Report.Word, o.Report.Reason, o.Report.Todo = status.Failed, full, "free some space on the data disk, then save the file again"
			errs = append(errs, fmt.Errorf("%s: %s", it.Target.Name, full))
		case e.validate(ctx, o):
			toWrite = append(toWrite, o)
		default:
			errs = append(errs, fmt.Errorf("%s: %w: %s", it.Target.Name, ErrRefused, o.Report.Reason))
			if e.keepCommitted(o) {
				toWrite = append(toWrite, o)
			}
		}
	}
	e.tune(plan.Tuning)
	if err := ctx.Err(); err != nil && len(toWrite) > 0 {
		// Stopped before the transaction began: nothing is written, the
		// next start applies conf.d.
		return res, err
	}
	if len(toWrite) > 0 {
		if err := e.transact(ctx, res, toWrite, &history.Generation{Kind: history.Apply}, nil); err != nil {
			errs = append(errs, err)
		}
	}
	e.writeStatuses(res.Outcomes, plan)
	e.recovered = nil
	return res, errors.Join(errs...)
}

// recommit reports a target that gets content the last committed
// generation holds: not validated again, so its status keeps what the
// validation said when it was committed (the word, the validator, its
// warnings); its file is rewritten only when more than that changed.
func (e *Engine) recommit(o *Outcome) {
	old := status.ReadReport(e.Sys, e.statusPath(o.Item.Target.Name))
	r := o.Report
	r.Word, r.Validated = status.OK, old.Validated
	if old.Word == status.NotValidated {
		r.Word = status.NotValidated
		r.Reason = cmp.Or(r.Reason, old.Reason, "not validated when it was committed")
	}
	for _, w := range old.Warnings {
		if !slices.Contains(r.Warnings, w) {
			r.Warnings = append(r.Warnings, w)
		}
	}
}

// minFree is the free space (for the owner, not root) below which the
// data disk counts as full: a source copied onto a full disk may be cut
// short, so nothing new is applied until there is room again.
const minFree = 64 << 10

// diskFull says why the data disk counts as full, or "".
func (e *Engine) diskFull() string {
	free, err := e.Sys.Free(e.confDir())
	if err != nil || free >= minFree {
		return ""
	}
	return fmt.Sprintf("data disk full (%d bytes free): a file copied into conf.d now may be cut short, so nothing new is applied", free)
}

// refuse reports a target whose sources cannot be applied.
func (e *Engine) refuse(o *Outcome, why string) error {
	it := o.Item
	o.Report.Word, o.Report.Reason = status.Refused, why
	if f := namedSource(it, why); f != "" {
		o.Report.File = "conf.d/" + f
	}
	o.Report.Line = offendingLine(it, why)
	o.Report.Todo = fmt.Sprintf("fix what the reason says and save the file again; %s was not changed", it.Target.Path)
	e.logger().Warn("refused", "target", it.Target.Name, "reason", why)
	return fmt.Errorf("%s: %w: %s", it.Target.Name, ErrRefused, why)
}

// report starts the status report of an item.
func (e *Engine) report(it *Item) *status.Report {
	r := &status.Report{
		File:    "conf.d/" + firstSource(it),
		Target:  it.Target.Path,
		Sources: it.SourceFiles(),
		Time:    e.Sys.Now(),
	}
	if len(it.Sources) == 0 {
		r.Reason = "no source in conf.d any more: the firmware's own file is live again"
	}
	r.Warnings = append(r.Warnings, it.Warnings...)
	r.Notes = append(r.Notes, e.Notes...)
	notes, diff := e.rebaseNotes(it)
	r.Notes, r.Diff = append(r.Notes, notes...), diff
	for _, s := range it.Sources {
		if s.Encoding != "" {
			r.Notes = append(r.Notes, source.EncodingNote(s.File, s.Encoding))
		}
		if note := e.Writing[s.File]; note != "" {
			r.Notes = append(r.Notes, note)
		}
	}
	if note := e.recovered[it.Target.Name]; note != "" {
		r.Notes = append(r.Notes, note)
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
		if e.recovered[it.Target.Name] == "" {
			o.Report = nil // nothing to say that the file does not say
			return
		}
	}
	e.validate(ctx, o)
}

// endHold releases a hold on sources the owner has edited since, now that
// what they give is live already: nothing is written, so no commit
// releases it, and a later save of the held version is a new edit.
func (e *Engine) endHold(it *Item) {
	if !it.heldBefore {
		return
	}
	if err := e.state().SetHeld(it.Target.Name, state.Hold{}); err != nil {
		e.logger().Error("release hold", "target", it.Target.Name, "err", err)
	}
}

// mark records that data is now live at the item's target: ours when it
// has sources (or is a held target's committed content), the firmware's
// again when its sources are gone.
func (e *Engine) mark(it *Item, data []byte) error {
	if len(it.Sources) == 0 {
		return e.state().Forget(it.Target.Name)
	}
	return e.state().SetWritten(it.Target.Name, state.Hash(data))
}

// validate checks the item's target in a private staging folder and fills
// in the report. It reports whether the target may be written.
func (e *Engine) validate(ctx context.Context, o *Outcome) bool {
	it, r := o.Item, o.Report
	if why := emptyRefusal(it); why != "" {
		r.Word, r.Reason = status.Refused, why
		r.Todo = fmt.Sprintf("copy the whole file into conf.d/%s again; %s was not changed", sourceToFix(it), it.Target.Path)
		return false
	}
	kind := it.Target.Validator
	if kind == profile.ValidateNone {
		r.Word, r.Reason = status.NotValidated, "not validated: no validator for this target"
		return true
	}
	dir, err := e.stageDir()
	if err != nil {
		r.Word, r.Reason = status.Failed, "staging: "+err.Error()
		return false
	}
	defer e.Sys.RemoveAll(dir)
	staged := filepath.Join(dir, it.Target.Name)
	if err := e.Sys.WriteFile(staged, it.Want, 0o600); err != nil {
		r.Word, r.Reason = status.Failed, "staging: "+err.Error()
		return false
	}
	// A stop does not cut a validator short: that would refuse a good
	// file. Each validator has its own timeout.
	v := e.check(context.WithoutCancel(ctx), kind, staged)
	for _, x := range v.Execs {
		// The validator's own output is not logged: it can quote files the
		// candidate includes (the log is on the share); its verdict is.
		e.logger().Info("exec", "argv", strings.Join(x.Argv, " "), "exit", x.ExitCode, "err", errString(x.Err))
	}
	r.Validated = v.Tool
	if secs := shareSections(it); len(secs) > 0 {
		r.Notes = append(r.Notes, shareNote(it.Target.Name, secs))
	}
	r.Warnings = append(r.Warnings, v.Warnings...)
	r.Notes = append(r.Notes, v.Notes...)
	switch {
	case v.Refused:
		r.Word, r.Reason = status.Refused, v.Reason
		r.Line = offendingLine(it, v.Reason)
		r.Todo = fmt.Sprintf("fix %s and save it again; %s was not changed", sourcesToFix(it), it.Target.Path)
		e.logger().Warn("validation refused", "target", it.Target.Name, "tool", v.Tool, "reason", v.Reason)
		return false
	case v.NotFound && it.Target.Checked:
		r.Word = status.Refused
		r.Reason = fmt.Sprintf("%s is not on this device (looked in %s and PATH), so the file was not applied unchecked", kind, strings.Join(e.Profile.Tools[kind], ", "))
		r.Todo = fmt.Sprintf("install the firmware's %s, or set validator = \"none\" under [targets.%q] in userscript.toml to apply %s unchecked; %s was not changed", kind, it.Target.Name, it.Target.Name, it.Target.Path)
		e.logger().Warn("validation refused", "target", it.Target.Name, "reason", r.Reason)
		return false
	case !v.Validated:
		r.Word, r.Reason = status.NotValidated, v.Reason
	default:
		r.Word = status.OK
	}
	e.logger().Info("validated", "target", it.Target.Name, "tool", v.Tool, "warnings", len(v.Warnings))
	return true
}

// emptyRefusal says why an empty target must not go live, or "": an
// empty smb.conf deletes every share, and is nearly always a copy that
// failed or a full disk.
func emptyRefusal(it *Item) string {
	if !it.Target.NeverEmpty || len(it.Want) > 0 || len(it.Sources) == 0 {
		return ""
	}
	return fmt.Sprintf("conf.d/%s is empty (0 bytes): an empty %s would delete everything it sets up, so it is not applied; a failed copy or a full disk leaves such a file. To empty it on purpose, put one comment line in it", sourceToFix(it), it.Target.Name)
}

// sourceToFix names the source the user most likely has to edit.
func sourceToFix(it *Item) string {
	if len(it.Sources) == 0 {
		return it.Target.Name
	}
	return it.Sources[len(it.Sources)-1].File
}

// firstSource is the file a status is about (its file:): the first
// source in the order they apply, or the target's name without any.
func firstSource(it *Item) string {
	if len(it.Sources) == 0 {
		return it.Target.Name
	}
	return it.Sources[0].File
}

// sourcesToFix names every source, for a failure none of them can be
// blamed for alone (a checker's verdict, a service that did not come
// up): "conf.d/A", "conf.d/A or conf.d/B", "conf.d/A, conf.d/B or
// conf.d/C"; conf.d/NAME without any. The sh engine's fix_list.
func sourcesToFix(it *Item) string {
	files := it.SourceFiles()
	if len(files) == 0 {
		files = []string{it.Target.Name}
	}
	for i, f := range files {
		files[i] = "conf.d/" + f
	}
	if len(files) == 1 {
		return files[0]
	}
	return strings.Join(files[:len(files)-1], ", ") + " or " + files[len(files)-1]
}

// namedSource is the first source (in the order they apply) that reason
// names as conf.d/FILE, the whole name ("conf.d/smb.conf.merge line 2:
// …", "conf.d/smb.conf is empty"), or "". The sh engine's fix_named.
func namedSource(it *Item, reason string) string {
	for _, s := range it.Sources {
		rest := reason
		for {
			_, after, ok := strings.Cut(rest, "conf.d/"+s.File)
			if !ok {
				break
			}
			if after == "" || strings.ContainsRune(" :,;)", rune(after[0])) {
				return s.File
			}
			rest = after
		}
	}
	return ""
}

// toFix names what to fix after a refusal: the one source its reason
// names, else every source.
func toFix(it *Item, reason string) string {
	if f := namedSource(it, reason); f != "" {
		return "conf.d/" + f
	}
	return sourcesToFix(it)
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// writeStatuses writes every report, and one for each source that names
// no target; the status files of unknown names that are gone go too.
func (e *Engine) writeStatuses(outs []*Outcome, plan *Plan) {
	e.sweepTornStatuses()
	for _, o := range outs {
		if o.Report == nil || o.Report.Word == "" {
			continue
		}
		e.writeStatus(o.Item.Target.Name, o.Report)
	}
	e.writeUnknown(plan)
	e.sweepStatuses(plan)
}

// sweepTornStatuses removes what status writes killed half-way left in
// conf.d: their hidden staging files (.NAME.status.userscript-*).
func (e *Engine) sweepTornStatuses() {
	entries, _ := e.Sys.ReadDir(e.confDir())
	for _, ent := range entries {
		name := ent.Name()
		if strings.HasPrefix(name, ".") && strings.Contains(name, ".status.userscript-") && ent.Type().IsRegular() {
			e.Sys.Remove(filepath.Join(e.confDir(), name))
		}
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

// shareSections are the section headers other than [global] of a
// GlobalOnly target's candidate (at most three).
func shareSections(it *Item) []string {
	if !it.Target.GlobalOnly {
		return nil
	}
	var secs []string
	for line := range strings.SplitSeq(string(it.Want), "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "[") && !strings.EqualFold(l, "[global]") && len(secs) < 3 {
			secs = append(secs, l)
		}
	}
	return secs
}

// shareNote says where a GlobalOnly target's share sections belong.
func shareNote(name string, secs []string) string {
	return fmt.Sprintf("%s has share sections (%s): this device keeps its shares in smb.share.conf, which the firmware writes from its shared-folder settings, and a share here collides with its share of the same name; keep [global] here and put share settings into conf.d/smb.share.conf (docs/DSM.md)", name, strings.Join(secs, " "))
}
