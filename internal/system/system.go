package system

import (
	"context"
	"io/fs"
	"time"
)

// MaxRead bounds every file userscript reads: sources, bases and live
// targets are configuration files, not data.
const MaxRead = 1 << 20

// A System is every side effect the engine has. Paths are real paths
// (already resolved under the root); Root turns a device path into one.
type System interface {
	// Root resolves an absolute device path under the root.
	Root(devicePath string) string
	// ReadFile reads a regular file of at most MaxRead bytes without
	// following a symlink in its last element.
	ReadFile(name string) ([]byte, error)
	Lstat(name string) (fs.FileInfo, error)
	ReadDir(name string) ([]fs.DirEntry, error)
	// WriteFile replaces name atomically: stage in its own directory,
	// fsync, rename, fsync the directory.
	WriteFile(name string, data []byte, perm fs.FileMode) error
	// WriteInPlace writes data into an existing file without replacing
	// it: the only way to set a kernel value in /proc/sys or /sys.
	WriteInPlace(name string, data []byte) error
	MkdirAll(name string, perm fs.FileMode) error
	Remove(name string) error
	// Run starts argv (never through a shell) and waits for it, killing
	// it when ctx ends. An absolute argv[0] is resolved under the root.
	Run(ctx context.Context, argv []string) Exec
	Now() time.Time
}

// An Exec is the outcome of one process.
type Exec struct {
	Argv     []string
	ExitCode int    // -1 when it did not start or was killed
	Output   string // stdout and stderr, the last 2 KiB
	Err      error  // why it did not start or did not finish
	Duration time.Duration
}

// OK reports whether the process ran and exited 0.
func (e Exec) OK() bool { return e.Err == nil && e.ExitCode == 0 }
