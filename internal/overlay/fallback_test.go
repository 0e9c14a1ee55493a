package overlay

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nas-userscript/userscript/internal/history"
	"github.com/nas-userscript/userscript/internal/systest"
	"github.com/nas-userscript/userscript/internal/validate"
)

// A restart whose program is not on the device is skipped, one that
// fails is followed by the next fallback, the same program in another
// folder is not run twice, and the first that succeeds ends it (the
// dsm profile's rc folders and DSM 7's synopkg after systemctl).
func TestRestartFallbacks(t *testing.T) {
	f := newFixture(t)
	fail := "#!/bin/sh\necho \"${0##*/} $*\" >> '" + filepath.Join(f.root, "restarts.log") + "'\nexit 5\n"
	systest.WriteFile(filepath.Join(f.root, "bin/failing"), []byte(fail), 0o755)
	os.MkdirAll(filepath.Join(f.root, "sbin"), 0o755)
	systest.WriteFile(filepath.Join(f.root, "sbin/failing"), []byte(fail), 0o755)
	svc := f.eng.Profile.Services["svc"]
	svc.Restart = []string{"/nowhere/restart", "svc"}
	svc.Fallbacks = [][]string{{"/bin/failing", "one"}, {"/sbin/failing", "again"}, {"/bin/restart", "svc"}, {"/bin/restart", "never"}}
	f.eng.Profile.Services["svc"] = svc
	f.put(t, "etc/a.conf", "rom\n")
	f.source(t, "a.conf", "mine\n")
	res, err := f.eng.Apply(context.Background())
	if err != nil || res.Generation.Result != history.OK {
		t.Fatalf("apply: %v, %+v", err, res.Generation)
	}
	if got, want := f.restarts(), "failing one\nrestart svc\n"; got != want {
		t.Errorf("restarts:\n%s\nwant:\n%s", got, want)
	}
	if got := strings.Join(f.eng.RestartCommand("svc"), " "); got != "/bin/failing one" {
		t.Errorf("RestartCommand = %q, want the first one on the device", got)
	}
}

// A Checked target whose validator is not on the device is refused and
// the live file left alone; an unchecked one is applied NOT VALIDATED.
func TestCheckedNeedsValidator(t *testing.T) {
	for _, checked := range []bool{true, false} {
		f := newFixture(t)
		f.eng.Profile.Targets[0].Checked = checked
		f.eng.Check = func(ctx context.Context, kind, path string, opt validate.Options) validate.Result {
			return validate.Result{Tool: "fake", Reason: "not validated: fake not found", NotFound: true}
		}
		f.put(t, "etc/a.conf", "rom\n")
		f.source(t, "a.conf", "mine\n")
		f.eng.Apply(context.Background())
		st := f.status(t, "a.conf")
		switch {
		case checked && (!strings.Contains(st, "REFUSED") || !strings.Contains(st, "not applied unchecked") || f.live(t, "etc/a.conf") != "rom\n"):
			t.Errorf("checked: status %q, live %q; want REFUSED and the live file kept", st, f.live(t, "etc/a.conf"))
		case !checked && (!strings.Contains(st, "NOT VALIDATED") || f.live(t, "etc/a.conf") != "mine\n"):
			t.Errorf("unchecked: status %q, live %q; want NOT VALIDATED and applied", st, f.live(t, "etc/a.conf"))
		}
	}
}
