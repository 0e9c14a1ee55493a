package profile

import "time"

// dsm is a Synology DiskStation of the DS509+ era (DSM 2.x to 4.x on a
// 32-bit PowerPC: sh engine only). Where each path comes from:
//
//   - /usr/syno/etc/smb.conf and /usr/syno/etc/rc.d/S80samba.sh: the
//     layout DSM 2-4 used for its own config and SysV-style rc.d scripts,
//     as shown in community guides for those versions (DSM 5 moved the
//     scripts to /usr/syno/etc.defaults/rc.d and DSM 6 to upstart/systemd).
//   - /etc/exports and /usr/syno/etc/rc.d/S83nfsd.sh: DSM writes the
//     kernel NFS server's exports(5) file at the standard place; the
//     script name is from the same guides.
//
// Neither was checked on a device; owners should confirm with
// `ls /usr/syno/etc/rc.d` and override in userscript.toml if they differ.
// FTP is left out: DSM's ftpd takes its settings from the web GUI's
// database, not from a file a user could keep.
func dsm() *Profile {
	const rc = "/usr/syno/etc/rc.d/"
	return &Profile{
		Name:        "dsm",
		Description: "Synology DiskStation, DSM 2-4 era (PowerPC: sh engine only)",
		Targets: []Target{
			{Name: "smb.conf", Path: "/usr/syno/etc/smb.conf", Validator: ValidateTestparm, Service: "samba", NeverEmpty: true},
			{Name: "exports", Path: "/etc/exports", Validator: ValidateExports, Service: "nfs"},
		},
		Services: map[string]Service{
			"samba": {Name: "samba", Restart: []string{rc + "S80samba.sh", "restart"}, Timeout: 60 * time.Second, Process: "smbd", Ports: []int{445, 139}},
			"nfs":   {Name: "nfs", Restart: []string{rc + "S83nfsd.sh", "restart"}, Timeout: 60 * time.Second, Ports: []int{2049}},
		},
	}
}
