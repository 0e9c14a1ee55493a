package pkgtest

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nas-userscript/userscript/internal/firmsim"
)

// dsmWait bounds every wait for an engine: a loaded 2-core machine may be
// slow, the sh engine polls every second.
const dsmWait = 30 * time.Second

// TestDSMLifecycle proves what a Synology owner does with each package,
// on a simulated DiskStation of its DSM, with Package Center calling the
// scripts in its order and with its SYNOPKG_* environment:
//   - install: the shared folder userscript holds the app dir (DSM 2-6:
//     made with synoshare; DSM 7: by DSM from conf/resource), userscript
//     runs (DSM 2-6) or the status says it waits for the boot-up task;
//   - boot and an edit in the share: the owner's smb.conf becomes live
//     at the DSM's path and only that DSM's Samba restart runs; on DSM 7
//     once the Task Scheduler task has run, and the status is honest
//     before and after it, across a reboot too;
//   - upgrade to the next build: conf.d, userscript.toml, state and the
//     live file are kept, the engine is the new one;
//   - uninstall: DSM's own smb.conf is live again, conf.d is kept, the
//     engine is gone (DSM 7 refuses until the owner has run the root
//     step its message names, then works).
func TestDSMLifecycle(t *testing.T) {
	for _, tc := range []struct{ target, version string }{
		{"dsm5", "5.2-5967"},
		{"dsm6", "6.2-25556"},
		{"dsm7", "7.2-64570"},
	} {
		t.Run(tc.target, func(t *testing.T) {
			t.Parallel()
			spk, next := dist(t, tc.target), newerDist(t, tc.target)
			d := newDSM(t, tc.version)
			lifecycle(t, d, spk, next)
		})
	}
}

// lifecycle runs install → boot → edit → upgrade → uninstall on d.
func lifecycle(t *testing.T, d *firmsim.DSM, spk, next string) {
	t.Helper()
	app := d.App()
	logOnFail(t, filepath.Join(app, "state"))
	smbConf := firmsim.DSMSmbConf(d.Major)
	stock, _ := d.Live(smbConf)
	if err := d.Boot(); err != nil {
		t.Fatal(err)
	}

	installAndCheck(t, d, spk)
	d.ClearCalls()
	writeFile(t, filepath.Join(app, "conf.d", "smb.conf"), userSmbConf)
	owner := "# the owner's own settings\nkeep = 30\n"
	writeFile(t, filepath.Join(app, "userscript.toml"), owner)
	want := strings.ReplaceAll(userSmbConf, "\r\n", "\n")
	if d.Major >= 7 {
		bootTask(t, d, "start")
	}
	waitLive(t, d, want)
	sambaRestarted(t, d)
	checkedByTestparm(t, d)
	exportsReloaded(t, d)

	// A reboot: DSM's smb.conf comes back from its settings, and
	// userscript puts the owner's back.
	if err := d.Reboot(); err != nil {
		t.Fatal(err)
	}
	if d.Major >= 7 {
		if code, out := d.Status("userscript"); code != 3 || !strings.Contains(out, "has not run since this boot") {
			t.Fatalf("after a reboot, before the boot-up task: status %d %q, want 3 saying the task has not run", code, out)
		}
		bootTask(t, d, "start")
	}
	waitLive(t, d, want)
	if code, out := d.Status("userscript"); code != 0 {
		t.Fatalf("after the reboot: status %d %q, want 0 (running)", code, out)
	}
	checkDSMVersionShown(t, d)
	doctorNamesRestart(t, d)

	upgradeAndCheck(t, d, next, want, owner)
	uninstallAndCheck(t, d, stock)
}

func installAndCheck(t *testing.T, d *firmsim.DSM, spk string) {
	t.Helper()
	app := d.App()
	if err := d.Install(spk); err != nil {
		t.Fatalf("install: %v", err)
	}
	if got, want := steps(d, 0), []string{"preinst INSTALL", "postinst INSTALL", "start-stop-status start START"}; !slices.Equal(got, want) {
		t.Fatalf("install ran %q, want %q", got, want)
	}
	for _, f := range []string{"init", "lib/engine.sh", "lib/profile", "conf.d/README.txt", "conf.d/examples/smb.conf", "userscript.toml", "userscript.toml.example"} {
		if _, err := os.Stat(filepath.Join(app, f)); err != nil {
			t.Errorf("after install: the share has no %s", f)
		}
	}
	if _, err := os.Stat(filepath.Join(app, "bin", "userscript")); (err == nil) != (d.Major >= 6) {
		t.Errorf("after install: bin/userscript present %v, want %v (the Go engine from DSM 6 on)", err == nil, d.Major >= 6)
	}
	madeShare := slices.ContainsFunc(d.Calls(), func(c string) bool { return strings.HasPrefix(c, "synoshare --add userscript ") })
	if madeShare != (d.Major < 7) {
		t.Errorf("synoshare --add called %v, want %v (DSM 7 makes the share from conf/resource); calls %q", madeShare, d.Major < 7, d.Calls())
	}
	code, out := d.Status("userscript")
	switch {
	case d.Major < 7 && code != 0:
		t.Fatalf("after install: status %d %q, want 0 (running)", code, out)
	case d.Major >= 7 && (code != 3 || !strings.Contains(out, "boot-up task")):
		t.Fatalf("after install on DSM 7: status %d %q, want 3 naming the boot-up task", code, out)
	case d.Major >= 7 && !strings.Contains(d.Steps[2].Message, "Task Scheduler"):
		t.Errorf("DSM 7 start does not tell the owner about the Task Scheduler task: %q", d.Steps[2].Message)
	}
}

// bootTask runs the Task Scheduler task the docs give (user root, the
// share's init) with verb, and checks the status says running.
func bootTask(t *testing.T, d *firmsim.DSM, verb string) {
	t.Helper()
	if out, err := d.RunTask("/bin/sh", filepath.Join(d.App(), "init"), verb); err != nil {
		t.Fatalf("boot-up task init %s: %v\n%s", verb, err, out)
	}
	if code, out := d.Status("userscript"); code != 0 {
		t.Fatalf("after the boot-up task: status %d %q, want 0", code, out)
	}
}

func waitLive(t *testing.T, d *firmsim.DSM, want string) {
	t.Helper()
	rel := firmsim.DSMSmbConf(d.Major)
	if !eventually(dsmWait, func() bool { got, _ := d.Live(rel); return got == want }) {
		got, _ := d.Live(rel)
		t.Fatalf("live /%s:\n%s\nwant:\n%s", rel, got, want)
	}
}

// sambaRestarted checks that the DSM's own Samba restart ran and no
// other service was touched.
func sambaRestarted(t *testing.T, d *firmsim.DSM) {
	t.Helper()
	samba, nfs := firmsim.DSMRestarts(d.Major)
	if !eventually(dsmWait, func() bool { return slices.Contains(d.Calls(), samba) }) {
		t.Fatalf("calls %q, want %q", d.Calls(), samba)
	}
	if slices.Contains(d.Calls(), nfs) {
		t.Errorf("calls %q: NFS restarted for an smb.conf edit", d.Calls())
	}
}

// checkedByTestparm proves the owner's smb.conf was checked by the
// testparm of this DSM (DSM 7: SMBService's), not applied unchecked.
func checkedByTestparm(t *testing.T, d *firmsim.DSM) {
	t.Helper()
	p := filepath.Join(d.App(), "conf.d", "smb.conf.status")
	ok := func() bool { b, _ := os.ReadFile(p); return strings.Contains(string(b), "validated: testparm -s") }
	if !eventually(dsmWait, ok) {
		status, err := os.ReadFile(p)
		t.Errorf("smb.conf.status (%v) does not say testparm checked it:\n%s", err, status)
	}
}

// exportsReloaded proves an exports edit goes live and NFS is reloaded
// the way this DSM does it (DSM 6, 7: exportfs -ra, no restart that
// drops the clients' state) and Samba is left alone.
func exportsReloaded(t *testing.T, d *firmsim.DSM) {
	t.Helper()
	samba, nfs := firmsim.DSMRestarts(d.Major)
	d.ClearCalls()
	exports := "/" + firmsim.DSMVolume + "/public 192.168.1.0/24(rw,async,no_subtree_check)\n"
	writeFile(t, filepath.Join(d.App(), "conf.d", "exports"), exports)
	if !eventually(dsmWait, func() bool { got, _ := d.Live(firmsim.Exports); return got == exports }) {
		got, _ := d.Live(firmsim.Exports)
		t.Fatalf("live /%s: %q, want %q", firmsim.Exports, got, exports)
	}
	if !eventually(dsmWait, func() bool { return slices.Contains(d.Calls(), nfs) }) {
		t.Fatalf("calls %q, want %q", d.Calls(), nfs)
	}
	if slices.Contains(d.Calls(), samba) {
		t.Errorf("calls %q: Samba restarted for an exports edit", d.Calls())
	}
	os.Remove(filepath.Join(d.App(), "conf.d", "exports"))
	if !eventually(dsmWait, func() bool { got, _ := d.Live(firmsim.Exports); return got == "" }) {
		got, _ := d.Live(firmsim.Exports)
		t.Fatalf("exports removed from conf.d, live /%s still %q", firmsim.Exports, got)
	}
}

// doctorNamesRestart proves init doctor's DOCTOR.txt says which of the
// DSM's ways to restart Samba it found on the device and uses.
func doctorNamesRestart(t *testing.T, d *firmsim.DSM) {
	t.Helper()
	want := map[int]string{
		5: "/usr/syno/etc.defaults/rc.d/S80samba.sh restart",
		6: "/usr/syno/etc/rc.sysv/S80samba.sh restart",
		7: "/usr/bin/systemctl restart pkg-synosamba-smbd.service pkg-synosamba-nmbd.service",
	}[d.Major]
	if out, err := d.RunTask("/bin/sh", filepath.Join(d.App(), "init"), "doctor"); err != nil {
		t.Fatalf("init doctor: %v\n%s", err, out)
	}
	doc, err := os.ReadFile(filepath.Join(d.App(), "conf.d", "DOCTOR.txt"))
	if err != nil || !strings.Contains(string(doc), "restarted with "+want+"\r\n") {
		t.Errorf("DOCTOR.txt (%v) does not say Samba is restarted with %q:\n%s", err, want, doc)
	}
}

// checkDSMVersionShown proves init status (and the Go engine's status)
// name the DSM version the dsm profile took its paths from.
func checkDSMVersionShown(t *testing.T, d *firmsim.DSM) {
	t.Helper()
	want := "Synology DSM " + strconv.Itoa(d.Major) + "."
	out, err := d.RunTask("/bin/sh", filepath.Join(d.App(), "init"), "status")
	if err != nil || !strings.Contains(out, want) {
		t.Errorf("init status (%v) does not name the DSM version:\n%s", err, out)
	}
	if d.Major < 6 {
		return
	}
	out, err = d.RunTask(filepath.Join(d.App(), "bin", "userscript"), "--app", d.App(), "status")
	if err != nil || !strings.Contains(out, want) || !strings.Contains(out, "/"+firmsim.DSMSmbConf(d.Major)) {
		t.Errorf("userscript status (%v) does not name the DSM version and its smb.conf:\n%s", err, out)
	}
}

func upgradeAndCheck(t *testing.T, d *firmsim.DSM, next, want, owner string) {
	t.Helper()
	app := d.App()
	old, _ := d.Installed("userscript")
	keep := map[string][]byte{}
	for _, f := range []string{"conf.d/smb.conf", "userscript.toml", "state/base/smb.conf"} {
		b, err := os.ReadFile(filepath.Join(app, f))
		if err != nil {
			t.Fatalf("before the upgrade: %v", err)
		}
		keep[f] = b
	}
	gens, _ := filepath.Glob(filepath.Join(app, "state", "gen", "*"))
	from := len(d.Steps)
	if err := d.Upgrade(next); err != nil {
		t.Fatalf("upgrade: %v", err)
	}
	wantSteps := []string{"start-stop-status stop UPGRADE", "preupgrade UPGRADE", "preuninst UPGRADE", "postuninst UPGRADE",
		"preinst UPGRADE", "postinst UPGRADE", "postupgrade UPGRADE", "start-stop-status start START"}
	if got := steps(d, from); !slices.Equal(got, wantSteps) {
		t.Fatalf("upgrade ran %q, want %q", got, wantSteps)
	}
	if ver, _ := d.Installed("userscript"); ver == old {
		t.Fatalf("still version %s after the upgrade", ver)
	}
	for f, b := range keep {
		if got, _ := os.ReadFile(filepath.Join(app, f)); string(got) != string(b) {
			t.Errorf("the upgrade changed %s:\n%s\nwas:\n%s", f, got, b)
		}
	}
	if got, _ := filepath.Glob(filepath.Join(app, "state", "gen", "*")); len(got) < len(gens) {
		t.Errorf("history lost in the upgrade: %d generations, were %d", len(got), len(gens))
	}
	if v, _ := os.ReadFile(filepath.Join(app, "lib", "version")); strings.TrimSpace(string(v)) != "next-release" {
		t.Errorf("lib/version after the upgrade: %q, want the new build's", v)
	}
	waitLive(t, d, want)
	code, out := d.Status("userscript")
	if code != 0 {
		t.Fatalf("after the upgrade: status %d %q, want 0", code, out)
	}
	if d.Major >= 7 {
		// The engine that runs is the one the task started; the status
		// says so until the task restarts it.
		if !strings.Contains(out, "init restart") {
			t.Errorf("DSM 7 status after the upgrade does not say to restart the old engine: %q", out)
		}
		bootTask(t, d, "restart")
		if _, out := d.Status("userscript"); strings.Contains(out, "init restart") || !strings.Contains(out, "next-release") {
			t.Errorf("after init restart: status %q, want the new version running", out)
		}
	}
}

func uninstallAndCheck(t *testing.T, d *firmsim.DSM, stock string) {
	t.Helper()
	app := d.App()
	if d.Major >= 7 {
		dsm7RootStep(t, d)
	}
	d.ClearCalls()
	from := len(d.Steps)
	if err := d.Uninstall("userscript"); err != nil {
		t.Fatalf("uninstall: %v", err)
	}
	if got, wantSteps := steps(d, from), []string{"start-stop-status stop UNINSTALL", "preuninst UNINSTALL", "postuninst UNINSTALL"}; !slices.Equal(got, wantSteps) {
		t.Fatalf("uninstall ran %q, want %q", got, wantSteps)
	}
	rel := firmsim.DSMSmbConf(d.Major)
	if got, _ := d.Live(rel); got != stock {
		t.Errorf("after uninstall, live /%s:\n%s\nwant DSM's own:\n%s", rel, got, stock)
	}
	if src, _ := os.ReadFile(filepath.Join(app, "conf.d", "smb.conf")); string(src) != userSmbConf {
		t.Errorf("uninstall changed conf.d/smb.conf: %q", src)
	}
	for _, f := range []string{"userscript.toml", "state/base/smb.conf", "README-uninstalled.txt"} {
		if _, err := os.Stat(filepath.Join(app, f)); err != nil {
			t.Errorf("after uninstall: %s is missing: %v", f, err)
		}
	}
	for _, f := range []string{"init", "lib", "bin", "var/packages/userscript"} {
		base := app
		if strings.HasPrefix(f, "var/") {
			base = d.Root
		}
		if _, err := os.Lstat(filepath.Join(base, f)); err == nil {
			t.Errorf("after uninstall: %s is left", f)
		}
	}
	if !eventually(dsmWait, func() bool { return len(pollers(app))+len(supervisors(app))+len(daemons(app)) == 0 }) {
		t.Errorf("after uninstall: pollers %v, supervisors %v, daemons %v", pollers(app), supervisors(app), daemons(app))
	}
}

// dsm7RootStep proves DSM 7's uninstall refuses while userscript runs,
// and, once it is stopped, while its file is still live (DSM 7 does not
// restore smb.conf at boot), and that the root step its message names
// puts DSM's files back so that uninstall can go on.
func dsm7RootStep(t *testing.T, d *firmsim.DSM) {
	t.Helper()
	refused := func(why string) string {
		t.Helper()
		err := d.Uninstall("userscript")
		msg := d.LastStep().Message
		if err == nil || !strings.Contains(msg, why) || !strings.Contains(msg, "rollback 0") {
			t.Fatalf("DSM 7 uninstall: %v, message %q; want a refusal saying %q and naming the root step", err, msg, why)
		}
		if _, ok := d.Installed("userscript"); !ok {
			t.Fatal("the refused uninstall removed the package")
		}
		return msg
	}
	refused("still runs as root")
	if out, err := d.RunTask("/bin/sh", filepath.Join(d.App(), "init"), "stop"); err != nil {
		t.Fatalf("init stop: %v\n%s", err, out)
	}
	msg := refused("files are still live")
	_, cmd, ok := strings.Cut(msg, "Run): ")
	cmd, _, _ = strings.Cut(cmd, "\n")
	if !ok || cmd == "" {
		t.Fatalf("no command in the refusal: %q", msg)
	}
	if out, err := d.RunTask("/bin/sh", "-c", cmd); err != nil {
		t.Fatalf("the root step %q: %v\n%s", cmd, err, out)
	}
}
