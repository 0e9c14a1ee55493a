package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
)

func runCapture(ctx context.Context, e *env, args []string) error {
	flags := e.flags("capture")
	force := flags.Bool("force", false, "overwrite an existing source")
	if err := e.parse(flags, args, 1, 1); err != nil {
		return err
	}
	name := flags.Arg(0)
	eng, release, err := e.engine(ctx, false, true)
	if err != nil {
		return err
	}
	defer release()
	t, ok := eng.Profile.Target(name)
	if !ok {
		return usagef("capture: no target %q in profile %s; userscript status lists them", name, eng.Profile.Name)
	}
	data, err := eng.Sys.ReadFile(eng.Sys.Root(t.Path))
	if err != nil {
		return fmt.Errorf("capture %s: %w", t.Path, err)
	}
	dst := filepath.Join(eng.App, "conf.d", name)
	if fi, err := eng.Sys.Lstat(dst); err == nil {
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("conf.d/%s: not a regular file; remove it first", name)
		}
		if !*force {
			return fmt.Errorf("conf.d/%s already exists; pass --force to overwrite it with the live file", name)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := eng.Sys.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if err := eng.Sys.WriteFile(dst, data, 0o644); err != nil {
		return err
	}
	eng.Log.Info("capture", "target", name, "path", t.Path, "bytes", len(data))
	fmt.Fprintf(e.stdout, "copied %s to conf.d/%s\n", t.Path, name)
	return nil
}
