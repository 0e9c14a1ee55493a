package system

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunEnvWithoutRoot proves a command does not learn the root: the
// firmware's scripts never knew USERSCRIPT_ROOT, so a test stub that
// needs its fake root must find it from its own path. Command.Env still
// reaches the command.
func TestRunEnvWithoutRoot(t *testing.T) {
	t.Setenv("USERSCRIPT_ROOT", "/from-the-caller")
	dir := t.TempDir()
	r := NewReal(dir)
	out := filepath.Join(dir, "out")
	e := r.Run(context.Background(), Command{Argv: []string{"env"}, Output: out, Env: []string{"EXTRA=1"}})
	if !e.OK() {
		t.Fatalf("env: %+v", e)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	env := "\n" + string(data)
	if strings.Contains(env, "\nUSERSCRIPT_ROOT=") {
		t.Errorf("the command saw USERSCRIPT_ROOT:\n%s", data)
	}
	if !strings.Contains(env, "\nEXTRA=1\n") {
		t.Errorf("Command.Env did not reach the command:\n%s", data)
	}
}
