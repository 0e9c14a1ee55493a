package bench

import (
	"math"
	"slices"
)

// The statistics of a comparison: a two-sided Mann-Whitney U test (a
// rank test: no assumption about how the runs scatter) on the runs of
// both sides, at the level Alpha, and the effect as the Hodges-Lehmann
// estimate of the ratio after/before (the median of every after/before
// pair's ratio) with its distribution-free confidence interval (Moses),
// which excludes "no change" exactly when the test is significant.
const (
	// Alpha is the significance level: a difference is called only
	// when runs of two equal setups would show one at most this often.
	Alpha = 0.05
	// Margin is the smallest change called, in percent: the interval
	// must lie beyond it. Runs on a busy NAS or network vary together
	// (a burst of other work slows a whole stretch), which the rank test
	// cannot know; a few percent either way is within what a throughput
	// test resolves.
	Margin = 3.0
	// MinRuns is how many runs each side needs before Alpha can be
	// reached at all: with 3 a side the clearest result is p = 2/20.
	MinRuns = 4
	// exactUpTo is the largest side the exact distribution of U is
	// computed for; beyond it the normal approximation is used.
	exactUpTo = 25
	// rateFloor stands in for a rate of 0 in ratios: half the CSV's
	// resolution of 0.01 MB/s.
	rateFloor = 0.005
)

// A RankTest is the outcome of MannWhitney.
type RankTest struct {
	P         float64 // two-sided p-value
	Effect    float64 // after vs before, percent (Hodges-Lehmann)
	Lo, Hi    float64 // its 1-Alpha confidence interval, percent
	Reachable bool    // the runs are enough for p < Alpha at all
}

// Significant reports whether the test rejects "no change": p below
// Alpha, the interval clear of 0.
func (t RankTest) Significant() bool {
	return t.Reachable && t.P < Alpha && (t.Lo > 0 || t.Hi < 0)
}

// Called reports whether the change is called faster or slower: it is
// significant and its whole interval lies beyond Margin.
func (t RankTest) Called() bool {
	return t.Significant() && (t.Lo > Margin || t.Hi < -Margin)
}

// MannWhitney compares the runs before and after.
func MannWhitney(before, after []float64) RankTest {
	n, m := len(before), len(after)
	if n == 0 || m == 0 {
		return RankTest{P: 1, Lo: math.Inf(-1), Hi: math.Inf(1)}
	}
	u := 0.0 // pairs where after is above before; a tie counts half
	var logs []float64
	for _, b := range before {
		for _, a := range after {
			switch {
			case a > b:
				u++
			case a == b:
				u += 0.5
			}
			logs = append(logs, math.Log(math.Max(a, rateFloor)/math.Max(b, rateFloor)))
		}
	}
	slices.Sort(logs)
	d := newUDist(n, m)
	t := RankTest{P: math.Min(1, 2*math.Min(d.cdf(u), d.cdf(float64(n*m)-u))), Effect: pct(median(logs))}
	k := d.critical() // pairs to drop at each end of the interval
	t.Reachable = k >= 0
	t.Lo, t.Hi = math.Inf(-1), math.Inf(1)
	if t.Reachable {
		t.Lo, t.Hi = pct(logs[k]), pct(logs[len(logs)-1-k])
	}
	return t
}

func pct(logRatio float64) float64 { return (math.Exp(logRatio) - 1) * 100 }

// uDist is the distribution of U when both sides come from the same
// setup: exact (counts of the arrangements of n+m ranks) for small
// sides, normal beyond.
type uDist struct {
	n, m   int
	counts []float64 // counts[u] of the C(n+m, n) arrangements; nil: normal
}

func newUDist(n, m int) uDist {
	d := uDist{n: n, m: m}
	if n <= exactUpTo && m <= exactUpTo {
		d.counts = uCounts(n, m)
	}
	return d
}

// uCounts are the numbers of arrangements with U = 0..n*m, by the
// recurrence f(n, m) = f(n-1, m) shifted by m + f(n, m-1).
func uCounts(n, m int) []float64 {
	// f[j] holds the distribution for (i, j) while i grows.
	f := make([][]float64, m+1)
	for j := range f {
		f[j] = []float64{1} // i = 0: one arrangement, U = 0
	}
	for i := 1; i <= n; i++ {
		g := make([][]float64, m+1)
		g[0] = []float64{1}
		for j := 1; j <= m; j++ {
			g[j] = make([]float64, i*j+1)
			for u, c := range f[j] { // the largest value is after's: U+j
				g[j][u+j] += c
			}
			for u, c := range g[j-1] {
				g[j][u] += c
			}
		}
		f = g
	}
	return f[m]
}

// cdf is P(U <= u).
func (d uDist) cdf(u float64) float64 {
	if d.counts == nil {
		nm := float64(d.n * d.m)
		sd := math.Sqrt(nm * float64(d.n+d.m+1) / 12)
		return 0.5 * math.Erfc(-(u+0.5-nm/2)/sd/math.Sqrt2)
	}
	total, below := 0.0, 0.0
	for v, c := range d.counts {
		total += c
		if float64(v) <= u+1e-9 {
			below += c
		}
	}
	return below / total
}

// critical is the largest k with P(U < k+1) <= Alpha/2, i.e. the pairs
// the interval drops at each end; -1 when even U = 0 is not that rare.
func (d uDist) critical() int {
	k := -1
	for v := 0; v <= d.n*d.m/2; v++ {
		if d.cdf(float64(v)) > Alpha/2 {
			break
		}
		k = v
	}
	return k
}
