// Package firmsim simulates the firmware of an IcyBox IB-NAS4220-B in a
// temporary folder, for tests and the demo.
//
// A NAS has a root laid out like the device (the test seam, every device path under the root:
// system/hddapp/etc/samba/smb.conf, system/hddapp/etc/proftpd.conf,
// etc/exports, the rc.d scripts S80samba.sh, S85nfs.sh and S91proftpd.sh,
// the data disk mnt/ide1 with public/applications/), a ROM copy of its
// system files, and a boot driver: restore the ROM copy, start the
// services, run every installed application's `init start`, in either
// order. The rc.d scripts log each call to ROOT/restarts.log
// ("S80samba.sh restart"); UseSmbd makes S80samba.sh run a real smbd on a
// loopback port instead.
//
// NewDevice lays out the same device without ROM and boot (device.go): a
// root with the files a suite asks for and logging stubs for the
// profile's services, an app dir, the applets, and the sh engine
// installed on request. The suites that run an engine directly
// (scenario, hostile, killtest) ask for one; the boot tests for a NAS.
//
// Init scripts and the sh engine run under BusyBox with a PATH that holds
// only the applets the sh engine may use (Applets).
//
// NewDSM lays out a Synology DiskStation instead (dsm.go): DSM's version
// in /etc.defaults/VERSION, smb.conf where that version keeps it, its
// service commands and synoshare as logging stubs, a boot_id per boot,
// and Package Center (pkgcenter.go), which reads a .spk (spk.go), checks
// its INFO against the DSM, and runs its scripts in Package Center's
// order with the SYNOPKG_* environment.
package firmsim
