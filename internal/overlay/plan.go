package overlay

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/nas-userscript/userscript/internal/merge"
	"github.com/nas-userscript/userscript/internal/profile"
	"github.com/nas-userscript/userscript/internal/source"
	"github.com/nas-userscript/userscript/internal/state"
	"github.com/nas-userscript/userscript/internal/system"
	"github.com/nas-userscript/userscript/internal/tuning"
)

// An Item is one target in a plan.
type Item struct {
	Target   profile.Target
	LivePath string          // real path of the live file
	Sources  []source.Source // in the order they apply
	Live     []byte
	LiveOK   bool     // the live file exists
	Base     []byte   // the firmware's version
	Captured bool     // the base was taken from the live file just now
	Want     []byte   // the target: base + sources
	Problem  error    // why the target cannot be applied
	Warnings []string // lines of a .merge that did nothing
	Held     bool     // the sources were rejected or rolled back and wait for an edit
	// heldBefore: a hold is on sources the owner has edited since (it
	// ends when they go live, or are live already)
	heldBefore bool
	Drifted    bool // something else rewrote the file we wrote
	// OldBase is the firmware's file before it changed under the
	// sources (a firmware update): the status says so (see noteRebase).
	OldBase     []byte
	rebasedOnce bool // the note is for this apply only (a .merge or .add)
}

// Changed reports whether applying the item would change the live file.
func (it *Item) Changed() bool {
	return it.Problem == nil && !it.Held && (!it.LiveOK || !bytes.Equal(it.Want, it.Live))
}

// SourceFiles names the item's sources as the user sees them.
func (it *Item) SourceFiles() []string {
	var names []string
	for _, s := range it.Sources {
		names = append(names, s.File)
	}
	return names
}

// A Plan is every target userscript manages now, and the sources that
// name no target.
type Plan struct {
	Items   []*Item
	Unknown []source.Source
	Tuning  []source.Source // sysctl.conf and tuning.conf
}

// Plan reads conf.d, the live files and the state and computes every
// target. It writes nothing except, when capture is set, the bases it
// finds (a base is the live file whenever the live file is not what we
// last wrote).
func (e *Engine) Plan(capture bool) (*Plan, error) {
	if err := e.CheckDirs(); err != nil {
		return nil, err
	}
	set, err := source.Scan(e.Sys, e.confDir(), func(target string) bool {
		_, ok := e.Profile.Target(target)
		return ok || slices.Contains(tuning.Files, target)
	})
	if err != nil {
		return nil, err
	}
	st := e.state()
	p := &Plan{}
	for _, name := range set.Targets() {
		_, ok := e.Profile.Target(name)
		switch {
		case ok:
		case slices.Contains(tuning.Files, name):
			p.Tuning = append(p.Tuning, set.ByTarget[name]...)
		default:
			p.Unknown = append(p.Unknown, set.ByTarget[name]...)
		}
	}
	for _, t := range e.Profile.Targets {
		srcs := set.ByTarget[t.Name]
		written, err := st.Written(t.Name)
		if err != nil {
			return nil, err
		}
		if len(srcs) == 0 && written == "" {
			if capture {
				e.keepFirmwareOf(t) // the live file is the firmware's
			}
			continue // not ours
		}
		it := &Item{Target: t, LivePath: e.Sys.Root(t.Path), Sources: Ordered(srcs)}
		e.planItem(it, written, capture)
		p.Items = append(p.Items, it)
	}
	return p, nil
}

// Ordered puts sources in the order they apply: replace, merge, add.
func Ordered(srcs []source.Source) []source.Source {
	var out []source.Source
	for _, kind := range []string{source.Replace, source.Merge, source.Add} {
		for _, s := range srcs {
			if s.Kind == kind {
				out = append(out, s)
			}
		}
	}
	return out
}

func (e *Engine) planItem(it *Item, written string, capture bool) {
	st := e.state()
	live, err := e.Sys.ReadFile(it.LivePath)
	switch {
	case err == nil:
		it.Live, it.LiveOK = live, true
	case errors.Is(err, fs.ErrNotExist):
	case errors.Is(err, system.ErrTooBig):
		it.Problem = fmt.Errorf("%s: the live file is over 1 MiB; userscript keeps configuration files up to 1 MiB: make it smaller, or remove its sources from conf.d", it.Target.Path)
		return
	default:
		it.Problem = fmt.Errorf("%s: %v; userscript only replaces regular files: set the real path in userscript.toml", it.Target.Path, pathless(err))
		return
	}
	ours, err := st.Ours(it.Target.Name, state.Hash(it.Live))
	if err != nil {
		it.Problem = err
		return
	}
	changed := false
	var old []byte
	if !it.LiveOK || !ours {
		// The live file is the firmware's: it is the base.
		it.Base, it.Captured = it.Live, true
		it.Drifted = written != "" && it.LiveOK
		var had bool
		old, had, _ = st.Base(it.Target.Name)
		changed = had && it.LiveOK && !bytes.Equal(old, it.Live)
		if capture {
			if err := st.SetBase(it.Target.Name, it.Live); err != nil {
				it.Problem = err
				return
			}
			if it.LiveOK {
				e.keepFirmware(it.Target.Name, it.Live)
			}
		}
	} else {
		base, ok, err := st.Base(it.Target.Name)
		switch {
		case err != nil:
			it.Problem = fmt.Errorf("state/base/%s: %w", it.Target.Name, err)
			return
		case ok:
			it.Base = base
		case needsBase(it.Sources):
			it.Problem = fmt.Errorf("state/base/%s is missing, so the firmware's own %s is unknown; reboot the NAS (the firmware restores it) or delete state/written/%s", it.Target.Name, it.Target.Path, it.Target.Name)
			return
		}
	}
	e.noteRebase(it, old, changed, capture)
	if why := e.Paused[it.Target.Name]; why != "" {
		it.Problem = errors.New(why)
		return
	}
	it.Want, it.Warnings, it.Problem = ComputeWarn(it.Base, it.Sources)
	if it.Problem != nil {
		return
	}
	if len(it.Want) > system.MaxRead {
		it.Problem = fmt.Errorf("%s would be over 1 MiB (%d bytes) with conf.d/%s; userscript keeps configuration files up to 1 MiB", it.Target.Path, len(it.Want), sourceToFix(it))
		return
	}
	held, err := st.Held(it.Target.Name)
	if err != nil {
		it.Problem = err
		return
	}
	it.Held = held.Hash != "" && (held.Hash == Fingerprint(it.Sources) || held.Hash == state.Hash(it.Want))
	it.heldBefore = held.Hash != "" && !it.Held
}

func needsBase(srcs []source.Source) bool {
	for _, s := range srcs {
		if s.Kind == source.Replace {
			return false
		}
	}
	return true
}

// Compute is the target: the replacement (or the base), then the merge,
// then the appended text. The same base and sources always give the same target.
func Compute(base []byte, srcs []source.Source) ([]byte, error) {
	want, _, err := ComputeWarn(base, srcs)
	return want, err
}

// ComputeWarn is Compute that also returns the warnings of the merge:
// fragment lines that did nothing (a misspelt deletion).
func ComputeWarn(base []byte, srcs []source.Source) ([]byte, []string, error) {
	want := base
	var errs []error
	var warnings []string
	for _, s := range srcs {
		if s.Err != nil {
			errs = append(errs, fmt.Errorf("conf.d/%s: %w", s.File, s.Err))
			continue
		}
		switch s.Kind {
		case source.Replace:
			want = s.Data
		case source.Add:
			// Text the file already ends with is not appended again: a
			// base taken from our own file (state/ lost or damaged) must
			// not get the addition twice.
			if !bytes.HasSuffix(want, s.Data) {
				want = source.Concat(want, s.Data)
			}
		case source.Merge:
			format, ok := merge.FormatFor(s.Target)
			if !ok {
				errs = append(errs, fmt.Errorf("conf.d/%s: %s is not a key = value file userscript can merge into: put the whole file in conf.d/%s", s.File, s.Target, s.Target))
				continue
			}
			// Named conf.d/NAME, so that every line of the error names it.
			merged, warns, err := merge.MergeWarn(format, want, s.Data, "conf.d/"+s.File)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			want, warnings = merged, append(warnings, warns...)
		}
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	if want == nil {
		want = []byte{}
	}
	return want, warnings, nil
}

// CheckDirs makes sure conf.d and state/ are real folders of the app
// dir: a symlink there (planted over the share) would make root read and
// write wherever it points.
func (e *Engine) CheckDirs() error {
	fi, err := e.Sys.Lstat(e.confDir())
	if err != nil {
		// Never take a missing conf.d for "no sources": that would give
		// every target back to the firmware while the data disk is away.
		return fmt.Errorf("%s: %w; is the data disk mounted?", e.confDir(), err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder (a symlink?); userscript only uses a real conf.d folder: replace it with one", e.confDir())
	}
	if fi, err := e.Sys.Lstat(e.stateDir()); err == nil && !fi.IsDir() {
		return fmt.Errorf("%s is not a folder (a symlink?); remove it, userscript makes a new one", e.stateDir())
	}
	return nil
}

// pathless is err without the real path of a *fs.PathError: statuses
// name device paths, never where the root lies.
func pathless(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
