package bench

import (
	"bytes"
	"encoding/xml"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func readSide(t *testing.T, name string) Side {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rs, err := ReadCSV(f, name)
	if err != nil {
		t.Fatal(err)
	}
	return Side{Name: name, Results: rs}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it); got:\n%s", p, got)
	}
}

// The comparison of two fixed result files is exactly the golden table:
// medians with spreads, the change, and a verdict that calls a change
// within the runs' own scatter "not conclusive".
func TestCompareTable(t *testing.T) {
	before, after := readSide(t, "before.csv"), readSide(t, "after.csv")
	for _, c := range []struct {
		golden string
		write  func(io.Writer, Side, Side) error
	}{{"compare.txt", WriteTable}, {"compare.md", WriteMarkdown}} {
		var b bytes.Buffer
		if err := c.write(&b, before, after); err != nil {
			t.Fatal(err)
		}
		golden(t, c.golden, b.Bytes())
	}
}

// The verdicts, one by one: a clear gain, overlapping runs, one run
// each, a clear loss, and tests on one side only.
func TestCompareVerdicts(t *testing.T) {
	var before, after []Result
	before = append(before, runs("A", 10, 11, 10.5, 10.8)...)
	after = append(after, runs("A", 12, 13, 12.5, 12.8)...)
	before = append(before, runs("B", 10, 12, 11, 11.5)...)
	after = append(after, runs("B", 11.5, 13, 10.5, 12)...)
	before = append(before, runs("C", 10)...)
	after = append(after, runs("C", 20)...)
	before = append(before, runs("D", 5, 5.1, 5.05, 4.95)...)
	after = append(after, runs("D", 4, 4.5, 4.2, 4.3)...)
	after = append(after, runs("E", 1)...)
	want := map[string]string{"A": Faster, "B": Inconclusive, "C": Inconclusive, "D": Slower, "E": OnlyAfter}
	rows := Compare(before, after)
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(rows), len(want), rows)
	}
	for _, r := range rows {
		if r.Verdict != want[r.Test] {
			t.Errorf("%s: %s (%s), want %s", r.Test, r.Verdict, r.Why, want[r.Test])
		}
	}
	if rows[0].Effect < 17 || rows[0].Effect > 22 { // about 12.65 vs 10.65
		t.Errorf("A: change %.2f %%, want about +19", rows[0].Effect)
	}
}

// The SVG parses as XML, holds one bar per test and run of both files,
// and draws the 100 Mbit and 1 Gbit line rates.
func TestCompareSVG(t *testing.T) {
	before, after := readSide(t, "before.csv"), readSide(t, "after.csv")
	var b bytes.Buffer
	if err := WriteSVG(&b, before, after); err != nil {
		t.Fatal(err)
	}
	bars := map[string]int{}
	lines := 0
	dec := xml.NewDecoder(&b)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not XML: %v", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		class, test := attr(se, "class"), attr(se, "data-test")
		switch {
		case se.Name.Local == "rect" && strings.HasPrefix(class, "bar "):
			bars[strings.TrimPrefix(class, "bar ")+" "+test+" "+attr(se, "data-run")]++
		case se.Name.Local == "line" && class == "linerate":
			lines++
		case se.Name.Local == "script" || se.Name.Local == "image" || attr(se, "href") != "":
			t.Errorf("not self-contained: <%s>", se.Name.Local)
		}
	}
	for side, rs := range map[string][]Result{"before": before.Results, "after": after.Results} {
		for _, r := range rs {
			key := side + " " + r.Test + " " + itoa(r.Run)
			if bars[key] != 1 {
				t.Errorf("bar %q drawn %d times, want 1", key, bars[key])
			}
			delete(bars, key)
		}
	}
	if len(bars) > 0 {
		t.Errorf("bars for no result: %v", bars)
	}
	if lines != 2 {
		t.Errorf("%d line-rate lines, want 2 (12.5 and 125 MB/s)", lines)
	}
}

// Values spanning orders of magnitude get a log scale; the line rates
// stay on it.
func TestSVGScale(t *testing.T) {
	lin := newScale([]Result{{MBPerS: 9}, {MBPerS: 20}})
	if lin.log || lin.hi < 13.75 || lin.hi > 22.1 {
		t.Errorf("9..20 MB/s: %+v, want linear up to 22 (the 100 Mbit line shown)", lin)
	}
	wide := newScale([]Result{{MBPerS: 8}, {MBPerS: 12000}})
	if !wide.log || wide.lo != 1 || wide.hi != 100000 {
		t.Errorf("8..12000 MB/s: %+v, want log 1..100000", wide)
	}
	if low := newScale([]Result{{MBPerS: 100.5}, {MBPerS: 27000}}); low.lo != 10 {
		t.Errorf("100..27000 MB/s: %+v, want log from 10 (the lowest bar visible)", low)
	}
	if x := wide.x(12.5); x <= plotLeft || x >= plotRight {
		t.Errorf("12.5 MB/s at x=%.0f, outside the plot", x)
	}
}

func attr(se xml.StartElement, name string) string {
	for _, a := range se.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func itoa(n int) string { return strconv.Itoa(n) }
