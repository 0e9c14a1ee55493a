package system

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"time"
)

// MaxRead bounds every file userscript reads: sources, bases and live
// targets are configuration files, not data.
const MaxRead = 1 << 20

// ErrTooBig is the error of a read of a file over MaxRead.
var ErrTooBig = errors.New("over the limit of 1 MiB")

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
	// Readlink is the target of a symlink (in /proc/PID/fd: what a
	// process has open, "socket:[INODE]" for a socket).
	Readlink(name string) (string, error)
	// WriteFile replaces name atomically: stage in its own directory,
	// fsync, rename, fsync the directory. A file that exists keeps its
	// mode and owner; perm is the mode of a new one.
	WriteFile(name string, data []byte, perm fs.FileMode) error
	// WriteInPlace writes data into an existing file without replacing
	// it: the only way to set a kernel value in /proc/sys or /sys.
	WriteInPlace(name string, data []byte) error
	MkdirAll(name string, perm fs.FileMode) error
	// Mkdir makes one folder and fails when name exists (fs.ErrExist).
	Mkdir(name string, perm fs.FileMode) error
	// Rename is rename(2): within one file system, atomic.
	Rename(oldname, newname string) error
	// Append adds data at the end of name, made with perm when missing;
	// only ever to a regular file, never through a symlink.
	Append(name string, data []byte, perm fs.FileMode) error
	// LockFile takes an exclusive lock on name (made when missing)
	// without waiting; Close, or the end of this process, releases it.
	LockFile(name string) (io.Closer, error)
	Remove(name string) error
	// RemoveAll removes name and everything under it, without
	// following links.
	RemoveAll(name string) error
	// MkdirTemp makes a new private folder for scratch files (staged
	// candidates, validator output) outside the device's files.
	MkdirTemp(pattern string) (string, error)
	// Run starts a command (never through a shell) and waits for it;
	// see Command for where its output goes and how it is ended.
	Run(ctx context.Context, c Command) Exec
	// Dial connects to a TCP address, to prove a service serves there.
	Dial(ctx context.Context, addr string) (net.Conn, error)
	// Interfaces lists the network interfaces and their addresses.
	Interfaces() ([]Interface, error)
	// Free is the space on the file system holding name that an
	// unprivileged user (the owner, over SMB) can still use, in bytes.
	Free(name string) (int64, error)
	// Alive reports whether a process with pid exists on this machine
	// (it may be another user's).
	Alive(pid int) bool
	Now() time.Time
}

// A Command is one process to run.
type Command struct {
	// Argv is the program and its arguments. A bare Argv[0] is looked
	// up in PATH; an absolute one is a path of this machine, except for
	// a Service, whose command is a device path resolved under the root.
	Argv []string
	// Timeout bounds the run (0: only ctx does). When it ends, or ctx
	// does, the command is ended (see Service).
	Timeout time.Duration
	// Output is the file that receives stdout and stderr (appended to,
	// emptied when the command starts); "" throws them away. It is a
	// file and never a pipe, so a daemon that a script leaves running
	// with the script's output still open cannot hold the run up.
	Output string
	// StderrOnly sends only stderr to Output and throws stdout away
	// (testparm -s prints the whole file there).
	StderrOnly bool
	// Service marks a service's restart script: when it runs out of
	// time only the script itself is ended (TERM, then KILL), never the
	// daemons it started. Other commands are ended with their whole
	// process group.
	Service bool
	// Check marks a command without effect on the device (a validator):
	// it runs under DryRun too.
	Check bool
	// Env is added to the environment.
	Env []string
}

// An Exec is the outcome of one process.
type Exec struct {
	Argv     []string
	ExitCode int    // -1 when it did not start or was killed
	Output   string // the last 2 KiB of its output
	Err      error  // why it did not start or did not finish
	TimedOut bool
	Duration time.Duration
}

// OK reports whether the process ran and exited 0.
func (e Exec) OK() bool { return e.Err == nil && e.ExitCode == 0 }

// An Interface is a network interface and its IP addresses.
type Interface struct {
	Name  string
	Addrs []string
}
