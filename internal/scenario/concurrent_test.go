package scenario

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 21, defect 8: an apply started while the poller restarts Samba
// (the owner's command, a second trigger) must not undo the change the
// poller then commits. It waits for the lock and decides from what it
// reads under it, never from a look taken before: it used to read the
// generation as pending, "recover" it and leave the firmware's smb.conf
// live with status OK. Under every BusyBox of the matrix.
func TestShApplyDuringPollersRestart(t *testing.T) {
	eachBusyBox(t, func(t *testing.T, bb string) {
		w := shWorldWith(t, bb)
		// Samba's script takes a while, and says when it has begun.
		rc := filepath.Join(w.Root, "system/hddapp/etc/rc.d/S80samba.sh")
		script := "#!/bin/sh\necho \"S80samba.sh $*\" >>" + shq(filepath.Join(w.Root, "restarts.log")) +
			"\n: >" + shq(filepath.Join(w.Dir, "restarting")) + "\nsleep 3\n"
		if err := os.WriteFile(rc, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		startPoller(t, w)
		mine := "[global]\n\tworkgroup = MINE\n"
		if err := os.WriteFile(filepath.Join(w.App, "conf.d", "smb.conf"), []byte(mine), 0o644); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the poller restarting Samba", func() bool {
			_, err := os.Stat(filepath.Join(w.Dir, "restarting"))
			return err == nil
		})
		cmd := exec.Command(w.Shell, filepath.Join(w.App, "lib", "engine.sh"), "apply")
		cmd.Env = w.Env()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("apply during the poller's restart: %v\n%s", err, out)
		}
		live, _ := os.ReadFile(filepath.Join(w.Root, "system/hddapp/etc/samba/smb.conf"))
		if string(live) != mine {
			t.Errorf("live smb.conf = %q, want the owner's", live)
		}
		meta, _ := os.ReadFile(filepath.Join(w.App, "state/gen/000001/meta.json"))
		if !strings.Contains(string(meta), `"result": "ok"`) {
			t.Errorf("generation 1 is not committed:\n%s", meta)
		}
		lg, _ := os.ReadFile(filepath.Join(w.App, "state/log"))
		if strings.Contains(string(lg), "recover:") {
			t.Errorf("a committed generation was recovered:\n%s", lg)
		}
	})
}
