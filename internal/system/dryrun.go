package system

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
)

// DryRun wraps a System: reads go through, every change is recorded in
// Actions and not made.
type DryRun struct {
	System
	Actions []string
}

func (d *DryRun) WriteFile(name string, data []byte, perm fs.FileMode) error {
	d.Actions = append(d.Actions, fmt.Sprintf("write %s (%d bytes)", name, len(data)))
	return nil
}

func (d *DryRun) WriteInPlace(name string, data []byte) error {
	d.Actions = append(d.Actions, fmt.Sprintf("set %s to %q", name, strings.TrimSpace(string(data))))
	return nil
}

func (d *DryRun) MkdirAll(name string, perm fs.FileMode) error {
	return nil
}

func (d *DryRun) Remove(name string) error {
	d.Actions = append(d.Actions, "remove "+name)
	return nil
}

func (d *DryRun) Run(ctx context.Context, argv []string) Exec {
	d.Actions = append(d.Actions, "run "+strings.Join(argv, " "))
	return Exec{Argv: argv, ExitCode: 0}
}
