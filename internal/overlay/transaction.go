package overlay

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nas-userscript/userscript/internal/history"
	"github.com/nas-userscript/userscript/internal/state"
	"github.com/nas-userscript/userscript/internal/status"
)

// A txn is one transaction: the outcomes it writes, the generation that
// journals it (nil when it only puts back content already committed),
// and what became of each service.
type txn struct {
	res      *Result
	outs     []*Outcome
	gen      *history.Generation
	id       int               // the generation the live files are after it
	rejected map[string]string // service → why it did not prove healthy
	// holds are the sources a rollback holds once it is proven: a hold
	// belongs to a rollback that committed, never to one interrupted.
	holds map[string]state.Hold
	errs  []error
}

// transact applies outs as one transaction: journal the generation
// (pending, with what it replaces), write every target, restart each
// affected service once and prove it healthy, then commit. A service
// that does not prove healthy gets its previous files back and is
// restarted again; its targets are rejected and their sources held. A
// stop (ctx ending) does not cut the transaction short: every step is
// bounded by its own timeout. Content that is already the last committed
// generation (a boot after the ROM was restored) is not journalled again.
// holds are the holds a rollback sets once it commits (nil for an apply).
func (e *Engine) transact(ctx context.Context, res *Result, outs []*Outcome, gen *history.Generation, holds map[string]state.Hold) error {
	ctx = context.WithoutCancel(ctx)
	tx := &txn{res: res, outs: outs, gen: gen, rejected: map[string]string{}, holds: holds}
	if err := e.journal(tx); err != nil {
		for _, o := range outs {
			e.failed(o, fmt.Errorf("the change could not be recorded in state/gen, so nothing was changed: %w", err))
		}
		return err
	}
	if !e.writeAll(tx) {
		return e.finish(tx)
	}
	for _, name := range e.services(tx) {
		e.restartAndProve(ctx, tx, name)
	}
	return e.finish(tx)
}

// journal records the pending generation before anything is written. A
// transaction that puts back exactly what the last committed generation
// holds needs none: the next start does the same again.
func (e *Engine) journal(tx *txn) error {
	files, entries := e.filesAfter(tx.outs)
	if c := e.committed(); len(tx.outs) > 0 && tx.gen.Kind == history.Apply && reapplies(c, tx.outs) {
		tx.gen = nil
		for _, o := range tx.outs {
			o.Report.Generation = c[o.Item.Target.Name].ID
		}
		return nil
	}
	if len(tx.outs) == 0 {
		tx.gen = nil
		return nil
	}
	id, err := e.history().Next()
	if err != nil {
		return err
	}
	g := tx.gen
	g.ID, g.Time, g.Files = id, e.Sys.Now(), entries
	prev := map[string][]byte{}
	for _, o := range tx.outs {
		g.Changed = append(g.Changed, o.Item.Target.Name)
		if o.Item.LiveOK {
			prev[o.Item.Target.Name] = o.Item.Live
		}
	}
	tx.id = id
	tx.res.Generation = g
	if err := e.history().Begin(g, files, prev); err != nil {
		// Nothing is written yet: no journal is better than one that
		// recovery would take for an interrupted change.
		e.history().Discard(g)
		tx.res.Generation = nil
		return err
	}
	return nil
}

// reapplies reports whether every target of outs gets exactly its last
// committed content (committed, by target).
func reapplies(committed map[string]*history.Generation, outs []*Outcome) bool {
	for _, o := range outs {
		if len(o.Item.Sources) == 0 || !sameContent(committed[o.Item.Target.Name], o.Item.Target.Name, o.Item.Want) {
			return false
		}
	}
	return true
}

// filesAfter is every target that is managed once outs are written: the
// ones written with their new content, the others as they are live (and
// ours). A target whose sources are gone is the firmware's again.
func (e *Engine) filesAfter(outs []*Outcome) (map[string][]byte, []history.File) {
	files := map[string][]byte{}
	var entries []history.File
	add := func(name, path string, data []byte) {
		files[name] = data
		entries = append(entries, history.File{Name: name, Path: path, Hash: state.Hash(data), Size: len(data)})
	}
	for _, t := range e.Profile.Targets {
		if i := slices.IndexFunc(outs, func(o *Outcome) bool { return o.Item.Target.Name == t.Name }); i >= 0 {
			if it := outs[i].Item; len(it.Sources) > 0 {
				add(t.Name, t.Path, it.Want)
			}
			continue
		}
		w, _ := e.state().Written(t.Name)
		if w == "" {
			continue
		}
		data, err := e.Sys.ReadFile(e.Sys.Root(t.Path))
		if err == nil && state.Hash(data) == w {
			add(t.Name, t.Path, data)
		}
	}
	return files, entries
}

// writeAll writes every target of the transaction. When one cannot be
// written, the ones already written get their previous content back and
// nothing is restarted; it reports whether all were written.
func (e *Engine) writeAll(tx *txn) bool {
	for _, o := range tx.outs {
		if err := e.write(o); err != nil {
			tx.errs = append(tx.errs, e.failed(o, err))
			for _, w := range tx.outs {
				if w.Written {
					e.putBack(w)
					w.Report.Word = status.Failed
					w.Report.Reason = fmt.Sprintf("not applied: %s could not be written, and the files of one change go live together", o.Item.Target.Path)
				}
			}
			if tx.gen != nil {
				tx.gen.Result, tx.gen.Note = history.Failed, err.Error()
			}
			return false
		}
	}
	return true
}

// write replaces one target, recording first that its new content is
// ours (so a crash in between never takes our file for the firmware's).
func (e *Engine) write(o *Outcome) error {
	it := o.Item
	if err := e.Sys.MkdirAll(filepath.Dir(it.LivePath), 0o755); err != nil {
		return err
	}
	if len(it.Sources) > 0 {
		if err := e.state().Expect(it.Target.Name, state.Hash(it.Want)); err != nil {
			return err
		}
	}
	if err := e.Sys.WriteFile(it.LivePath, it.Want, it.Target.FileMode()); err != nil {
		return err
	}
	o.Written = true
	if err := e.mark(it, it.Want); err != nil {
		return fmt.Errorf("%s: recording what was written: %w", it.Target.Name, err)
	}
	e.logger().Info("wrote", "target", it.Target.Name, "path", it.Target.Path, "hash", state.Hash(it.Want), "bytes", len(it.Want))
	return nil
}

// putBack makes a written target what it was before the transaction.
func (e *Engine) putBack(o *Outcome) error {
	it := o.Item
	var err error
	if it.LiveOK {
		err = e.Sys.WriteFile(it.LivePath, it.Live, it.Target.FileMode())
	} else {
		err = e.Sys.Remove(it.LivePath)
	}
	if err != nil {
		return fmt.Errorf("%s: putting the previous file back: %w", it.Target.Path, err)
	}
	o.Written = false
	if it.LiveOK {
		return e.state().SetWritten(it.Target.Name, state.Hash(it.Live))
	}
	return e.state().Forget(it.Target.Name)
}

// services are the services to restart: those of the written targets.
func (e *Engine) services(tx *txn) []string {
	var written []string
	for _, o := range tx.outs {
		if o.Written {
			written = append(written, o.Item.Target.Name)
		}
	}
	return e.servicesOf(written)
}

// restartAndProve restarts one service and, when it was serving before,
// proves it healthy with its new files; otherwise its targets go back.
func (e *Engine) restartAndProve(ctx context.Context, tx *txn, name string) {
	svc := e.Profile.Services[name]
	mine := tx.of(name)
	before := e.awaitStart(ctx, name, svc, e.listenOf(svc, mine, false))
	x := e.restart(ctx, name)
	tx.res.Restarts = append(tx.res.Restarts, x)
	if tx.gen != nil {
		tx.gen.Restarted = append(tx.gen.Restarted, name)
	}
	why := ""
	switch {
	case !x.OK():
		why = restartFailure(x)
	case before.serving:
		if err := e.prove(ctx, svc, before, e.listenOf(svc, mine, true)); err != nil {
			why = fmt.Sprintf("%s did not prove healthy: %v", name, err)
		}
	default:
		e.logger().Info("service was not serving before the restart; judged by its exit code", "service", name)
	}
	if why == "" {
		return
	}
	tx.rejected[name] = why
	tx.errs = append(tx.errs, fmt.Errorf("service %s: %s", name, why))
	tx.errs = append(tx.errs, e.reject(ctx, tx, name, why))
}

// of is the written outcomes of one service.
func (tx *txn) of(service string) []*Outcome {
	var outs []*Outcome
	for _, o := range tx.outs {
		if o.Written && o.Item.Target.Service == service {
			outs = append(outs, o)
		}
	}
	return outs
}

// reject puts back what was live before for every target of service,
// holds their sources until they are edited, and restarts the service
// again.
func (e *Engine) reject(ctx context.Context, tx *txn, service, why string) error {
	var errs []error
	outs := tx.of(service)
	for _, o := range outs {
		it := o.Item
		if err := e.putBack(o); err != nil {
			errs = append(errs, err)
			continue
		}
		o.Report.Word = status.Rejected
		o.Report.Reason = fmt.Sprintf("applied, but %s; the previous file was put back", why)
		o.Report.Todo = fmt.Sprintf("fix %s and save it again; it is not applied again until it changes", sourcesToFix(it))
		if !o.restore {
			errs = append(errs, e.state().SetHeld(it.Target.Name, state.Hold{Hash: Fingerprint(it.Sources), Word: status.Rejected, Reason: o.Report.Reason}))
		}
		if tx.gen != nil {
			tx.gen.Rejected = append(tx.gen.Rejected, it.Target.Name)
		}
		e.logger().Warn("rejected", "target", it.Target.Name, "service", service, "why", why)
	}
	x := e.restart(ctx, service)
	tx.res.Restarts = append(tx.res.Restarts, x)
	if !x.OK() {
		for _, o := range outs {
			o.Report.Word = status.Failed
			o.Report.Reason += fmt.Sprintf(", but restarting %s with it failed too: %s", service, restartFailure(x))
			o.Report.Todo = "look at the service's own log and at state/out/" + service + ".log"
		}
		errs = append(errs, fmt.Errorf("service %s: restarting with the previous files: %s", service, restartFailure(x)))
	}
	return errors.Join(errs...)
}

// finish commits the transaction: its result goes into the generation,
// the held sources of what went live are released, the statuses name the
// generation, and old generations are pruned.
func (e *Engine) finish(tx *txn) error {
	g := tx.gen
	tx.errs = append(tx.errs, e.holdRolledBack(tx))
	if g != nil && g.Result == history.Pending {
		g.Result = history.OK
		if len(tx.rejected) > 0 {
			g.Result = history.Rejected
			g.Note = joinReasons(tx.rejected)
		}
	}
	if g != nil {
		if err := e.history().Update(g); err != nil {
			tx.errs = append(tx.errs, err)
		}
	}
	for _, o := range tx.outs {
		if o.Written && !o.restore && g != nil && g.Kind == history.Apply {
			tx.errs = append(tx.errs, e.state().SetHeld(o.Item.Target.Name, state.Hold{}))
		}
		if o.Written && tx.id != 0 {
			o.Report.Generation = tx.id
		}
	}
	if g != nil {
		if err := e.history().Prune(); err != nil {
			e.logger().Warn("prune history", "err", err)
		}
		e.logger().Info(g.Kind, "generation", g.ID, "from", g.From, "changed", strings.Join(g.Changed, " "), "restarted", strings.Join(g.Restarted, " "), "result", g.Result)
	}
	return errors.Join(tx.errs...)
}

// holdRolledBack holds the sources a rollback rolled back, for the
// targets it proved healthy, just before it commits. A crash before the
// commit leaves holds that recovery releases (releaseRollbackHolds).
func (e *Engine) holdRolledBack(tx *txn) error {
	var errs []error
	for _, o := range tx.outs {
		h, ok := tx.holds[o.Item.Target.Name]
		if ok && o.Written {
			errs = append(errs, e.state().SetHeld(o.Item.Target.Name, h))
		}
	}
	return errors.Join(errs...)
}

func joinReasons(m map[string]string) string {
	var names []string
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	var parts []string
	for _, n := range names {
		parts = append(parts, m[n])
	}
	return strings.Join(parts, "; ")
}

func (e *Engine) failed(o *Outcome, err error) error {
	o.Report.Word = status.Failed
	o.Report.Reason = err.Error()
	o.Report.Todo = "the live file was not changed; check the device's free space and permissions, then save the source again"
	e.logger().Error("write", "target", o.Item.Target.Name, "err", err)
	return fmt.Errorf("%s: %w", o.Item.Target.Name, err)
}
