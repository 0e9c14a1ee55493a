package state

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/nas-userscript/userscript/internal/system"
	"github.com/nas-userscript/userscript/internal/systest"
)

// The apply lock reaches the disk only through the System seam: a disk
// that cannot make a folder fails Acquire with the lock's path and what
// to do, and the lock leaves nothing behind.
func TestAcquireThroughTheSeam(t *testing.T) {
	dir := t.TempDir()
	sys := &systest.Faulty{System: system.NewReal(""), Fail: func(s systest.Step) error {
		if s.Op == "mkdir" {
			return syscall.ENOSPC
		}
		return nil
	}}
	_, err := Acquire(context.Background(), sys, dir)
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), filepath.Join(dir, "lock.d")+": data disk full") {
		t.Fatalf("Acquire on a full disk: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("the failed lock left %v", ents)
	}
}

// The log reaches the disk only through the System seam: under DryRun a
// line is recorded as an append and nothing is written; a refused
// append is Write's error.
func TestLogThroughTheSeam(t *testing.T) {
	dir := t.TempDir()
	dry := &system.DryRun{System: system.NewReal("")}
	if _, err := OpenLog(dry, dir).Write([]byte("line\n")); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("a dry run wrote %v", ents)
	}
	if want := "append to " + filepath.Join(dir, "log") + " (5 bytes)"; len(dry.Actions) != 1 || dry.Actions[0] != want {
		t.Errorf("dry run actions %q, want [%q]", dry.Actions, want)
	}
	full := &systest.Faulty{System: system.NewReal(""), Fail: func(s systest.Step) error {
		if s.Op == "append" {
			return syscall.ENOSPC
		}
		return nil
	}}
	if _, err := OpenLog(full, dir).Write([]byte("line\n")); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("Write on a full disk: %v", err)
	}
}

// A link planted over state/log is replaced by a file, never appended
// through; the file it pointed at stays as it was.
func TestLogNotThroughALink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("keep\n"), 0o644)
	os.Symlink(victim, filepath.Join(dir, "log"))
	if _, err := OpenLog(system.NewReal(""), dir).Write([]byte("line\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep\n" {
		t.Errorf("written through the link: %q", b)
	}
	fi, err := os.Lstat(filepath.Join(dir, "log"))
	if err != nil || !fi.Mode().IsRegular() {
		t.Errorf("state/log is not a file now: %v %v", fi, err)
	}
}
