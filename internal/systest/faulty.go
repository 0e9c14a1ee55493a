package systest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/nas-userscript/userscript/internal/system"
)

// How a change fails.
const (
	Before = "before" // nothing was changed
	After  = "after"  // the change was made, then the error came (an fsync of the folder)
	Torn   = "torn"   // killed half-way: a staging file holds part of the data
)

// A Step is one way one change the engine makes can fail.
type Step struct {
	N    int    // counted from 1 over all changes
	Op   string // "write", "remove", "inplace", "mkdirtemp", "mkdir", "rename", "append"
	Name string // the path
	How  string // Before, After or Torn
}

func (s Step) String() string { return fmt.Sprintf("%d %s %s %s", s.N, s.How, s.Op, s.Name) }

// Faulty wraps a System and asks Fail at every step of every change: a
// write is three steps (Before, Torn, After), the others one (Before).
// The error Fail returns fails that step; nil lets it pass.
type Faulty struct {
	system.System
	Fail func(Step) error
	n    int
}

func (f *Faulty) ask(op, name, how string) error {
	if f.Fail == nil {
		return nil
	}
	f.n++
	return f.Fail(Step{N: f.n, Op: op, Name: name, How: how})
}

func (f *Faulty) WriteFile(name string, data []byte, perm fs.FileMode) error {
	if err := f.ask("write", name, Before); err != nil {
		return err
	}
	if err := f.ask("write", name, Torn); err != nil {
		// What a write killed half-way leaves: its staging file.
		os.WriteFile(filepath.Join(filepath.Dir(name), "."+filepath.Base(name)+".userscript-torn"), data[:len(data)/2], 0o600)
		return err
	}
	if err := f.System.WriteFile(name, data, perm); err != nil {
		return err
	}
	return f.ask("write", name, After)
}

func (f *Faulty) WriteInPlace(name string, data []byte) error {
	if err := f.ask("inplace", name, Before); err != nil {
		return err
	}
	return f.System.WriteInPlace(name, data)
}

func (f *Faulty) Remove(name string) error {
	if err := f.ask("remove", name, Before); err != nil {
		return err
	}
	return f.System.Remove(name)
}

func (f *Faulty) RemoveAll(name string) error {
	if err := f.ask("remove", name, Before); err != nil {
		return err
	}
	return f.System.RemoveAll(name)
}

func (f *Faulty) MkdirTemp(pattern string) (string, error) {
	if err := f.ask("mkdirtemp", pattern, Before); err != nil {
		return "", err
	}
	return f.System.MkdirTemp(pattern)
}

func (f *Faulty) Mkdir(name string, perm fs.FileMode) error {
	if err := f.ask("mkdir", name, Before); err != nil {
		return err
	}
	return f.System.Mkdir(name, perm)
}

func (f *Faulty) Rename(oldname, newname string) error {
	if err := f.ask("rename", newname, Before); err != nil {
		return err
	}
	return f.System.Rename(oldname, newname)
}

func (f *Faulty) Append(name string, data []byte, perm fs.FileMode) error {
	if err := f.ask("append", name, Before); err != nil {
		return err
	}
	return f.System.Append(name, data, perm)
}
