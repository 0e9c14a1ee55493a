package bench

import (
	"math"
	"strings"
	"testing"
)

func runs(test string, vs ...float64) []Result {
	out := make([]Result, len(vs))
	for i, v := range vs {
		out[i] = Result{Test: test, Run: i + 1, MBPerS: v}
	}
	return out
}

func compareOnly(t *testing.T, before, after []Result) Row {
	t.Helper()
	rows := Compare(before, after)
	if len(rows) != 1 {
		t.Fatalf("%d rows: %+v", len(rows), rows)
	}
	return rows[0]
}

// Defect: "+80 % faster" from runs whose spread is ±70 %: three runs a
// side, ranges apart by luck. Three runs a side can never reach the
// level, so the verdict is not conclusive and says why.
func TestVerdictWideSpreadNotConclusive(t *testing.T) {
	r := compareOnly(t, runs("S1", 6, 10, 13), runs("S1", 14, 18, 26.6))
	if r.Verdict != Inconclusive || !strings.Contains(r.Why, "use --runs 4") {
		t.Errorf("verdict %q (%s), want not conclusive: too few runs to reach the level", r.Verdict, r.Why)
	}
}

// Defect: two runs a side were enough for a verdict.
func TestVerdictTwoRunsNotConclusive(t *testing.T) {
	r := compareOnly(t, runs("S1", 10, 10.1), runs("S1", 12, 12.1))
	if r.Verdict != Inconclusive {
		t.Errorf("verdict %q (%s), want not conclusive with 2 runs a side", r.Verdict, r.Why)
	}
}

// Enough runs, clearly apart: faster and slower, with the effect (the
// Hodges-Lehmann median ratio) and an interval around it that holds the
// true ratio and excludes no change.
func TestVerdictSignificant(t *testing.T) {
	before := runs("SMBRead", 10.0, 10.3, 9.8, 10.1, 9.9)
	after := runs("SMBRead", 11.2, 11.0, 11.4, 11.1, 11.3)
	r := compareOnly(t, before, after)
	if r.Verdict != Faster {
		t.Fatalf("verdict %q (%s), want faster", r.Verdict, r.Why)
	}
	if r.Effect < 10 || r.Effect > 13 || r.Lo <= 0 || r.Lo > r.Effect || r.Hi < r.Effect || r.P >= Alpha {
		t.Errorf("effect %+.1f %% CI %+.1f..%+.1f p=%.4f", r.Effect, r.Lo, r.Hi, r.P)
	}
	if r := compareOnly(t, after, before); r.Verdict != Slower || r.Hi >= 0 {
		t.Errorf("reversed: %q, CI %+.1f..%+.1f", r.Verdict, r.Lo, r.Hi)
	}
	if r := compareOnly(t, before, runs("SMBRead", 10.2, 9.7, 10.0, 10.4, 9.9)); r.Verdict != Inconclusive || r.Lo > 0 || r.Hi < 0 {
		t.Errorf("same: %q (%s), CI %+.1f..%+.1f", r.Verdict, r.Why, r.Lo, r.Hi)
	}
}

// The exact p-values of the rank test: all four after above all four
// before is 2/70; three a side can at best reach 2/20.
func TestMannWhitneyExact(t *testing.T) {
	for _, c := range []struct {
		a, b []float64
		p    float64
	}{
		{[]float64{1, 2, 3, 4}, []float64{5, 6, 7, 8}, 2.0 / 70},
		{[]float64{1, 2, 3}, []float64{5, 6, 7}, 2.0 / 20},
		{[]float64{1, 3, 5, 7}, []float64{2, 4, 6, 8}, 48.0 / 70},
		{[]float64{1, 2, 3, 5}, []float64{4, 6, 7, 8}, 2 * 2.0 / 70},
	} {
		got := MannWhitney(c.a, c.b)
		if math.Abs(got.P-math.Min(c.p, 1)) > 1e-9 {
			t.Errorf("%v vs %v: p=%.5f, want %.5f", c.a, c.b, got.P, c.p)
		}
	}
	if MinRuns != 4 {
		t.Errorf("MinRuns %d, want 4 at a two-sided 5 %% level", MinRuns)
	}
	// Many runs: the normal approximation, still a small p for a clear
	// shift and a large one for none.
	var a, b []float64
	for i := 0; i < 30; i++ {
		a = append(a, 10+float64(i%7)/10)
		b = append(b, 10.5+float64(i%5)/10)
	}
	if p := MannWhitney(a, b).P; p > 1e-6 {
		t.Errorf("30 a side, shifted: p=%g", p)
	}
	if p := MannWhitney(a, a).P; p < 0.9 {
		t.Errorf("30 a side, equal: p=%g", p)
	}
}

// Defect: inf and nan were taken as rates. Every non-finite number is
// refused with the file and the line.
func TestReadCSVRefusesNonFinite(t *testing.T) {
	head := strings.Join(Columns, ",") + "\n"
	row := "2026-12-01T10:00:00Z,NAS,go,1,4,S1,1,1048576,%s,%s,dd,/dev/zero,/dev/sda1,ext3\n"
	for _, c := range []struct{ secs, rate, want string }{
		{"1.0", "inf", `line 3: mb_per_s "inf"`},
		{"1.0", "NaN", `line 3: mb_per_s "NaN"`},
		{"+Inf", "1.0", `line 3: seconds "+Inf"`},
		{"1.0", "1e400", `line 3: mb_per_s "1e400"`},
	} {
		good := strings.Replace(strings.Replace(row, "%s", "1.0", 1), "%s", "1.0", 1)
		bad := strings.Replace(strings.Replace(row, "%s", c.secs, 1), "%s", c.rate, 1)
		_, err := ReadCSV(strings.NewReader(head+good+bad), "a.csv")
		if err == nil || !strings.Contains(err.Error(), "a.csv: "+c.want) {
			t.Errorf("%s/%s: %v, want a.csv: %s", c.secs, c.rate, err, c.want)
		}
	}
}
