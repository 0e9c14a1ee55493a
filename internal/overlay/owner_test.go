package overlay

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nas-userscript/userscript/internal/profile"
	"github.com/nas-userscript/userscript/internal/source"
)

func (f *fixture) status(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(f.app, "conf.d", name+".status"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(data), "\r\n", "\n")
}

func (f *fixture) exists(name string) bool {
	_, err := os.Lstat(filepath.Join(f.app, "conf.d", name))
	return err == nil
}

func wantLines(t *testing.T, what, text string, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if !strings.Contains(text, l+"\n") {
			t.Errorf("%s lacks the line %q:\n%s", what, l, text)
		}
	}
}

// A Notepad "Unicode" save is applied as the text it holds, and its
// status names the encoding it was converted from.
func TestApplyUTF16Source(t *testing.T) {
	f := newFixture(t)
	f.put(t, "etc/a.conf", "rom\n")
	f.source(t, "a.conf", "\xff\xfek\x00 \x00=\x00 \x00\xfc\x00\r\x00\n\x00") // "k = ü\r\n", UTF-16 LE
	if _, err := f.eng.Apply(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := f.live(t, "etc/a.conf"); got != "k = ü\n" {
		t.Errorf("live = %q", got)
	}
	wantLines(t, "a.conf.status", f.status(t, "a.conf"), "status: OK", "note: conf.d/a.conf: saved as UTF-16 LE; converted to UTF-8")
}

// A refusal shows the offending line where it is the owner's own: which
// file, which line of it, and its text; a line of the firmware's file is
// named, never quoted.
func TestRefusedShowsOffendingLine(t *testing.T) {
	f := newFixture(t)
	f.put(t, "etc/a.conf", "rom\n")
	f.source(t, "a.conf", "BROKEN setting = 1\n")
	f.eng.Apply(context.Background())
	wantLines(t, "a.conf.status", f.status(t, "a.conf"), "status: REFUSED", "reason: line 1: BROKEN", "line: conf.d/a.conf line 1: BROKEN setting = 1")

	f.put(t, "etc/b.conf", "secret firmware line BROKEN\n")
	f.source(t, "b.conf.add", "mine\n")
	f.eng.Apply(context.Background())
	st := f.status(t, "b.conf")
	wantLines(t, "b.conf.status", st, "status: REFUSED", "line: line 1 is from the firmware's own file (see conf.d/.firmware/b.conf), not from yours")
	if strings.Contains(st, "secret") {
		t.Errorf("a line of the firmware's file was quoted:\n%s", st)
	}
}

func TestOffendingLine(t *testing.T) {
	tgt := profile.Target{Name: "smb.conf"}
	tests := []struct {
		name   string
		srcs   []source.Source
		want   string
		reason string
		line   string
	}{
		{"replacement", []source.Source{src("smb.conf", "[global]\n\tread raw = maybe\n")}, "[global]\n\tread raw = maybe\n",
			"line 2: read raw = maybe: value is not boolean", "conf.d/smb.conf line 2: read raw = maybe"},
		{"appended text", []source.Source{src("smb.conf.add", "[x]\n\tbad = 1\n")}, "[global]\n[x]\n\tbad = 1\n",
			"line 3: bad", "conf.d/smb.conf.add line 2: bad = 1"},
		{"merged line", []source.Source{src("smb.conf.merge", "[global]\n\toplocks = perhaps\n")}, "[global]\n\tworkgroup = W\n\toplocks = perhaps\n",
			"line 3: oplocks", "conf.d/smb.conf.merge line 2: oplocks = perhaps"},
		{"a merge's own error", []source.Source{src("smb.conf.merge", "[global]\n!\n")}, "",
			"conf.d/smb.conf.merge line 2: a ! needs a key", "conf.d/smb.conf.merge line 2: !"},
		{"included file: no line of the target", []source.Source{src("smb.conf", "include = /etc/shadow\n")}, "include = /etc/shadow\n",
			"an invalid value in an included file", ""},
		{"line past the end", []source.Source{src("smb.conf", "a\n")}, "a\n", "line 9: x", ""},
		{"control characters and length", []source.Source{src("smb.conf", "x\x1b[31m"+strings.Repeat("y", 300)+"\n")}, "x\x1b[31m" + strings.Repeat("y", 300) + "\n",
			"line 1: x", "conf.d/smb.conf line 1: x [31m" + strings.Repeat("y", 194) + "…"},
	}
	for _, tt := range tests {
		it := &Item{Target: tgt, Sources: tt.srcs, Want: []byte(tt.want)}
		if got := offendingLine(it, tt.reason); got != tt.line {
			t.Errorf("%s: offendingLine = %q, want %q", tt.name, got, tt.line)
		}
	}
}

// A name Windows made of a real one gets a status saying which was
// meant; once the file is gone its UNKNOWN status goes too, while a
// target's status stays.
func TestUnknownNameMeantAndSwept(t *testing.T) {
	f := newFixture(t)
	f.put(t, "etc/a.conf", "rom\n")
	f.source(t, "a.conf", "mine\n")
	f.source(t, "A.CONF", "mine\n")
	f.source(t, "a.conf.txt", "mine\n")
	f.source(t, "a (2).conf", "mine\n")
	f.source(t, "Thumbs.db", "\x00\x01")
	f.source(t, "DISABLE.status", "status: UNKNOWN\r\n") // an older version's
	ctx := context.Background()
	f.eng.Apply(ctx)
	wantLines(t, "A.CONF.status", f.status(t, "A.CONF"), "status: UNKNOWN",
		"reason: conf.d/A.CONF: no such target in profile test; did you mean a.conf? (names are case-sensitive on the NAS)",
		"what to do: conf.d/a.conf exists too, and only that one is used: delete conf.d/A.CONF, or copy what you need into a.conf")
	wantLines(t, "a.conf.txt.status", f.status(t, "a.conf.txt"),
		`reason: conf.d/a.conf.txt: no such target in profile test; did you mean a.conf? (Windows added ".txt", as it hides known extensions; View → File name extensions shows them)`)
	for _, n := range []string{"a (2).conf.status", "Thumbs.db.status", "DISABLE.status"} {
		if f.exists(n) {
			t.Errorf("conf.d/%s was written (or kept)", n)
		}
	}
	os.Remove(filepath.Join(f.app, "conf.d/A.CONF"))
	os.Remove(filepath.Join(f.app, "conf.d/a.conf"))
	f.eng.Apply(ctx)
	if f.exists("A.CONF.status") {
		t.Error("the UNKNOWN status of a file that is gone was kept")
	}
	if !f.exists("a.conf.status") {
		t.Error("a target's status was removed")
	}
	wantLines(t, "a.conf.txt.status", f.status(t, "a.conf.txt"), "what to do: rename conf.d/a.conf.txt to a.conf")
}

// conf.d/.firmware keeps the firmware's own file of every target from the
// first start on, managed or not; when it changes under a replacement,
// the replacement's status says so with the diff of the firmware's files
// until the owner saves the replacement again.
func TestFirmwareCopiesAndRebase(t *testing.T) {
	f := newFixture(t)
	f.put(t, "etc/a.conf", "k = 1\nshared = x\n")
	f.put(t, "etc/b.conf", "b rom\n")
	f.put(t, "etc/c.conf", "c rom\n")
	f.source(t, "a.conf", "mine = 1\n")
	f.source(t, "b.conf.add", "added\n")
	ctx := context.Background()
	if _, err := f.eng.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a.conf": "k = 1\nshared = x\n", "b.conf": "b rom\n", "c.conf": "c rom\n"} {
		got, err := os.ReadFile(filepath.Join(f.app, "conf.d/.firmware", name))
		if err != nil || string(got) != want {
			t.Errorf(".firmware/%s = %q, %v; want %q", name, got, err, want)
		}
	}
	if strings.Contains(f.status(t, "a.conf"), "changed") {
		t.Errorf("the first start says the firmware changed:\n%s", f.status(t, "a.conf"))
	}

	// A firmware update: new ROM files, then a boot.
	f.put(t, "etc/a.conf", "k = 2\nshared = x\nnew = y\n")
	f.put(t, "etc/b.conf", "b rom 2\n")
	if _, err := f.eng.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	st := f.status(t, "a.conf")
	wantLines(t, "a.conf.status", st, "diff: --- firmware before", "diff: +++ firmware now", "diff: -k = 1", "diff: +k = 2", "diff: +new = y")
	if !strings.Contains(st, "note: the firmware's own a.conf changed") || strings.Contains(st, "diff: -shared") {
		t.Errorf("a.conf.status:\n%s", st)
	}
	if got, _ := os.ReadFile(filepath.Join(f.app, "conf.d/.firmware/a.conf")); string(got) != "k = 2\nshared = x\nnew = y\n" {
		t.Errorf(".firmware/a.conf not refreshed: %q", got)
	}
	if st := f.status(t, "b.conf"); !strings.Contains(st, "note: the firmware's own b.conf changed (a firmware update, or its web GUI rewrote it): your b.conf.add was applied to the new one") {
		t.Errorf("b.conf.status:\n%s", st)
	}

	// The next boot restores the same ROM file: the note stays.
	f.put(t, "etc/a.conf", "k = 2\nshared = x\nnew = y\n")
	f.eng.Apply(ctx)
	if !strings.Contains(f.status(t, "a.conf"), "diff: +k = 2") {
		t.Errorf("the note went before the owner acted:\n%s", f.status(t, "a.conf"))
	}
	// The owner saves the replacement again: the note goes.
	f.source(t, "a.conf", "mine = 2\n")
	f.eng.Apply(ctx)
	if st := f.status(t, "a.conf"); strings.Contains(st, "diff:") || strings.Contains(st, "changed") {
		t.Errorf("the note stayed after the edit:\n%s", st)
	}
	if _, err := os.Stat(filepath.Join(f.app, "state/rebased/a.conf")); err == nil {
		t.Error("state/rebased/a.conf stayed")
	}
}

// conf.d/DISABLE (any case, also DISABLE.txt) makes Apply change nothing
// and every status say so; deleting it applies conf.d again.
func TestDisable(t *testing.T) {
	for _, name := range []string{"DISABLE", "Disable.txt"} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			f.put(t, "etc/a.conf", "rom\n")
			f.source(t, "a.conf", "mine\n")
			f.source(t, "sysctl.conf", "vm.x = 1\n")
			f.source(t, name, "")
			res, err := f.eng.Apply(context.Background())
			if err != nil || res.Stopped == "" {
				t.Fatalf("Apply = %+v, %v", res, err)
			}
			if f.live(t, "etc/a.conf") != "rom\n" || f.restarts() != "" {
				t.Error("something was applied")
			}
			reason := "reason: conf.d/" + name + " exists: userscript applies nothing, at boot or while the NAS runs, until you delete it"
			wantLines(t, "a.conf.status", f.status(t, "a.conf"), "status: DISABLED", reason)
			wantLines(t, "sysctl.status", f.status(t, "sysctl"), "status: DISABLED", reason)
			if f.exists(name + ".status") {
				t.Error("the switch got a status of its own")
			}
			os.Remove(filepath.Join(f.app, "conf.d", name))
			if _, err := f.eng.Apply(context.Background()); err != nil {
				t.Fatal(err)
			}
			if f.live(t, "etc/a.conf") != "mine\n" || !strings.HasPrefix(f.status(t, "a.conf"), "status: OK\n") {
				t.Errorf("not applied after DISABLE went:\n%s", f.status(t, "a.conf"))
			}
		})
	}
}

// Starts are counted in state/starts and the count cleared when a start
// has ended; after three that never ended, the next writes SAFE-MODE and
// applies nothing until the owner deletes it.
func TestSafeMode(t *testing.T) {
	f := newFixture(t)
	f.put(t, "etc/a.conf", "rom\n")
	f.source(t, "a.conf", "mine\n")
	starts := filepath.Join(f.app, "state/starts")
	ctx := context.Background()

	f.eng.CountStart = true
	if _, err := f.eng.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(starts); err == nil {
		t.Fatal("a start that ended is still counted")
	}
	// Three starts that never ended (the NAS was reset each time).
	f.put(t, "etc/a.conf", "rom\n")
	os.WriteFile(starts, []byte("3\n"), 0o644)
	f.eng.CountStart = true
	res, err := f.eng.Apply(ctx)
	if err != nil || !strings.Contains(res.Stopped, "SAFE-MODE") {
		t.Fatalf("Apply = %+v, %v", res, err)
	}
	if f.live(t, "etc/a.conf") != "rom\n" {
		t.Error("applied in safe mode")
	}
	text, err := os.ReadFile(filepath.Join(f.app, "conf.d/SAFE-MODE"))
	if err != nil || !strings.Contains(string(text), "why: the last 3 starts of userscript did not finish applying conf.d") || !strings.Contains(string(text), "\r\n") {
		t.Fatalf("SAFE-MODE = %q, %v", text, err)
	}
	wantLines(t, "a.conf.status", f.status(t, "a.conf"), "status: DISABLED")
	// Still in safe mode at the next start, and that start is not counted.
	f.eng.CountStart = true
	if res, _ := f.eng.Apply(ctx); res.Stopped == "" {
		t.Fatal("left safe mode on its own")
	}
	if _, err := os.Stat(starts); err == nil {
		t.Error("a start in safe mode was counted")
	}
	os.Remove(filepath.Join(f.app, "conf.d/SAFE-MODE"))
	f.eng.CountStart = true
	if _, err := f.eng.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	if f.live(t, "etc/a.conf") != "mine\n" {
		t.Error("not applied once SAFE-MODE was deleted")
	}
}

// A scratch folder left by an engine that was killed while a validator
// ran is removed by the next apply; one of a live process is not.
func TestSweepStaging(t *testing.T) {
	f := newFixture(t)
	tmp := os.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no true(1) to get a dead pid from")
	}
	gone := filepath.Join(tmp, fmt.Sprintf("userscript-stage-%d-1", dead.Process.Pid))
	live := filepath.Join(tmp, fmt.Sprintf("userscript-stage-%d-1", os.Getppid()))
	for _, d := range []string{gone, live} {
		os.MkdirAll(d, 0o700)
		os.WriteFile(filepath.Join(d, "smb.conf"), []byte("x"), 0o600)
	}
	defer os.RemoveAll(live)
	f.eng.Apply(context.Background())
	if _, err := os.Stat(gone); err == nil {
		t.Error("the scratch folder of a process that is gone was left")
	}
	if _, err := os.Stat(live); err != nil {
		t.Error("the scratch folder of a live process was removed")
	}
}
