package scenario

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// Issue 23: after a power cut, state/lock.d keeps the pid of the apply
// it cut, and after the reboot that number belongs to something else.
// On the systemd box it was a thread of the new daemon (a thread's id
// answers kill -0 and has the daemon's command line), and every apply
// of the new boot waited for a lock nobody held. A lock's holder is one
// of the engines: a process, not a thread, whose program is the Go
// engine or a shell running lib/engine.sh; a process that only names a
// file of the app dir (an editor on conf.d) is not. Both engines, every
// BusyBox of the matrix.
func TestStaleLockHolders(t *testing.T) {
	cases := []struct {
		name   string
		prog   string   // the program's file name (its comm)
		args   []string // after argv[0]; APP is the app dir on the IcyBox
		thread bool     // the lock names a thread of it, not the process
		held   bool     // the lock is someone's: the apply waits
	}{
		{"a thread of the daemon", "userscript", []string{"--app", "APP", "run"}, true, false},
		{"an editor on conf.d", "vi", []string{"APP/conf.d/smb.conf"}, false, false},
		{"a shell showing the log", "sh", []string{"-c", "tail -f APP/state/log"}, false, false},
		{"the Go engine's daemon", "userscript", []string{"--app", "APP", "run"}, false, true},
		{"the sh engine's poller", "sh", []string{"APP/lib/engine.sh", "poll"}, false, true},
	}
	engines := map[string]func(t *testing.T) (*World, func(*World) (int, string, error)){
		"go": func(t *testing.T) (*World, func(*World) (int, string, error)) {
			if goBuildErr != nil {
				t.Fatal(goBuildErr)
			}
			w := shWorld(t)
			return w, func(w *World) (int, string, error) {
				return run(w, goBin, "--root", w.Root, "--app", w.App, "--profile", w.Profile.Name, "--wait", "3s", "apply")
			}
		},
	}
	t.Run("go", func(t *testing.T) {
		t.Parallel()
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				w, apply := engines["go"](t)
				staleLock(t, w, apply, c.prog, c.args, c.thread, c.held)
			})
		}
	})
	t.Run("sh", func(t *testing.T) {
		eachBusyBox(t, func(t *testing.T, bb string) {
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					w := shWorldWith(t, bb)
					apply := func(w *World) (int, string, error) {
						return run(w, "env", "LOCK_WAIT=3", w.Shell, filepath.Join(w.App, "lib", "engine.sh"), "apply")
					}
					staleLock(t, w, apply, c.prog, c.args, c.thread, c.held)
				})
			}
		})
	})
}

// staleLock leaves state/lock.d naming a process (or a thread of it)
// that runs prog with args, edits conf.d and applies: a lock held by an
// engine makes the apply give up, any other is taken over.
func staleLock(t *testing.T, w *World, apply func(*World) (int, string, error), prog string, args []string, thread, held bool) {
	pid, tid := startHolder(t, prog, args, "/mnt/ide1/public/applications/userscript")
	owner := pid
	if thread {
		owner = tid
	}
	lock := filepath.Join(w.App, "state", "lock.d")
	if err := os.MkdirAll(lock, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lock, "pid"), []byte(fmt.Sprintf("%d\n", owner)), 0o644); err != nil {
		t.Fatal(err)
	}
	mine := "[global]\n\tworkgroup = MINE\n"
	if err := os.WriteFile(filepath.Join(w.App, "conf.d", "smb.conf"), []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, err := apply(w)
	if err != nil {
		t.Fatal(err)
	}
	live, _ := os.ReadFile(filepath.Join(w.Root, "system/hddapp/etc/samba/smb.conf"))
	switch {
	case held && (code == 0 || string(live) == mine):
		t.Errorf("the lock of a live engine (pid %d) was taken over: exit %d, smb.conf %q\n%s", owner, code, live, out)
	case !held && (code != 0 || string(live) != mine):
		t.Errorf("a lock naming pid %d (not an engine) held the apply up: exit %d, smb.conf %q\n%s", owner, code, live, out)
	}
}

// startHolder runs this test binary as a holder (see holderMain) under
// the file name prog, with argv[1:] args (APP replaced by app), and
// returns its pid and the id of one of its threads other than the first.
func startHolder(t *testing.T, prog string, args []string, app string) (pid, tid int) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), prog)
	if err := os.Symlink(self, link); err != nil {
		t.Fatal(err)
	}
	argv := []string{link}
	for _, a := range args {
		argv = append(argv, strings.ReplaceAll(a, "APP", app))
	}
	cmd := &exec.Cmd{Path: link, Args: argv, Env: append(os.Environ(), "USERSCRIPT_TEST_HOLDER=1")}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	if _, err := fmt.Fscan(bufio.NewReader(stdout), &tid); err != nil {
		t.Fatalf("holder: %v", err)
	}
	return cmd.Process.Pid, tid
}

// holderMain is the holder: it prints the id of a thread that is not
// its first and lives until its standard input ends.
func holderMain() {
	tids := make(chan int)
	var lock func()
	lock = func() {
		runtime.LockOSThread()
		if syscall.Gettid() == os.Getpid() {
			go lock() // the first thread stays taken: another one
			select {}
		}
		tids <- syscall.Gettid()
		select {}
	}
	go lock()
	fmt.Println(<-tids)
	io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}
