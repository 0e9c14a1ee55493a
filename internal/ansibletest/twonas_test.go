package ansibletest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nas-userscript/userscript/internal/firmsim"
	"github.com/nas-userscript/userscript/internal/needtool"
	"github.com/nas-userscript/userscript/internal/systest"
)

const (
	report = "Apply conf.d and report every status"
	// exports and rejected are an exports the NFS server starts with and
	// one it does not (the rc.d stub fails as exportfs would).
	exports  = "/mnt/ide1/public 192.168.1.0/24(rw)\n"
	rejected = "/mnt/ide1/reject-me 192.168.1.0/24(rw)\n"
	install  = "Install or upgrade userscript"
	confd    = "Write the conf.d files"
)

// TestRoleTwoNAS proves the role on two boxes at once, one with the Go
// engine and one with the sh engine (no Python used on either):
//   - the first run installs the right package on each, writes their
//     conf.d (a template rendered per host, a file, host content),
//     applies it and starts the engine: changed; the throughput tests
//     run and their results are fetched;
//   - a second run changes nothing: ok everywhere, nothing restarted;
//   - --check --diff writes nothing and shows the sources' diff and,
//     on the Go box, `userscript diff` of what would go live;
//   - a smb.conf testparm refuses fails exactly that box's task, with
//     the status's reason and line, and so does an exports the NFS
//     server does not start with (REJECTED, the previous one put back);
//     the other box is ok; then the other
//     way round, while the sh box is upgraded from an older version,
//     which keeps its conf.d and userscript.toml.
func TestRoleTwoNAS(t *testing.T) {
	needtool.Tool(t, "ansible-playbook", "busybox", "testparm", "make", "tar", "gzip")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "none.cfg"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	makeDist(t, dir)
	tmpl := filepath.Join(dir, "smb.conf.j2")
	if err := os.WriteFile(tmpl, []byte("[global]\n\tworkgroup = {{ workgroup }}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gobox, shbox := newBox(t, "nas-go", ""), newBox(t, "nas-sh", "armv4l")
	gobox.vars["userscript_settings"] = goSettings
	for _, b := range []*box{gobox, shbox} {
		b.vars["userscript_files"] = []map[string]string{{"template": tmpl}}
		b.vars["userscript_host_files"] = []map[string]string{{"name": "exports", "content": exports}}
		// The NFS server does not start with an export of reject-me.
		nfs := filepath.Join(b.nas.Root, firmsim.RCDir, "S85nfs.sh")
		stub := firmsim.LogStub(b.nas.Root, "S85nfs.sh") + "grep -q reject-me " + filepath.Join(b.nas.Root, firmsim.Exports) +
			" && { echo 'exportfs: /mnt/ide1/reject-me: No such file or directory' >&2; exit 1; }\nexit 0\n"
		if err := systest.WriteFile(nfs, []byte(stub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	boxes := []*box{gobox, shbox}
	for _, b := range boxes {
		b.vars["userscript_bench"] = true
		b.vars["userscript_bench_args"] = []string{"--size", "1M", "--runs", "1", "--name", "first", "ZeroNull"}
		b.vars["userscript_bench_dest"] = filepath.Join(dir, "bench")
	}

	// First run: installed, written, applied, started, measured.
	r := play(t, dir, boxes)
	if r.rc != 0 {
		t.Fatalf("first run: exit %d\n%s", r.rc, r.out)
	}
	for _, b := range boxes {
		if got := r.task(t, install, b.name); !got.Changed {
			t.Errorf("%s: install not changed: %+v", b.name, got)
		}
		if got := r.task(t, report, b.name); !got.Changed || !strings.Contains(got.Msg, "smb.conf OK") {
			t.Errorf("%s: report %+v, want changed and smb.conf OK", b.name, got)
		}
		csv, _ := filepath.Glob(filepath.Join(dir, "bench", b.name, "*-first.csv"))
		if body := readAll(csv); !strings.HasPrefix(body, "time,device,engine,") || !strings.Contains(body, "ZeroNull") {
			t.Errorf("%s: bench results fetched: %v\n%s\n%s", b.name, csv, body, r.out)
		}
		b.vars["userscript_bench"] = false
		want := "[global]\n\tworkgroup = " + strings.ToUpper(b.name) + "\n"
		if got := live(t, b); got != want {
			t.Errorf("%s: live smb.conf after the first run:\n%s\nwant:\n%s", b.name, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(gobox.app(), "state", "daemon.pid")); err != nil {
		t.Errorf("nas-go: the Go daemon was not started: %v", err)
	}
	if _, err := os.Stat(filepath.Join(shbox.app(), "state", "poll.pid")); err != nil {
		t.Errorf("nas-sh: the sh poller was not started: %v", err)
	}
	if got := r.task(t, report, "nas-sh"); got.Msg == "" {
		t.Errorf("nas-sh: report has no message")
	}

	// Second run: nothing to do.
	for _, b := range boxes {
		b.nas.ClearCalls()
	}
	r = play(t, dir, boxes)
	for _, b := range boxes {
		if s := r.Stats[b.name]; r.rc != 0 || s["changed"] != 0 || s["failures"] != 0 {
			t.Errorf("second run: %s %s (exit %d), want nothing changed\n%s", b.name, stats(r, b.name), r.rc, r.out)
		}
		if calls := b.nas.Restarts(); len(calls) != 0 {
			t.Errorf("second run: %s restarted %v", b.name, calls)
		}
	}

	// --check --diff: a new workgroup is shown, not written.
	gobox.vars["workgroup"] = "CHECKED"
	shbox.vars["workgroup"] = "CHECKED"
	r = play(t, dir, boxes, "--check", "--diff")
	if r.rc != 0 {
		t.Fatalf("--check --diff: exit %d\n%s", r.rc, r.out)
	}
	for _, b := range boxes {
		got := r.task(t, confd, b.name)
		diff := string(joinRaw(got.Diff))
		if !got.Changed || !strings.Contains(diff, "workgroup = CHECKED") {
			t.Errorf("--check --diff: %s conf.d task %+v, want changed with the new workgroup in its diff", b.name, got)
		}
		if b == gobox && !strings.Contains(diff, "userscript diff") || b == gobox && !strings.Contains(diff, "+\\tworkgroup = CHECKED") {
			t.Errorf("--check --diff: nas-go shows no userscript diff with the new line:\n%s", diff)
		}
		src, _ := os.ReadFile(filepath.Join(b.app(), "conf.d", "smb.conf"))
		if strings.Contains(live(t, b), "CHECKED") || strings.Contains(string(src), "CHECKED") {
			t.Errorf("--check wrote conf.d/smb.conf or the live smb.conf of %s", b.name)
		}
	}
	gobox.vars["workgroup"] = "NAS-GO"
	shbox.vars["workgroup"] = "NAS-SH"

	// A refused file fails exactly its box, with the status's reason.
	refuse := func(bad, good *box, args ...string) *run {
		t.Helper()
		bad.vars["userscript_host_files"] = []map[string]string{{"name": "smb.conf", "content": broken}, {"name": "exports", "content": rejected}}
		good.vars["userscript_host_files"] = []map[string]string{{"name": "exports", "content": exports}}
		r := play(t, dir, boxes, args...)
		if r.rc == 0 {
			t.Fatalf("a refused smb.conf on %s: ansible-playbook exit 0\n%s", bad.name, r.out)
		}
		got := r.task(t, report, bad.name)
		if !got.Failed || !strings.Contains(got.Msg, "conf.d/smb.conf: REFUSED") || !strings.Contains(got.Msg, "line 3") ||
			!strings.Contains(got.Msg, "conf.d/exports: REJECTED") {
			t.Errorf("%s: report %+v, want failed with smb.conf REFUSED (line 3) and exports REJECTED", bad.name, got)
		}
		if s := r.Stats[good.name]; s["failures"] != 0 {
			t.Errorf("%s failed too (%s) though its files are fine:\n%s", good.name, stats(r, good.name), r.out)
		}
		if strings.Contains(live(t, bad), "BROKEN") {
			t.Errorf("%s: the refused smb.conf went live", bad.name)
		}
		if got, _ := bad.nas.Live(firmsim.Exports); got != exports {
			t.Errorf("%s: live exports after the rejection %q, want the previous %q", bad.name, got, exports)
		}
		return r
	}
	refuse(shbox, gobox)

	// The other way round, while the sh box is upgraded from an older
	// version: the upgrade keeps the owner's own files.
	app := shbox.app()
	own := map[string]string{
		filepath.Join(app, "conf.d", "smb.conf.add"): "[media]\n\tpath = /mnt/ide1/media\n",
		filepath.Join(app, "userscript.toml"):        "# the owner's\npoll_interval = 7\n",
	}
	for f, body := range own {
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(app, "lib", "version"), []byte("0.0.9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = refuse(gobox, shbox, "--diff")
	// --diff shows what the sh box's new generation changed.
	if d := string(joinRaw(r.task(t, report, "nas-sh").Diff)); !strings.Contains(d, "(generation ") || !strings.Contains(d, "workgroup = NAS-SH") {
		t.Errorf("--diff: the sh box's report shows no generation diff with its new smb.conf:\n%s", d)
	}
	if got := r.task(t, install, "nas-sh"); !got.Changed || !strings.Contains(got.Msg, "0.0.9 upgraded to") {
		t.Errorf("upgrade: install %+v, want changed: upgraded\n%s", got, r.out)
	}
	for f, body := range own {
		if got, _ := os.ReadFile(f); string(got) != body {
			t.Errorf("upgrade: %s is now %q, want the owner's %q", f, got, body)
		}
	}
	if !strings.Contains(live(t, shbox), "[media]") {
		t.Errorf("upgrade: the owner's smb.conf.add is not live:\n%s", live(t, shbox))
	}
	if got := r.task(t, install, "nas-go"); got.Changed {
		t.Errorf("upgrade: nas-go was installed again: %+v", got)
	}
}

func readAll(files []string) string {
	var s string
	for _, f := range files {
		b, _ := os.ReadFile(f)
		s += string(b)
	}
	return s
}

func joinRaw(parts []json.RawMessage) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
		out = append(out, '\n')
	}
	return out
}
