package overlay

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nas-userscript/userscript/internal/system"
)

// Issue 21, defect 7: `userscript validate` leaves a held source's status
// alone. A rolled-back source is HELD and not live; validating it must not
// write OK over that (the live file is an earlier generation).
func TestValidateKeepsHeldStatus(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.put(t, "etc/a.conf", "rom\n")
	f.source(t, "a.conf", "one\n")
	if _, err := f.eng.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	f.source(t, "a.conf", "two\n")
	if _, err := f.eng.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := f.eng.Rollback(ctx, 1); err != nil {
		t.Fatal(err)
	}
	wantLines(t, "a.conf.status", f.status(t, "a.conf"), "status: HELD")
	if _, err := f.eng.Validate(ctx); err != nil {
		t.Fatal(err)
	}
	wantLines(t, "a.conf.status after validate", f.status(t, "a.conf"), "status: HELD", "reason: rolled back to generation 1")
	if got := f.live(t, "etc/a.conf"); got != "one\n" {
		t.Errorf("live = %q, want generation 1's", got)
	}
}

// Issue 21, defect 14: conf.d/.captured keeps one copy a distinct content
// (a firmware that rewrites the file to the same text at every restart
// left a copy a second), and at most CapturedKeep of them.
func TestCapturedOncePerContent(t *testing.T) {
	f := newFixture(t)
	dir := filepath.Join(f.app, "conf.d", ".captured")
	it := &Item{Target: f.eng.Profile.Targets[0]}
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	for i := 0; i < 3; i++ {
		f.eng.Sys = clockAt{f.eng.Sys, now.Add(time.Duration(i) * time.Second)}
		it.Live = []byte("gui\n")
		f.eng.captureDrift(it)
	}
	if n := len(f.eng.capturedCopies(dir, "a.conf")); n != 1 {
		t.Errorf("%d copies of one content, want 1", n)
	}
	for i := 0; i < 2*CapturedKeep; i++ {
		f.eng.Sys = clockAt{f.eng.Sys, now.Add(time.Duration(10+i) * time.Second)}
		it.Live = []byte(fmt.Sprintf("gui %d\n", i))
		f.eng.captureDrift(it)
	}
	copies := f.eng.capturedCopies(dir, "a.conf")
	if len(copies) != CapturedKeep {
		t.Fatalf("%d copies kept, want %d", len(copies), CapturedKeep)
	}
	if last, _ := os.ReadFile(filepath.Join(dir, copies[len(copies)-1])); string(last) != fmt.Sprintf("gui %d\n", 2*CapturedKeep-1) {
		t.Errorf("the newest copy is %q", last)
	}
}

// clockAt is a System whose clock says t.
type clockAt struct {
	system.System
	t time.Time
}

func (c clockAt) Now() time.Time { return c.t }
