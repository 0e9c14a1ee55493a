package validate

import (
	"context"
	"fmt"
	"github.com/nas-userscript/userscript/internal/system"
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
	// Paths are where the device keeps the validators (real paths, as
	// the profile's Tools name them), looked at before LookPath: a
	// program there whose name is the validator's is used.
	Paths []string

	// Sys runs the validators and reads the candidate; nil is the
	// machine itself.
	Sys system.System

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
	TimedOut bool
}

// A Result is the verdict on one candidate.
type Result struct {
	Validated bool   // a real validator ran to completion (or our own parser, for exports)
	NotFound  bool   // the validator's program is not installed
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

func (o Options) sys() system.System {
	if o.Sys == nil {
		return system.NewReal("/")
	}
	return o.Sys
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
	for _, p := range o.Paths {
		if filepath.Base(p) != name {
			continue
		}
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, true
		}
	}
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
	return Result{Tool: tool, Reason: "not validated: " + name + " not found", NotFound: true}
}

// readCandidate reads the staged file; a candidate that cannot be read is
// refused (nothing can be applied from it).
func readCandidate(opt Options, tool, path string) ([]byte, *Result) {
	data, err := opt.sys().ReadFile(path)
	if err != nil {
		return nil, &Result{Tool: tool, Refused: true, Reason: fmt.Sprintf("%s: cannot read the candidate: %v", path, err)}
	}
	return data, nil
}

// output is what a validator process printed.
type output struct {
	Exec
	stderr []byte
}

// run starts argv (argv[0] is the program's path) through the System
// seam and waits for it, for at most the timeout. Its stderr goes to a
// file next to the candidate (stdout is thrown away) and is read back.
func run(ctx context.Context, opt Options, candidate string, argv []string) output {
	errFile := candidate + ".stderr"
	x := opt.sys().Run(ctx, system.Command{
		Argv:       argv,
		Timeout:    opt.timeout(),
		Output:     errFile,
		StderrOnly: true,
		Check:      true,
		Env:        []string{"LC_ALL=C", "LANG=C", "LANGUAGE=C"},
	})
	out := output{Exec: Exec{Argv: argv, ExitCode: x.ExitCode, Stderr: x.Output, Err: x.Err, TimedOut: x.TimedOut}}
	if x.TimedOut {
		out.Err = fmt.Errorf("%s: no answer within %s", argv[0], opt.timeout())
	}
	out.stderr, _ = opt.sys().ReadFile(errFile)
	opt.sys().Remove(errFile)
	return out
}

// timedOut is the verdict on a candidate whose validator did not answer
// in time: not applied, since it may be what hangs (an include of a
// FIFO, a device or a file on a missing disk) and the service would hang
// on it too.
func timedOut(tool string, out output, timeout time.Duration) Result {
	return Result{Tool: tool, Refused: true, Execs: []Exec{out.Exec},
		Reason: fmt.Sprintf("%s did not answer within %s, so the file was not applied: does it include a FIFO, a device or a file on a disk that is not there?", tool, timeout)}
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
