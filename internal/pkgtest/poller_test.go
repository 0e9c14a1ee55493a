package pkgtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Defect 16 of issue 21: after a reboot, state/poll.pid may name a pid
// that is now another process's. When it is init's own (the firmware
// runs init from .../applications/userscript/, so its command line names
// userscript), `engine.sh running` took its parent for a poller and no
// poller ran that boot; a poller that reads the stale pid before init
// writes its own took init for another poller and ended. Both now leave
// out themselves and their parent: the boot has its poller.
func TestStalePollPidIsInit(t *testing.T) {
	eachBusyBox(t, func(t *testing.T, bb string) {
		n := installedWith(t, bb)
		n.Env = append(n.Env, "USERSCRIPT_POLL=1")
		app := n.AppDir("userscript")
		logOnFail(t, filepath.Join(app, "state"))
		pidFile := filepath.Join(app, "state", "poll.pid")
		if err := os.MkdirAll(filepath.Dir(pidFile), 0o755); err != nil {
			t.Fatal(err)
		}
		// init start in a shell that writes its own pid to state/poll.pid
		// and then becomes init (exec keeps the pid).
		cmd := exec.Command(n.Shell, "-c", `echo $$ >"$1"; exec "$0" "$2" start`, n.Shell, pidFile, filepath.Join(app, "init"))
		cmd.Env = n.Environ()
		cmd.Dir = n.Root
		out, _ := os.CreateTemp(t.TempDir(), "console-")
		defer out.Close()
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		initPid := cmd.Process.Pid
		if err := cmd.Wait(); err != nil {
			text, _ := os.ReadFile(out.Name())
			t.Fatalf("init start: %v\n%s", err, text)
		}
		if !eventually(hang, func() bool { return len(pollers(app)) == 1 }) {
			text, _ := os.ReadFile(out.Name())
			t.Fatalf("no poller after init start with state/poll.pid naming init's own pid %d (pollers: %v)\n%s", initPid, pollers(app), text)
		}
		b, _ := os.ReadFile(pidFile)
		if got, _ := strconv.Atoi(strings.TrimSpace(string(b))); got != pollers(app)[0] {
			t.Errorf("state/poll.pid says %d, the poller is %v", got, pollers(app))
		}
	})
}
