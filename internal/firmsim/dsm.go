package firmsim

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Paths of a Synology DiskStation, relative to the root.
const (
	DSMVersionFile = "etc.defaults/VERSION"
	DSMBootID      = "proc/sys/kernel/random/boot_id"
	DSMVolume      = "volume1"
	DSMShare       = DSMVolume + "/userscript" // the app dir the packages make
	DSMPackages    = "var/packages"
	dsmAppstore    = DSMVolume + "/@appstore"
	dsmTmp         = DSMVolume + "/@tmp"
)

// DSMSmbConf is where DSM major keeps smb.conf: /usr/syno/etc on DSM 2-5,
// /etc/samba from DSM 6 on (the dsm profile's paths).
func DSMSmbConf(major int) string {
	if major >= 6 {
		return "etc/samba/smb.conf"
	}
	return "usr/syno/etc/smb.conf"
}

// DSM 6 and 7 keep the shares apart from smb.conf: synocheckshare writes
// them from DSM's share database to smb.share.conf at every boot and on
// every share edit, and DSM's Samba loads that file by itself. The
// simulation's share database is a plain list, one "NAME PATH" a line.
const (
	DSMShareConf    = "etc/samba/smb.share.conf"
	DSMShareDB      = "usr/syno/etc/shares.firmsim"
	dsmSmbDefaults  = "etc.defaults/samba/smb.conf"
	dsmSMBServiceTP = "var/packages/SMBService/target/usr/bin/testparm"
)

// DSMTestparm is where DSM major keeps testparm: DSM 7 in its SMBService
// package, earlier ones with Samba's other tools in /usr/bin.
func DSMTestparm(major int) string {
	if major >= 7 {
		return dsmSMBServiceTP
	}
	return "usr/bin/testparm"
}

// DSMRestarts are the service commands of DSM major as its stubs log
// them: what restarting Samba and reloading NFS look like in
// ROOT/restarts.log.
func DSMRestarts(major int) (samba, nfs string) {
	switch {
	case major >= 7:
		return "systemctl restart pkg-synosamba-smbd.service pkg-synosamba-nmbd.service", "exportfs -ra"
	case major == 6:
		return "S80samba.sh restart", "exportfs -ra"
	}
	return "S80samba.sh restart", "S83nfsd.sh restart"
}

// dsmRCDir is where DSM major keeps its rc scripts: /usr/syno/etc/rc.d
// up to DSM 4, /usr/syno/etc.defaults/rc.d on DSM 5, and on DSM 6
// /usr/syno/etc.defaults/rc.sysv, called as /usr/syno/etc/rc.sysv/...
// (both are there). DSM 7 starts its services with systemd.
func dsmRCDirs(major int) []string {
	switch {
	case major >= 7:
		return nil
	case major == 6:
		return []string{"usr/syno/etc/rc.sysv", "usr/syno/etc.defaults/rc.sysv"}
	case major == 5:
		return []string{"usr/syno/etc.defaults/rc.d"}
	}
	return []string{"usr/syno/etc/rc.d"}
}

// dsmServices are the names DSM 6's synoservice knows (its
// /usr/syno/etc.defaults/synoservice.d/*.cfg, the file-service ones);
// it fails for any other. dsmUnits are DSM 7's systemd units of Samba
// and NFS.
var (
	dsmServices = []string{"samba", "nmbd", "winbindd", "nfsd", "ftpd", "atalk", "sftp", "rsyncd"}
	dsmUnits    = []string{"pkg-synosamba-smbd.service", "pkg-synosamba-nmbd.service", "nfs-server.service"}
)

// A DSM is a simulated Synology DiskStation: a NAS laid out like DSM
// (the version in /etc.defaults/VERSION, smb.conf where that version
// keeps it, its service tools as stubs that log their calls to
// ROOT/restarts.log and refuse names the real ones do not know,
// synoshare, testparm where that version has it), with Package Center
// (pkgcenter.go) and Task Scheduler. Boot restores the ROM copy (DSM 2-5
// rewrite smb.conf from their own settings; DSM 6 and 7 only put
// /etc.defaults' smb.conf back when the live one is empty, and write
// smb.share.conf from the share database), gives the boot a new
// boot_id, starts the services and then Package Center's packages.
type DSM struct {
	*NAS
	Major, Minor, Build int
	Platform            string // the CPU platform INFO's arch is matched against
	Steps               []Step // every package script run, in order
	pkgs                map[string]*pkgState
	boots               int
}

// NewDSM lays out a DiskStation running DSM version ("7.2-64570") under
// dir, with its ROM copy; its files are live and its first boot_id set,
// but nothing is started until Boot. testparm is the host's, where DSM
// keeps it; without one on the host there is none on the DiskStation.
func NewDSM(dir, version string) (*DSM, error) {
	v, err := ParseOSVersion(version)
	if err != nil {
		return nil, err
	}
	n := &NAS{Dir: dir, Root: filepath.Join(dir, "root"), ROM: filepath.Join(dir, "rom")}
	n.Mnt = filepath.Join(n.Root, DSMVolume)
	d := &DSM{NAS: n, Major: v[0], Minor: v[1], Build: v[2], pkgs: map[string]*pkgState{}}
	switch {
	case d.Major >= 7:
		d.Platform = "geminilake" // x86-64, DS920+ and the like
	case d.Major == 6:
		d.Platform = "apollolake" // x86-64, DS918+ and the like
	default:
		d.Platform = "ppc853x" // 32-bit PowerPC, the DS509+ era
	}
	if err := os.MkdirAll(filepath.Join(n.Mnt, "public"), 0o755); err != nil {
		return nil, err
	}
	if err := d.layout(); err != nil {
		return nil, err
	}
	if n.Bin, n.Shell, err = Applets(filepath.Join(dir, "bin")); err != nil {
		return nil, err
	}
	if err := d.restore(); err != nil {
		return nil, err
	}
	if tp, err := exec.LookPath("testparm"); err == nil {
		p := filepath.Join(d.Root, DSMTestparm(d.Major))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.Symlink(tp, p); err != nil {
			return nil, err
		}
	}
	if err := d.shareDB(nil); err != nil {
		return nil, err
	}
	return d, d.newBootID()
}

// layout writes DSM's files into the ROM copy.
func (d *DSM) layout() error {
	version := fmt.Sprintf("majorversion=\"%d\"\nminorversion=\"%d\"\nbuildphase=\"GM\"\nbuildnumber=\"%d\"\n", d.Major, d.Minor, d.Build)
	smbConf := DSMSmbConf(d.Major)
	if d.Major >= 6 {
		smbConf = dsmSmbDefaults
	}
	files := map[string]string{
		DSMVersionFile: version,
		smbConf:        dsmSmbConf,
		Exports:        "",
	}
	for rel, body := range files {
		if err := d.SetROM(rel, body); err != nil {
			return err
		}
	}
	for _, dir := range dsmRCDirs(d.Major) {
		for _, s := range []string{"S80samba.sh", "S83nfsd.sh"} {
			rel := filepath.Join(dir, s)
			if err := d.SetROMExec(rel, d.logStub(s)); err != nil {
				return err
			}
		}
	}
	if dirs := dsmRCDirs(d.Major); len(dirs) > 0 {
		d.rc = []string{filepath.Join(dirs[0], "S80samba.sh"), filepath.Join(dirs[0], "S83nfsd.sh")}
	}
	stubs := map[string]string{}
	switch {
	case d.Major >= 7:
		stubs["usr/bin/systemctl"] = d.knowing("systemctl", 5, "Unit $a not found.", dsmUnits)
		stubs["usr/syno/bin/synopkg"] = d.logStub("synopkg")
		stubs["usr/sbin/exportfs"] = d.logStub("exportfs")
	case d.Major == 6:
		stubs["usr/syno/sbin/synoservice"] = d.knowing("synoservice", 1, "service [$a] does not exist", dsmServices)
		stubs["usr/sbin/exportfs"] = d.logStub("exportfs")
	}
	for rel, body := range stubs {
		if err := d.SetROMExec(rel, body); err != nil {
			return err
		}
	}
	// synoshare --add NAME DESC PATH ...: logs the call, makes PATH and
	// adds the share to the database (and, from DSM 6 on, to
	// smb.share.conf, as synoshare does through synocheckshare).
	share := d.logStub("synoshare") + "[ \"$1\" = --add ] || exit 0\nmkdir -p \"$4\"\n" +
		"echo \"$2 $4\" >>" + shQuote(filepath.Join(d.Root, DSMShareDB)) + "\n"
	if d.Major >= 6 {
		share += "printf '[%s]\\n\\tpath=%s\\n' \"$2\" \"$4\" >>" + shQuote(filepath.Join(d.Root, DSMShareConf)) + "\n"
	}
	return d.SetROMExec("usr/syno/sbin/synoshare", share)
}

// knowing is a stub tool that logs its call and, like the real one,
// fails with code and message for every argument after the verb that
// is not one of names ($a in message is the name).
func (d *DSM) knowing(tool string, code int, message string, names []string) string {
	return d.logStub(tool) + "shift\nfor a in \"$@\"; do\n\tcase $a in\n\t" + strings.Join(names, " | ") +
		") ;;\n\t*)\n\t\techo \"" + tool + ": " + message + "\" >&2\n\t\texit " + fmt.Sprint(code) + "\n\t\t;;\n\tesac\ndone\n"
}

// restore puts the ROM copy back as DSM's boot does, and from DSM 6 on
// smb.conf from /etc.defaults when the live one is empty or missing (as
// S80samba.sh does; DSM keeps smb.conf across boots otherwise).
func (d *DSM) restore() error {
	if err := d.Restore(); err != nil {
		return err
	}
	if d.Major < 6 {
		return nil
	}
	live := filepath.Join(d.Root, DSMSmbConf(d.Major))
	if fi, err := os.Stat(live); err == nil && fi.Size() > 0 {
		return nil
	}
	body, err := os.ReadFile(filepath.Join(d.ROM, dsmSmbDefaults))
	if err != nil {
		return err
	}
	return writeFile(live, string(body), 0o644)
}

// EditShare is an owner's edit in Control Panel > Shared Folder: share
// name now at path (added when new). DSM 6 and 7 write smb.share.conf
// from the share database again.
func (d *DSM) EditShare(name, path string) error {
	return d.shareDB(map[string]string{name: path})
}

// shareDB writes the share database with edits applied and, from DSM 6
// on, smb.share.conf from it (synocheckshare).
func (d *DSM) shareDB(edits map[string]string) error {
	db := filepath.Join(d.Root, DSMShareDB)
	body, err := os.ReadFile(db)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	if os.IsNotExist(err) {
		body = []byte("public /" + DSMVolume + "/public\n")
	}
	var out, conf strings.Builder
	for line := range strings.SplitSeq(strings.TrimSpace(string(body)), "\n") {
		name, path, _ := strings.Cut(line, " ")
		if name == "" {
			continue
		}
		if p, ok := edits[name]; ok {
			path = p
			delete(edits, name)
		}
		fmt.Fprintf(&out, "%s %s\n", name, path)
	}
	for _, name := range slices.Sorted(maps.Keys(edits)) {
		fmt.Fprintf(&out, "%s %s\n", name, edits[name])
	}
	for line := range strings.SplitSeq(strings.TrimSpace(out.String()), "\n") {
		name, path, _ := strings.Cut(line, " ")
		if name == "" {
			continue
		}
		fmt.Fprintf(&conf, "[%s]\n\tpath=%s\n\tbrowseable=yes\n\twritable=yes\n", name, path)
	}
	if err := writeFile(db, out.String(), 0o644); err != nil {
		return err
	}
	if d.Major < 6 {
		return nil
	}
	return writeFile(filepath.Join(d.Root, DSMShareConf), conf.String(), 0o644)
}

// dsmSmbConf stands in for the smb.conf DSM generates (not the real one:
// close enough for testparm).
const dsmSmbConf = `[global]
	workgroup = WORKGROUP
	server string = DiskStation
	security = user
	map to guest = Bad User
	load printers = no
`

// newBootID gives the running boot a boot_id of its own, as the kernel
// does (/proc/sys/kernel/random/boot_id).
func (d *DSM) newBootID() error {
	d.boots++
	p := filepath.Join(d.Root, DSMBootID)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(fmt.Sprintf("5e1f0000-0000-4000-8000-%012d\n", d.boots)), 0o444)
}

// Boot starts the DiskStation: the ROM copy restored, a new boot_id, the
// services started, then every enabled package (start-stop-status start).
// Task Scheduler's boot-up tasks are not run: the test runs them
// (RunTask) where it wants them.
func (d *DSM) Boot() error {
	if err := d.restore(); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	if err := d.shareDB(nil); err != nil {
		return err
	}
	if err := d.newBootID(); err != nil {
		return err
	}
	if err := d.RunServices("start"); err != nil {
		return err
	}
	for _, name := range d.packageNames() {
		if d.pkgs[name].enabled {
			if err := d.start(name, "START"); err != nil {
				return err
			}
		}
	}
	return nil
}

// Shutdown stops every enabled package, then ends what a boot-up task
// started (DSM ends every process; here: the app dir's init stop), then
// the services.
func (d *DSM) Shutdown() error {
	var errs []error
	for _, name := range d.packageNames() {
		if d.pkgs[name].enabled {
			if _, err := d.script(name, "start-stop-status", "stop", "STOP"); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if init := filepath.Join(d.Root, DSMShare, "init"); fileExists(init) {
		if out, err := d.run(d.Shell, init, "stop"); err != nil {
			errs = append(errs, fmt.Errorf("init stop: %v: %s", err, out))
		}
	}
	if err := d.RunServices("stop"); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return fmt.Errorf("shutdown: %v", errs)
	}
	return nil
}

// Reboot is Shutdown, then Boot.
func (d *DSM) Reboot() error {
	if err := d.Shutdown(); err != nil {
		return err
	}
	return d.Boot()
}

// RunTask runs a Task Scheduler task as root: argv, where /bin/sh is
// DSM's shell (the simulation's BusyBox ash).
func (d *DSM) RunTask(argv ...string) (string, error) {
	if len(argv) > 0 && argv[0] == "/bin/sh" {
		argv = append([]string{d.Shell}, argv[1:]...)
	}
	out, err := d.run(argv...)
	return string(out), err
}

// App is the app dir the packages make: the shared folder userscript.
func (d *DSM) App() string { return filepath.Join(d.Root, DSMShare) }

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
