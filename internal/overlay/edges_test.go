package overlay

import (
	"context"
	"testing"
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
