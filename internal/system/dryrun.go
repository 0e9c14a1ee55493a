package system

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
)

// DryRun wraps a System: reads go through, every change to the device or
// the app dir is recorded in Actions and not made. Scratch folders it
// hands out (MkdirTemp) are real, so validators still check the staged
// candidates; Check commands run, every other command is only recorded.
type DryRun struct {
	System
	Actions []string
	scratch []string
}

// inScratch reports whether name is inside a scratch folder.
func (d *DryRun) inScratch(name string) bool {
	for _, dir := range d.scratch {
		if rel, err := filepath.Rel(dir, name); err == nil && !strings.HasPrefix(rel, "..") {
			return true
		}
	}
	return false
}

func (d *DryRun) MkdirTemp(pattern string) (string, error) {
	dir, err := d.System.MkdirTemp(pattern)
	if err == nil {
		d.scratch = append(d.scratch, dir)
	}
	return dir, err
}

func (d *DryRun) WriteFile(name string, data []byte, perm fs.FileMode) error {
	if d.inScratch(name) {
		return d.System.WriteFile(name, data, perm)
	}
	d.Actions = append(d.Actions, fmt.Sprintf("write %s (%d bytes)", name, len(data)))
	return nil
}

func (d *DryRun) WriteInPlace(name string, data []byte) error {
	d.Actions = append(d.Actions, fmt.Sprintf("set %s to %q", name, strings.TrimSpace(string(data))))
	return nil
}

func (d *DryRun) MkdirAll(name string, perm fs.FileMode) error {
	if d.inScratch(name) {
		return d.System.MkdirAll(name, perm)
	}
	return nil
}

func (d *DryRun) Remove(name string) error {
	if d.inScratch(name) {
		return d.System.Remove(name)
	}
	d.Actions = append(d.Actions, "remove "+name)
	return nil
}

func (d *DryRun) RemoveAll(name string) error {
	if d.inScratch(name) {
		return d.System.RemoveAll(name)
	}
	d.Actions = append(d.Actions, "remove "+name)
	return nil
}

func (d *DryRun) Run(ctx context.Context, c Command) Exec {
	if c.Check {
		return d.System.Run(ctx, c)
	}
	d.Actions = append(d.Actions, "run "+strings.Join(c.Argv, " "))
	return Exec{Argv: c.Argv, ExitCode: 0}
}

func (d *DryRun) Mkdir(name string, perm fs.FileMode) error {
	if d.inScratch(name) {
		return d.System.Mkdir(name, perm)
	}
	return nil
}

func (d *DryRun) Rename(oldname, newname string) error {
	if d.inScratch(oldname) && d.inScratch(newname) {
		return d.System.Rename(oldname, newname)
	}
	d.Actions = append(d.Actions, fmt.Sprintf("rename %s to %s", oldname, newname))
	return nil
}

func (d *DryRun) Append(name string, data []byte, perm fs.FileMode) error {
	if d.inScratch(name) {
		return d.System.Append(name, data, perm)
	}
	d.Actions = append(d.Actions, fmt.Sprintf("append to %s (%d bytes)", name, len(data)))
	return nil
}

// LockFile takes no lock: a dry run changes nothing that needs one.
func (d *DryRun) LockFile(name string) (io.Closer, error) {
	return io.NopCloser(nil), nil
}
