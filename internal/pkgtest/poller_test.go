package pkgtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nas-userscript/userscript/internal/firmsim"
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

// Defect 16 of issue 21: the poller's own errors went nowhere (init
// starts it with its output thrown away): with conf.d not a folder, no
// poller ran and nothing said why. Now state/log does.
func TestPollerSaysWhyNot(t *testing.T) {
	eachBusyBox(t, func(t *testing.T, bb string) {
		n := installedWith(t, bb)
		app := n.AppDir("userscript")
		conf := filepath.Join(app, "conf.d")
		if err := os.RemoveAll(conf); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(t.TempDir(), conf); err != nil {
			t.Fatal(err)
		}
		initRun(t, n, n.Root, filepath.Join(app, "init"), "start")
		logFile := filepath.Join(app, "state", "log")
		if !eventually(hang, func() bool {
			b, _ := os.ReadFile(logFile)
			return strings.Contains(string(b), `ERROR poller not started reason="`+conf+" is not a folder")
		}) {
			b, _ := os.ReadFile(logFile)
			t.Fatalf("state/log does not say why no poller runs:\n%s", b)
		}
		if p := pollers(app); len(p) != 0 {
			t.Errorf("a poller runs with conf.d a link: %v", p)
		}
	})
}

// Defect 16 of issue 21: the owner deletes state/ (to start afresh) while
// the poller runs. It took the missing state/poll.pid for init stop's and
// ended, and no later save was applied until the next boot. Now it writes
// state/poll.pid again, says so in state/log, and applies the next save.
func TestPollerOutlivesDeletedState(t *testing.T) {
	eachBusyBox(t, func(t *testing.T, bb string) {
		n := installedWith(t, bb)
		n.Env = append(n.Env, "USERSCRIPT_POLL=1")
		app := n.AppDir("userscript")
		logOnFail(t, filepath.Join(app, "state"))
		if err := n.Boot(firmsim.ServicesFirst); err != nil {
			t.Fatal(err)
		}
		pidFile := filepath.Join(app, "state", "poll.pid")
		if !eventually(hang, func() bool { _, err := os.Stat(pidFile); return err == nil }) {
			t.Fatal("no poller after boot")
		}
		poller := readPid(t, pidFile)
		if err := os.RemoveAll(filepath.Join(app, "state")); err != nil {
			t.Fatal(err)
		}
		if !eventually(hang, func() bool { b, _ := os.ReadFile(pidFile); return strings.TrimSpace(string(b)) == strconv.Itoa(poller) }) {
			t.Fatalf("state/poll.pid was not written again (pollers: %v)", pollers(app))
		}
		want := "[global]\n\tworkgroup = AFTER\n"
		writeFile(t, filepath.Join(app, "conf.d", "smb.conf"), want)
		if !eventually(hang, func() bool { got, _ := n.Live(firmsim.SmbConf); return got == want }) {
			t.Fatalf("the save after state/ was deleted was not applied (pollers: %v)", pollers(app))
		}
		if !alive(poller) {
			t.Errorf("the poller %d ended", poller)
		}
	})
}
