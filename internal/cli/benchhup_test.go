//go:build unix

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// lockedBuffer collects a child's output while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Defect: a closed ssh or telnet session (SIGHUP to the session's
// processes) killed `bench run` mid-write and left its test file in the
// bench folder. HUP ends the run as Ctrl-C does: the folder is removed.
// The dd here writes its file's start and then waits, so the signal
// lands mid-write.
func TestBenchHangupCleansUp(t *testing.T) {
	bin, dir, app := t.TempDir(), t.TempDir(), t.TempDir()
	fifo := filepath.Join(t.TempDir(), "never")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, filepath.Join(bin, "userscript")); err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"sync", "cp"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("%s is not installed", tool)
		}
		os.Symlink(p, filepath.Join(bin, tool))
	}
	realDD, err := exec.LookPath("dd")
	if err != nil {
		t.Skip("dd is not installed")
	}
	dd := "#!/bin/sh\nfor a; do case $a in of=*userscript-bench*) : >\"${a#of=}\"; exec cat " + fifo + " ;; esac; done\nexec " + realDD + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "dd"), []byte(dd), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bin, "userscript"), "--app", app, "bench", "run", "--dir", dir, "--size", "1M", "--runs", "1", "S1")
	cmd.Env = append(os.Environ(), "PATH="+bin+":/bin:/usr/bin")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		if m, _ := filepath.Glob(filepath.Join(dir, "userscript-bench.*", "bench.dat")); len(m) == 1 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("dd never started:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGHUP)
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || !ee.Exited() {
		t.Errorf("%v: want an exit after cleaning up, not death by the signal\n%s", err, out.String())
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "userscript-bench.*")); len(m) > 0 {
		t.Errorf("left behind: %v\n%s", m, out.String())
	}
}
