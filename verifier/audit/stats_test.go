package audit

import (
	"math"
	"testing"

	"tirage.fr/tirage/verifier/qod"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/verdict"
)

// TestStatistics: exact expected counts pass; a pick whose losing
// frequency is doubled fails; too few draws are not tested.
func TestStatistics(t *testing.T) {
	honest := newStats()
	biased := newStats()
	// 3000 first picks: expected 300 losing (3/30), sd ≈ 16.4.
	for i := range 3000 {
		honest.add(&receipt.Played{Picks: []receipt.PickOutcome{{Hidden: 30, Losing: i%10 == 0}}})
		biased.add(&receipt.Played{Picks: []receipt.PickOutcome{{Hidden: 30, Losing: i%5 == 0}}})
	}
	for _, tc := range []struct {
		s    *Stats
		want verdict.Status
	}{{honest, verdict.StatusPass}, {biased, verdict.StatusFail}, {newStats(), verdict.StatusSkip}} {
		v := verdict.New("audit", "stats")
		tc.s.check(v)
		if got := v.Find(verdict.CheckStatistics).Status; got != tc.want {
			t.Errorf("statistics %s, want %s: %s\n%s", got, tc.want, v.Checks[0].Detail, tc.s.Table("en"))
		}
	}
	if z := biased.Picks[30].Z(); z < 18 || z > 19 {
		t.Errorf("z of 600 losing in 3000 at p = 1/10: %.2f, want (600-300)/sqrt(270) = 18.26", z)
	}
}

// TestStatisticsFalseAlarmRate: the check's stated false-alarm rate (below
// 1e-6 over the 34 cells, so at most 1e-6/34 per cell) holds for every
// testable cell, computed exactly: the probability, under the cell's exact
// binomial law, of the event counts that make the check fail. Small and
// skewed cells are where a normal approximation breaks: with |z| > 5.6, a
// ×3 cell at tier 1 (p = 3/506) over 1,717 drawn starts failed an honest
// appliance with probability 2.9e-6, and the first pick over 101 games
// with 1.5e-6.
func TestStatisticsFalseAlarmRate(t *testing.T) {
	perCell := 1e-6 / float64(qod.Numbers+qod.Tiers)
	for _, c := range []struct {
		cell   func(*Stats) *Cell
		trials []int64
	}{
		{func(s *Stats) *Cell { return &s.Triples[0] }, []int64{1687, 1717, 3000}},
		{func(s *Stats) *Cell { return &s.Triples[3] }, []int64{147, 153, 1000}},
		{func(s *Stats) *Cell { return &s.Picks[30] }, []int64{100, 101, 150, 1000}},
		{func(s *Stats) *Cell { return &s.Picks[13] }, []int64{57, 200}},
	} {
		for _, n := range c.trials {
			s := newStats()
			cell := c.cell(s)
			cell.Trials = n
			if !cell.Testable() {
				t.Fatalf("%s over %d trials: not testable", cell.Label, n)
			}
			p := float64(cell.P) / float64(cell.Q)
			lgn, _ := math.Lgamma(float64(n) + 1)
			rate := 0.0
			for k := int64(0); k <= n; k++ {
				cell.Events = k
				v := verdict.New("audit", "stats")
				s.check(v)
				if v.Find(verdict.CheckStatistics).Status != verdict.StatusFail {
					continue
				}
				a, _ := math.Lgamma(float64(k) + 1)
				b, _ := math.Lgamma(float64(n-k) + 1)
				rate += math.Exp(lgn - a - b + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p))
			}
			if rate > perCell*(1+1e-6) {
				t.Errorf("%s over %d trials: an honest appliance fails with probability %.3g, above %.3g (1e-6 over 34 cells)", cell.Label, n, rate, perCell)
			}
		}
	}
}
