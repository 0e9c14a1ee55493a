package killtest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nas-userscript/userscript/internal/firmsim"
	"github.com/nas-userscript/userscript/internal/needtool"
	"github.com/nas-userscript/userscript/internal/systest"
)

// runs is how many kills each engine gets: USERSCRIPT_KILL_RUNS, or 60
// (bench/kill.sh runs many more).
func runs() int {
	if n, err := strconv.Atoi(os.Getenv("USERSCRIPT_KILL_RUNS")); err == nil && n > 0 {
		return n
	}
	return 60
}

var userscript string

func TestMain(m *testing.M) {
	dir, _ := os.MkdirTemp("", "killtest-")
	var err error
	if userscript, err = firmsim.BuildEngine(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := needtool.Run(m)
	os.RemoveAll(dir)
	os.Exit(code)
}

// device is a fake IB-NAS4220-B with two targets: smb.conf replaced,
// exports appended to.
type device struct {
	t              *testing.T
	dir, root, app string
	env            []string
	sh             bool
	shell          string
}

const (
	smbConf = "system/hddapp/etc/samba/smb.conf"
	exports = "etc/exports"
	romSmb  = "[global]\n\tworkgroup = ROM\n"
	romExp  = "/mnt/ide1/public *(ro)\n"
)

func newDevice(t *testing.T, sh bool) *device { return newDeviceWith(t, sh, "") }

// newDeviceWith is newDevice with the sh engine under the BusyBox binary
// bb ("" is Debian's).
func newDeviceWith(t *testing.T, sh bool, bb string) *device {
	d := &device{t: t, dir: t.TempDir(), sh: sh}
	dev, err := firmsim.NewDevice(d.dir, firmsim.DeviceSpec{BusyBox: bb, Files: map[string]string{smbConf: romSmb, exports: romExp}})
	if err != nil {
		needtool.Missing(t, fmt.Sprintf("busybox: %v", err))
	}
	d.root, d.app = dev.Root, dev.App
	// The rc.d scripts are stubs that start no daemon: nothing to check
	// their services by.
	write(t, filepath.Join(d.app, "userscript.toml"), "profile = \"nas4220b\"\n[services.samba]\nprocess = \"\"\nports = []\n[services.nfs]\nports = []\n[services.proftpd]\nprocess = \"\"\nports = []\n")
	path := os.Getenv("PATH")
	if sh {
		path, d.shell = dev.Bin, dev.Shell
		if err := dev.InstallShEngine("../../package/lib", "killtest"); err != nil {
			t.Fatal(err)
		}
	}
	d.env = append(os.Environ(), "PATH="+path, "USERSCRIPT_ROOT="+d.root, "USERSCRIPT_APP="+d.app)
	return d
}

func write(t *testing.T, p, s string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := systest.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (d *device) cmd(args ...string) *exec.Cmd {
	var c *exec.Cmd
	if d.sh {
		c = exec.Command(d.shell, append([]string{filepath.Join(d.app, "lib/engine.sh")}, args...)...)
	} else {
		c = exec.Command(userscript, args...)
	}
	c.Env = d.env
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return c
}

// run runs the engine to the end.
func (d *device) run(args ...string) string {
	d.t.Helper()
	out, err := d.cmd(args...).CombinedOutput()
	if err != nil {
		d.t.Fatalf("%v: %v\n%s", args, err, out)
	}
	return string(out)
}

// killAfter starts the engine and kills its whole process group with
// SIGKILL after delay (or lets it finish first).
func (d *device) killAfter(delay time.Duration, args ...string) {
	c := d.cmd(args...)
	if err := c.Start(); err != nil {
		d.t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { c.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(delay):
		syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

func (d *device) live(rel string) string {
	data, err := os.ReadFile(filepath.Join(d.root, rel))
	if err != nil {
		d.t.Fatalf("%s: %v", rel, err)
	}
	return string(data)
}

func (d *device) sources(i int) (smb, exp string) {
	return fmt.Sprintf("[global]\n\tworkgroup = V%d\n", i), fmt.Sprintf("/mnt/ide1/v%d *(rw,no_subtree_check)\n", i)
}

func (d *device) put(i int) {
	smb, exp := d.sources(i)
	write(d.t, filepath.Join(d.app, "conf.d/smb.conf"), smb)
	write(d.t, filepath.Join(d.app, "conf.d/exports.add"), exp)
}

// check: every target is the content of one of the generations in
// olds or of i (the one being applied), and no half-written file.
func (d *device) check(run int, olds []int, i int, what string) {
	d.t.Helper()
	okSmb, okExp := map[string]bool{}, map[string]bool{}
	for _, g := range append(olds, i) {
		smb, exp := d.sources(g)
		okSmb[smb], okExp[romExp+exp] = true, true
	}
	if got := d.live(smbConf); !okSmb[got] {
		d.t.Fatalf("run %d (%s): smb.conf is none of generations %v, %d:\n%s", run, what, olds, i, got)
	}
	if got := d.live(exports); !okExp[got] {
		d.t.Fatalf("run %d (%s): exports is none of generations %v, %d (double append?):\n%s", run, what, olds, i, got)
	}
}

func testKills(t *testing.T, sh bool) { testKillsWith(t, sh, "", runs()) }

func testKillsWith(t *testing.T, sh bool, bb string, n int) {
	d := newDeviceWith(t, sh, bb)
	d.put(0)
	c0 := time.Now()
	d.run("apply")
	// Kills land anywhere in the time an apply of both targets took
	// here (at least 60 ms): in every phase, under any BusyBox, loaded
	// or not.
	window := max(time.Since(c0), 60*time.Millisecond)
	rng := rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano())))
	killed := 0
	start := time.Now()
	olds := []int{0}
	for run := 1; run <= n; run++ {
		d.put(run)
		delay := time.Duration(rng.Int64N(int64(window)))
		c0 := time.Now()
		d.killAfter(delay, "apply")
		if time.Since(c0) >= delay {
			killed++
		}
		d.check(run, olds, run, "after the kill")
		d.run("apply") // converges
		olds = []int{run}
		smb, exp := d.sources(run)
		if d.live(smbConf) != smb || d.live(exports) != romExp+exp {
			t.Fatalf("run %d: the apply after a kill did not converge:\n%s\n%s", run, d.live(smbConf), d.live(exports))
		}
		if !sh && run%5 == 0 {
			// Kill a rollback too: afterwards the files are the
			// generation before or after it, and apply brings ours back
			// only once the source is edited (it is held).
			d.killAfter(time.Duration(rng.Int64N(int64(window))), "rollback")
			if _, err := d.cmd("history").CombinedOutput(); err != nil {
				t.Fatalf("run %d: history unreadable after a killed rollback", run)
			}
			d.check(run, []int{run - 1}, run, "after a killed rollback")
			olds = []int{run - 1, run}
		}
	}
	// The last run may have killed a rollback mid-write: the next apply
	// (which writes nothing, the target is held) removes its staging file.
	d.run("apply")
	entries, _ := os.ReadDir(filepath.Join(d.root, "system/hddapp/etc/samba"))
	for _, e := range entries {
		if strings.Contains(e.Name(), "userscript") {
			t.Errorf("staging file left after the last clean run: %s", e.Name())
		}
	}
	t.Logf("%d runs, %d killed mid-way (within %v), %v", n, killed, window.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
}

func TestKillGoEngine(t *testing.T) { testKills(t, false) }
func TestKillShEngine(t *testing.T) { testKills(t, true) }

// TestKillShEngineOldBusyBox runs the power-cut loop with the sh engine
// under each old BusyBox of the matrix, with a quarter of the kills (a
// run there costs more processes: before 1.2 every [ and echo is one),
// and 6 where it runs emulated (firmsim.Slowdown: a run takes seconds
// there; the kills still spread over a whole apply).
func TestKillShEngineOldBusyBox(t *testing.T) {
	bbs, missing := firmsim.BusyBoxes()
	for _, bb := range bbs {
		if bb.Tag == "debian" {
			continue
		}
		t.Run(bb.Tag, func(t *testing.T) {
			t.Parallel()
			n := max(runs()/4, 5)
			if firmsim.Slowdown(bb.Path) > 1 {
				n = min(n, 6)
			}
			testKillsWith(t, true, bb.Path, n)
		})
	}
	for tag, why := range missing {
		t.Run(tag, func(t *testing.T) { needtool.Optional(t, why, firmsim.OldBusyBoxRequired()) })
	}
}
