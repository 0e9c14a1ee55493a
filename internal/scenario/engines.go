package scenario

import (
	"bytes"
	"context"
	"errors"
	"os"
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

// ShEngine runs BusyBox sh APP/lib/engine.sh apply, with lib/ copied from
// package/lib and lib/profile rendered as the build renders it.
type ShEngine struct{ Lib string }

func (ShEngine) Name() string { return "sh" }

func (s ShEngine) Prepare(w *World) error {
	lib := filepath.Join(w.App, "lib")
	if err := os.MkdirAll(lib, 0o755); err != nil {
		return err
	}
	src, err := os.ReadFile(filepath.Join(s.Lib, "engine.sh"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(lib, "engine.sh"), src, 0o755); err != nil {
		return err
	}
	var prof bytes.Buffer
	if err := w.Profile.WriteShell(&prof); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(lib, "profile"), prof.Bytes(), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(lib, "version"), []byte("scenario\n"), 0o644)
}

func (ShEngine) Apply(w *World) (int, string, error) {
	return run(w, w.Shell, filepath.Join(w.App, "lib", "engine.sh"), "apply")
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
