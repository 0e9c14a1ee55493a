package profile

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The dsm profile is a Synology DiskStation. Its paths and service
// commands depend on the DSM version, which the device states in
// /etc.defaults/VERSION (lines `majorversion="7"`, `minorversion="2"`,
// `buildnumber="64570"`); ForDevice reads it at run time and, where a
// service has several ways to restart, takes the first whose program is
// on the device. Without that file (on a PC, or when the sh package
// renders lib/profile at build time) the built-in dsm profile is the
// DSM 2-5 one. docs/DSM.md's fact table names the public source of each
// fact (DSM 6.2.3's file system as the DS120j dump shows it, SynoCommunity's
// spksrc, Synology's Package Developer Guide, community scripts):
//
//   - smb.conf: /usr/syno/etc/smb.conf on DSM 2-5, /etc/samba/smb.conf
//     from DSM 6 on. DSM 6 and 7 keep the shares in smb.share.conf (the
//     target smb.share.conf), written by synocheckshare at every boot
//     and share edit.
//   - Samba's restart: the rc script S80samba.sh restart, from the first
//     of /usr/syno/etc/rc.sysv (DSM 6, as its upstart job and
//     synoservice's hooks call it), /usr/syno/etc.defaults/rc.sysv,
//     /usr/syno/etc.defaults/rc.d (DSM 5), /usr/syno/etc/rc.d (DSM 2-4);
//     on DSM 6 then `synoservice --restart samba` (its service is
//     samba, not smbd). DSM 7: systemd's pkg-synosamba-smbd.service and
//     pkg-synosamba-nmbd.service, then `synopkg restart SMBService`.
//   - NFS: DSM 6 and 7 reload the exports with `exportfs -ra`, as DSM
//     6's own nfsd reload hook does (a restart drops the clients'
//     state); the rc script's or unit's restart only as the fallback.
//     DSM 2-5: S83nfsd.sh restart from the rc folders above.
//   - testparm: /usr/bin/testparm, DSM 7's in the SMBService package
//     (/var/packages/SMBService/target/usr/bin/testparm). smb.conf is
//     Checked: without a testparm it is refused, never applied unchecked.
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
	Lstat(name string) (fs.FileInfo, error)
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
// for dsm, the one of the DSM version the device states, each service's
// restart the first of its commands whose program the device has; any
// other name is Builtin's.
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
	for n, s := range p.Services {
		p.Services[n] = onDevice(s, dev)
	}
	p.sortTargets()
	return p, nil
}

// onDevice makes the first of s's commands whose absolute program dev
// has its restart, the rest its fallbacks; s as it is when dev has none.
func onDevice(s Service, dev DeviceFiles) Service {
	cmds := s.Commands()
	for i, c := range cmds {
		if _, err := dev.Lstat(dev.Root(c[0])); err == nil || !filepath.IsAbs(c[0]) {
			s.Restart, s.Fallbacks = c, cmds[i+1:]
			return s
		}
	}
	return s
}

// dsm is the built-in profile without a device to ask: DSM 2-5.
func dsm() *Profile { return dsmFor(DSMVersion{}) }

// rcDirs are where DSM keeps its rc scripts, newest layout first: DSM 6
// (rc.sysv, called through /usr/syno/etc), DSM 5 (etc.defaults/rc.d),
// DSM 2-4 (/usr/syno/etc/rc.d).
var rcDirs = []string{"/usr/syno/etc/rc.sysv", "/usr/syno/etc.defaults/rc.sysv", "/usr/syno/etc.defaults/rc.d", "/usr/syno/etc/rc.d"}

// rcScript is script verb from each of rcDirs, in order.
func rcScript(script, verb string) [][]string {
	var cmds [][]string
	for _, d := range rcDirs {
		cmds = append(cmds, []string{d + "/" + script, verb})
	}
	return cmds
}

const (
	dsmExportfs  = "/usr/sbin/exportfs"
	dsmSystemctl = "/usr/bin/systemctl"
)

func dsmFor(v DSMVersion) *Profile {
	switch {
	case v.Major >= 7:
		p := dsmProfile("DSM 7 and later", "/etc/samba/smb.conf", [][]string{
			{dsmSystemctl, "restart", "pkg-synosamba-smbd.service", "pkg-synosamba-nmbd.service"},
			{"/usr/syno/bin/synopkg", "restart", "SMBService"},
		}, [][]string{
			{dsmExportfs, "-ra"},
			{dsmSystemctl, "restart", "nfs-server.service"},
		})
		p.Tools[ValidateTestparm] = []string{"/var/packages/SMBService/target/usr/bin/testparm", "/usr/bin/testparm"}
		return withShareConf(p)
	case v.Major == 6:
		samba := append(rcScript("S80samba.sh", "restart"), []string{"/usr/syno/sbin/synoservice", "--restart", "samba"})
		nfs := append([][]string{{dsmExportfs, "-ra"}}, rcScript("S83nfsd.sh", "restart")...)
		return withShareConf(dsmProfile("DSM 6", "/etc/samba/smb.conf", samba, nfs))
	}
	return dsmProfile("DSM 2-5", "/usr/syno/etc/smb.conf", rcScript("S80samba.sh", "restart"), rcScript("S83nfsd.sh", "restart"))
}

// withShareConf adds DSM 6 and 7's smb.share.conf, the shares DSM
// writes from its share database, as a target of its own; smb.conf is
// for [global] there.
func withShareConf(p *Profile) *Profile {
	p.Targets[0].GlobalOnly = true
	p.Targets = append(p.Targets, Target{Name: "smb.share.conf", Path: "/etc/samba/smb.share.conf", Validator: ValidateNone, Service: "samba"})
	return p
}

func dsmProfile(era, smbConf string, samba, nfs [][]string) *Profile {
	return &Profile{
		Name:        "dsm",
		Description: "Synology DiskStation, " + era + " (paths by /etc.defaults/VERSION on the device)",
		Targets: []Target{
			{Name: "smb.conf", Path: smbConf, Validator: ValidateTestparm, Service: "samba", NeverEmpty: true, Checked: true},
			{Name: "exports", Path: "/etc/exports", Validator: ValidateExports, Service: "nfs"},
		},
		Services: map[string]Service{
			"samba": {Name: "samba", Restart: samba[0], Fallbacks: samba[1:], Timeout: 60 * time.Second, Process: "smbd", Ports: []int{445, 139}},
			"nfs":   {Name: "nfs", Restart: nfs[0], Fallbacks: nfs[1:], Timeout: 60 * time.Second, Ports: []int{2049}},
		},
		Tools: map[string][]string{ValidateTestparm: {"/usr/bin/testparm"}},
	}
}
