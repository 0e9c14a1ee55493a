package profile

import (
	"fmt"
	"sort"
	"time"
)

// builtins holds the profiles userscript knows without any settings.
var builtins = map[string]func() *Profile{
	"nas4220b": nas4220b,
	"bananapi": bananapi,
	"dsm":      dsm,
}

// Names returns the built-in profile names, sorted.
func Names() []string {
	names := make([]string, 0, len(builtins))
	for n := range builtins {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Builtin returns a fresh copy of the built-in profile called name.
func Builtin(name string) (*Profile, error) {
	mk, ok := builtins[name]
	if !ok {
		return nil, fmt.Errorf("no profile %q (known: %v)", name, Names())
	}
	p := mk()
	p.sortTargets()
	return p, nil
}

// nas4220b is the stock IcyBox IB-NAS4220-B firmware (2.6.0.IB.1.RS.1).
// Paths and rc.d scripts come from the NAS-4220 community wiki's tuning
// page ("Optimierungs-Möglichkeiten"), which names
// /system/hddapp/etc/samba/smb.conf with S80samba.sh, /etc/exports with
// S85nfs.sh and /system/hddapp/etc/proftpd.conf with S91proftpd.sh.
// This is the test seam (ARCHITECTURE.md, "What must always hold"): keep it.
func nas4220b() *Profile {
	const rc = "/system/hddapp/etc/rc.d/"
	return &Profile{
		Name:        "nas4220b",
		Description: "IcyBox IB-NAS4220-B, stock firmware (ARMv4, sh engine only)",
		Targets: []Target{
			{Name: "smb.conf", Path: "/system/hddapp/etc/samba/smb.conf", Validator: ValidateTestparm, Service: "samba", NeverEmpty: true},
			{Name: "exports", Path: "/etc/exports", Validator: ValidateExports, Service: "nfs"},
			{Name: "proftpd.conf", Path: "/system/hddapp/etc/proftpd.conf", Validator: ValidateProftpd, Service: "proftpd", NeverEmpty: true},
		},
		Services: map[string]Service{
			"samba":   {Name: "samba", Restart: []string{rc + "S80samba.sh", "restart"}, Timeout: 60 * time.Second, Process: "smbd", Ports: []int{445, 139}},
			"nfs":     {Name: "nfs", Restart: []string{rc + "S85nfs.sh", "restart"}, Timeout: 60 * time.Second, Ports: []int{2049}},
			"proftpd": {Name: "proftpd", Restart: []string{rc + "S91proftpd.sh", "restart"}, Timeout: 60 * time.Second, Process: "proftpd", Ports: []int{21}},
		},
	}
}

// bananapi is a BananaPi (Allwinner A20) on Arch Linux ARM with systemd,
// as in the "Another NAS with a BananaPI" write-up: Samba's unit is smb,
// NFS exports are reloaded with exportfs -ra (nfs-server keeps running),
// vsftpd reads /etc/vsftpd.conf. Arch installs systemctl and exportfs in
// /usr/bin (its /bin and /sbin are links to it).
func bananapi() *Profile {
	return &Profile{
		Name:        "bananapi",
		Description: "BananaPi on Arch Linux ARM with systemd (Go engine)",
		Targets: []Target{
			{Name: "smb.conf", Path: "/etc/samba/smb.conf", Validator: ValidateTestparm, Service: "smb", NeverEmpty: true},
			{Name: "exports", Path: "/etc/exports", Validator: ValidateExports, Service: "nfs-server"},
			{Name: "vsftpd.conf", Path: "/etc/vsftpd.conf", Service: "vsftpd", NeverEmpty: true},
		},
		Services: map[string]Service{
			"smb":        {Name: "smb", Restart: []string{"/usr/bin/systemctl", "restart", "smb"}, Timeout: 60 * time.Second, Process: "smbd", Ports: []int{445}},
			"nfs-server": {Name: "nfs-server", Restart: []string{"/usr/bin/exportfs", "-ra"}, Timeout: 60 * time.Second, Ports: []int{2049}},
			"vsftpd":     {Name: "vsftpd", Restart: []string{"/usr/bin/systemctl", "restart", "vsftpd"}, Timeout: 60 * time.Second, Process: "vsftpd", Ports: []int{21}},
		},
	}
}
