package scenario

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"time"
)

// GoEngine runs a built userscript binary:
// userscript --root R --app A --profile P apply.
type GoEngine struct{ Bin string }

func (GoEngine) Name() string         { return "go" }
func (GoEngine) Prepare(*World) error { return nil }

func (g GoEngine) Apply(w *World) (int, string, error) {
	return run(w, g.Bin, "--root", w.Root, "--app", w.App, "--profile", w.Profile.Name, "apply")
}

func (g GoEngine) Rollback(w *World, gen string) (int, string, error) {
	args := []string{g.Bin, "--root", w.Root, "--app", w.App, "--profile", w.Profile.Name, "rollback"}
	if gen != "" {
		args = append(args, gen)
	}
	return run(w, args...)
}

// ShEngine runs BusyBox sh APP/lib/engine.sh apply, with lib/ copied from
// package/lib and lib/profile rendered as the build renders it. Tag
// names the BusyBox it runs under ("" is Debian's).
type ShEngine struct{ Lib, Tag string }

func (s ShEngine) Name() string {
	if s.Tag == "" || s.Tag == "debian" {
		return "sh"
	}
	return "sh-" + s.Tag
}

func (s ShEngine) Prepare(w *World) error { return w.InstallShEngine(s.Lib, "scenario") }

func (ShEngine) Apply(w *World) (int, string, error) {
	return run(w, w.Shell, filepath.Join(w.App, "lib", "engine.sh"), "apply")
}

func (ShEngine) Rollback(w *World, gen string) (int, string, error) {
	args := []string{w.Shell, filepath.Join(w.App, "lib", "engine.sh"), "rollback"}
	if gen != "" {
		args = append(args, gen)
	}
	return run(w, args...)
}

func run(w *World, argv ...string) (int, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = w.Env()
	cmd.Dir = w.Dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), out.String(), nil
	}
	if err != nil {
		return -1, out.String(), err
	}
	return 0, out.String(), nil
}
