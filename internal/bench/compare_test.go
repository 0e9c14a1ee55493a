package bench

import (
	"bytes"
	"encoding/xml"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
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

// The SVG parses as XML, is self-contained, holds one panel per test
// and one dot per test and run of both files, and draws a line rate only
// in the network test's panel (SMBWrite: the 100 Mbit/s line at 11.90
// MB/s), never among the disk tests.
func TestCompareSVG(t *testing.T) {
	before, after := readSide(t, "before.csv"), readSide(t, "after.csv")
	var b bytes.Buffer
	if err := WriteSVG(&b, before, after); err != nil {
		t.Fatal(err)
	}
	dots := map[string]int{}
	var panels, lines []string
	panel := ""
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
		case se.Name.Local == "g" && class == "panel":
			panel = test
			panels = append(panels, test)
		case se.Name.Local == "circle" && strings.HasPrefix(class, "run "):
			dots[strings.TrimPrefix(class, "run ")+" "+test+" "+attr(se, "data-run")]++
		case se.Name.Local == "line" && class == "linerate":
			lines = append(lines, panel)
		case se.Name.Local == "script" || se.Name.Local == "image" || attr(se, "href") != "":
			t.Errorf("not self-contained: <%s>", se.Name.Local)
		}
	}
	for side, rs := range map[string][]Result{"before": before.Results, "after": after.Results} {
		for _, r := range rs {
			key := side + " " + r.Test + " " + itoa(r.Run)
			if dots[key] != 1 {
				t.Errorf("dot %q drawn %d times, want 1", key, dots[key])
			}
			delete(dots, key)
		}
	}
	if len(dots) > 0 {
		t.Errorf("dots for no result: %v", dots)
	}
	if want := []string{"ZeroNull", "SMBWrite", "S1", "L1Null", "L3hdparm"}; !slices.Equal(panels, want) {
		t.Errorf("panels %v, want %v (generating data, network, disks)", panels, want)
	}
	if !slices.Equal(lines, []string{"SMBWrite"}) {
		t.Errorf("line rates in panels %v, want only SMBWrite's 100 Mbit/s", lines)
	}
}

// Each panel has its own linear scale from 0: a disk test is not
// squashed by ZeroNull's thousands of MB/s; a network panel reaches the
// line rate its runs come near.
func TestSVGScale(t *testing.T) {
	if disk := newScale(false, []Result{{MBPerS: 9}, {MBPerS: 20}}); disk.hi != 22 {
		t.Errorf("disk 9..20 MB/s: %+v, want up to 22", disk)
	}
	if n := newScale(true, []Result{{MBPerS: 9}}); n.hi != 12.5*1.1 {
		t.Errorf("network 9 MB/s: %+v, want the 100 Mbit/s line shown", n)
	}
	if n := newScale(true, []Result{{MBPerS: 90}}); n.hi != 125*1.1 {
		t.Errorf("network 90 MB/s: %+v, want the 1 Gbit/s line shown", n)
	}
	if inf := newScale(false, []Result{{MBPerS: math.Inf(1)}, {MBPerS: 5}}); inf.hi != 5.5 || len(inf.ticks()) > 10 {
		t.Errorf("inf among the runs: %+v", inf)
	}
	if z := newScale(false, []Result{{MBPerS: 20000}}); z.x(20000) <= plotLeft || z.x(20000) > plotRight {
		t.Errorf("20000 MB/s at %.0f, outside the plot", z.x(20000))
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
