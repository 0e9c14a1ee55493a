package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/nas-userscript/userscript/internal/overlay"
	"github.com/nas-userscript/userscript/internal/profile"
	"github.com/nas-userscript/userscript/internal/settings"
	"github.com/nas-userscript/userscript/internal/state"
	"github.com/nas-userscript/userscript/internal/system"
)

// Exit codes.
const (
	exitOK      = 0
	exitError   = 1
	exitUsage   = 2
	exitRefused = 3
)

// usageError is a mistake on the command line.
type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// env is what every command gets: the global flags, the outputs and the
// engine they describe.
type env struct {
	root, app, profileName string
	profileFrom            string // where the profile name came from
	debug                  bool
	wait                   time.Duration
	version                string
	stdout, stderr         io.Writer
	log                    *slog.Logger
}

type command struct {
	name, args, help string
	run              func(ctx context.Context, e *env, args []string) error
	more             string // more help, for `userscript COMMAND -h`
}

func commands() []command {
	return []command{
		{"status", "[--json]", "show every target: its sources and whether it is in sync", runStatus, ""},
		{"diff", "[NAME...]", "show what apply would change (live → target)", runDiff, ""},
		{"apply", "[--dry-run]", "validate and apply conf.d, restart what changed", runApply,
			"Nothing is applied while conf.d/DISABLE (or DISABLE.txt) or conf.d/SAFE-MODE exists.\nIt writes conf.d/DOCTOR.txt (see userscript doctor -h) unless --dry-run."},
		{"validate", "", "validate every target without writing anything but status files", runValidate, ""},
		{"explain", "NAME [KEY]", "say which source set each value of a target", runExplain, ""},
		{"render", "--profile P [--base FILE] [-o FILE] SOURCE...", "compute a target offline (on a PC) from a base and sources", runRender,
			"On Windows: userscript.exe render --profile nas4220b --base smb.conf.from-nas -o smb.conf smb.conf.merge\n(-o writes the file as it is; PowerShell's > would save it as UTF-16)."},
		{"capture", "[--force] NAME", "copy the live target into conf.d as a source", runCapture, ""},
		{"run", "[--quiet D]", "apply now, then watch conf.d and apply every edit (the daemon)", runRun, ""},
		{"service", "ACTION", "install|uninstall|start|stop|restart|status the daemon with systemd, sysv or openrc", runService, ""},
		{"tune", "--show|--revert", "show the kernel tuning (wanted and current), or put the old values back", runTune, ""},
		{"history", "", "list the recorded generations", runHistory, ""},
		{"rollback", "[GEN]", "return to the previous (or the given) generation; 0 is the firmware's files", runRollback, ""},
		{"doctor", "[--write]", "check the installation: engine, profile, targets, services, disk, who can write conf.d", runDoctor,
			"Every start (apply, run) writes the same report to conf.d/DOCTOR.txt for owners without a shell;\n--write does that now too."},
		{"uninstall", "", "put back the firmware's own files and kernel values, and switch userscript off", runUninstall,
			"The firmware's files come back (restarting their services), the kernel's old values too, and\nconf.d/DISABLE is written so that nothing is applied again; conf.d itself stays.\nThen delete the app folder (or keep it: delete conf.d/DISABLE to switch userscript on again).\nOn a device with a shell the package's `init uninstall` does this and stops the engine first."},
		{"bench", "run|net|serve|compare|align", "measure throughput before and after tuning (docs/BENCH.md)", runBench, ""},
		{"profiles", "[--sh NAME]", "list the built-in profiles, or render one for the sh engine", runProfiles, ""},
		{"version", "", "print the version", runVersion, ""},
	}
}

// Main runs the command line and returns the exit code.
func Main(args []string, stdout, stderr io.Writer, version string) int {
	e := &env{stdout: stdout, stderr: stderr, version: version}
	fs := flag.NewFlagSet("userscript", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&e.root, "root", os.Getenv("USERSCRIPT_ROOT"), "resolve every device path under `DIR` (env USERSCRIPT_ROOT)")
	fs.StringVar(&e.app, "app", os.Getenv("USERSCRIPT_APP"), "the app `DIR` holding conf.d and state (env USERSCRIPT_APP; default: bin/..)")
	fs.StringVar(&e.profileName, "profile", "", "use the profile `NAME` instead of the one in the settings")
	fs.BoolVar(&e.debug, "debug", false, "log to stderr as well")
	fs.DurationVar(&e.wait, "wait", 5*time.Minute, "how long to wait for another apply (a restart being proven) to finish")
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(stdout, fs)
			return exitOK
		}
		fmt.Fprintf(stderr, "userscript: %v; userscript -h lists the flags\n", err)
		return exitUsage
	}
	if fs.NArg() == 0 {
		usage(stderr, fs)
		return exitUsage
	}
	name, rest := fs.Arg(0), fs.Args()[1:]
	for _, c := range commands() {
		if c.name != name {
			continue
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
		defer stop()
		return e.exit(c.run(ctx, e, rest))
	}
	fmt.Fprintf(stderr, "userscript: unknown command %q; run userscript -h for the list\n", name)
	return exitUsage
}

func usage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: userscript [--root DIR] [--app DIR] [--profile NAME] [--wait D] [--debug] COMMAND\n\ncommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %-15s %s\n", c.name, c.args, c.help)
	}
	fmt.Fprintf(w, "\nglobal flags:\n")
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	fmt.Fprintf(w, "\nuserscript COMMAND -h tells more about a command.\n")
}

func (e *env) exit(err error) int {
	if err == nil || errors.Is(err, errHelp) {
		return exitOK
	}
	var u usageError
	if errors.As(err, &u) {
		fmt.Fprintf(e.stderr, "userscript: %v\n", err)
		return exitUsage
	}
	for _, line := range strings.Split(err.Error(), "\n") {
		fmt.Fprintf(e.stderr, "userscript: %s\n", line)
	}
	switch {
	case errors.Is(err, overlay.ErrRefused):
		return exitRefused
	}
	return exitError
}

// appDir is the app dir: --app (USERSCRIPT_APP), else the folder above
// bin/ holding the running binary, or above state/run/ when it is the
// copy that init runs (so that a new package can be unpacked over
// bin/userscript while it runs).
func (e *env) appDir() (string, error) {
	if e.app != "" {
		return filepath.Abs(e.app)
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot tell the app dir: %w; pass --app DIR", err)
	}
	exe, _ = filepath.EvalSymlinks(exe)
	return appOf(exe), nil
}

// appOf is the app dir of the binary at exe: APP/bin/userscript or
// APP/state/run/userscript.
func appOf(exe string) string {
	dir := filepath.Dir(exe)
	if filepath.Base(dir) == "run" && filepath.Base(filepath.Dir(dir)) == "state" {
		return filepath.Dir(filepath.Dir(dir))
	}
	return filepath.Dir(dir)
}

// ensureSettings creates userscript.toml from userscript.toml.example
// when the owner has none: the package ships only the example, so that
// installing a newer package never overwrites the owner's settings.
func ensureSettings(app string) {
	example, err := os.ReadFile(filepath.Join(app, "userscript.toml.example"))
	if err != nil {
		return
	}
	f, err := os.OpenFile(filepath.Join(app, "userscript.toml"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return // there is one (or the app dir is read-only: the defaults hold)
	}
	_, err = f.Write(example)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
	}
}

// engine builds the engine the global flags describe. lock takes the
// apply lock; the returned func releases it.
func (e *env) engine(ctx context.Context, dry, lock bool) (*overlay.Engine, func(), error) {
	app, err := e.appDir()
	if err != nil {
		return nil, nil, err
	}
	if !dry {
		ensureSettings(app)
	}
	set, prof, notes, err := e.settings(app)
	if err != nil {
		return nil, nil, err
	}
	var sys system.System = system.NewReal(e.root)
	if dry {
		sys = &system.DryRun{System: sys}
	}
	stateDir := filepath.Join(app, "state")
	timeout, _ := set.Timeout()
	eng := &overlay.Engine{Sys: sys, Profile: prof, App: app, Strict: set.Strict, Keep: set.Keep, ValidateTimeout: timeout, Notes: notes}
	if err := eng.CheckDirs(); err != nil {
		return nil, nil, err
	}
	release := func() {}
	if lock && !dry {
		lctx, cancel := context.WithTimeout(ctx, e.wait)
		l, err := state.Acquire(lctx, sys, stateDir)
		cancel()
		if err != nil {
			return nil, nil, err
		}
		release = func() { l.Release() }
	}
	e.log = e.logger(sys, stateDir, dry, set)
	eng.Log = e.log
	for _, n := range notes {
		e.log.Warn("settings", "note", n)
		fmt.Fprintf(e.stderr, "userscript: warning: %s\n", n)
	}
	return eng, release, nil
}

// settings reads userscript.toml and picks the profile it changes. A
// mistake in the file never stops the engine (a typo must not leave the
// NAS with its ROM files after a reboot): an unknown key is ignored, and
// a file that cannot be used at all gives way to the defaults; each is
// named in the notes, which go to every status file.
func (e *env) settings(app string) (*settings.Settings, *profile.Profile, []string, error) {
	path := filepath.Join(app, "userscript.toml")
	set, err := settings.Load(path)
	var notes []string
	if err != nil {
		notes = append(notes, fmt.Sprintf("%v; the defaults are used instead", err))
		set = &settings.Settings{Keep: settings.DefaultKeep}
	}
	notes = append(notes, set.Unknown...)
	prof, err := e.pickProfile(app, set)
	if err != nil && e.profileName == "" && set.Profile != "" && packagedProfile(app) != "" {
		// Say, a misspelt profile name: the one the package was built for.
		notes = append(notes, fmt.Sprintf("%s: %v; the package's profile %s is used instead", path, err, packagedProfile(app)))
		set = &settings.Settings{Keep: set.Keep, Targets: set.Targets, Services: set.Services}
		prof, err = e.pickProfile(app, set)
	}
	var u usageError
	if err != nil && !errors.As(err, &u) {
		notes = append(notes, fmt.Sprintf("%v; the profile's own targets and services are used instead", err))
		prof, err = e.pickProfile(app, &settings.Settings{Profile: set.Profile, Keep: set.Keep})
	}
	return set, prof, notes, err
}

func (e *env) logger(sys system.System, stateDir string, dry bool, set *settings.Settings) *slog.Logger {
	var hs []slog.Handler
	if !dry {
		lf := state.OpenLog(sys, stateDir)
		lf.Max, _ = set.LogBytes()
		hs = append(hs, &state.LineHandler{W: lf})
	}
	if e.debug {
		hs = append(hs, &state.LineHandler{W: e.stderr, Level: slog.LevelDebug})
	}
	return slog.New(slog.NewMultiHandler(hs...))
}

// pickProfile is --profile, else the settings' profile, else the one the
// package was built with (lib/profile), each changed by the settings.
func (e *env) pickProfile(app string, set *settings.Settings) (*profile.Profile, error) {
	name := e.profileName
	e.profileFrom = "--profile"
	if name == "" {
		name, e.profileFrom = set.Profile, "userscript.toml"
	}
	if name == "" {
		name, e.profileFrom = packagedProfile(app), "the package's lib/profile"
	}
	if name == "" {
		return nil, usagef("no profile: set profile in %s or pass --profile (known: %s)", filepath.Join(app, "userscript.toml"), strings.Join(profile.Names(), ", "))
	}
	if _, err := profile.Builtin(name); err != nil {
		return nil, usagef("%v", err)
	}
	// dsm follows the DSM version the device states.
	p, err := profile.ForDevice(name, system.NewReal(e.root))
	if err != nil {
		return nil, err
	}
	return set.Apply(p)
}

// packagedProfile reads the profile name from the first line of
// lib/profile, which the package build renders.
func packagedProfile(app string) string {
	data, err := os.ReadFile(filepath.Join(app, "lib", "profile"))
	if err != nil {
		return ""
	}
	first, _, _ := strings.Cut(string(data), "\n")
	name, ok := strings.CutPrefix(first, "profile ")
	if !ok {
		return ""
	}
	return strings.TrimSpace(name)
}
