package bench

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// Line rates drawn as reference lines in the network tests' panels: raw
// Ethernet throughput in MB/s.
var lineRates = []struct {
	label string
	mbps  float64
}{
	{"100 Mbit/s", 12.5},
	{"1 Gbit/s", 125},
}

// Chart geometry, in pixels: one panel per test, one below the other.
const (
	chartWidth  = 900
	panelLeft   = 10
	rowLabelW   = 130 // the side's name left of its row
	plotLeft    = panelLeft + rowLabelW
	plotRight   = chartWidth - 150 // the median's value right of it
	panelHeight = 132
	headHeight  = 78 // the title and the legend
	sectionGap  = 26 // a group's heading
	dotRadius   = 4
)

const (
	colorBefore = "#4a7bb0"
	colorAfter  = "#e0892c"
)

// A panel group: the tests that measure /dev/zero and /dev/urandom (the
// CPU and memory: how fast data can be made), the disks, the network.
type panelGroup struct {
	title string
	has   func(test string) bool
}

var panelGroups = []panelGroup{
	{"Generating data (CPU and memory, no disk)", func(t string) bool { return t == "ZeroNull" || t == "UrandomNull" }},
	{"Network", isNetTest},
	{"Disks", func(t string) bool { return true }},
}

func isNetTest(test string) bool {
	for _, p := range []string{"SMB", "FTP", "NFS", "TCP"} {
		if strings.HasPrefix(test, p) {
			return true
		}
	}
	return false
}

// groupOf is the index of the group a test is drawn in.
func groupOf(test string) int {
	for i, g := range panelGroups {
		if g.has(test) {
			return i
		}
	}
	return len(panelGroups) - 1
}

// scale maps MB/s to x positions in a panel: linear from 0.
type scale struct{ hi float64 }

// newScale fits a panel's runs; a network test's panel reaches the
// line rate the runs come near (100 Mbit/s below 25 MB/s, else 1 Gbit/s).
func newScale(net bool, rs ...[]Result) scale {
	maxV := 0.0
	for _, set := range rs {
		for _, r := range set {
			if finite(r.MBPerS) { // ReadCSV refuses the others; never an endless axis
				maxV = math.Max(maxV, r.MBPerS)
			}
		}
	}
	hi := maxV * 1.1
	if net {
		if maxV > 25 {
			hi = math.Max(hi, 125*1.1)
		} else {
			hi = math.Max(hi, 12.5*1.1)
		}
	}
	if hi <= 0 {
		hi = 1
	}
	return scale{hi: hi}
}

func (s scale) x(v float64) float64 {
	return plotLeft + math.Min(math.Max(v/s.hi, 0), 1)*(plotRight-plotLeft)
}

// ticks are the axis labels: 1-2-5 steps, 3 to 6 of them.
func (s scale) ticks() []float64 {
	step := math.Pow(10, math.Floor(math.Log10(s.hi)))
	for _, m := range []float64{0.2, 0.5, 1} {
		if s.hi/(step*m) <= 6 {
			step *= m
			break
		}
	}
	var t []float64
	for v := 0.0; v <= s.hi*1.0001; v += step {
		t = append(t, v)
	}
	return t
}

// WriteSVG draws the comparison as a self-contained SVG: small
// multiples, one panel per test with its own scale, grouped (generating
// data, network, disks); in each the runs of both sides as dots, their
// medians marked, the verdict with its interval, and in network panels
// the line rate.
func WriteSVG(w io.Writer, before, after Side) error {
	rows := Compare(before.Results, after.Results)
	var body bytes.Buffer
	y := float64(headHeight)
	for gi, g := range panelGroups {
		var in []Row
		for _, r := range rows {
			if groupOf(r.Test) == gi {
				in = append(in, r)
			}
		}
		if len(in) == 0 {
			continue
		}
		fmt.Fprintf(&body, `<text class="label" x="%d" y="%.0f" font-size="15" font-weight="bold" fill="#222222">%s</text>
`, panelLeft, y+18, esc(g.title))
		y += sectionGap
		for _, r := range in {
			drawPanel(&body, r, runsOf(before.Results, r.Test), runsOf(after.Results, r.Test), y)
			y += panelHeight
		}
	}
	height := y + 10
	var out bytes.Buffer
	fmt.Fprintf(&out, `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%.0f" viewBox="0 0 %d %.0f" font-family="sans-serif" font-size="12">
<title>userscript bench: %s vs %s</title>
<rect x="0" y="0" width="%d" height="%.0f" fill="#ffffff"/>
`, chartWidth, height, chartWidth, height, esc(before.Name), esc(after.Name), chartWidth, height)
	fmt.Fprintf(&out, `<text class="label" x="%d" y="20" font-size="14" font-weight="bold">MB/s (2^20 bytes per second), each panel its own scale; dots: runs, bar: median</text>
`, panelLeft)
	legend(&out, before, after)
	out.Write(body.Bytes())
	out.WriteString("</svg>\n")
	_, err := w.Write(out.Bytes())
	return err
}

func legend(w *bytes.Buffer, before, after Side) {
	fmt.Fprintf(w, `<circle cx="16" cy="36" r="%d" fill="%s"/><text class="label" x="26" y="40">%s</text>
<circle cx="16" cy="56" r="%d" fill="%s"/><text class="label" x="26" y="60">%s</text>
`, dotRadius, colorBefore, esc(before.Describe()), dotRadius, colorAfter, esc(after.Describe()))
}

// drawPanel draws one test from y: title, verdict, a row of dots per
// side with its median, the axis, and in a network panel the line rates.
func drawPanel(w *bytes.Buffer, row Row, before, after []Result, y float64) {
	net := isNetTest(row.Test)
	sc := newScale(net, before, after)
	top, bottom := y+44, y+100 // the plot area
	fmt.Fprintf(w, `<g class="panel" data-test="%s">
<rect x="%d" y="%.0f" width="%d" height="%d" fill="#fafafa" stroke="#e4e4e4"/>
<text class="label" x="%d" y="%.0f" font-size="13" font-weight="bold">%s</text>
<text class="label verdict" x="%d" y="%.0f" font-size="11" fill="#333333">%s</text>
`, esc(row.Test), panelLeft-4, y, chartWidth-2*(panelLeft-4), panelHeight-6,
		panelLeft, y+16, esc(row.Test), panelLeft, y+31, esc(panelVerdict(row)))
	for _, t := range sc.ticks() {
		x := sc.x(t)
		fmt.Fprintf(w, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#dddddd"/><text class="label" x="%.1f" y="%.0f" text-anchor="middle" font-size="10" fill="#555555">%s</text>
`, x, top, x, bottom, x, bottom+13, trimFloat(t))
	}
	if net {
		for _, lr := range lineRates {
			if lr.mbps > sc.hi {
				continue
			}
			x := sc.x(lr.mbps)
			fmt.Fprintf(w, `<line class="linerate" x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#c03030" stroke-dasharray="5 3"/><text class="label" x="%.1f" y="%.0f" text-anchor="end" font-size="10" fill="#c03030">%s</text>
`, x, top-2, x, bottom, x-3, top+8, esc(lr.label))
		}
	}
	for i, side := range []struct {
		class, name, color string
		rs                 []Result
	}{{"before", sideName(before, "before"), colorBefore, before}, {"after", sideName(after, "after"), colorAfter, after}} {
		ry := top + 16 + float64(i)*26
		fmt.Fprintf(w, `<text class="label" x="%d" y="%.0f" font-size="11" fill="%s">%s</text>
`, panelLeft+4, ry+4, side.color, esc(side.name))
		if len(side.rs) == 0 {
			continue
		}
		for _, r := range side.rs {
			fmt.Fprintf(w, `<circle class="run %s" data-test="%s" data-run="%d" cx="%.1f" cy="%.0f" r="%d" fill="%s" fill-opacity="0.75"><title>%s %s run %d: %.2f MB/s</title></circle>
`, side.class, esc(r.Test), r.Run, sc.x(r.MBPerS), ry, dotRadius, side.color, esc(r.Test), side.class, r.Run, r.MBPerS)
		}
		med := median(sortedRates(side.rs))
		mx := sc.x(med)
		fmt.Fprintf(w, `<line class="median %s" x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#111111" stroke-width="2"/><text class="label" x="%d" y="%.0f" font-size="11">median %.2f</text>
`, side.class, mx, ry-9, mx, ry+9, plotRight+10, ry+4, med)
	}
	w.WriteString("</g>\n")
}

// sideName is what a row is called: A or B for an A/B test's variants.
func sideName(rs []Result, def string) string {
	if len(rs) > 0 && rs[0].Variant != "" {
		return "variant " + rs[0].Variant
	}
	return def
}

// panelVerdict is the verdict with the effect and its interval.
func panelVerdict(r Row) string {
	switch r.Verdict {
	case Faster, Slower:
		return fmt.Sprintf("%s: %+.1f %% (95 %% CI %+.1f to %+.1f %%, %s)", r.Verdict, r.Effect, r.Lo, r.Hi, pText(r.P))
	case Inconclusive:
		return fmt.Sprintf("not conclusive: %+.1f %%; %s", r.Effect, r.Why)
	}
	return r.Verdict
}

func sortedRates(rs []Result) []float64 {
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = r.MBPerS
	}
	slices.Sort(v)
	return v
}

func runsOf(rs []Result, test string) []Result {
	var out []Result
	for _, r := range rs {
		if r.Test == test {
			out = append(out, r)
		}
	}
	return out
}

func trimFloat(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%g", math.Round(v*1000)/1000)
}

func esc(s string) string {
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(s))
	return b.String()
}
