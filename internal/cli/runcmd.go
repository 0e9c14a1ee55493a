package cli

import (
	"context"
	"errors"
	"syscall"
	"time"

	"github.com/nas-userscript/userscript/internal/overlay"
	"github.com/nas-userscript/userscript/internal/state"
	"github.com/nas-userscript/userscript/internal/watch"
)

func runRun(ctx context.Context, e *env, args []string) error {
	flags := e.flags("run")
	q := watch.Quiet{}
	flags.DurationVar(&q.Min, "quiet", watch.DefaultMin, "apply once conf.d has been quiet this long")
	flags.DurationVar(&q.Max, "max-wait", watch.DefaultMax, "but never wait longer than this during a burst of edits")
	if err := e.parse(flags, args, 0, 0); err != nil {
		return err
	}
	eng, release, err := e.engine(ctx, false, false)
	if err != nil {
		return err
	}
	defer release()
	dl, err := state.LockDaemon(eng.Sys, eng.StateDir())
	if err != nil {
		return err
	}
	defer dl.Release()
	eng.CaptureDrift = true
	eng.CountStart = true // its first apply is a start
	first := true
	w := &watch.Watcher{
		Engine: eng,
		Quiet:  q,
		Log:    e.log,
		Lock: func(ctx context.Context) (func(), error) {
			ctx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			l, err := state.Acquire(ctx, eng.Sys, eng.StateDir())
			if errors.Is(err, syscall.ENOSPC) {
				// Nothing new while the data disk is full, but the
				// last committed files go back over the firmware's.
				eng.RestoreCommitted(ctx, "data disk full")
			}
			if err != nil {
				return nil, err
			}
			return func() { l.Release() }, nil
		},
		Reload: func() error {
			fresh, release, err := e.engine(ctx, false, false)
			if err != nil {
				return err
			}
			release()
			eng.Profile, eng.Strict, eng.Keep = fresh.Profile, fresh.Strict, fresh.Keep
			eng.ValidateTimeout, eng.Notes = fresh.ValidateTimeout, fresh.Notes
			e.log.Info("userscript.toml read again", "targets", len(eng.Profile.Targets))
			return nil
		},
		// DOCTOR.txt is written at the start, and again when more than
		// its time and the free space changed.
		Applied: func(*overlay.Result, error) {
			e.writeDoctor(ctx, eng, first)
			e.writePage(eng)
			first = false
		},
	}
	e.log.Info("daemon started", "app", eng.App, "profile", eng.Profile.Name)
	defer e.log.Info("daemon stopped")
	return w.Run(ctx)
}
