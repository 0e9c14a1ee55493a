package validate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Kind names, as in profiles.
const (
	Testparm = "testparm"
	Proftpd  = "proftpd"
	Exports  = "exports"
)

// DefaultTimeout bounds one validator process when Options.Timeout is 0.
const DefaultTimeout = 30 * time.Second

// maxCandidate is the largest candidate read into memory (sources are
// limited to 1 MiB; a .add appended to a base may be somewhat larger).
const maxCandidate = 8 << 20

// Options tune a Check.
type Options struct {
	// Strict refuses a candidate that has Warnings (unknown or deprecated
	// Samba parameters, proftpd warnings, exports warnings). Notes about
	// the host never refuse.
	Strict bool
	// Timeout bounds each validator process; 0 means DefaultTimeout.
	Timeout time.Duration
	// LookPath finds a validator program; nil means exec.LookPath, then
	// /usr/sbin, /sbin and /usr/local/sbin. Tests inject one to simulate
	// "not installed".
	LookPath func(string) (string, error)

	// noNamespace makes the validators behave as if unshare(2) were not
	// permitted (tests of the fallback).
	noNamespace bool
}

// An Exec is one validator process, for the log.
type Exec struct {
	Argv     []string
	ExitCode int    // -1 when it did not start or was killed
	Stderr   string // the last 2 KiB
	Err      error  // why it did not start or did not finish
}

// A Result is the verdict on one candidate.
type Result struct {
	Validated bool   // a real validator ran to completion (or our own parser, for exports)
	Tool      string // what checked it, e.g. "testparm -s"
	Refused   bool
	// Reason: when refused, the first problem with its line number
	// ("line 3: ..."); when not validated, "not validated: ...".
	Reason string
	// Warnings are problems in the file that do not refuse it unless
	// Options.Strict, e.g. `line 12: Unknown parameter encountered: "lpq cache"`.
	Warnings []string
	// Notes are about the host, not the file (a missing lock directory,
	// a host name that does not resolve here, no private namespace); they
	// never refuse.
	Notes []string
	Execs []Exec // every process run, for the log
}

// Check validates the file at path (a staged candidate) as kind. An
// unknown kind or "" is not validated.
func Check(ctx context.Context, kind, path string, opt Options) Result {
	var r Result
	switch kind {
	case Testparm:
		r = checkTestparm(ctx, path, opt)
	case Proftpd:
		r = checkProftpd(ctx, path, opt)
	case Exports:
		r = checkExports(ctx, path, opt)
	default:
		return Result{Reason: "not validated: no validator for this target"}
	}
	if opt.Strict && !r.Refused && len(r.Warnings) > 0 {
		r.Refused = true
		r.Reason = r.Warnings[0] + " (refused: strict validation refuses warnings)"
	}
	return r
}

func (o Options) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return DefaultTimeout
}

// find looks a validator up; ok is false with r filled in when it is not
// installed.
func (o Options) find(name string) (string, bool) {
	look := o.LookPath
	if look == nil {
		look = lookPath
	}
	p, err := look(name)
	return p, err == nil && p != ""
}

// lookPath is exec.LookPath, then the sbin directories a daemon's PATH
// often lacks.
func lookPath(name string) (string, error) {
	p, err := exec.LookPath(name)
	if err == nil {
		return p, nil
	}
	for _, dir := range []string{"/usr/sbin", "/sbin", "/usr/local/sbin"} {
		c := filepath.Join(dir, name)
		if fi, serr := os.Stat(c); serr == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return c, nil
		}
	}
	return "", err
}

func notFound(tool, name string) Result {
	return Result{Tool: tool, Reason: "not validated: " + name + " not found"}
}

// readCandidate reads the staged file; a candidate that cannot be read is
// refused (nothing can be applied from it).
func readCandidate(tool, path string) ([]byte, *Result) {
	fi, err := os.Stat(path)
	if err == nil && !fi.Mode().IsRegular() {
		err = errors.New("not a regular file")
	} else if err == nil && fi.Size() > maxCandidate {
		err = fmt.Errorf("larger than %d bytes", maxCandidate)
	}
	var data []byte
	if err == nil {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, &Result{Tool: tool, Refused: true, Reason: fmt.Sprintf("%s: cannot read the candidate: %v", path, err)}
	}
	return data, nil
}

// output is what a validator process printed.
type output struct {
	Exec
	stdout, stderr []byte
}

const tailSize = 2048

// run starts argv (argv[0] is the program's path) and waits for it, for
// at most timeout.
func run(ctx context.Context, timeout time.Duration, argv []string) output {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out := output{Exec: Exec{Argv: argv, ExitCode: -1}}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "LC_ALL=C", "LANG=C", "LANGUAGE=C")
	cmd.WaitDelay = 2 * time.Second
	var stdout, stderr limitedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	out.stdout, out.stderr = stdout.b, stderr.b
	out.Stderr = tail(stderr.b)
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		out.Err = fmt.Errorf("%s: no answer within %s", argv[0], timeout)
	case err == nil:
		out.ExitCode = 0
	case errors.As(err, &exitErr):
		out.ExitCode = exitErr.ExitCode()
	default:
		out.Err = err
	}
	return out
}

// limitedBuffer keeps the first MiB written to it.
type limitedBuffer struct{ b []byte }

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := 1<<20 - len(l.b); room > 0 {
		l.b = append(l.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func tail(b []byte) string {
	if len(b) > tailSize {
		b = b[len(b)-tailSize:]
	}
	return strings.TrimSpace(string(bytes.ToValidUTF8(b, []byte("?"))))
}

// lines splits process output into trimmed, non-empty lines.
func lines(b []byte) []string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}
