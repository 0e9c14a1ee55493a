package bench

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strings"
)

// Line rates drawn as reference lines: raw Ethernet throughput in MB/s.
var lineRates = []struct {
	label string
	mbps  float64
}{
	{"100 Mbit/s = 12.5 MB/s", 12.5},
	{"1 Gbit/s = 125 MB/s", 125},
}

// Chart geometry, in pixels.
const (
	chartWidth = 900
	labelWidth = 170
	plotLeft   = labelWidth + 10
	plotRight  = chartWidth - 60
	barHeight  = 14
	barGap     = 3
	groupGap   = 16
	chartTop   = 64
)

const (
	colorBefore = "#4a7bb0"
	colorAfter  = "#e0892c"
)

// scale maps MB/s to x positions: linear from 0, or logarithmic when the
// values span more than two orders of magnitude (a /dev/zero test next to
// a USB disk).
type scale struct {
	log    bool
	lo, hi float64
}

func newScale(rs ...[]Result) scale {
	maxV, minV := 0.0, math.Inf(1)
	for _, set := range rs {
		for _, r := range set {
			maxV = math.Max(maxV, r.MBPerS)
			if r.MBPerS > 0 {
				minV = math.Min(minV, r.MBPerS)
			}
		}
	}
	if maxV > 0 && maxV/minV > 100 {
		// The lowest bar gets at least a third of a decade.
		return scale{log: true, lo: math.Pow(10, math.Floor(math.Log10(minV/2))), hi: math.Pow(10, math.Ceil(math.Log10(maxV*1.05)))}
	}
	hi := math.Max(maxV*1.1, 12.5*1.1)
	if maxV > 25 {
		hi = math.Max(hi, 125*1.1)
	}
	return scale{lo: 0, hi: hi}
}

func (s scale) x(v float64) float64 {
	f := 0.0
	if s.log {
		if v > s.lo {
			f = (math.Log10(v) - math.Log10(s.lo)) / (math.Log10(s.hi) - math.Log10(s.lo))
		}
	} else {
		f = (v - s.lo) / (s.hi - s.lo)
	}
	return plotLeft + math.Min(f, 1)*(plotRight-plotLeft)
}

// ticks are the axis labels: decades, or 1-2-5 steps giving 4 to 10 ticks.
func (s scale) ticks() []float64 {
	var t []float64
	if s.log {
		for v := s.lo; v <= s.hi*1.0001; v *= 10 {
			t = append(t, v)
		}
		return t
	}
	step := math.Pow(10, math.Floor(math.Log10(s.hi)))
	for _, m := range []float64{0.1, 0.2, 0.5, 1} {
		if s.hi/(step*m) <= 10 {
			step *= m
			break
		}
	}
	for v := 0.0; v <= s.hi; v += step {
		t = append(t, v)
	}
	return t
}

// WriteSVG draws the comparison as a self-contained SVG bar chart: per
// test one bar for every run before (blue) and after (orange), with the
// 100 Mbit and 1 Gbit line rates as reference lines.
func WriteSVG(w io.Writer, before, after Side) error {
	rows := Compare(before.Results, after.Results)
	sc := newScale(before.Results, after.Results)
	var body bytes.Buffer
	y := float64(chartTop)
	for _, row := range rows {
		y = drawGroup(&body, sc, row, runsOf(before.Results, row.Test), runsOf(after.Results, row.Test), y)
	}
	height := y + 40
	var out bytes.Buffer
	fmt.Fprintf(&out, `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%.0f" viewBox="0 0 %d %.0f" font-family="sans-serif" font-size="12">
<title>userscript bench: %s vs %s</title>
<rect x="0" y="0" width="%d" height="%.0f" fill="#ffffff"/>
`, chartWidth, height, chartWidth, height, esc(before.Name), esc(after.Name), chartWidth, height)
	fmt.Fprintf(&out, `<text x="10" y="20" font-size="14" font-weight="bold">MB/s (2^20 bytes per second)%s</text>
`, map[bool]string{true: ", logarithmic scale", false: ""}[sc.log])
	legend(&out, before, after)
	axis(&out, sc, height)
	out.Write(body.Bytes())
	out.WriteString("</svg>\n")
	_, err := w.Write(out.Bytes())
	return err
}

func legend(w *bytes.Buffer, before, after Side) {
	fmt.Fprintf(w, `<rect x="10" y="30" width="12" height="12" fill="%s"/><text x="26" y="40">before: %s</text>
<rect x="10" y="46" width="12" height="12" fill="%s"/><text x="26" y="56">after: %s</text>
`, colorBefore, esc(before.Describe()), colorAfter, esc(after.Describe()))
}

// axis draws the grid, the tick labels and the line-rate reference lines.
func axis(w *bytes.Buffer, sc scale, height float64) {
	bottom := height - 30
	for _, t := range sc.ticks() {
		x := sc.x(t)
		fmt.Fprintf(w, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%.1f" stroke="#dddddd"/><text x="%.1f" y="%.1f" text-anchor="middle" fill="#555555">%s</text>
`, x, chartTop-4, x, bottom, x, bottom+14, trimFloat(t))
	}
	for _, lr := range lineRates {
		if lr.mbps > sc.hi || lr.mbps < sc.lo {
			continue
		}
		x := sc.x(lr.mbps)
		fmt.Fprintf(w, `<line class="linerate" x1="%.1f" y1="%d" x2="%.1f" y2="%.1f" stroke="#c03030" stroke-dasharray="6 4"/><text x="%.1f" y="%.1f" text-anchor="middle" fill="#c03030" font-size="11">%s</text>
`, x, chartTop-4, x, bottom, x, bottom+26, esc(lr.label))
	}
}

// drawGroup draws one test's bars from y and returns the next group's y.
func drawGroup(w *bytes.Buffer, sc scale, row Row, before, after []Result, y float64) float64 {
	n := len(before) + len(after)
	mid := y + float64(n)*(barHeight+barGap)/2
	fmt.Fprintf(w, `<text x="%d" y="%.1f" text-anchor="end" font-weight="bold">%s</text>
<text x="%d" y="%.1f" text-anchor="end" fill="#555555" font-size="11">%s</text>
`, labelWidth, mid-2, esc(row.Test), labelWidth, mid+11, esc(strings.TrimPrefix(change(row)+" "+row.Verdict, "- ")))
	for _, side := range []struct {
		class, color string
		rs           []Result
	}{{"before", colorBefore, before}, {"after", colorAfter, after}} {
		for _, r := range side.rs {
			x0, x1 := sc.x(sc.lo), sc.x(r.MBPerS)
			fmt.Fprintf(w, `<rect class="bar %s" data-test="%s" data-run="%d" x="%.1f" y="%.1f" width="%.1f" height="%d" fill="%s"><title>%s %s run %d: %.2f MB/s</title></rect><text x="%.1f" y="%.1f" font-size="10" fill="#333333">%.2f</text>
`, side.class, esc(r.Test), r.Run, x0, y, math.Max(x1-x0, 1), barHeight, side.color,
				esc(r.Test), side.class, r.Run, r.MBPerS, x1+3, y+barHeight-3, r.MBPerS)
			y += barHeight + barGap
		}
	}
	return y + groupGap
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
	return fmt.Sprintf("%g", v)
}

func esc(s string) string {
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(s))
	return b.String()
}
