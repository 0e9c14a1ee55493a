package firmsim

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/nas-userscript/userscript/internal/profile"
	"github.com/nas-userscript/userscript/internal/systest"
)

// A Device is a device root and an app dir laid out for engine runs
// without the firmware's boot: the suites that run an engine directly
// (scenario, hostile, killtest) ask for one, the boot tests for a NAS.
type Device struct {
	Dir     string // holds everything below
	Root    string // the device's /, --root and USERSCRIPT_ROOT
	App     string // the app dir: conf.d, state, lib
	Bin     string // PATH with the allowed applets (+ the validators asked for)
	Shell   string // BusyBox's ash
	Profile *profile.Profile
}

// A DeviceSpec says what a Device holds.
type DeviceSpec struct {
	Profile    string            // a built-in profile ("" is nas4220b)
	BusyBox    string            // the BusyBox binary ("" is Debian's)
	Validators []string          // host tools put on Bin beside the applets
	Files      map[string]string // device files (relative to the root), mode 0644
}

// NewDevice lays out a device under dir: the spec's files under the root,
// every absolute restart command of the profile a stub that logs its
// call to ROOT/restarts.log, an empty conf.d, and the applets.
func NewDevice(dir string, s DeviceSpec) (*Device, error) {
	name := s.Profile
	if name == "" {
		name = "nas4220b"
	}
	p, err := profile.Builtin(name)
	if err != nil {
		return nil, err
	}
	d := &Device{Dir: dir, Root: filepath.Join(dir, "root"), App: filepath.Join(dir, "app"), Profile: p}
	if err := os.MkdirAll(filepath.Join(d.App, "conf.d"), 0o755); err != nil {
		return nil, err
	}
	for rel, body := range s.Files {
		if err := writeFile(filepath.Join(d.Root, rel), body, 0o644); err != nil {
			return nil, err
		}
	}
	if err := d.stubServices(); err != nil {
		return nil, err
	}
	if s.BusyBox == "" {
		d.Bin, d.Shell, err = Applets(filepath.Join(dir, "bin"), s.Validators...)
	} else {
		d.Bin, d.Shell, err = AppletsOf(s.BusyBox, filepath.Join(dir, "bin"), s.Validators...)
	}
	return d, err
}

// stubServices makes every absolute restart command of the profile a
// LogStub under the root.
func (d *Device) stubServices() error {
	for _, s := range d.Profile.Services {
		argv0 := s.Restart[0]
		if !filepath.IsAbs(argv0) {
			continue
		}
		if err := writeFile(filepath.Join(d.Root, argv0), LogStub(d.Root, filepath.Base(argv0)), 0o755); err != nil {
			return err
		}
	}
	return nil
}

// LogStub is the body of a service script that logs its call as
// "NAME ARGS" to ROOT/restarts.log.
func LogStub(root, name string) string {
	return fmt.Sprintf("#!/bin/sh\n# firmsim stub: logs its call\necho \"%s $*\" >>%s\n",
		name, shQuote(filepath.Join(root, RestartLog)))
}

// InstallShEngine puts the sh engine from src (the package's lib folder)
// into APP/lib, with lib/profile rendered as the build renders it and
// lib/version saying version.
func (d *Device) InstallShEngine(src, version string) error {
	lib := filepath.Join(d.App, "lib")
	if err := os.MkdirAll(lib, 0o755); err != nil {
		return err
	}
	if err := CopyEngine(src, lib); err != nil {
		return err
	}
	var prof bytes.Buffer
	if err := d.Profile.WriteShell(&prof); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(lib, "profile"), prof.Bytes(), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(lib, "version"), []byte(version+"\n"), 0o644)
}

// Env is the environment the engines run with.
func (d *Device) Env() []string {
	return []string{
		"PATH=" + d.Bin,
		"HOME=" + d.Dir,
		"LC_ALL=C",
		"USERSCRIPT_ROOT=" + d.Root,
		"USERSCRIPT_APP=" + d.App,
	}
}

// CopyEngine copies the sh engine (engine.sh and the parts it sources)
// from the package's lib folder src into dst.
func CopyEngine(src, dst string) error {
	parts, err := filepath.Glob(filepath.Join(src, "*.sh"))
	if err != nil || len(parts) == 0 {
		return fmt.Errorf("%s: no sh engine here (%v)", src, err)
	}
	for _, p := range parts {
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := systest.WriteFile(filepath.Join(dst, filepath.Base(p)), data, 0o755); err != nil {
			return err
		}
	}
	return nil
}

// writeFile writes name, and the folders above it, with
// systest.WriteFile: what a test writes it may run at once.
func writeFile(name, body string, perm os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	return systest.WriteFile(name, []byte(body), perm)
}
