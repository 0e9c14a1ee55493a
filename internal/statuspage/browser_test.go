package statuspage

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/nas-userscript/userscript/internal/needtool"
)

// artefacts is the folder the screenshots go to: USERSCRIPT_ARTEFACTS,
// else .artefacts/statuspage at the top of the module.
func artefacts(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("USERSCRIPT_ARTEFACTS")
	if dir == "" {
		dir = filepath.Join("..", "..", ".artefacts")
	}
	dir = filepath.Join(dir, "statuspage")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(dir)
	return abs
}

// render opens page in Debian's chromium, headless, as an owner opens it
// from the share (a file: URL), keeps a screenshot as name.png in the
// artefacts and returns the browser's DOM.
func render(t *testing.T, page, name string) *html.Node {
	t.Helper()
	bin := needtool.Tool(t, "chromium")[0]
	shot := filepath.Join(artefacts(t), name+".png")
	os.Remove(shot)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
		"--user-data-dir="+filepath.Join(t.TempDir(), "profile"), "--window-size=1100,1400",
		"--screenshot="+shot, "--dump-dom", "file://"+page)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	if fi, err := os.Stat(shot); err != nil || fi.Size() == 0 {
		t.Errorf("no screenshot %s: %v\n%s", shot, err, stderr.String())
	}
	os.WriteFile(filepath.Join(artefacts(t), name+".dom.html"), out, 0o644)
	doc, err := html.Parse(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// dom helpers: the browser's DOM, looked at as an owner sees it.

func walk(n *html.Node, f func(*html.Node)) {
	f(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, f)
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func byID(doc *html.Node, id string) *html.Node {
	var found *html.Node
	walk(doc, func(n *html.Node) {
		if found == nil && n.Type == html.ElementNode && attr(n, "id") == id {
			found = n
		}
	})
	return found
}

func all(n *html.Node, tag string) []*html.Node {
	var out []*html.Node
	if n == nil {
		return nil
	}
	walk(n, func(c *html.Node) {
		if c.Type == html.ElementNode && c.Data == tag {
			out = append(out, c)
		}
	})
	return out
}

func textOf(n *html.Node) string {
	var b strings.Builder
	if n == nil {
		return ""
	}
	walk(n, func(c *html.Node) {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	})
	return b.String()
}

// rows are the body rows of the table id: their class and cell texts.
type domRow struct {
	class string
	cells []string
	node  *html.Node
}

func rows(doc *html.Node, id string) []domRow {
	var out []domRow
	for _, tr := range all(byID(doc, id), "tr") {
		if len(all(tr, "th")) > 0 {
			continue
		}
		r := domRow{class: attr(tr, "class"), node: tr}
		for _, td := range all(tr, "td") {
			r.cells = append(r.cells, textOf(td))
		}
		out = append(out, r)
	}
	return out
}

// want is what the browser must show for a state.
type want struct {
	banner     string   // the banner's class
	bannerText []string // parts of its text
	words      []string // the status words, row by row
	held       []bool   // rows marked held
	history    []string // first cell (generation) of each history row
	historyHas []string // text somewhere in the history table
	findings   int
	csv        []string
	chart      bool
	lang       string
	text       []string // text the page shows
	notText    []string // text it must not show
}

var wants = map[string]want{
	"empty":    {banner: "banner b-empty", bannerText: []string{"nothing to apply yet"}},
	"ok":       {banner: "banner b-ok", bannerText: []string{"All fine"}, words: []string{"NOT VALIDATED", "OK"}, history: []string{"2", "1"}, historyHas: []string{"2026-12-02 12:32:00 UTC", "exports", "nfs"}},
	"refused":  {banner: "banner b-need", bannerText: []string{"Something needs you (1)"}, words: []string{"REFUSED"}, history: []string{"1"}, text: []string{"conf.d/smb.conf line 3: read raww = yes", "What to do: fix line 3"}},
	"rejected": {banner: "banner b-need", bannerText: []string{"(1)"}, words: []string{"REJECTED"}, held: []bool{true}, history: []string{"2", "1"}, historyHas: []string{"rejected: smb.conf", "no smbd process"}},
	"held":     {banner: "banner b-need", bannerText: []string{"(1)"}, words: []string{"HELD"}, held: []bool{true}, history: []string{"3", "2", "1"}, historyHas: []string{"rollback"}},
	"disable":  {banner: "banner b-off", bannerText: []string{"userscript is off", "conf.d/DISABLE.txt"}, words: []string{"DISABLED"}, history: []string{"1"}},
	"safe":     {banner: "banner b-safe", bannerText: []string{"Safe mode", "the last 3 starts", "conf.d/SAFE-MODE"}, words: []string{"DISABLED"}},
	"guests":   {banner: "banner b-need", bannerText: []string{"(3)"}, words: []string{"OK"}, history: []string{"1"}, findings: 3, text: []string{"GUESTS CAN WRITE IT", "NOT SERVING", `"smb (2).conf": not used`}},
	"full":     {banner: "banner b-full", bannerText: []string{"data disk is full"}, words: []string{"FAILED"}, history: []string{"1"}},
	"bench":    {banner: "banner b-ok", words: []string{"OK"}, history: []string{"1"}, chart: true, csv: []string{"2026-12-02-100000-after.csv", "2026-12-01-100000-before.csv"}},
	"hostile": {banner: "banner b-need", words: []string{"<img src=x onerror=alert(1)>", "REFUSED"}, history: []string{"1"}, findings: 2, chart: true,
		text:    []string{"<script>alert('x')</script> & \"quoted\" \\ {{file}}", longLine, `<script>alert(\"note\")</script> & more`, `"<script>alert(1)</script>.conf": not used`, "conf.d/<fake>"},
		notText: []string{"SECRET", "hello"}},
	"de": {banner: "banner b-need", bannerText: []string{"Etwas braucht dich (1)"}, words: []string{"REFUSED"}, history: []string{"1"}, lang: "de", text: []string{"Was zu tun ist:", "Deine Zeile:"}},
}

// TestBrowser renders the page of every state in a real browser and
// checks what it shows: the banner, the status words, the held marks,
// the history rows, the doctor's findings, the chart and the links; a
// hostile conf.d shows as text (no element, no script, no handler it
// brought). A screenshot of each state is kept (artefacts).
func TestBrowser(t *testing.T) {
	needtool.Tool(t, "chromium")
	browsers := make(chan struct{}, 3) // at most three at a time
	for _, f := range fixtures {
		w, ok := wants[f.name]
		if !ok {
			t.Fatalf("no expectations for state %s", f.name)
		}
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			app := makeApp(t, f)
			goPage(t, app, f.lang)
			browsers <- struct{}{}
			defer func() { <-browsers }()
			doc := render(t, filepath.Join(app, "conf.d", File), f.name)
			check(t, doc, w)
		})
	}
}

func check(t *testing.T, doc *html.Node, w want) {
	t.Helper()
	htmlEl := all(doc, "html")[0]
	wantLang := w.lang
	if wantLang == "" {
		wantLang = "en"
	}
	if lang := attr(htmlEl, "lang"); lang != wantLang {
		t.Errorf("lang %q, want %q", lang, wantLang)
	}
	b := byID(doc, "banner")
	if b == nil || attr(b, "class") != w.banner {
		t.Fatalf("banner %q, want class %q\n%s", attr(b, "class"), w.banner, textOf(b))
	}
	for _, s := range w.bannerText {
		if !strings.Contains(textOf(b), s) {
			t.Errorf("banner %q does not say %q", textOf(b), s)
		}
	}
	rs := rows(doc, "files")
	var words []string
	for i, r := range rs {
		word := textOf(all(r.node, "td")[0])
		held := len(all(r.node, "span")) > 0
		word = strings.TrimSuffix(word, textOf(firstSpan(r.node)))
		words = append(words, word)
		if want := i < len(w.held) && w.held[i]; held != want {
			t.Errorf("row %d (%s): held %v, want %v", i, word, held, want)
		}
		if !strings.HasPrefix(r.class, "s-") {
			t.Errorf("row %d: class %q", i, r.class)
		}
	}
	if strings.Join(words, "|") != strings.Join(w.words, "|") {
		t.Errorf("status words %q, want %q", words, w.words)
	}
	var gens []string
	for _, r := range rows(doc, "history") {
		gens = append(gens, r.cells[0])
	}
	if strings.Join(gens, "|") != strings.Join(w.history, "|") {
		t.Errorf("history rows %q, want %q (newest first)", gens, w.history)
	}
	for _, s := range w.historyHas {
		if !strings.Contains(textOf(byID(doc, "history")), s) {
			t.Errorf("history does not show %q", s)
		}
	}
	if n := len(all(byID(doc, "doctor"), "li")); n != w.findings {
		t.Errorf("%d findings, want %d", n, w.findings)
	}
	var csv []string
	for _, a := range all(byID(doc, "csv"), "a") {
		csv = append(csv, textOf(a))
		if attr(a, "href") != ".bench/"+textOf(a) {
			t.Errorf("link %q goes to %q", textOf(a), attr(a, "href"))
		}
	}
	if strings.Join(csv, "|") != strings.Join(w.csv, "|") {
		t.Errorf("result links %q, want %q", csv, w.csv)
	}
	chart := byID(doc, "chart")
	if (chart != nil) != w.chart {
		t.Errorf("chart shown: %v, want %v", chart != nil, w.chart)
	}
	if chart != nil {
		checkChart(t, chart)
	}
	body := textOf(all(doc, "body")[0])
	for _, s := range w.text {
		if !strings.Contains(body, s) {
			t.Errorf("the page does not show %q", clip(s))
		}
	}
	for _, s := range w.notText {
		if strings.Contains(body, s) {
			t.Errorf("the page shows %q", s)
		}
	}
	selfContained(t, doc)
}

func firstSpan(n *html.Node) *html.Node {
	if s := all(n, "span"); len(s) > 0 {
		return s[0]
	}
	return nil
}

// checkChart: the chart is an image whose data: URL holds an SVG as
// bench draws it (or what .bench held), never an element of the page.
func checkChart(t *testing.T, img *html.Node) {
	t.Helper()
	if img.Data != "img" {
		t.Fatalf("chart is a <%s>", img.Data)
	}
	src := attr(img, "src")
	data, ok := strings.CutPrefix(src, "data:image/svg+xml,")
	if !ok {
		t.Fatalf("chart src %q", clip(src))
	}
	svg, err := url.PathUnescape(strings.ReplaceAll(data, "\n", ""))
	if err != nil || !strings.Contains(svg, "<svg") {
		t.Errorf("chart src is no SVG: %v %q", err, clip(svg))
	}
}

// selfContained: no script, no event handler, nothing loaded from
// elsewhere; only the page's own style.
func selfContained(t *testing.T, doc *html.Node) {
	t.Helper()
	walk(doc, func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		switch n.Data {
		case "script", "iframe", "object", "embed", "link", "svg":
			t.Errorf("the page holds a <%s> element", n.Data)
		}
		for _, a := range n.Attr {
			if strings.HasPrefix(a.Key, "on") {
				t.Errorf("<%s> has %s=%q", n.Data, a.Key, a.Val)
			}
			if (a.Key == "src" && !strings.HasPrefix(a.Val, "data:image/svg+xml,")) || (a.Key == "href" && !strings.HasPrefix(a.Val, ".bench/")) {
				t.Errorf("<%s %s=%q> loads from elsewhere", n.Data, a.Key, clip(a.Val))
			}
		}
	})
	if n := len(all(doc, "style")); n != 1 {
		t.Errorf("%d style elements, want 1", n)
	}
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}
