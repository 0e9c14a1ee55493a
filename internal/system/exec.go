package system

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// tailSize is how much of a command's output an Exec keeps.
const tailSize = 2048

// MaxOutput is the size over which an output file is emptied once its
// command has ended: a daemon left writing into it cannot fill the disk
// between two runs by more than what it writes meanwhile.
const MaxOutput = 64 << 10

// killGrace is how long an ended command has between TERM and KILL.
const killGrace = 2 * time.Second

// Run starts c.Argv directly and waits until that process exits. Its
// output goes to the file c.Output, never a pipe, so a daemon it leaves
// running is not waited for.
func (r *Real) Run(ctx context.Context, c Command) Exec {
	start := time.Now()
	e := Exec{Argv: c.Argv, ExitCode: -1}
	if len(c.Argv) == 0 {
		e.Err = errors.New("empty command")
		return e
	}
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	out, err := openOutput(c.Output)
	if err != nil {
		e.Err = err
		return e
	}
	defer out.Close()
	prog := c.Argv[0]
	if c.Service && filepath.IsAbs(prog) {
		prog = r.Root(prog)
	}
	err = r.start(ctx, c, prog, out).Run()
	e.Duration = time.Since(start)
	e.Output = readTail(out)
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		e.TimedOut = true
		e.Err = fmt.Errorf("timed out after %s", e.Duration.Round(time.Millisecond))
	case err == nil:
		e.ExitCode = 0
	case errors.As(err, &exitErr):
		e.ExitCode = exitErr.ExitCode()
	default:
		e.Err = err
	}
	return e
}

// start prepares the process: its own process group (a signal to ours
// does not reach it), output into out, and how it is ended when ctx
// ends.
func (r *Real) start(ctx context.Context, c Command, prog string, out *os.File) *exec.Cmd {
	cmd := exec.CommandContext(ctx, prog, c.Argv[1:]...)
	cmd.Env = append(childEnviron(), c.Env...)
	cmd.SysProcAttr = ownGroup()
	cmd.Stdout, cmd.Stderr = out, out
	if c.StderrOnly {
		cmd.Stdout = nil // os/exec opens the null device
	}
	if c.Service {
		// Only the script: the daemons it started are in its group.
		cmd.Cancel = func() error { return terminate(cmd.Process) }
		cmd.WaitDelay = killGrace
	} else {
		cmd.Cancel = func() error { return killGroup(cmd.Process) }
	}
	return cmd
}

// childEnviron is our environment without USERSCRIPT_ROOT: the root is
// how this process sees the device, and no command on the device (the
// firmware's rc.d scripts, the validators) knows of it.
func childEnviron() []string {
	env := os.Environ()
	return slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "USERSCRIPT_ROOT=") })
}

// openOutput opens the output file for appending, emptied, never through
// a link; "" is /dev/null.
func openOutput(name string) (*os.File, error) {
	if name == "" {
		return os.OpenFile(os.DevNull, os.O_RDWR, 0)
	}
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(name, os.O_RDWR|os.O_APPEND|os.O_CREATE|oNoFollow|oNonBlock, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: not a regular file; remove it", name)
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return f, nil
}

// readTail returns the last tailSize bytes written to f, and empties f
// when it has grown past MaxOutput.
func readTail(f *os.File) string {
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	size := fi.Size()
	b := make([]byte, min(size, tailSize))
	n, _ := f.ReadAt(b, size-int64(len(b)))
	if size > MaxOutput {
		f.Truncate(0)
	}
	return strings.TrimSpace(string(bytes.ToValidUTF8(b[:n], []byte("?"))))
}
