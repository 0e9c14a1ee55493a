package bench

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
)

// A Side is one results file of a comparison.
type Side struct {
	Name    string // the file name, as the owner gave it
	Results []Result
}

// LoadSide reads a results file for a comparison.
func LoadSide(name string) (Side, error) {
	f, err := os.Open(name)
	if err != nil {
		return Side{}, err
	}
	defer f.Close()
	rs, err := ReadCSV(f, name)
	return Side{Name: filepath.Base(name), Results: rs}, err
}

// Describe says where a side's numbers come from: when, which device and
// engine, and the config generation that was live.
func (s Side) Describe() string {
	if len(s.Results) == 0 {
		return s.Name + ": no results"
	}
	r := s.Results[0]
	gen := r.Generation
	if gen == "" || gen == "-" {
		gen = "none"
	}
	return fmt.Sprintf("%s: %s, %s, %s %s, generation %s",
		s.Name, r.Time.UTC().Format("2006-01-02 15:04 UTC"), r.Device, r.Engine, r.Version, gen)
}

// WriteTable writes the comparison as aligned text: the page's table
// with before and after side by side.
func WriteTable(w io.Writer, before, after Side) error {
	fmt.Fprintf(w, "before  %s\nafter   %s\n\n", before.Describe(), after.Describe())
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TEST\tBEFORE MB/s\tAFTER MB/s\tCHANGE\t95 % CI\tVERDICT")
	for _, r := range Compare(before.Results, after.Results) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Test, cell(r.Before), cell(r.After), change(r), interval(r), verdict(r))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%s\n", Method)
	return err
}

// WriteMarkdown writes the comparison as a table to paste into a wiki.
func WriteMarkdown(w io.Writer, before, after Side) error {
	fmt.Fprintf(w, "Before: %s  \nAfter: %s\n\n", mdEscape(before.Describe()), mdEscape(after.Describe()))
	fmt.Fprintln(w, "| Test | Before MB/s | After MB/s | Change | 95 % CI | Verdict |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---|")
	for _, r := range Compare(before.Results, after.Results) {
		_, err := fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", mdEscape(r.Test), cell(r.Before), cell(r.After), change(r), interval(r), verdict(r))
		if err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "\n%s\n", Method)
	return err
}

// cell is a median with its spread: "13.70 ±2.1 %", or "-".
func cell(s *Summary) string {
	switch {
	case s == nil:
		return "-"
	case s.Runs < 2:
		return fmt.Sprintf("%.2f", s.Median)
	}
	return fmt.Sprintf("%.2f ±%.1f %%", s.Median, s.Spread())
}

// Method says in one line how the verdicts are reached.
var Method = fmt.Sprintf("CHANGE: the median of every after/before ratio; faster/slower only where a two-sided Mann-Whitney rank test finds p < %.2f (%d or more runs a side) and the 95 %% CI lies beyond ±%.0f %%; see docs/BENCH.md", Alpha, MinRuns, Margin)

// change is the effect: the median ratio after/before, in percent.
func change(r Row) string {
	if r.Before == nil || r.After == nil {
		return "-"
	}
	return fmt.Sprintf("%+.1f %%", r.Effect)
}

// interval is the effect's 95 % confidence interval, "-" when the runs
// are too few to bound it.
func interval(r Row) string {
	if r.Before == nil || r.After == nil || !r.Reachable {
		return "-"
	}
	return fmt.Sprintf("%+.1f to %+.1f %%", r.Lo, r.Hi)
}

func verdict(r Row) string {
	if r.Verdict == Faster || r.Verdict == Slower {
		return fmt.Sprintf("%s (%s)", r.Verdict, pText(r.P))
	}
	if r.Why != "" {
		return r.Verdict + " (" + r.Why + ")"
	}
	return r.Verdict
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// WriteSummary writes one line per test: runs, median, spread, and
// whether the runs agree well enough to compare.
func WriteSummary(w io.Writer, rs []Result) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TEST\tRUNS\tMEDIAN MB/s\tMIN\tMAX\tSPREAD\tVERDICT")
	for _, s := range Summarize(rs) {
		v := s.Verdict()
		if v == "" {
			v = "ok"
		}
		fmt.Fprintf(tw, "%s\t%d\t%.2f\t%.2f\t%.2f\t%.1f %%\t%s\n", s.Test, s.Runs, s.Median, s.Min, s.Max, s.Spread(), v)
	}
	return tw.Flush()
}

// pText is a p-value as the tables show it: three decimals, or "p <
// 0.001".
func pText(p float64) string {
	if p < 0.001 {
		return "p < 0.001"
	}
	return fmt.Sprintf("p = %.3f", p)
}
