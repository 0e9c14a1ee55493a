package watch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/nas-userscript/userscript/internal/overlay"
	"github.com/nas-userscript/userscript/internal/source"
)

// Drift limits: a target rewritten behind our back more than DriftLimit
// times within DriftWindow is paused instead of fought over.
const (
	DriftLimit  = 3
	DriftWindow = 10 * time.Minute
)

// A Watcher applies conf.d whenever it changes, and re-applies a target
// that something else rewrote.
type Watcher struct {
	Engine *overlay.Engine
	Quiet  Quiet
	Log    *slog.Logger
	// Lock takes the apply lock shared with the CLI and the sh engine.
	Lock func(ctx context.Context) (release func(), err error)
	// Applied, when set, is called after every apply (tests count them).
	Applied func(*overlay.Result, error)
	// Reload, when set, reads userscript.toml again into the engine; it
	// runs before the apply that follows an edit of the file (a target
	// added there is applied without a restart of the daemon).
	Reload func() error
	// WritingMax bounds the wait for a file of conf.d a process keeps
	// open for writing (0: the package's WritingMax).
	WritingMax time.Duration

	fsw    *fsnotify.Watcher
	drifts map[string][]time.Time
	reload bool // userscript.toml changed since the last apply
	// writingSince is when an apply first waited for a copy in progress.
	writingSince time.Time
}

// Run applies once (which first undoes a transaction a crash
// interrupted), then watches until ctx ends.
func (w *Watcher) Run(ctx context.Context) error {
	if w.Quiet.Min == 0 {
		w.Quiet = Quiet{Min: DefaultMin, Max: DefaultMax}
	}
	w.drifts = map[string][]time.Time{}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("inotify: %w", err)
	}
	defer fsw.Close()
	w.fsw = fsw

	armed := w.arm()
	// again is set while an apply is owed: the lock was busy (another
	// apply, `userscript rollback` by hand) and the edit must not be
	// dropped.
	var again <-chan time.Time
	lockWait := RetryMin
	owe := func(ok bool) {
		if ok {
			again, lockWait = nil, RetryMin
			return
		}
		again = time.After(lockWait)
		lockWait = min(2*lockWait, RetryMax)
	}
	owe(w.apply(ctx))

	events := make(chan struct{}, 1)
	fire := make(chan struct{})
	go w.Quiet.Run(ctx, events, fire)
	poke := func() {
		select {
		case events <- struct{}{}:
		default: // one pending poke is enough
		}
	}
	// retry is nil (no timer at all) while every watch is in place; it
	// runs only while conf.d or the data disk is away.
	var retry <-chan time.Time
	backoff := time.Second
	if !armed {
		retry = time.After(backoff)
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-fsw.Events:
			if !ok {
				return nil
			}
			switch w.classify(ev) {
			case relevant:
				poke()
			case structural:
				if w.arm() {
					retry, backoff = nil, time.Second
					poke()
				} else if retry == nil {
					retry = time.After(backoff)
				}
			}
		case err, ok := <-fsw.Errors:
			if !ok {
				return nil
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.Log.Warn("inotify overflow: rescanning everything")
				w.arm()
				poke()
				continue
			}
			w.Log.Error("inotify", "err", err)
		case <-retry:
			if w.arm() {
				retry, backoff = nil, time.Second
				w.Log.Info("conf.d is back: watching it again")
				poke()
			} else {
				backoff = min(2*backoff, 30*time.Second)
				retry = time.After(backoff)
			}
		case <-fire:
			owe(w.apply(ctx))
		case <-again:
			owe(w.apply(ctx))
		}
	}
}

func (w *Watcher) confDir() string { return filepath.Join(w.Engine.App, "conf.d") }

// Settings is the owner's settings file in the app dir.
const Settings = "userscript.toml"

// arm puts a watch on the app dir, conf.d and every target's directory
// that exists. It reports whether conf.d is watched.
func (w *Watcher) arm() bool {
	add := func(dir string) bool {
		if err := w.fsw.Add(dir); err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				w.Log.Warn("watch", "dir", dir, "err", err)
			}
			return false
		}
		return true
	}
	add(w.Engine.App)
	ok := add(w.confDir())
	seen := map[string]bool{}
	for _, t := range w.Engine.Profile.Targets {
		dir := filepath.Dir(w.Engine.Sys.Root(t.Path))
		if !seen[dir] {
			seen[dir] = true
			add(dir)
		}
	}
	return ok
}

type kind int

const (
	ignore     kind = iota
	relevant        // a source or a target changed: apply
	structural      // conf.d itself came or went: re-arm
)

// classify tells what an event means. Status files, editor droppings and
// our own staging files are ignored, so our own writes cause nothing.
func (w *Watcher) classify(ev fsnotify.Event) kind {
	if ev.Op == fsnotify.Chmod {
		return ignore
	}
	dir, name := filepath.Split(ev.Name)
	dir = filepath.Clean(dir)
	switch {
	case ev.Name == w.confDir() || ev.Name == w.Engine.App:
		return structural
	case ev.Name == filepath.Join(w.Engine.App, Settings):
		w.reload = true
		return relevant
	case dir == w.confDir():
		if source.IsDisable(name) || strings.EqualFold(name, source.SafeMode) {
			return relevant // the owner's off switch, or the way out of safe mode
		}
		if source.Ignored(name) {
			return ignore
		}
		target, _ := source.Split(name)
		if w.Engine.Paused[target] != "" {
			delete(w.Engine.Paused, target) // an edit: try again
			delete(w.drifts, target)
		}
		return relevant
	}
	for _, t := range w.Engine.Profile.Targets {
		if ev.Name == w.Engine.Sys.Root(t.Path) {
			return relevant
		}
	}
	return ignore
}

func (w *Watcher) locked(ctx context.Context, f func() error) error {
	if w.Lock == nil {
		return f()
	}
	release, err := w.Lock(ctx)
	if err != nil {
		return err
	}
	defer release()
	return f()
}

// Retry bounds how soon and how late an apply that found the lock busy
// is tried again.
var (
	RetryMin = time.Second
	RetryMax = 30 * time.Second
)

// apply runs one apply, then pauses targets that keep drifting. It
// reports false when the apply could not run because the lock was busy,
// so it is owed.
func (w *Watcher) apply(ctx context.Context) bool {
	if _, err := w.Engine.Sys.Lstat(w.confDir()); err != nil {
		w.Log.Warn("conf.d is not there; waiting for it", "dir", w.confDir())
		return true
	}
	if w.waitForCopies() {
		return false // owed: tried again shortly
	}
	if w.reload && w.Reload != nil {
		w.reload = false
		if err := w.Reload(); err != nil {
			w.Log.Warn("userscript.toml", "err", err)
		}
		w.arm() // a new target's folder
	}
	var res *overlay.Result
	ran := false
	err := w.locked(ctx, func() error {
		ran = true
		var err error
		res, err = w.Engine.Apply(ctx)
		return err
	})
	if !ran {
		w.Log.Warn("apply postponed: the lock is busy; trying again", "err", err)
		return ctx.Err() != nil
	}
	if err != nil {
		w.Log.Warn("apply", "err", err)
	}
	if res != nil {
		w.noteDrift(res)
	}
	if w.Applied != nil {
		w.Applied(res, err)
	}
	return true
}

func (w *Watcher) noteDrift(res *overlay.Result) {
	now := time.Now()
	for _, o := range res.Outcomes {
		name := o.Item.Target.Name
		if !o.Item.Drifted || w.Engine.Paused[name] != "" {
			continue
		}
		recent := []time.Time{now}
		for _, t := range w.drifts[name] {
			if now.Sub(t) < DriftWindow {
				recent = append(recent, t)
			}
		}
		w.drifts[name] = recent
		if len(recent) > DriftLimit {
			if w.Engine.Paused == nil {
				w.Engine.Paused = map[string]string{}
			}
			w.Engine.Paused[name] = fmt.Sprintf("something rewrote %s %d times in %s (the firmware's web GUI?); userscript stopped re-applying it: see conf.d/.captured/, then save conf.d/%s again to apply it", o.Item.Target.Path, len(recent), DriftWindow, name)
			w.Log.Warn("drift: pausing target", "target", name, "times", len(recent))
		}
	}
}
