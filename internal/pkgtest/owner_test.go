package pkgtest

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nas-userscript/userscript/internal/firmsim"
)

// TestInitHelpUsage proves that init answers -h and --help alike (the
// usage, every verb, on stdout, exit 0) and an unknown verb with the
// same usage on stderr and exit 2, under every BusyBox of the matrix.
func TestInitHelpUsage(t *testing.T) {
	eachBusyBox(t, func(t *testing.T, bb string) {
		n := installedWith(t, bb)
		app := n.AppDir("userscript")
		var outs []string
		for _, verb := range []string{"-h", "--help"} {
			out, err := initRun(t, n, app, filepath.Join(app, "init"), verb)
			if err != nil {
				t.Fatalf("init %s: %v\n%s", verb, err, out)
			}
			for _, w := range []string{"usage: init start|stop|restart|status|doctor|uninstall", "\n  doctor ", "\n  uninstall "} {
				if !strings.Contains(out, w) {
					t.Errorf("init %s does not say %q:\n%s", verb, w, out)
				}
			}
			outs = append(outs, out)
		}
		if outs[0] != outs[1] {
			t.Errorf("init -h and init --help differ:\n%s\n---\n%s", outs[0], outs[1])
		}
		out, err := initRun(t, n, app, filepath.Join(app, "init"), "frobnicate")
		var ee interface{ ExitCode() int }
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || out != outs[0] {
			t.Errorf("init frobnicate: %v, want exit 2 and the usage:\n%s", err, out)
		}
	})
}

// TestInitSettingsFile proves that the first init start creates
// userscript.toml from the example (the package ships only the
// example), and that a later start never overwrites the owner's.
func TestInitSettingsFile(t *testing.T) {
	n := installed(t)
	app := n.AppDir("userscript")
	toml := filepath.Join(app, "userscript.toml")
	if _, err := os.Lstat(toml); err == nil {
		t.Fatal("the package ships userscript.toml")
	}
	example, err := os.ReadFile(filepath.Join(app, "userscript.toml.example"))
	if err != nil {
		t.Fatal(err)
	}
	bootedOnce(t, n, app)
	if got, _ := os.ReadFile(toml); string(got) != string(example) {
		t.Fatalf("userscript.toml after the first start:\n%s\nwant the example", got)
	}
	writeFile(t, toml, "keep = 7\n")
	bootedOnce(t, n, app)
	if got, _ := os.ReadFile(toml); string(got) != "keep = 7\n" {
		t.Fatalf("the second start changed the owner's userscript.toml: %q", got)
	}
}

// TestInitDoctorUninstall proves, for the sh engine under every BusyBox
// of the matrix: a start writes conf.d/DOCTOR.txt; `init doctor` prints
// the report and writes it; `init uninstall` stops the poller, puts the
// firmware's own smb.conf back, writes conf.d/DISABLE, says DISABLED in
// the status, and a boot after it applies nothing.
func TestInitDoctorUninstall(t *testing.T) {
	eachBusyBox(t, func(t *testing.T, bb string) {
		n := installedWith(t, bb)
		app := n.AppDir("userscript")
		defer stopAll(t, n, app)
		rom, _ := n.Live(firmsim.SmbConf)
		writeFile(t, filepath.Join(app, "conf.d", "smb.conf"), "[global]\n\tworkgroup = MINE\n")
		if err := n.Boot(firmsim.ServicesFirst); err != nil {
			t.Fatal(err)
		}
		if got, _ := n.Live(firmsim.SmbConf); got != "[global]\n\tworkgroup = MINE\n" {
			t.Fatalf("after boot, live smb.conf:\n%s", got)
		}
		doctor := filepath.Join(app, "conf.d", "DOCTOR.txt")
		text, err := os.ReadFile(doctor)
		if err != nil || !strings.Contains(string(text), "engine: sh engine, userscript ") ||
			!strings.Contains(string(text), "smb.conf (/system/hddapp/etc/samba/smb.conf): replaced from conf.d/smb.conf; status ") {
			t.Fatalf("conf.d/DOCTOR.txt after a start (%v):\n%s", err, text)
		}
		os.Remove(doctor)
		out, err := initRun(t, n, app, filepath.Join(app, "init"), "doctor")
		if err != nil || !strings.HasPrefix(out, "userscript doctor\n") || !strings.Contains(out, "\nwho can write conf.d:\n") {
			t.Fatalf("init doctor: %v\n%s", err, out)
		}
		if text, err := os.ReadFile(doctor); err != nil || !strings.HasPrefix(string(text), "userscript doctor\r\n") {
			t.Fatalf("conf.d/DOCTOR.txt after init doctor (%v): %q", err, text)
		}

		out, err = initRun(t, n, app, filepath.Join(app, "init"), "uninstall")
		if err != nil || !strings.Contains(out, "the firmware's own files are back") {
			t.Fatalf("init uninstall: %v\n%s", err, out)
		}
		if got, _ := n.Live(firmsim.SmbConf); got != rom {
			t.Errorf("after init uninstall, live smb.conf:\n%s\nwant the firmware's:\n%s", got, rom)
		}
		if !eventually(10*time.Second, func() bool { return len(pollers(app)) == 0 }) {
			t.Errorf("pollers %v left after init uninstall", pollers(app))
		}
		if _, err := os.Stat(filepath.Join(app, "conf.d", "DISABLE")); err != nil {
			t.Errorf("no conf.d/DISABLE after init uninstall: %v", err)
		}
		if st, _ := os.ReadFile(filepath.Join(app, "conf.d", "smb.conf.status")); !strings.HasPrefix(string(st), "status: DISABLED\r\n") {
			t.Errorf("smb.conf.status after init uninstall:\n%s", st)
		}
		if err := n.Reboot(firmsim.ServicesFirst); err != nil {
			t.Fatal(err)
		}
		if got, _ := n.Live(firmsim.SmbConf); got != rom {
			t.Errorf("a boot after init uninstall applied conf.d:\n%s", got)
		}
	})
}

// TestUpgradeThroughInit proves that init runs the Go engine from its
// copy, state/run/userscript: after a boot the daemon runs from the copy,
// a package installed over the running one goes through (bin/userscript
// is not busy), and init stop still finds and stops the daemon.
func TestUpgradeThroughInit(t *testing.T) {
	n, pkg := installedNAS(t)
	t.Cleanup(func() { n.Shutdown() })
	app := n.AppDir("userscript")
	writeFile(t, filepath.Join(app, "userscript.toml"), daemonSettings)
	if err := n.Boot(firmsim.ServicesFirst); err != nil {
		t.Fatal(err)
	}
	daemon := runningDaemon(t, app, 0, 30*time.Second)
	b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(daemon), "cmdline"))
	if args := strings.Split(string(b), "\x00"); args[0] != filepath.Join(app, "state", "run", "userscript") {
		t.Fatalf("the daemon runs %q, want state/run/userscript", args[0])
	}
	if err := n.Install(pkg); err != nil {
		t.Fatalf("install over the package while its Go engine runs: %v", err)
	}
	if out, err := n.Init("userscript", "stop"); err != nil {
		t.Fatalf("init stop: %v\n%s", err, out)
	}
	if !eventually(30*time.Second, func() bool { return !alive(daemon) && len(daemons(app)) == 0 }) {
		t.Fatalf("daemons %v left after init stop", daemons(app))
	}
	if got := supervisors(app); !slices.Equal(got, nil) {
		t.Fatalf("supervisors %v left after init stop", got)
	}
}
