package overlay

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nas-userscript/userscript/internal/profile"
	"github.com/nas-userscript/userscript/internal/source"
	"github.com/nas-userscript/userscript/internal/state"
	"github.com/nas-userscript/userscript/internal/system"
	"github.com/nas-userscript/userscript/internal/systest"
	"github.com/nas-userscript/userscript/internal/validate"
)

func src(file, data string) source.Source {
	t, k := source.Split(file)
	return source.Source{File: file, Target: t, Kind: k, Data: []byte(data)}
}

func TestCompute(t *testing.T) {
	bad := src("x", "")
	bad.Err = errors.New("is a symlink")
	tests := []struct {
		name    string
		base    string
		srcs    []source.Source
		want    string
		wantErr string
	}{
		{"no sources is the base", "b\n", nil, "b\n", ""},
		{"replace", "b\n", []source.Source{src("x", "r\n")}, "r\n", ""},
		{"add to base", "b\n", []source.Source{src("x.add", "a\n")}, "b\na\n", ""},
		{"add to base without final newline", "b", []source.Source{src("x.add", "a\n")}, "b\na\n", ""},
		{"add to replacement", "b\n", []source.Source{src("x", "r\n"), src("x.add", "a\n")}, "r\na\n", ""},
		{"add to empty base", "", []source.Source{src("x.add", "a\n")}, "a\n", ""},
		{"add already at the end is not doubled", "b\na\n", []source.Source{src("x.add", "a\n")}, "b\na\n", ""},
		{"merge onto the base", "a = 1\nk = 0\n", []source.Source{src("x.merge", "k = v\n")}, "a = 1\nk = v\n", ""},
		{"merge onto the replacement, then add", "b\n", []source.Source{src("x", "k = 1\n"), src("x.merge", "k = 2\n"), src("x.add", "z = 3\n")}, "k = 2\nz = 3\n", ""},
		{"bad fragment names its line", "b\n", []source.Source{src("smb.conf.merge", "key = x\n")}, "", "conf.d/smb.conf.merge line 1"},
		{"no merge into a non key = value file", "b\n", []source.Source{src("passwd.merge", "k = v\n")}, "", "not a key = value file"},
		{"bad source refuses all", "b\n", []source.Source{bad, src("x.add", "a\n")}, "", "conf.d/x: is a symlink"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Compute([]byte(tt.base), tt.srcs)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("compute = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// fixture is a device root and an app dir with a two-target profile
// whose targets share one service.
type fixture struct {
	root, app string
	eng       *Engine
	checks    []string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{root: t.TempDir(), app: t.TempDir()}
	os.MkdirAll(filepath.Join(f.app, "conf.d"), 0o755)
	os.MkdirAll(filepath.Join(f.root, "etc"), 0o755)
	os.MkdirAll(filepath.Join(f.root, "bin"), 0o755)
	systest.WriteFile(filepath.Join(f.root, "bin/restart"), []byte("#!/bin/sh\nR=${0%/bin/restart}\necho \"restart $*\" >> \"$R/restarts.log\"\n"), 0o755)
	p := &profile.Profile{
		Name: "test",
		Targets: []profile.Target{
			{Name: "a.conf", Path: "/etc/a.conf", Validator: "fake", Service: "svc"},
			{Name: "b.conf", Path: "/etc/b.conf", Validator: "fake", Service: "svc"},
			{Name: "c.conf", Path: "/etc/c.conf", Service: "other"},
		},
		Services: map[string]profile.Service{
			"svc":   {Name: "svc", Restart: []string{"/bin/restart", "svc"}, Timeout: 5 * time.Second, Settle: -1},
			"other": {Name: "other", Restart: []string{"/bin/restart", "other"}, Timeout: 5 * time.Second, Settle: -1},
		},
	}
	f.eng = &Engine{Sys: system.NewReal(f.root), Profile: p, App: f.app, Keep: 3,
		Check: func(ctx context.Context, kind, path string, opt validate.Options) validate.Result {
			data, _ := os.ReadFile(path)
			f.checks = append(f.checks, filepath.Base(path))
			if strings.Contains(string(data), "BROKEN") {
				return validate.Result{Validated: true, Tool: "fake", Refused: true, Reason: "line 1: BROKEN"}
			}
			return validate.Result{Validated: true, Tool: "fake"}
		}}
	return f
}

func (f *fixture) put(t *testing.T, rel, data string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(f.root, rel), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) source(t *testing.T, name, data string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(f.app, "conf.d", name), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) live(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(f.root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func (f *fixture) restarts() string {
	data, _ := os.ReadFile(filepath.Join(f.root, "restarts.log"))
	return string(data)
}

// Two targets of one service change together: the service restarts
// once; a service whose targets did not change is not touched.
func TestApplyRestartsEachServiceOnce(t *testing.T) {
	f := newFixture(t)
	f.put(t, "etc/a.conf", "a0\n")
	f.put(t, "etc/b.conf", "b0\n")
	f.put(t, "etc/c.conf", "c0\n")
	f.source(t, "a.conf", "a1\n")
	f.source(t, "b.conf.add", "b1\n")
	res, err := f.eng.Apply(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := f.restarts(); got != "restart svc\n" {
		t.Errorf("restarts = %q, want one restart of svc", got)
	}
	if f.live(t, "etc/a.conf") != "a1\n" || f.live(t, "etc/b.conf") != "b0\nb1\n" || f.live(t, "etc/c.conf") != "c0\n" {
		t.Error("live files are not the targets")
	}
	if res.Generation == nil || res.Generation.ID != 1 || len(res.Generation.Files) != 2 {
		t.Fatalf("generation = %+v", res.Generation)
	}
}

// The base is the live file whenever the live file is not what we wrote:
// a firmware that restores its ROM file gives a fresh base; our own file
// is never taken for a base (no double append).
func TestBaseCapture(t *testing.T) {
	f := newFixture(t)
	f.put(t, "etc/b.conf", "rom\n")
	f.source(t, "b.conf.add", "mine\n")
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if _, err := f.eng.Apply(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := f.live(t, "etc/b.conf"); got != "rom\nmine\n" {
		t.Fatalf("after three applies live = %q", got)
	}
	f.put(t, "etc/b.conf", "rom v2\n") // a reboot with a new firmware
	if _, err := f.eng.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	if got := f.live(t, "etc/b.conf"); got != "rom v2\nmine\n" {
		t.Fatalf("after reboot live = %q", got)
	}
	base, _, _ := f.eng.state().Base("b.conf")
	if string(base) != "rom v2\n" {
		t.Errorf("base = %q", base)
	}
	// Without its base, an .add cannot be computed: refused, not guessed.
	os.Remove(filepath.Join(f.app, "state/base/b.conf"))
	f.source(t, "b.conf.add", "mine too\n")
	_, err := f.eng.Apply(ctx)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "state/base/b.conf is missing") {
		t.Fatalf("Apply = %v", err)
	}
	if got := f.live(t, "etc/b.conf"); got != "rom v2\nmine\n" {
		t.Fatalf("live changed to %q", got)
	}
}

// A refused target is not written and its service not restarted; the
// other targets still are.
func TestRefusedTargetLeavesLiveAlone(t *testing.T) {
	f := newFixture(t)
	f.put(t, "etc/a.conf", "a0\n")
	f.put(t, "etc/c.conf", "c0\n")
	f.source(t, "a.conf", "BROKEN\n")
	f.source(t, "c.conf", "c1\n")
	_, err := f.eng.Apply(context.Background())
	if !errors.Is(err, ErrRefused) {
		t.Fatalf("Apply = %v, want ErrRefused", err)
	}
	if f.live(t, "etc/a.conf") != "a0\n" || f.live(t, "etc/c.conf") != "c1\n" {
		t.Error("wrong live files")
	}
	if got := f.restarts(); got != "restart other\n" {
		t.Errorf("restarts = %q", got)
	}
	st, _ := os.ReadFile(filepath.Join(f.app, "conf.d/a.conf.status"))
	if !strings.Contains(string(st), "status: REFUSED\r\n") || !strings.Contains(string(st), "reason: line 1: BROKEN") {
		t.Errorf("status file:\n%s", st)
	}
}

// Removing the source gives the target back to the firmware: the base
// is written, the service restarted, and the target no longer managed.
func TestRemovedSourceRestoresBase(t *testing.T) {
	f := newFixture(t)
	f.put(t, "etc/a.conf", "rom\n")
	f.source(t, "a.conf", "mine\n")
	ctx := context.Background()
	if _, err := f.eng.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(f.app, "conf.d/a.conf"))
	if _, err := f.eng.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	if got := f.live(t, "etc/a.conf"); got != "rom\n" {
		t.Fatalf("live = %q", got)
	}
	if w, _ := f.eng.state().Written("a.conf"); w != "" {
		t.Errorf("still managed: written = %q", w)
	}
	if got := f.restarts(); got != "restart svc\nrestart svc\n" {
		t.Errorf("restarts = %q", got)
	}
	// And nothing more happens after that.
	if _, err := f.eng.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	if got := f.restarts(); got != "restart svc\nrestart svc\n" {
		t.Errorf("restarts = %q", got)
	}
}

// History keeps the last Keep generations, and each one's files match
// their hashes.
func TestHistoryPruned(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for i := 0; i < 5; i++ {
		f.source(t, "c.conf", strings.Repeat("x", i+1)+"\n")
		if _, err := f.eng.Apply(ctx); err != nil {
			t.Fatal(err)
		}
	}
	gens, err := f.eng.History().List()
	if err != nil {
		t.Fatal(err)
	}
	if len(gens) != 3 || gens[0].ID != 3 || gens[2].ID != 5 {
		t.Fatalf("kept %d generations", len(gens))
	}
	data, err := f.eng.History().Content(gens[2], "c.conf")
	if err != nil || string(data) != "xxxxx\n" || state.Hash(data) != gens[2].Files[0].Hash {
		t.Fatalf("content = %q, %v", data, err)
	}
}

// state/ deleted (or damaged) while our file is live: the next apply
// takes our file for the base, and must still not append twice.
func TestStateLost(t *testing.T) {
	f := newFixture(t)
	f.put(t, "etc/b.conf", "rom\n")
	f.source(t, "b.conf.add", "mine\n")
	ctx := context.Background()
	if _, err := f.eng.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(f.app, "state")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.eng.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	if got := f.live(t, "etc/b.conf"); got != "rom\nmine\n" {
		t.Fatalf("after state/ was lost: %q", got)
	}
	// A damaged generation does not hide the others.
	gens, _ := f.eng.History().List()
	os.MkdirAll(filepath.Join(f.app, "state/gen/000099"), 0o755)
	os.WriteFile(filepath.Join(f.app, "state/gen/000099/meta.json"), []byte("{garbage"), 0o644)
	got, err := f.eng.History().List()
	if err == nil || !strings.Contains(err.Error(), "generation 99") || len(got) != len(gens) {
		t.Errorf("List = %d generations, %v", len(got), err)
	}
}

// A custom profile with 1,000 targets: all applied, each status file
// written, and a second apply changes nothing.
func TestThousandTargets(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 1,000 files with fsync")
	}
	eng, app := benchEngine(t, 1000)
	ctx := context.Background()
	res, err := eng.Apply(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Generation == nil || len(res.Generation.Changed) != 1000 {
		t.Fatalf("changed %d targets", len(res.Generation.Changed))
	}
	st, err := os.ReadFile(filepath.Join(app, "conf.d/t0999.conf.status"))
	if err != nil || !strings.Contains(string(st), "status: NOT VALIDATED") {
		t.Errorf("status of the last target: %q %v", st, err)
	}
	res, err = eng.Apply(ctx)
	if err != nil || res.Generation != nil {
		t.Errorf("second apply: %v %+v", err, res.Generation)
	}
}
