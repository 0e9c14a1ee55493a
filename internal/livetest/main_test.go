package livetest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nas-userscript/userscript/internal/firmsim"
	"github.com/nas-userscript/userscript/internal/needtool"
	"github.com/nas-userscript/userscript/internal/systest"
)

var userscript string // the binary under test, built once

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "livetest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if userscript, err = firmsim.BuildEngine(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := needtool.Run(m)
	os.RemoveAll(dir)
	os.Exit(code)
}

// need skips when a tool is missing, except in CI, where it must be
// there (.ci/run installs it).
func need(t *testing.T, tools ...string) {
	t.Helper()
	needtool.Tool(t, tools...)
	needtool.Root(t)
}

// daemon is `userscript run` in the background.
type daemon struct {
	cmd *exec.Cmd
	out bytes.Buffer
}

func startDaemon(t *testing.T, root, app string) *daemon {
	t.Helper()
	d := &daemon{cmd: exec.Command(userscript, "--root", root, "--app", app, "--debug", "run", "--quiet", "100ms", "--max-wait", "1s")}
	d.cmd.Stdout, d.cmd.Stderr = &d.out, &d.out
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		d.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- d.cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			d.cmd.Process.Kill()
			t.Errorf("daemon did not stop on SIGTERM")
		}
		if t.Failed() {
			t.Logf("daemon output:\n%s", d.out.String())
		}
	})
	return d
}

// eventually polls cond until it holds or 30 s pass.
func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ok, last := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after 30s; last seen:\n%s", what, last)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func statusWord(app, target string) string {
	data, _ := os.ReadFile(filepath.Join(app, "conf.d", target+".status"))
	for _, l := range strings.Split(string(data), "\n") {
		if w, ok := strings.CutPrefix(strings.TrimSpace(l), "status: "); ok {
			return w
		}
	}
	return ""
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := systest.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
