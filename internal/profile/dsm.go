package profile

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"
)

// The dsm profile is a Synology DiskStation. Its paths and service
// commands depend on the DSM version, which the device states in
// /etc.defaults/VERSION (lines `majorversion="7"`, `minorversion="2"`,
// `buildnumber="64570"`); ForDevice reads it at run time. Without that
// file (on a PC, or when the sh package renders lib/profile at build
// time) the built-in dsm profile is the DSM 2-5 one.
//
// Where each path and command comes from, and what is not verified on a
// device (owners can override any of them in userscript.toml):
//
//   - DSM 2-5: /usr/syno/etc/smb.conf with /usr/syno/etc/rc.d/S80samba.sh
//     and /etc/exports with /usr/syno/etc/rc.d/S83nfsd.sh, as community
//     guides for DSM 2-4 show them. Not verified on DSM 5, which is said
//     to keep its rc scripts in /usr/syno/etc.defaults/rc.d.
//   - DSM 6: /etc/samba/smb.conf; Samba restarted with
//     `/usr/syno/sbin/synoservice --restart smbd` and the exports reloaded
//     with `synoservice --reload nfsd`. synoservice is Synology's own
//     service tool (CLI Administrator Guide for Synology NAS); the service
//     names smbd and nfsd come from community setup scripts for DSM 6
//     (ahuacate/nas-hardmetal), not from Synology. Unverified.
//   - DSM 7: /etc/samba/smb.conf; DSM 7 runs systemd, Samba is the unit
//     pkg-synosamba-smbd.service and NFS nfs-server.service (community
//     scripts and service listings for DSM 7.x), restarted through
//     Synology's wrapper /usr/syno/bin/synosystemctl. Unverified.
//   - /etc/exports on every version: DSM writes the kernel NFS server's
//     exports(5) file at the standard place.
//   - Health: smbd must run and accept on 445 or 139, NFS on 2049, as on
//     any Samba and kernel NFS server.
//
// FTP is left out: DSM's ftpd takes its settings from the web GUI's
// database, not from a file a user could keep.

// DSMVersionFile is where DSM states its version.
const DSMVersionFile = "/etc.defaults/VERSION"

// A DSMVersion is what /etc.defaults/VERSION says.
type DSMVersion struct {
	Major, Minor, Build int
}

// String formats v as DSM does: 7.2-64570.
func (v DSMVersion) String() string { return fmt.Sprintf("%d.%d-%d", v.Major, v.Minor, v.Build) }

// DeviceFiles reads the device's files; system.System is one.
type DeviceFiles interface {
	// Root resolves an absolute device path under the root.
	Root(devicePath string) string
	ReadFile(name string) ([]byte, error)
}

// DetectDSM reads the device's /etc.defaults/VERSION. ok is false (and
// err nil) when there is none: the device is not a DSM.
func DetectDSM(dev DeviceFiles) (v DSMVersion, ok bool, err error) {
	path := dev.Root(DSMVersionFile)
	data, err := dev.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return DSMVersion{}, false, nil
	}
	if err != nil {
		return DSMVersion{}, false, fmt.Errorf("%s: %w", path, err)
	}
	v, err = ParseDSMVersion(data)
	if err != nil {
		return DSMVersion{}, false, fmt.Errorf("%s: %w: the dsm profile picks its paths by the DSM version; DSM writes this file itself, so check it, or name another profile in userscript.toml (profile = ...) and set your paths in its [targets] and [services]", path, err)
	}
	return v, true, nil
}

// ParseDSMVersion reads the key=value lines of /etc.defaults/VERSION
// (values with or without double quotes). majorversion and buildnumber
// must be there; a missing minorversion is 0.
func ParseDSMVersion(data []byte) (DSMVersion, error) {
	fields := map[string]string{}
	for line := range strings.SplitSeq(string(data), "\n") {
		k, val, found := strings.Cut(strings.TrimSpace(line), "=")
		if !found {
			continue
		}
		fields[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(val), `"`)
	}
	var v DSMVersion
	for _, f := range []struct {
		key      string
		dst      *int
		required bool
	}{
		{"majorversion", &v.Major, true},
		{"minorversion", &v.Minor, false},
		{"buildnumber", &v.Build, true},
	} {
		s, found := fields[f.key]
		if !found {
			if f.required {
				return DSMVersion{}, fmt.Errorf("no %s= line", f.key)
			}
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return DSMVersion{}, fmt.Errorf("%s=%q is not a number", f.key, s)
		}
		*f.dst = n
	}
	if v.Major < 2 {
		return DSMVersion{}, fmt.Errorf("majorversion=%d: DSM versions start at 2", v.Major)
	}
	return v, nil
}

// ForDevice returns the built-in profile name for the device dev reads:
// for dsm, the one of the DSM version the device states; any other name
// is Builtin's.
func ForDevice(name string, dev DeviceFiles) (*Profile, error) {
	p, err := Builtin(name)
	if err != nil || name != "dsm" {
		return p, err
	}
	v, ok, err := DetectDSM(dev)
	if err != nil || !ok {
		return p, err
	}
	p = dsmFor(v)
	p.sortTargets()
	return p, nil
}

// dsm is the built-in profile without a device to ask: DSM 2-5.
func dsm() *Profile { return dsmFor(DSMVersion{}) }

func dsmFor(v DSMVersion) *Profile {
	switch {
	case v.Major >= 7:
		return dsmProfile("DSM 7 and later", "/etc/samba/smb.conf",
			[]string{"/usr/syno/bin/synosystemctl", "restart", "pkg-synosamba-smbd.service"},
			[]string{"/usr/syno/bin/synosystemctl", "restart", "nfs-server.service"})
	case v.Major == 6:
		return dsmProfile("DSM 6", "/etc/samba/smb.conf",
			[]string{"/usr/syno/sbin/synoservice", "--restart", "smbd"},
			[]string{"/usr/syno/sbin/synoservice", "--reload", "nfsd"})
	}
	const rc = "/usr/syno/etc/rc.d/"
	return dsmProfile("DSM 2-5", "/usr/syno/etc/smb.conf",
		[]string{rc + "S80samba.sh", "restart"},
		[]string{rc + "S83nfsd.sh", "restart"})
}

func dsmProfile(era, smbConf string, samba, nfs []string) *Profile {
	return &Profile{
		Name:        "dsm",
		Description: "Synology DiskStation, " + era + " (paths by /etc.defaults/VERSION on the device)",
		Targets: []Target{
			{Name: "smb.conf", Path: smbConf, Validator: ValidateTestparm, Service: "samba", NeverEmpty: true},
			{Name: "exports", Path: "/etc/exports", Validator: ValidateExports, Service: "nfs"},
		},
		Services: map[string]Service{
			"samba": {Name: "samba", Restart: samba, Timeout: 60 * time.Second, Process: "smbd", Ports: []int{445, 139}},
			"nfs":   {Name: "nfs", Restart: nfs, Timeout: 60 * time.Second, Ports: []int{2049}},
		},
	}
}
