package firmsim

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Package Center, as Synology's Package Developer Guide describes it
// ("scripts", "Script Environment Variables", "Resource: Data Share")
// and as DSM logs an upgrade: each operation runs the package's scripts
// in Package Center's order, with its SYNOPKG_* environment.
//
//	install:   preinst, package.tgz into SYNOPKG_PKGDEST, postinst, start
//	upgrade:   old stop, new preupgrade, old preuninst, SYNOPKG_PKGDEST
//	           removed, old postuninst, new preinst, package.tgz, new
//	           postinst, new postupgrade, start
//	uninstall: stop, preuninst, SYNOPKG_PKGDEST removed, postuninst
//
// Before a start, DSM 7 acquires conf/resource's data shares: the shared
// folder is made on volume1 and linked at /var/packages/NAME/shares/.
// Scripts run as the test's user under DSM's shell (BusyBox ash, the
// applets firmsim allows); DSM 7's package user is not simulated.

// A Step is one script Package Center ran.
type Step struct {
	Package string
	Script  string // preinst … or "start-stop-status start"
	Status  string // SYNOPKG_PKG_STATUS
	Version string // SYNOPKG_PKGVER
	Exit    int
	Output  string // stdout and stderr
	Message string // what it left in SYNOPKG_TEMP_LOGFILE for the owner
}

func (s Step) String() string { return fmt.Sprintf("%s %s (%s)", s.Script, s.Status, s.Version) }

type pkgState struct {
	version string
	enabled bool
}

// Install installs the package spk as Manual Install does and starts it.
func (d *DSM) Install(spk string) error {
	s, err := d.admit(spk)
	if err != nil {
		return err
	}
	name, ver := s.INFO["package"], s.INFO["version"]
	if _, ok := d.pkgs[name]; ok {
		return fmt.Errorf("%s is installed already: upgrade it", name)
	}
	tmp, err := d.unpackTemp(s)
	if err != nil {
		return err
	}
	d.pkgs[name] = &pkgState{version: ver}
	fail := func(err error) error { delete(d.pkgs, name); return err }
	if _, err := d.scriptIn(tmp, name, "preinst", "", "INSTALL"); err != nil {
		return fail(err)
	}
	if err := d.place(name, tmp); err != nil {
		return fail(err)
	}
	if _, err := d.script(name, "postinst", "", "INSTALL"); err != nil {
		return err
	}
	d.pkgs[name].enabled = true
	return d.start(name, "START")
}

// Upgrade installs spk over the installed package of the same name.
func (d *DSM) Upgrade(spk string) error {
	s, err := d.admit(spk)
	if err != nil {
		return err
	}
	name, ver := s.INFO["package"], s.INFO["version"]
	p, ok := d.pkgs[name]
	if !ok {
		return fmt.Errorf("%s is not installed", name)
	}
	if c, err := ComparePkgVersions(ver, p.version); err != nil || c <= 0 {
		return fmt.Errorf("%s %s is not newer than the installed %s (%v)", name, ver, p.version, err)
	}
	tmp, err := d.unpackTemp(s)
	if err != nil {
		return err
	}
	p.version = ver // SYNOPKG_PKGVER is the new version in every step
	if p.enabled {
		if _, err := d.script(name, "start-stop-status", "stop", "UPGRADE"); err != nil {
			return err
		}
	}
	if _, err := d.scriptIn(tmp, name, "preupgrade", "", "UPGRADE"); err != nil {
		return err
	}
	if _, err := d.script(name, "preuninst", "", "UPGRADE"); err != nil {
		return err
	}
	if err := os.RemoveAll(d.pkgDest(name)); err != nil {
		return err
	}
	if _, err := d.script(name, "postuninst", "", "UPGRADE"); err != nil {
		return err
	}
	if _, err := d.scriptIn(tmp, name, "preinst", "", "UPGRADE"); err != nil {
		return err
	}
	if err := d.place(name, tmp); err != nil {
		return err
	}
	for _, sc := range []string{"postinst", "postupgrade"} {
		if _, err := d.script(name, sc, "", "UPGRADE"); err != nil {
			return err
		}
	}
	if !p.enabled {
		return nil
	}
	return d.start(name, "START")
}

// Uninstall removes the package name; a failing preuninst aborts it.
func (d *DSM) Uninstall(name string) error {
	p, ok := d.pkgs[name]
	if !ok {
		return fmt.Errorf("%s is not installed", name)
	}
	if p.enabled {
		if _, err := d.script(name, "start-stop-status", "stop", "UNINSTALL"); err != nil {
			return err
		}
	}
	if _, err := d.script(name, "preuninst", "", "UNINSTALL"); err != nil {
		return err
	}
	if err := os.RemoveAll(d.pkgDest(name)); err != nil {
		return err
	}
	_, err := d.script(name, "postuninst", "", "UNINSTALL")
	delete(d.pkgs, name)
	return errors.Join(err, os.RemoveAll(d.pkgDir(name)))
}

// Start runs the package as its Run button does.
func (d *DSM) Start(name string) error {
	if err := d.start(name, "START"); err != nil {
		return err
	}
	d.pkgs[name].enabled = true
	return nil
}

// Stop stops the package as its Stop button does; it stays stopped at
// the next boot.
func (d *DSM) Stop(name string) error {
	if _, ok := d.pkgs[name]; !ok {
		return fmt.Errorf("%s is not installed", name)
	}
	d.pkgs[name].enabled = false
	_, err := d.script(name, "start-stop-status", "stop", "STOP")
	return err
}

// Status is what Package Center shows: start-stop-status status's exit
// code (0 running, 3 stopped, 1 failed) and output.
func (d *DSM) Status(name string) (int, string) {
	st, _ := d.script(name, "start-stop-status", "status", "")
	return st.Exit, st.Output
}

// Installed reports the installed version of name.
func (d *DSM) Installed(name string) (string, bool) {
	p, ok := d.pkgs[name]
	if !ok {
		return "", false
	}
	return p.version, true
}

// LastStep is the last script Package Center ran.
func (d *DSM) LastStep() Step {
	if len(d.Steps) == 0 {
		return Step{}
	}
	return d.Steps[len(d.Steps)-1]
}

func (d *DSM) start(name, status string) error {
	if d.Major >= 7 {
		if err := d.acquireShares(name); err != nil {
			return err
		}
	}
	_, err := d.script(name, "start-stop-status", "start", status)
	return err
}

func (d *DSM) pkgDir(name string) string  { return filepath.Join(d.Root, DSMPackages, name) }
func (d *DSM) pkgDest(name string) string { return filepath.Join(d.Root, dsmAppstore, name) }

// admit reads spk and refuses it as Package Center does when its INFO
// does not fit this DiskStation.
func (d *DSM) admit(spk string) (*SPK, error) {
	s, err := ReadSPK(spk)
	if err != nil {
		return nil, err
	}
	for _, k := range []string{"package", "version"} {
		if s.INFO[k] == "" {
			return nil, fmt.Errorf("%s: INFO has no %s", spk, k)
		}
	}
	return s, d.fits(s.INFO)
}

// fits applies INFO's version and arch rules ("INFO: Necessary Fields",
// Appendix A): DSM 7 reads only os_min_ver and wants at least
// 7.0-40000; DSM 6.1 and later read os_min_ver, else firmware; older DSM
// reads firmware only. os_max_ver is read from 6.1 on (an assumption:
// the guide gives no version for it). arch must name noarch, the
// platform, or (DSM 7) its family.
func (d *DSM) fits(info map[string]string) error {
	here := [3]int{d.Major, d.Minor, d.Build}
	newer := here[0] > 6 || here[0] == 6 && here[1] >= 1
	min := info["firmware"]
	switch {
	case d.Major >= 7:
		min = info["os_min_ver"]
		if v, err := ParseOSVersion(min); err != nil || cmp3(v, [3]int{7, 0, 40000}) < 0 {
			return fmt.Errorf("DSM %s: os_min_ver %q: DSM 7 installs only packages made for it (os_min_ver 7.0-40000 or later)", d.version(), min)
		}
	case newer && info["os_min_ver"] != "":
		min = info["os_min_ver"]
	}
	if min != "" {
		v, err := ParseOSVersion(min)
		if err != nil {
			return err
		}
		if cmp3(here, v) < 0 {
			return fmt.Errorf("DSM %s: the package needs DSM %s or later", d.version(), min)
		}
	}
	if max := info["os_max_ver"]; newer && max != "" {
		v, err := ParseOSVersion(max)
		if err != nil {
			return err
		}
		if cmp3(here, v) > 0 {
			return fmt.Errorf("DSM %s: the package runs only up to DSM %s", d.version(), max)
		}
	}
	archs := strings.Fields(info["arch"])
	family := map[string]string{"geminilake": "x86_64", "apollolake": "x86_64", "ppc853x": "ppc"}[d.Platform]
	if slices.Contains(archs, "noarch") || slices.Contains(archs, d.Platform) || d.Major >= 7 && slices.Contains(archs, family) {
		return nil
	}
	return fmt.Errorf("DSM %s on %s: the package is for %q", d.version(), d.Platform, info["arch"])
}

func (d *DSM) version() string { return fmt.Sprintf("%d.%d-%d", d.Major, d.Minor, d.Build) }

func cmp3(a, b [3]int) int {
	for i := range a {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// unpackTemp extracts the .spk where Package Center does before preinst.
func (d *DSM) unpackTemp(s *SPK) (string, error) {
	tmp := filepath.Join(d.Root, dsmTmp, "pkginstall")
	if err := os.RemoveAll(tmp); err != nil {
		return "", err
	}
	return tmp, s.Extract(tmp)
}

// place unpacks package.tgz into SYNOPKG_PKGDEST and keeps INFO,
// scripts/ and conf/ in /var/packages/NAME, target linking to the former.
func (d *DSM) place(name, tmp string) error {
	dest, dir := d.pkgDest(name), d.pkgDir(name)
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return err
	}
	if err := Unpack(filepath.Join(tmp, "package.tgz"), dest); err != nil {
		return err
	}
	for _, sub := range []string{"INFO", "scripts", "conf"} {
		if err := os.RemoveAll(filepath.Join(dir, sub)); err != nil {
			return err
		}
		if !fileExists(filepath.Join(tmp, sub)) {
			continue
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if out, err := exec.Command("cp", "-R", filepath.Join(tmp, sub), filepath.Join(dir, sub)).CombinedOutput(); err != nil {
			return fmt.Errorf("cp %s: %v: %s", sub, err, out)
		}
	}
	os.Remove(filepath.Join(dir, "target"))
	return os.Symlink(dest, filepath.Join(dir, "target"))
}

// acquireShares does the data-share worker's job: every share the
// package's conf/resource names is made on volume1 (kept if there) and
// linked at /var/packages/NAME/shares/SHARE.
func (d *DSM) acquireShares(name string) error {
	data, err := os.ReadFile(filepath.Join(d.pkgDir(name), "conf", "resource"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var res struct {
		DataShare struct {
			Shares []struct {
				Name string `json:"name"`
			} `json:"shares"`
		} `json:"data-share"`
	}
	if err := json.Unmarshal(data, &res); err != nil {
		return fmt.Errorf("%s conf/resource: %w", name, err)
	}
	for _, sh := range res.DataShare.Shares {
		if sh.Name == "" || strings.ContainsAny(sh.Name, "/.") {
			return fmt.Errorf("%s conf/resource: share name %q", name, sh.Name)
		}
		dir := filepath.Join(d.Root, DSMVolume, sh.Name)
		link := filepath.Join(d.pkgDir(name), "shares", sh.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			return err
		}
		os.Remove(link)
		if err := os.Symlink(dir, link); err != nil {
			return err
		}
	}
	return nil
}

// script runs the installed package's script with arg.
func (d *DSM) script(name, script, arg, status string) (Step, error) {
	return d.scriptIn(d.pkgDir(name), name, script, arg, status)
}

// scriptIn runs dir/scripts/script; a non-zero exit of any but
// start-stop-status status is an error carrying the owner's message.
func (d *DSM) scriptIn(dir, name, script, arg, status string) (Step, error) {
	logf, err := os.CreateTemp(d.Dir, "synopkg-log-")
	if err != nil {
		return Step{}, err
	}
	logf.Close()
	defer os.Remove(logf.Name())
	argv := []string{d.Shell, filepath.Join(dir, "scripts", script)}
	if arg != "" {
		argv = append(argv, arg)
	}
	saved := d.Env
	d.Env = append(slices.Clone(d.Env), d.pkgEnv(name, status, logf.Name())...)
	out, runErr := d.run(argv...)
	d.Env = saved
	msg, _ := os.ReadFile(logf.Name())
	st := Step{Package: name, Script: strings.TrimSpace(script + " " + arg), Status: status,
		Version: d.pkgs[name].version, Output: string(out), Message: string(msg)}
	var ee *exec.ExitError
	switch {
	case errors.As(runErr, &ee):
		st.Exit = ee.ExitCode()
	case runErr != nil:
		return st, runErr
	}
	d.Steps = append(d.Steps, st)
	if st.Exit != 0 && arg != "status" {
		return st, fmt.Errorf("%s %s: exit %d: %s%s", name, st.Script, st.Exit, st.Message, st.Output)
	}
	return st, nil
}

// pkgEnv is what Package Center exports to a package's scripts ("Script
// Environment Variables"): SYNOPKG_TEMP_UPGRADE_FOLDER from DSM 6 on,
// SYNOPKG_PKGVAR from DSM 7 on.
func (d *DSM) pkgEnv(name, status, logFile string) []string {
	env := []string{
		"SYNOPKG_PKGNAME=" + name,
		"SYNOPKG_PKGVER=" + d.pkgs[name].version,
		"SYNOPKG_PKGDEST=" + d.pkgDest(name),
		"SYNOPKG_PKGDEST_VOL=" + filepath.Join(d.Root, DSMVolume),
		"SYNOPKG_PKGINST_TEMP_DIR=" + filepath.Join(d.Root, dsmTmp, "pkginstall"),
		"SYNOPKG_TEMP_LOGFILE=" + logFile,
		"SYNOPKG_DSM_LANGUAGE=enu",
		fmt.Sprintf("SYNOPKG_DSM_VERSION_MAJOR=%d", d.Major),
		fmt.Sprintf("SYNOPKG_DSM_VERSION_MINOR=%d", d.Minor),
		fmt.Sprintf("SYNOPKG_DSM_VERSION_BUILD=%d", d.Build),
		"SYNOPKG_DSM_ARCH=" + d.Platform,
		"SYNOPKG_PKG_STATUS=" + status,
	}
	if d.Major >= 6 {
		env = append(env, "SYNOPKG_TEMP_UPGRADE_FOLDER="+filepath.Join(d.Root, dsmTmp, "synopkg_upgrade", name))
	}
	if d.Major >= 7 {
		env = append(env, "SYNOPKG_PKGVAR="+filepath.Join(d.pkgDir(name), "var"))
	}
	return env
}

func (d *DSM) packageNames() []string { return slices.Sorted(maps.Keys(d.pkgs)) }
