package pkgtest

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"encoding/json"
	"fmt"
	"image/png"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/nas-userscript/userscript/internal/firmsim"
)

// dsmTargets are the Synology package targets and what each must hold.
var dsmTargets = map[string]struct {
	major    int
	icon     int      // PACKAGE_ICON.PNG's size
	engines  []string // engines/userscript-GOARCH
	smbConf  string   // the smb.conf path lib/profile must name
	elfMachs []elf.Machine
}{
	"dsm5": {5, 72, nil, "/usr/syno/etc/smb.conf", nil},
	"dsm6": {6, 72, dsmEngines, "/etc/samba/smb.conf", dsmMachines},
	"dsm7": {7, 64, dsmEngines, "/etc/samba/smb.conf", dsmMachines},
}

// The Go engines of the DSM 6 and 7 packages: x86-64, ARMv8, 32-bit ARM
// (ARMv5 and ARMv7 boxes) and i686.
var (
	dsmEngines  = []string{"amd64", "arm64", "arm", "386"}
	dsmMachines = []elf.Machine{elf.EM_X86_64, elf.EM_AARCH64, elf.EM_ARM, elf.EM_386}
)

var dsmScripts = []string{"preinst", "postinst", "preuninst", "postuninst", "preupgrade", "postupgrade", "start-stop-status"}

// TestSPKFormat proves each Synology package reads as Package Center
// reads it: a plain tar of INFO, package.tgz, scripts/, conf/ (DSM 7) and
// icons; INFO well-formed for its DSM; scripts executable and parsed by
// sh, BusyBox ash and the old BusyBox builds; package.tgz unpacks to the
// app dir's engine, lib/profile with the DSM's smb.conf, and the Go
// engines for the right CPUs; icons PNGs of the sizes DSM wants.
func TestSPKFormat(t *testing.T) {
	for _, tg := range slices.Sorted(maps.Keys(dsmTargets)) {
		t.Run(tg, func(t *testing.T) {
			checkSPK(t, tg, dist(t, tg))
		})
	}
}

func checkSPK(t *testing.T, target, path string) {
	t.Helper()
	want := dsmTargets[target]
	s, err := firmsim.ReadSPK(path)
	if err != nil {
		t.Fatal(err)
	}
	names := checkSPKEntries(t, target, s)
	for _, err := range checkINFO(s.INFO, want.major) {
		t.Errorf("%s: INFO: %v", target, err)
	}
	dir := t.TempDir()
	if err := s.Extract(dir); err != nil {
		t.Fatal(err)
	}
	for _, sc := range append(slices.Clone(dsmScripts), "installer") {
		checkScript(t, target, filepath.Join(dir, "scripts", sc), names["scripts/"+sc])
	}
	if want.major >= 7 {
		checkDSM7Conf(t, dir)
	}
	for icon, size := range map[string]int{"PACKAGE_ICON.PNG": want.icon, "PACKAGE_ICON_256.PNG": 256} {
		f, err := os.Open(filepath.Join(dir, icon))
		if err != nil {
			t.Errorf("%s: %v", target, err)
			continue
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil || cfg.Width != size || cfg.Height != size {
			t.Errorf("%s: %s: %dx%d (%v), want a %dx%d PNG", target, icon, cfg.Width, cfg.Height, err, size, size)
		}
	}
	checkPackageTgz(t, target, filepath.Join(dir, "package.tgz"))
}

// checkSPKEntries checks the archive's layout and returns its entries by
// name.
func checkSPKEntries(t *testing.T, target string, s *firmsim.SPK) map[string]*tar.Header {
	t.Helper()
	names := map[string]*tar.Header{}
	var order []string
	for _, e := range s.Entries {
		h := e.Header
		name := strings.TrimSuffix(h.Name, "/")
		names[name] = h
		order = append(order, name)
		if h.Uid != 0 || h.Gid != 0 {
			t.Errorf("%s: %s: owner %d/%d, want 0/0", target, h.Name, h.Uid, h.Gid)
		}
		if !h.ModTime.Equal(s.Entries[0].Header.ModTime) {
			t.Errorf("%s: %s: mtime differs from the first entry's", target, h.Name)
		}
	}
	if !sort.StringsAreSorted(order) {
		t.Errorf("%s: entries not sorted: %v", target, order)
	}
	required := []string{"INFO", "package.tgz", "scripts", "scripts/installer", "PACKAGE_ICON.PNG", "PACKAGE_ICON_256.PNG"}
	for _, sc := range dsmScripts {
		required = append(required, "scripts/"+sc)
	}
	if dsmTargets[target].major >= 7 {
		required = append(required, "conf", "conf/privilege", "conf/resource")
	}
	for _, r := range required {
		if names[r] == nil {
			t.Errorf("%s: %s is missing", target, r)
		}
	}
	for n := range names {
		if !slices.Contains(required, n) && n != "LICENSE" {
			t.Errorf("%s: unexpected entry %s", target, n)
		}
	}
	return names
}

// checkScript proves a package script is an executable /bin/sh script
// that sh, BusyBox ash and (where they are) the old BusyBox builds parse.
func checkScript(t *testing.T, target, path string, h *tar.Header) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil || h == nil {
		t.Errorf("%s: %s: %v", target, path, err)
		return
	}
	if h.Mode&0o111 == 0 {
		t.Errorf("%s: %s is not executable (mode %o)", target, h.Name, h.Mode)
	}
	if !bytes.HasPrefix(data, []byte("#!/bin/sh\n")) {
		t.Errorf("%s: %s does not start with #!/bin/sh", target, h.Name)
	}
	shells := [][]string{{"sh", "-n"}, {"busybox", "sh", "-n"}}
	for _, tag := range oldBusyBoxTags {
		if bb := oldBusyBox(tag); bb != "" {
			shells = append(shells, []string{bb, "sh", "-n"})
		}
	}
	for _, sh := range shells {
		if out, err := exec.Command(sh[0], append(sh[1:], path)...).CombinedOutput(); err != nil {
			t.Errorf("%s: %s %s: %v\n%s", target, strings.Join(sh, " "), h.Name, err, out)
		}
	}
}

func checkDSM7Conf(t *testing.T, dir string) {
	t.Helper()
	var priv struct {
		Defaults struct {
			RunAs string `json:"run-as"`
		} `json:"defaults"`
	}
	var res struct {
		DataShare struct {
			Shares []struct {
				Name       string              `json:"name"`
				Permission map[string][]string `json:"permission"`
			} `json:"shares"`
		} `json:"data-share"`
	}
	for file, v := range map[string]any{"privilege": &priv, "resource": &res} {
		data, err := os.ReadFile(filepath.Join(dir, "conf", file))
		if err == nil {
			err = json.Unmarshal(data, v)
		}
		if err != nil {
			t.Errorf("dsm7: conf/%s: %v", file, err)
		}
	}
	if priv.Defaults.RunAs != "package" {
		t.Errorf("dsm7: conf/privilege run-as %q, want package (DSM 7 runs no package as root)", priv.Defaults.RunAs)
	}
	if sh := res.DataShare.Shares; len(sh) != 1 || sh[0].Name != "userscript" || !slices.Contains(sh[0].Permission["rw"], "userscript") {
		t.Errorf("dsm7: conf/resource shares %+v, want the share userscript, read-write for the package user", sh)
	}
}

// checkPackageTgz proves package.tgz unpacks to the app dir's engine
// files, a lib/profile for the package's DSM, and the Go engines for its
// CPUs (none for DSM 2-5: nothing there but sh).
func checkPackageTgz(t *testing.T, target, tgz string) {
	t.Helper()
	want := dsmTargets[target]
	dir := t.TempDir()
	if err := firmsim.Unpack(tgz, dir); err != nil {
		t.Fatalf("%s: package.tgz does not unpack: %v", target, err)
	}
	for _, f := range []string{"app/init", "app/lib/engine.sh", "app/lib/profile", "app/lib/version",
		"app/lib/settings", "app/conf.d/README.txt", "app/conf.d/examples/smb.conf", "app/userscript.toml.example"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: package.tgz: %s is missing", target, f)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "app", "userscript.toml")); err == nil {
		t.Errorf("%s: package.tgz holds userscript.toml: an upgrade must never bring one (the install makes it from the example)", target)
	}
	prof, _ := os.ReadFile(filepath.Join(dir, "app", "lib", "profile"))
	if !strings.HasPrefix(string(prof), "profile dsm\n") || !strings.Contains(string(prof), " "+want.smbConf+" ") {
		t.Errorf("%s: lib/profile is not the dsm profile with %s:\n%s", target, want.smbConf, prof)
	}
	for i, arch := range want.engines {
		f, err := elf.Open(filepath.Join(dir, "engines", "userscript-"+arch))
		if err != nil {
			t.Errorf("%s: engines/userscript-%s: %v", target, arch, err)
			continue
		}
		if f.Machine != want.elfMachs[i] {
			t.Errorf("%s: engines/userscript-%s is for %v", target, arch, f.Machine)
		}
		f.Close()
	}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || len(want.engines) > 0 {
			return err
		}
		data, _ := os.ReadFile(p)
		if bytes.HasPrefix(data, []byte("\x7fELF")) {
			t.Errorf("%s: %s is an ELF file: DSM 2-5 boxes run sh only", target, p)
		}
		return nil
	})
}

var (
	infoVersion = regexp.MustCompile(`^([0-9]+)\.([0-9]+)\.([0-9]+)-([0-9]+)$`)
	// Appendix A of the Package Developer Guide (DSM 7's families and
	// platforms) and the DSM 5/6 platform names of SynoCommunity's lists.
	knownArchs = strings.Fields(`noarch x86_64 i686 armv5 armv7 armv8 ppc853x 88f6281
		alpine alpine4k apollolake armada370 armada375 armada37xx armada38x armadaxp
		avoton braswell broadwell broadwellnk broadwellntb broadwellntbap bromolow
		cedarview coffeelake comcerto2k denverton dockerx64 evansport geminilake grantley
		kvmx64 monaco purley rtd1296 rtd1619 rtd1619b skylaked v1000 x86`)
)

// checkINFO returns every missing or malformed INFO field, by the rules
// of "INFO: Necessary Fields" and "Optional Fields" and what DSM major
// reads: firmware before DSM 6.1, os_min_ver from 6.1 (on DSM 7 at least
// 7.0-40000).
func checkINFO(info map[string]string, major int) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	for _, k := range []string{"package", "version", "arch", "maintainer", "description", "displayname"} {
		if strings.TrimSpace(info[k]) == "" {
			bad("%s is missing or empty", k)
		}
	}
	if p := info["package"]; strings.ContainsAny(p, ":/><|=") || p != "userscript" {
		bad("package %q: want userscript, without any of : / > < | =", p)
	}
	if v := info["version"]; v != "" {
		m := infoVersion.FindStringSubmatch(v)
		if m == nil {
			bad("version %q is not X.Y.Z-BUILD", v)
			m = []string{v}
		}
		for _, n := range m[1:] {
			if x, err := strconv.ParseInt(n, 10, 64); err != nil || x > 1<<31-1 {
				bad("version %q: %s is out of 0..2^31-1", v, n)
			}
		}
	}
	for _, a := range strings.Fields(info["arch"]) {
		if !slices.Contains(knownArchs, a) {
			bad("arch %q: %s is no Synology arch or platform", info["arch"], a)
		}
	}
	osVer := func(key string) ([3]int, bool) {
		s, ok := info[key]
		if !ok {
			return [3]int{}, false
		}
		v, err := firmsim.ParseOSVersion(s)
		if err != nil {
			bad("%s: %v", key, err)
		}
		return v, err == nil
	}
	fw, hasFW := osVer("firmware")
	min, hasMin := osVer("os_min_ver")
	max, hasMax := osVer("os_max_ver")
	switch {
	case major <= 5:
		if !hasFW || fw[0] > 5 {
			bad("firmware %q: DSM 2-5 read it as the earliest DSM; want one before 6", info["firmware"])
		}
		if hasMin || !hasMax || max[0] >= 6 {
			bad("os_min_ver %q, os_max_ver %q: want none, and below 6 (DSM 6.1+ must not take this package)", info["os_min_ver"], info["os_max_ver"])
		}
	case major == 6:
		if !hasMin || min[0] != 6 || !hasFW || fw != min {
			bad("os_min_ver %q, firmware %q: want both, the same DSM 6 version", info["os_min_ver"], info["firmware"])
		}
		if !hasMax || max[0] != 6 {
			bad("os_max_ver %q: want a DSM 6 version (DSM 7 needs its own package)", info["os_max_ver"])
		}
	default:
		if !hasMin || min[0] < 7 || min == [3]int{7, 0, min[2]} && min[2] < 40000 {
			bad("os_min_ver %q: DSM 7 wants 7.0-40000 or later", info["os_min_ver"])
		}
		if hasFW {
			bad("firmware %q: DSM 7 reads os_min_ver only", info["firmware"])
		}
		d := strings.ToLower(info["description"])
		if !strings.Contains(d, "root") || !strings.Contains(d, "task scheduler") {
			bad("description must say that DSM 7 runs no package as root and name the Task Scheduler task")
		}
	}
	return errs
}

// TestCheckINFORejects proves checkINFO fails on every missing or
// malformed field, so TestSPKFormat would catch one.
func TestCheckINFORejects(t *testing.T) {
	good := map[int]map[string]string{
		5: {"package": "userscript", "version": "0.1.0-12", "arch": "noarch", "maintainer": "m", "description": "d", "displayname": "userscript", "firmware": "3.1-1594", "os_max_ver": "5.2-99999"},
		6: {"package": "userscript", "version": "0.1.0-12", "arch": "apollolake rtd1296", "maintainer": "m", "description": "d", "displayname": "userscript", "firmware": "6.0-7321", "os_min_ver": "6.0-7321", "os_max_ver": "6.2-99999"},
		7: {"package": "userscript", "version": "0.1.0-12", "arch": "x86_64 armv8", "maintainer": "m", "description": "no root; Task Scheduler", "displayname": "userscript", "os_min_ver": "7.0-40000"},
	}
	for major, info := range good {
		if errs := checkINFO(info, major); len(errs) > 0 {
			t.Fatalf("DSM %d: a good INFO is refused: %v", major, errs)
		}
	}
	tests := []struct {
		major     int
		key, val  string // val "-" deletes the key
		wantError string
	}{
		{7, "package", "-", "package is missing"},
		{7, "version", "-", "version is missing"},
		{7, "arch", "-", "arch is missing"},
		{7, "maintainer", "-", "maintainer is missing"},
		{7, "description", "-", "description is missing"},
		{7, "displayname", "-", "displayname is missing"},
		{7, "package", "user/script", "package"},
		{7, "version", "1.2.3", "not X.Y.Z-BUILD"},
		{7, "version", "1.2-3", "not X.Y.Z-BUILD"},
		{7, "version", "v1.2.3-4", "not X.Y.Z-BUILD"},
		{7, "version", "1.2.3-x", "not X.Y.Z-BUILD"},
		{7, "version", "1.2.3-99999999999", "out of 0..2^31-1"},
		{7, "arch", "x86_64 ppc", "no Synology arch"},
		{7, "os_min_ver", "6.2-25556", "7.0-40000"},
		{7, "os_min_ver", "7.0-1", "7.0-40000"},
		{7, "os_min_ver", "7.0", "X.Y-BUILD"},
		{7, "os_min_ver", "-", "7.0-40000"},
		{7, "firmware", "7.0-40000", "reads os_min_ver only"},
		{7, "description", "a package", "Task Scheduler"},
		{6, "os_min_ver", "-", "want both"},
		{6, "firmware", "6.1-15047", "want both"},
		{6, "os_max_ver", "7.1-42661", "DSM 6 version"},
		{5, "firmware", "-", "before 6"},
		{5, "firmware", "6.0-7321", "before 6"},
		{5, "os_max_ver", "-", "below 6"},
		{5, "os_min_ver", "5.2-5644", "below 6"},
	}
	for _, tt := range tests {
		info := maps.Clone(good[tt.major])
		if tt.val == "-" {
			delete(info, tt.key)
		} else {
			info[tt.key] = tt.val
		}
		errs := checkINFO(info, tt.major)
		found := false
		for _, err := range errs {
			found = found || strings.Contains(err.Error(), tt.wantError)
		}
		if !found {
			t.Errorf("DSM %d, %s=%q: errors %v, want one saying %q", tt.major, tt.key, tt.val, errs, tt.wantError)
		}
	}
}

// TestSPKVersionFromGit proves how the package version is numbered
// (docs/DSM.md): X.Y.Z from the VERSION file and BUILD the number of
// commits up to HEAD, so every commit on the release branch raises it.
func TestSPKVersionFromGit(t *testing.T) {
	need(t, "git")
	count, err := exec.Command("git", "-C", repoRoot, "rev-list", "--count", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	version, err := os.ReadFile(filepath.Join(repoRoot, "VERSION"))
	if err != nil {
		t.Fatal(err)
	}
	feature := strings.TrimSpace(string(version))
	s, err := firmsim.ReadSPK(dist(t, "dsm5"))
	if err != nil {
		t.Fatal(err)
	}
	if want := feature + "-" + strings.TrimSpace(string(count)); s.INFO["version"] != want {
		t.Errorf("INFO version %q, want %q", s.INFO["version"], want)
	}
}

// TestDSMArm64EngineUnderQemu proves the ARMv8 Go engine of the DSM 6
// and 7 packages runs on its CPU: under qemu-aarch64 it answers
// `version` with the stamped version (the amd64 one runs natively in
// TestDSMLifecycle).
func TestDSMArm64EngineUnderQemu(t *testing.T) {
	need(t, "qemu-aarch64")
	for _, tg := range []string{"dsm6", "dsm7"} {
		spk := dist(t, tg)
		s, err := firmsim.ReadSPK(spk)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := s.Extract(dir); err != nil {
			t.Fatal(err)
		}
		if err := firmsim.Unpack(filepath.Join(dir, "package.tgz"), dir); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("qemu-aarch64", filepath.Join(dir, "engines", "userscript-arm64"), "version").CombinedOutput()
		// The archive is named userscript-VERSION-TARGET.spk.
		version := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(spk), "userscript-"), "-"+tg+".spk")
		if err != nil || !strings.Contains(string(out), version) {
			t.Errorf("%s: arm64 engine version under qemu-aarch64: %v %q, want %q", tg, err, out, version)
		}
	}
}
