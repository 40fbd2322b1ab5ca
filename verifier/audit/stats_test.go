package audit

import (
	"testing"

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
