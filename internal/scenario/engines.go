package scenario

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/nas-userscript/userscript/internal/systest"
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

func (s ShEngine) Prepare(w *World) error {
	lib := filepath.Join(w.App, "lib")
	if err := os.MkdirAll(lib, 0o755); err != nil {
		return err
	}
	if err := CopyEngine(s.Lib, lib); err != nil {
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

// CopyEngine copies the sh engine (engine.sh and the parts it sources)
// from the package's lib folder src into dst.
func CopyEngine(src, dst string) error {
	parts, err := filepath.Glob(filepath.Join(src, "*.sh"))
	if err != nil || len(parts) == 0 {
		return fmt.Errorf("%s: no sh engine here (%v)", src, err)
	}
	for _, p := range parts {
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := systest.WriteFile(filepath.Join(dst, filepath.Base(p)), data, 0o755); err != nil {
			return err
		}
	}
	return nil
}
