package pkgtest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nas-userscript/userscript/internal/firmsim"
)

const userSmbConf = "[global]\r\n\tworkgroup = OWNER\r\n\tgetwd cache = yes\r\n\tuse sendfile = yes\r\n"

// TestBoot proves the whole path a NAS owner takes, in both boot orders:
// the armv4 package installed on a simulated IB-NAS4220-B, a smb.conf
// dropped into conf.d, a boot → the live smb.conf is the user's and only
// samba restarted, once; a reboot (ROM restored) → the same again; an
// edit while running → applied by the poller; the source deleted → the
// firmware's file back; init stop → no poller left.
// It runs under Debian's BusyBox and each old one of the matrix (the
// device's is from 2005-2007).
func TestBoot(t *testing.T) {
	eachBusyBox(t, func(t *testing.T, bb string) {
		for _, order := range []firmsim.Order{firmsim.ServicesFirst, firmsim.AppsFirst} {
			t.Run(order.String(), func(t *testing.T) {
				t.Parallel()
				bootFlow(t, bb, order)
			})
		}
	})
}

func bootFlow(t *testing.T, bb string, order firmsim.Order) {
	n := installedWith(t, bb)
	n.Env = append(n.Env, "USERSCRIPT_POLL=1")
	app := n.AppDir("userscript")
	writeFile(t, filepath.Join(app, "conf.d", "smb.conf"), userSmbConf)
	want := strings.ReplaceAll(userSmbConf, "\r\n", "\n")

	for boot := 1; boot <= 2; boot++ {
		n.ClearCalls()
		var err error
		if boot == 1 {
			err = n.Boot(order)
		} else {
			err = n.Reboot(order)
		}
		if err != nil {
			t.Fatalf("boot %d: %v", boot, err)
		}
		if got, _ := n.Live(firmsim.SmbConf); got != want {
			t.Fatalf("boot %d: live smb.conf:\n%q\nwant\n%q", boot, got, want)
		}
		if got := n.Restarts(); !slices.Equal(got, []string{"S80samba.sh restart"}) {
			t.Fatalf("boot %d: restarts %q, want exactly one S80samba.sh restart (calls: %q)", boot, got, n.Calls())
		}
		status, _ := os.ReadFile(filepath.Join(app, "conf.d", "smb.conf.status"))
		if !strings.HasPrefix(string(status), "status: ") {
			t.Fatalf("boot %d: no status file: %q", boot, status)
		}
	}

	// Only one poller, even when init start runs again.
	pidFile := filepath.Join(app, "state", "poll.pid")
	if !eventually(5*time.Second, func() bool { _, err := os.Stat(pidFile); return err == nil }) {
		t.Fatal("no state/poll.pid after boot")
	}
	pid := readPid(t, pidFile)
	if out, err := n.Init("userscript", "start"); err != nil {
		t.Fatalf("init start again: %v\n%s", err, out)
	}
	time.Sleep(500 * time.Millisecond)
	if got := pollers(app); len(got) != 1 {
		t.Fatalf("pollers %v, want exactly one (pid %d)", got, pid)
	}

	// An edit while running is applied by the poller.
	n.ClearCalls()
	edited := "[global]\n\tworkgroup = EDITED\n"
	writeFile(t, filepath.Join(app, "conf.d", "smb.conf"), edited)
	if !eventually(15*time.Second, func() bool { got, _ := n.Live(firmsim.SmbConf); return got == edited }) {
		got, _ := n.Live(firmsim.SmbConf)
		log, _ := os.ReadFile(filepath.Join(app, "state", "log"))
		t.Fatalf("edit not applied by the poller; live:\n%s\nlog:\n%s", got, log)
	}
	if !eventually(5*time.Second, func() bool { return len(n.Restarts()) == 1 }) {
		t.Fatalf("after the edit: restarts %q, want one", n.Restarts())
	}

	// The firmware rewriting smb.conf behind our back is undone.
	n.ClearCalls()
	gui := "[global]\n\tworkgroup = GUI\n"
	writeFile(t, filepath.Join(n.Root, firmsim.SmbConf), gui)
	if !eventually(15*time.Second, func() bool { got, _ := n.Live(firmsim.SmbConf); return got == edited }) {
		log, _ := os.ReadFile(filepath.Join(app, "state", "log"))
		got, _ := n.Live(firmsim.SmbConf)
		t.Fatalf("the firmware's rewrite was not undone by the poller; live:\n%s\nlog:\n%s", got, log)
	}
	// (its restart follows the write)
	if !eventually(30*time.Second, func() bool { return len(n.Restarts()) == 1 }) {
		t.Fatalf("after the undo: restarts %q, want one", n.Restarts())
	}

	// Deleting the source gives smb.conf back to the firmware: its
	// last own version (the web GUI's) is the base now.
	n.ClearCalls()
	if err := os.Remove(filepath.Join(app, "conf.d", "smb.conf")); err != nil {
		t.Fatal(err)
	}
	if !eventually(30*time.Second, func() bool { got, _ := n.Live(firmsim.SmbConf); return got == gui }) {
		got, _ := n.Live(firmsim.SmbConf)
		t.Fatalf("deleting conf.d/smb.conf did not bring the firmware's file back; live:\n%s", got)
	}
	if !eventually(30*time.Second, func() bool { return len(n.Restarts()) == 1 }) {
		t.Fatalf("after the deletion: restarts %q, want one", n.Restarts())
	}

	// init stop leaves no poller.
	pid = readPid(t, pidFile)
	if out, err := n.Init("userscript", "stop"); err != nil {
		t.Fatalf("init stop: %v\n%s", err, out)
	}
	if !eventually(5*time.Second, func() bool { return !alive(pid) }) {
		t.Fatalf("poller %d still alive after init stop", pid)
	}
	if !eventually(5*time.Second, func() bool { return len(pollers(app)) == 0 }) {
		t.Fatalf("pollers left after init stop: %v", pollers(app))
	}
}

// TestOddNamesHarmless proves that names with a newline, a leading dash
// or spaces in conf.d make the sh engine write nothing odd: no status file
// for them, nothing applied from them.
func TestOddNamesHarmless(t *testing.T) {
	n := installed(t)
	app := n.AppDir("userscript")
	conf := filepath.Join(app, "conf.d")
	for _, name := range []string{"smb.conf\nfoo", "-n", "--", "smb.conf ", "a\\b", "*", "$(reboot)"} {
		writeFile(t, filepath.Join(conf, name), "[global]\n\tworkgroup = ODD\n")
	}
	if err := n.Boot(firmsim.ServicesFirst); err != nil {
		t.Fatal(err)
	}
	if got := n.Restarts(); len(got) != 0 {
		t.Errorf("restarts %q, want none", got)
	}
	if got, _ := n.Live(firmsim.SmbConf); strings.Contains(got, "ODD") {
		t.Errorf("an odd name was applied:\n%s", got)
	}
	ents, _ := os.ReadDir(conf)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".status") {
			t.Errorf("status file %q written for an odd name", e.Name())
		}
	}
	log, _ := os.ReadFile(filepath.Join(app, "state", "log"))
	if !strings.Contains(string(log), "ignored files in conf.d") {
		t.Errorf("the log does not mention the ignored files:\n%s", log)
	}
}
