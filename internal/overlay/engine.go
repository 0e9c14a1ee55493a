package overlay

import (
	"context"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/nas-userscript/userscript/internal/history"
	"github.com/nas-userscript/userscript/internal/profile"
	"github.com/nas-userscript/userscript/internal/state"
	"github.com/nas-userscript/userscript/internal/system"
	"github.com/nas-userscript/userscript/internal/validate"
)

// An Engine applies one app dir's conf.d to one device.
type Engine struct {
	Sys     system.System
	Profile *profile.Profile
	App     string // the app dir (a real path)
	Strict  bool   // validator warnings refuse
	Keep    int    // generations kept
	// ValidateTimeout bounds each validator process (0: the default).
	ValidateTimeout time.Duration
	Log             *slog.Logger
	// CaptureDrift saves a live file that something else rewrote to
	// conf.d/.captured/ before the sources are applied over it again.
	CaptureDrift bool
	// Paused holds targets that are not applied for now, with the reason
	// (the watcher pauses a target something keeps rewriting).
	Paused map[string]string
	// Notes go into every status file (a mistake in userscript.toml).
	Notes []string
	// Writing holds, by source file, a note for the status of its
	// target: the watcher applies it while a process still has it open
	// for writing (it waited long enough).
	Writing map[string]string
	// CountStart makes the next Apply count as a start (see Apply).
	CountStart bool
	// Check validates a staged candidate; nil means validate.Check.
	Check func(ctx context.Context, kind, path string, opt validate.Options) validate.Result

	// recovered holds, by target, a note for its status: what recovery
	// undid at this start.
	recovered map[string]string
}

func (e *Engine) confDir() string  { return filepath.Join(e.App, "conf.d") }
func (e *Engine) stateDir() string { return filepath.Join(e.App, "state") }

func (e *Engine) state() *state.Dir { return &state.Dir{Path: e.stateDir(), Sys: e.Sys} }

func (e *Engine) history() *history.Store {
	keep := e.Keep
	if keep < 1 {
		keep = 20
	}
	return &history.Store{Dir: filepath.Join(e.stateDir(), "gen"), Sys: e.Sys, Keep: keep}
}

func (e *Engine) statusPath(target string) string {
	return filepath.Join(e.confDir(), target+".status")
}

// outputPath is the file a service's restart output goes to.
func (e *Engine) outputPath(service string) string {
	return filepath.Join(e.stateDir(), "out", service+".log")
}

func (e *Engine) logger() *slog.Logger {
	if e.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return e.Log
}

func (e *Engine) check(ctx context.Context, kind, path string) validate.Result {
	opt := validate.Options{Strict: e.Strict, Timeout: e.ValidateTimeout, Sys: e.Sys}
	for _, at := range e.Profile.Tools[kind] {
		opt.Paths = append(opt.Paths, e.Sys.Root(at))
	}
	if e.Check != nil {
		return e.Check(ctx, kind, path, opt)
	}
	return validate.Check(ctx, kind, path, opt)
}

// History is the engine's generation store.
func (e *Engine) History() *history.Store { return e.history() }

// StateDir is the app's state/ folder.
func (e *Engine) StateDir() string { return e.stateDir() }
