package firmsim

import (
	"fmt"
	"os"
	"path/filepath"
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

// DSMRestarts are the service commands of DSM major as its stubs log
// them: what restarting Samba and NFS looks like in ROOT/restarts.log.
func DSMRestarts(major int) (samba, nfs string) {
	switch {
	case major >= 7:
		return "synosystemctl restart pkg-synosamba-smbd.service", "synosystemctl restart nfs-server.service"
	case major == 6:
		return "synoservice --restart smbd", "synoservice --reload nfsd"
	}
	return "S80samba.sh restart", "S83nfsd.sh restart"
}

// A DSM is a simulated Synology DiskStation: a NAS laid out like DSM
// (the version in /etc.defaults/VERSION, smb.conf where that version
// keeps it, its service commands as stubs that log their calls to
// ROOT/restarts.log, synoshare), with Package Center (pkgcenter.go) and
// Task Scheduler. Boot restores the ROM copy (as DSM rewrites smb.conf
// from its own settings), gives the boot a new boot_id, starts the
// services and then Package Center's packages.
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
// but nothing is started until Boot.
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
	if err := os.MkdirAll(n.Mnt, 0o755); err != nil {
		return nil, err
	}
	if err := d.layout(); err != nil {
		return nil, err
	}
	if n.Bin, n.Shell, err = Applets(filepath.Join(dir, "bin")); err != nil {
		return nil, err
	}
	if err := n.Restore(); err != nil {
		return nil, err
	}
	return d, d.newBootID()
}

// layout writes DSM's files into the ROM copy.
func (d *DSM) layout() error {
	version := fmt.Sprintf("majorversion=\"%d\"\nminorversion=\"%d\"\nbuildphase=\"GM\"\nbuildnumber=\"%d\"\n", d.Major, d.Minor, d.Build)
	files := map[string]string{
		DSMVersionFile:      version,
		DSMSmbConf(d.Major): dsmSmbConf,
		Exports:             "",
	}
	for rel, body := range files {
		if err := d.SetROM(rel, body); err != nil {
			return err
		}
	}
	var stubs []string
	switch {
	case d.Major >= 7:
		stubs = []string{"usr/syno/bin/synosystemctl"}
	case d.Major == 6:
		stubs = []string{"usr/syno/sbin/synoservice"}
	default:
		stubs = []string{"usr/syno/etc/rc.d/S80samba.sh", "usr/syno/etc/rc.d/S83nfsd.sh"}
		d.rc = stubs
	}
	for _, rel := range stubs {
		if err := d.SetROMExec(rel, d.logStub(filepath.Base(rel))); err != nil {
			return err
		}
	}
	// synoshare --add NAME DESC PATH ...: logs the call, makes PATH.
	share := d.logStub("synoshare") + "[ \"$1\" != --add ] || mkdir -p \"$4\"\n"
	return d.SetROMExec("usr/syno/sbin/synoshare", share)
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
	if err := d.Restore(); err != nil {
		return fmt.Errorf("restore: %w", err)
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
