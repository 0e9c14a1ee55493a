package statuspage

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nas-userscript/userscript/internal/bench"
	"github.com/nas-userscript/userscript/internal/history"
	"github.com/nas-userscript/userscript/internal/status"
)

// A fixture is an app dir in one of the states the page shows, laid out
// as the engines leave it: status files rendered by internal/status,
// meta.json by internal/history, DOCTOR.txt in the doctor's lines, a
// chart drawn by internal/bench.
type fixture struct {
	name  string
	lang  string
	build func(t *testing.T, app string)
}

var t0 = time.Date(2026, 12, 2, 12, 30, 0, 0, time.UTC)

func put(t *testing.T, app, rel string, data []byte) {
	t.Helper()
	p := filepath.Join(app, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func putStatus(t *testing.T, app, name string, r status.Report) {
	t.Helper()
	if r.Time.IsZero() {
		r.Time = t0
	}
	put(t, app, "conf.d/"+name+".status", r.Render())
}

func putGen(t *testing.T, app string, g history.Generation) {
	t.Helper()
	if g.Time.IsZero() {
		g.Time = t0.Add(time.Duration(g.ID) * time.Minute)
	}
	put(t, app, filepath.Join("state", "gen", pad6(g.ID), "meta.json"), history.Marshal(&g))
}

func pad6(n int) string { return fmt.Sprintf("%06d", n) }

func doctorText(lines ...string) []byte {
	head := []string{"userscript doctor", "checked: 2026-12-02 12:30:00 UTC", "engine: sh engine, userscript 0.1.0",
		"app folder: /mnt/ide1/public/applications/userscript", "profile: nas4220b (the package's lib/profile)",
		"state: applying conf.d", "disk: 812 GB free on the data disk", ""}
	return []byte(strings.Join(append(head, lines...), "\r\n") + "\r\n")
}

func okSmb(gen int) status.Report {
	return status.Report{Word: status.OK, File: "conf.d/smb.conf", Target: "/system/hddapp/etc/samba/smb.conf",
		Sources: []string{"smb.conf"}, Validated: "testparm -s", Generation: gen}
}

func okExports(gen int) status.Report {
	return status.Report{Word: status.NotValidated, File: "conf.d/exports", Target: "/etc/exports", Sources: []string{"exports"},
		Reason: "not validated: exportfs not found", Generation: gen}
}

func applied(id int, changed, restarted []string) history.Generation {
	return history.Generation{ID: id, Kind: "apply", Result: "ok", Changed: changed, Restarted: restarted}
}

var fixtures = []fixture{
	{name: "empty", build: func(t *testing.T, app string) {
		put(t, app, "conf.d/README.txt", []byte("drop your files here\r\n"))
	}},
	{name: "ok", build: func(t *testing.T, app string) {
		putStatus(t, app, "smb.conf", okSmb(2))
		putStatus(t, app, "exports", okExports(2))
		putGen(t, app, applied(1, []string{"smb.conf"}, []string{"samba"}))
		putGen(t, app, applied(2, []string{"exports"}, []string{"nfs"}))
		put(t, app, "conf.d/DOCTOR.txt", doctorText("services:", "  samba: healthy: smbd runs, and TCP port 445 or 139 of 127.0.0.1 accepts", "",
			"who can write conf.d:", "  the app folder is in the share [public] (path /mnt/ide1/public): the users of its write list can write it (write list = admin)",
			"  anyone who can write conf.d can change what runs as root on this NAS (one line in smb.conf can run a command as root): let only your own account write it"))
	}},
	{name: "refused", build: func(t *testing.T, app string) {
		r := okSmb(1)
		r.Word, r.Validated = status.Refused, "testparm -s"
		r.Reason = `line 3: Unknown parameter encountered: "read raww"`
		r.Line = "conf.d/smb.conf line 3: read raww = yes"
		r.Todo = "fix line 3 of conf.d/smb.conf and save it again; the live file stays as it is until then"
		putStatus(t, app, "smb.conf", r)
		putGen(t, app, applied(1, []string{"smb.conf"}, []string{"samba"}))
	}},
	{name: "rejected", build: func(t *testing.T, app string) {
		r := okSmb(1)
		r.Word = status.Rejected
		r.Reason = "applied, but samba did not prove healthy: no smbd process is running; the previous file was put back"
		r.Todo = "look at state/out/samba.log for why samba did not start; edit conf.d/smb.conf to try again"
		putStatus(t, app, "smb.conf", r)
		put(t, app, "state/held/smb.conf", []byte("0123456789abcdef0123456789abcdef\nREJECTED\napplied, but samba did not prove healthy\n"))
		putGen(t, app, applied(1, []string{"smb.conf"}, []string{"samba"}))
		putGen(t, app, history.Generation{ID: 2, Kind: "apply", Result: "rejected", Changed: []string{"smb.conf"}, Restarted: []string{"samba"},
			Rejected: []string{"smb.conf"}, Note: "samba did not prove healthy: no smbd process is running"})
	}},
	{name: "held", build: func(t *testing.T, app string) {
		r := okSmb(1)
		r.Word = status.Held
		r.Reason = "rolled back to generation 1 (userscript rollback): conf.d/smb.conf is not applied until you edit it"
		r.Todo = "edit conf.d/smb.conf (or save it again) to apply it again"
		putStatus(t, app, "smb.conf", r)
		put(t, app, "state/held/smb.conf", []byte("0123456789abcdef0123456789abcdef\nHELD\nrolled back\n"))
		putGen(t, app, applied(1, []string{"smb.conf"}, []string{"samba"}))
		putGen(t, app, applied(2, []string{"smb.conf"}, []string{"samba"}))
		putGen(t, app, history.Generation{ID: 3, Kind: "rollback", From: 1, Result: "ok", Changed: []string{"smb.conf"}, Restarted: []string{"samba"}})
	}},
	{name: "disable", build: func(t *testing.T, app string) {
		put(t, app, "conf.d/DISABLE.txt", nil)
		r := okSmb(0)
		r.Word = status.Disabled
		r.Reason = "conf.d/DISABLE.txt exists: userscript applies nothing, at boot or while the NAS runs, until you delete it"
		r.Todo = "delete conf.d/DISABLE.txt to apply conf.d again"
		putStatus(t, app, "smb.conf", r)
		putGen(t, app, applied(1, []string{"smb.conf"}, []string{"samba"}))
	}},
	{name: "safe", build: func(t *testing.T, app string) {
		put(t, app, "conf.d/SAFE-MODE", []byte("userscript is in SAFE MODE: it applies nothing until you delete this file.\r\n\r\n"+
			"why: the last 3 starts of userscript did not finish applying conf.d. Something in conf.d may be what brings the NAS down.\r\n"+
			"since: 2026-12-02 12:30:00 UTC\r\n"))
		r := okSmb(0)
		r.Word = status.Disabled
		r.Reason = "conf.d/SAFE-MODE exists: userscript is in safe mode (that file says why) and applies nothing until you delete it"
		putStatus(t, app, "smb.conf", r)
	}},
	{name: "guests", build: func(t *testing.T, app string) {
		putStatus(t, app, "smb.conf", okSmb(1))
		putGen(t, app, applied(1, []string{"smb.conf"}, []string{"samba"}))
		put(t, app, "conf.d/DOCTOR.txt", doctorText("services:", "  samba: healthy: smbd runs, and TCP port 445 or 139 of 127.0.0.1 accepts",
			"  nfs: NOT SERVING: nothing accepts on TCP port 2049 of 127.0.0.1", "",
			"who can write conf.d:", "  the app folder is in the share [public] (path /mnt/ide1/public): GUESTS CAN WRITE IT (guest ok = yes, read only = no): anyone on your network, without a password, can change conf.d",
			"  anyone who can write conf.d can change what runs as root on this NAS (one line in smb.conf can run a command as root): let only your own account write it", "",
			"files in conf.d that are not used:", `  "smb (2).conf": not used; did you mean smb.conf? (Windows added a number to a second file of the same name): rename it to smb.conf, or delete it`))
	}},
	{name: "full", build: func(t *testing.T, app string) {
		r := okSmb(1)
		r.Word = status.Failed
		r.Reason = "data disk full (4096 bytes free): a file copied onto a full disk may be cut short, so nothing new is applied"
		r.Todo = "free some space on the data disk, then save the file again"
		putStatus(t, app, "smb.conf", r)
		putGen(t, app, applied(1, []string{"smb.conf"}, []string{"samba"}))
	}},
	{name: "bench", build: func(t *testing.T, app string) {
		putStatus(t, app, "smb.conf", okSmb(1))
		putGen(t, app, applied(1, []string{"smb.conf"}, []string{"samba"}))
		var sides []bench.Side
		for _, n := range []string{"before", "after"} {
			data, err := os.ReadFile(filepath.Join("..", "bench", "testdata", n+".csv"))
			if err != nil {
				t.Fatal(err)
			}
			name := "2026-12-0" + map[string]string{"before": "1-100000-before.csv", "after": "2-100000-after.csv"}[n]
			put(t, app, "conf.d/.bench/"+name, data)
			s, err := bench.LoadSide(filepath.Join(app, "conf.d", ".bench", name))
			if err != nil {
				t.Fatal(err)
			}
			sides = append(sides, s)
		}
		var svg bytes.Buffer
		if err := bench.WriteSVG(&svg, sides[0], sides[1]); err != nil {
			t.Fatal(err)
		}
		put(t, app, "conf.d/.bench/compare.svg", svg.Bytes())
	}},
	{name: "hostile", build: buildHostile},
	{name: "de", lang: "de", build: func(t *testing.T, app string) {
		r := okSmb(1)
		r.Word = status.Refused
		r.Reason = `line 3: Unknown parameter encountered: "read raww"`
		r.Line = "conf.d/smb.conf line 3: read raww = yes"
		r.Todo = "fix line 3 of conf.d/smb.conf and save it again"
		putStatus(t, app, "smb.conf", r)
		putGen(t, app, applied(1, []string{"smb.conf"}, []string{"samba"}))
	}},
}

// longLine is a line of 5000 characters full of what HTML must escape.
var longLine = strings.Repeat(`<b>&"'\x`, 625)

// buildHostile is a conf.d anyone on the LAN wrote: names and text with
// <, &, quotes and backslashes, a very long line, a script in the chart,
// links where files should be, a status file that is no status file.
func buildHostile(t *testing.T, app string) {
	putStatus(t, app, "smb.conf", status.Report{Word: status.Refused, File: `conf.d/smb.conf`,
		Reason: `line 1: Unknown parameter encountered: "<script>alert(1)</script>"`,
		Line:   "conf.d/smb.conf line 1: <script>alert('x')</script> & \"quoted\" \\ {{file}}",
		Todo:   longLine})
	put(t, app, "conf.d/a&b.status", []byte("status: OK\r\n"))           // not a safe name: never shown
	put(t, app, "conf.d/notes.status", []byte("hello <i>world</i>\r\n")) // not a status file
	put(t, app, "conf.d/fake.status", []byte("status: <img src=x onerror=alert(1)>\r\nfile: conf.d/<fake>\r\nreason: a\\nb \"c\" 'd'\r\n"))
	put(t, app, "secret", []byte("status: SECRET\r\nreason: root's secret\r\n"))
	if err := os.Symlink(filepath.Join(app, "secret"), filepath.Join(app, "conf.d", "link.status")); err != nil {
		t.Fatal(err)
	}
	putGen(t, app, history.Generation{ID: 1, Kind: "apply", Result: "rejected", Note: `<script>alert("note")</script> & more`,
		Changed: []string{"smb.conf"}, Restarted: []string{"samba"}, Rejected: []string{"smb.conf"}})
	put(t, app, "conf.d/DOCTOR.txt", doctorText("files in conf.d that are not used:",
		`  "<script>alert(1)</script>.conf": not used: this NAS has no file of that name (known: exports, proftpd.conf, smb.conf)`,
		`  "a&b 'c' \"d\"": not used: this NAS has no file of that name`))
	put(t, app, "conf.d/.bench/evil.svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="200" height="40"><script>alert('svg')</script>`+
		`<text x="5" y="20">100% #1 &amp; 'x' \ "y"</text></svg>`+"\n"))
	put(t, app, "conf.d/.bench/<x>.csv", []byte("x\n"))
}
