package killtest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nas-userscript/userscript/internal/history"
)

// stub replaces the device's S80samba.sh.
func (d *device) stub(script string) {
	d.t.Helper()
	p := filepath.Join(d.root, "system/hddapp/etc/rc.d/S80samba.sh")
	write(d.t, p+".new", script)
	os.Chmod(p+".new", 0o755)
	if err := os.Rename(p+".new", p); err != nil {
		d.t.Fatal(err)
	}
}

func (d *device) generation(id int) *history.Generation {
	d.t.Helper()
	data, err := os.ReadFile(filepath.Join(d.app, "state/gen", genName(id), "meta.json"))
	if err != nil {
		d.t.Fatalf("generation %d: %v", id, err)
	}
	g, err := parseMeta(data)
	if err != nil {
		d.t.Fatalf("generation %d: %v", id, err)
	}
	return g
}

// The power goes while the change is being proven (here: the engine is
// killed by the service's own restart): at the next boot the firmware
// has restored its ROM file, the unproven generation is rejected as
// interrupted and never counted as committed, and the boot applies
// conf.d as a new transaction that has to prove itself.
func TestPowerCutWhileProving(t *testing.T) {
	for _, sh := range []bool{false, true} {
		name := "go"
		if sh {
			name = "sh"
		}
		t.Run(name, func(t *testing.T) { powerCutWhileProving(t, sh) })
	}
}

// powerCutWhileProving: for the sh engine this is defect 6 too (stopped
// between write and restart: the next start finishes the restart).
func powerCutWhileProving(t *testing.T, sh bool) {
	d := newDevice(t, sh)
	d.put(1)
	d.run("apply")
	d.stub("#!/bin/sh\nkill -9 $PPID\nexit 0\n")
	d.put(2)
	if out, err := d.cmd("apply").CombinedOutput(); err == nil {
		t.Fatalf("the engine was not killed:\n%s", out)
	}
	if g := d.generation(2); g.Result != history.Pending {
		t.Fatalf("generation 2 after the power cut: %s, want pending", g.Result)
	}
	// Reboot: the ROM is restored and the services start as usual.
	write(t, filepath.Join(d.root, smbConf), romSmb)
	d.stub("#!/bin/sh\nR=${0%/system/hddapp/etc/rc.d/*}\necho \"${0##*/} $*\" >> \"$R/restarts.log\"\nexit 0\n")
	d.run("apply")
	g2 := d.generation(2)
	if g2.Result != history.Rejected || !strings.Contains(g2.Note, "interrupted") {
		t.Errorf("generation 2 after the boot: %s %q, want rejected as interrupted", g2.Result, g2.Note)
	}
	if g3 := d.generation(3); g3.Result != history.OK {
		t.Errorf("generation 3 (the boot's apply): %s", g3.Result)
	}
	smb, _ := d.sources(2)
	if got := d.live(smbConf); got != smb {
		t.Errorf("live after the boot: %q", got)
	}
	st, _ := os.ReadFile(filepath.Join(d.app, "conf.d/smb.conf.status"))
	if !strings.Contains(string(st), "generation 2 was interrupted") {
		t.Errorf("the status does not say what happened:\n%s", st)
	}
}

// `init stop` (SIGTERM) while a service is between its stop and its
// start: the restart is let finish — the service is not left stopped —
// and the engine exits after it.
func TestStopDuringRestart(t *testing.T) {
	d := newDevice(t, false)
	d.put(1)
	d.run("apply")
	flag := func(name string) string { return filepath.Join(d.dir, name) }
	d.stub("#!/bin/sh\ntouch " + flag("stopped") + "\nwhile ! [ -e " + flag("go") + " ]; do sleep 0.05; done\ntouch " + flag("started") + "\nexit 0\n")
	d.put(2)
	c := d.cmd("apply")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	waitFor(t, flag("stopped"))
	c.Process.Signal(syscall.SIGTERM)
	write(t, flag("go"), "")
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("apply stopped during the restart: %v", err)
		}
	case <-time.After(60 * time.Second):
		syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		t.Fatal("apply did not end within 60 s of the stop")
	}
	if _, err := os.Stat(flag("started")); err != nil {
		t.Fatalf("the service was left stopped: its restart never finished")
	}
	if g := d.generation(2); g.Result != history.OK {
		t.Errorf("generation 2: %s, want ok", g.Result)
	}
}

// waitFor waits (up to 30 s) until path exists.
func waitFor(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear within 30 s", path)
		}
	}
}

func genName(id int) string { return fmt.Sprintf("%06d", id) }

func parseMeta(data []byte) (*history.Generation, error) {
	var g history.Generation
	return &g, json.Unmarshal(data, &g)
}
