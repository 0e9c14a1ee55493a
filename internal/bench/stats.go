package bench

import (
	"fmt"
	"slices"
)

// MaxSpread is the widest spread (percent of the median) a test may have
// and still be compared: wider, and the runs disagree too much.
const MaxSpread = 10.0

// A Summary is one test over its runs, in MB/s.
type Summary struct {
	Test             string
	Runs             int
	Median, Min, Max float64
	Bytes            int64 // of the first run
}

// Spread is (max - min) / median in percent: how far the runs disagree.
func (s Summary) Spread() float64 {
	if s.Median == 0 {
		return 0
	}
	return (s.Max - s.Min) / s.Median * 100
}

// Verdict says whether the test's runs are good enough to compare:
// "" when they are, else why not.
func (s Summary) Verdict() string {
	switch {
	case s.Runs < 2:
		return "not conclusive: 1 run, no spread (use --runs 3)"
	case s.Spread() > MaxSpread:
		return fmt.Sprintf("not conclusive: spread %.1f %% > %.0f %% (more --runs, a larger --size, a quiet NAS)", s.Spread(), MaxSpread)
	}
	return ""
}

// Summarize groups results by test, in the order the tests first appear.
func Summarize(rs []Result) []Summary {
	var order []string
	rates := map[string][]float64{}
	bytes := map[string]int64{}
	for _, r := range rs {
		if _, ok := rates[r.Test]; !ok {
			order = append(order, r.Test)
			bytes[r.Test] = r.Bytes
		}
		rates[r.Test] = append(rates[r.Test], r.MBPerS)
	}
	out := make([]Summary, 0, len(order))
	for _, t := range order {
		v := slices.Clone(rates[t])
		slices.Sort(v)
		out = append(out, Summary{Test: t, Runs: len(v), Median: median(v), Min: v[0], Max: v[len(v)-1], Bytes: bytes[t]})
	}
	return out
}

// median of sorted values: the middle one, or the mean of the two.
func median(v []float64) float64 {
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// Verdicts of a comparison.
const (
	Faster       = "faster"
	Slower       = "slower"
	Inconclusive = "not conclusive"
	OnlyBefore   = "only before"
	OnlyAfter    = "only after"
)

// A Row compares one test before and after; Before or After is nil when
// the test ran on one side only.
type Row struct {
	Test          string
	Before, After *Summary
	RankTest      // after vs before: the effect, its interval, p
	Verdict       string
	Why           string // for Inconclusive
}

// Compare pairs the tests of two result sets, in the order of before,
// then the tests only after has. A change is called faster or slower
// only when the rank test finds it significant at Alpha (ranktest.go);
// otherwise it is within what the runs themselves scatter.
func Compare(before, after []Result) []Row {
	bs, as := Summarize(before), Summarize(after)
	byTest := map[string]*Summary{}
	for i := range as {
		byTest[as[i].Test] = &as[i]
	}
	var rows []Row
	seen := map[string]bool{}
	for i := range bs {
		b := &bs[i]
		seen[b.Test] = true
		rows = append(rows, compareOne(b, byTest[b.Test], before, after))
	}
	for i := range as {
		if !seen[as[i].Test] {
			rows = append(rows, compareOne(nil, &as[i], before, after))
		}
	}
	return rows
}

func compareOne(b, a *Summary, before, after []Result) Row {
	switch {
	case a == nil:
		return Row{Test: b.Test, Before: b, Verdict: OnlyBefore}
	case b == nil:
		return Row{Test: a.Test, After: a, Verdict: OnlyAfter}
	}
	r := Row{Test: b.Test, Before: b, After: a}
	r.RankTest = MannWhitney(ratesOf(before, b.Test), ratesOf(after, b.Test))
	switch {
	case !r.Reachable:
		r.Verdict, r.Why = Inconclusive, fmt.Sprintf("%d and %d runs can never reach p < %.2f: use --runs %d or more", b.Runs, a.Runs, Alpha, MinRuns)
	case !r.Significant():
		r.Verdict, r.Why = Inconclusive, fmt.Sprintf("p = %.2f, the runs scatter more than they differ", r.P)
	case !r.Called():
		r.Verdict, r.Why = Inconclusive, fmt.Sprintf("p = %.3f, but the change may be under %.0f %% (95 %% CI %+.1f to %+.1f %%)", r.P, Margin, r.Lo, r.Hi)
	case r.Effect > 0:
		r.Verdict = Faster
	default:
		r.Verdict = Slower
	}
	return r
}

// ratesOf are the MB/s of every run of test.
func ratesOf(rs []Result, test string) []float64 {
	var v []float64
	for _, r := range rs {
		if r.Test == test {
			v = append(v, r.MBPerS)
		}
	}
	return v
}
