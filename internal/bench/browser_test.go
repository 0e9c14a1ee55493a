package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// chromium is Debian's headless browser, or a skip (a failure in CI).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed; .ci/run must install it")
	}
	t.Skip("chromium is not installed")
	return ""
}

// browse runs headless chromium with a fresh profile on one file.
func browse(t *testing.T, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	argv := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir=" + t.TempDir()}, args...)
	cmd := exec.CommandContext(ctx, chromium(t), argv...)
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, errs.String())
	}
	return out.Bytes()
}

// layoutCheck measures every text of the chart in the browser's own
// layout: which two boxes overlap, which stick out of the chart.
const layoutCheck = `<pre id="result"></pre><script>
const texts = [...document.querySelectorAll("svg text")].map(e => ({t: e.textContent, r: e.getBoundingClientRect()}));
const svg = document.querySelector("svg").getBoundingClientRect();
const overlaps = [], outside = [];
for (let i = 0; i < texts.length; i++) {
  const a = texts[i].r;
  if (a.left < svg.left || a.right > svg.right || a.top < svg.top || a.bottom > svg.bottom) outside.push(texts[i].t);
  for (let j = i + 1; j < texts.length; j++) {
    const b = texts[j].r;
    if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) overlaps.push(texts[i].t + " | " + texts[j].t);
  }
}
document.getElementById("result").textContent = "RESULT" + JSON.stringify({texts: texts.length, overlaps, outside}) + "END";
</script>`

type layout struct {
	Texts    int      `json:"texts"`
	Overlaps []string `json:"overlaps"`
	Outside  []string `json:"outside"`
}

// checkInBrowser renders svg in chromium: no two text boxes overlap,
// none leaves the chart, and the PNG it draws is the chart's size and
// shows both sides' colours. It returns the PNG.
func checkInBrowser(t *testing.T, svg []byte) []byte {
	t.Helper()
	dir := t.TempDir()
	inline := regexp.MustCompile(`^<\?xml[^>]*>\s*`).ReplaceAll(svg, nil)
	page := filepath.Join(dir, "chart.html")
	html := `<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="margin:0">` + string(inline) + layoutCheck + `</body></html>`
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := browse(t, "--dump-dom", "file://"+page)
	m := regexp.MustCompile(`RESULT(.*?)END`).FindSubmatch(dom)
	if m == nil {
		t.Fatalf("no layout result in the page:\n%.2000s", dom)
	}
	var l layout
	if err := json.Unmarshal(bytes.ReplaceAll(m[1], []byte("&amp;"), []byte("&")), &l); err != nil {
		t.Fatalf("%v: %s", err, m[1])
	}
	if l.Texts < 10 || len(l.Overlaps) > 0 || len(l.Outside) > 0 {
		t.Errorf("%d texts; overlapping: %q; outside the chart: %q", l.Texts, l.Overlaps, l.Outside)
	}
	var w, h int
	fmt.Sscanf(regexp.MustCompile(`width="(\d+)" height="(\d+)"`).FindString(string(svg)), `width="%d" height="%d"`, &w, &h)
	file := filepath.Join(dir, "chart.svg")
	os.WriteFile(file, svg, 0o644)
	shot := filepath.Join(dir, "chart.png")
	browse(t, "--hide-scrollbars", "--screenshot="+shot, fmt.Sprintf("--window-size=%d,%d", w, h), "file://"+file)
	data, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Errorf("screenshot %v, want %dx%d", b, w, h)
	}
	seen := map[string]bool{}
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			c := fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
			if c == colorBefore || c == colorAfter {
				seen[c] = true
			}
		}
	}
	if !seen[colorBefore] || !seen[colorAfter] {
		t.Errorf("the screenshot shows %v of the two sides' colours", seen)
	}
	return data
}

// Both kinds of chart as a person sees them, in Debian's chromium: the
// before/after comparison of the test files, and a real A/B test (the
// run in docs/BENCH.md). With -update they are the examples in docs/.
func TestChartsInBrowser(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, before, after, doc string }{
		{"compare", "before.csv", "after.csv", "bench-example"},
		{"ab", "ab.csv", "", "bench-ab-example"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before, after := chartSides(t, c.before, c.after)
			var b bytes.Buffer
			if err := WriteSVG(&b, before, after); err != nil {
				t.Fatal(err)
			}
			shot := checkInBrowser(t, b.Bytes())
			if *update {
				os.WriteFile(filepath.Join("..", "..", "docs", c.doc+".svg"), b.Bytes(), 0o644)
				os.WriteFile(filepath.Join("..", "..", "docs", c.doc+".png"), shot, 0o644)
			}
		})
	}
}

// chartSides reads a comparison's two files, or splits one A/B test's
// file by variant.
func chartSides(t *testing.T, before, after string) (Side, Side) {
	t.Helper()
	if after != "" {
		return readSide(t, before), readSide(t, after)
	}
	all := readSide(t, before)
	a, b := Side{Name: "A: a.merge"}, Side{Name: "B: b.merge"}
	for _, r := range all.Results {
		if r.Variant == Variants[0] {
			a.Results = append(a.Results, r)
		} else {
			b.Results = append(b.Results, r)
		}
	}
	if len(a.Results) == 0 || len(b.Results) == 0 || !strings.Contains(strings.Join(Columns, ","), "mb_per_s") {
		t.Fatalf("%s: no A/B rows", before)
	}
	return a, b
}
