package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/nas-userscript/userscript/internal/overlay"
	"github.com/nas-userscript/userscript/internal/system"
)

func runApply(ctx context.Context, e *env, args []string) error {
	fs := e.flags("apply")
	dry := fs.Bool("dry-run", false, "show what would be done; change nothing")
	if err := e.parse(fs, args, 0, 0); err != nil {
		return err
	}
	if *dry {
		return dryRun(ctx, e)
	}
	eng, release, err := e.engine(ctx, false, true)
	if errors.Is(err, syscall.ENOSPC) {
		return restoreOnFullDisk(ctx, e, err)
	}
	if err != nil {
		return err
	}
	defer release()
	eng.CountStart = true // the boot's apply (init start) is a start
	res, err := eng.Apply(ctx)
	if res != nil {
		printResult(e, res)
	}
	e.writeDoctor(ctx, eng, true)
	e.writePage(eng)
	return err
}

// restoreOnFullDisk puts the last committed files back when the data
// disk is too full for the lock (see overlay.RestoreCommitted).
func restoreOnFullDisk(ctx context.Context, e *env, lockErr error) error {
	eng, release, err := e.engine(ctx, false, false)
	if err != nil {
		return errors.Join(lockErr, err)
	}
	defer release()
	res, err := eng.RestoreCommitted(ctx, "data disk full")
	if res != nil {
		printResult(e, res)
	}
	return errors.Join(lockErr, err)
}

// dryRun plans and validates through a DryRun system and prints the
// actions it recorded.
func dryRun(ctx context.Context, e *env) error {
	eng, release, err := e.engine(ctx, true, false)
	if err != nil {
		return err
	}
	defer release()
	_, err = eng.Apply(ctx)
	for _, a := range eng.Sys.(*system.DryRun).Actions {
		// The engine's own bookkeeping, not a change to the device.
		if strings.Contains(a, "/state/") || strings.Contains(a, ".status (") || strings.Contains(a, "/conf.d/"+overlay.FirmwareDir+"/") {
			continue
		}
		fmt.Fprintf(e.stdout, "would %s\n", a)
	}
	return err
}

func printResult(e *env, res *overlay.Result) {
	if res.Stopped != "" {
		fmt.Fprintf(e.stdout, "nothing applied: %s\n", res.Stopped)
	}
	for _, o := range res.Outcomes {
		if o.Written {
			fmt.Fprintf(e.stdout, "wrote %s (%s)\n", o.Item.Target.Path, o.Item.Target.Name)
		}
	}
	for _, x := range res.Restarts {
		word := "ok"
		if !x.OK() {
			word = "FAILED"
		}
		fmt.Fprintf(e.stdout, "restarted: %s: %s\n", strings.Join(x.Argv, " "), word)
	}
	if res.Generation != nil {
		fmt.Fprintf(e.stdout, "generation %d: %s\n", res.Generation.ID, res.Generation.Result)
	}
}

func runValidate(ctx context.Context, e *env, args []string) error {
	if err := e.parse(e.flags("validate"), args, 0, 0); err != nil {
		return err
	}
	eng, release, err := e.engine(ctx, false, true)
	if err != nil {
		return err
	}
	defer release()
	reports, err := eng.Validate(ctx)
	for _, r := range reports {
		fmt.Fprintf(e.stdout, "%s: %s", r.File, r.Word)
		if r.Reason != "" {
			fmt.Fprintf(e.stdout, ": %s", r.Reason)
		}
		fmt.Fprintln(e.stdout)
		for _, w := range r.Warnings {
			fmt.Fprintf(e.stdout, "  warning: %s\n", w)
		}
	}
	return err
}
