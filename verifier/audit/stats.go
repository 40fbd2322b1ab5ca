package audit

import (
	"fmt"
	"math"
	"math/big"
	"strings"

	"tirage.fr/tirage/verifier/draw/drawtest"
	"tirage.fr/tirage/verifier/qod"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/verdict"
)

// FalseAlarm bounds the probability that the statistics check fails for an
// honest appliance. Each cell is a binomial count with an exact probability
// (3/n for a pick with n numbers hidden, q_t for a ×3 multiplier at tier t)
// and is tested exactly, two-sided, at FalseAlarm/34 (drawtest.Binomial: no
// normal approximation, whose far tail is off by up to two orders of
// magnitude for the small, skewed counts of a small audit); by the union
// bound over the 34 cells, the check fails an honest appliance with
// probability at most FalseAlarm. Cells with fewer than 10 expected events
// (or non-events) are shown but not tested.
const FalseAlarm = 1e-6

// cellRate is the false-alarm rate of one cell's test.
const cellRate = FalseAlarm / (qod.Numbers + qod.Tiers)

// Stats are the observed draws of the verified games.
type Stats struct {
	// Picks[n] counts picks made with n numbers hidden (n = 1..30).
	Picks [qod.Numbers + 1]Cell
	// Triples[t-1] counts drawn starts and the ×3 multipliers at tier t.
	Triples [qod.Tiers]Cell
}

// Cell is a binomial count: Events among Trials, expected with probability P/Q.
type Cell struct {
	Label  string      `json:"label"` // in English; Name in language-neutral form
	Name   verdict.Msg `json:"name"`
	Trials int64       `json:"trials"`
	Events int64       `json:"events"`
	P      uint64      `json:"p"`
	Q      uint64      `json:"q"`
}

// Expected is Trials·P/Q.
func (c Cell) Expected() float64 { return float64(c.Trials) * float64(c.P) / float64(c.Q) }

// Z is the standard score of Events, 0 when not testable.
func (c Cell) Z() float64 {
	p := float64(c.P) / float64(c.Q)
	sd := math.Sqrt(float64(c.Trials) * p * (1 - p))
	if sd == 0 {
		return 0
	}
	return (float64(c.Events) - c.Expected()) / sd
}

// Testable: at least 10 expected events and non-events.
func (c Cell) Testable() bool {
	e := c.Expected()
	return e >= 10 && float64(c.Trials)-e >= 10
}

// Off reports whether Events is off the cell's exact binomial law: the
// probability of a count as low, or as high, is at most half its rate.
func (c Cell) Off() bool {
	p := new(big.Rat).SetFrac(new(big.Int).SetUint64(c.P), new(big.Int).SetUint64(c.Q))
	_, _, ok := drawtest.Binomial(int(c.Events), int(c.Trials), p, cellRate)
	return !ok
}

func newCell(name verdict.Msg, p, q uint64) Cell {
	return Cell{Label: name.Text("en"), Name: name, P: p, Q: q}
}

func newStats() *Stats {
	s := &Stats{}
	for n := 1; n <= qod.Numbers; n++ {
		f := qod.LosingChance(n)
		s.Picks[n] = newCell(verdict.M(verdict.MsgCellLosingPick, n), f.P, f.Q)
	}
	for t := range qod.Tiers {
		s.Triples[t] = newCell(verdict.M(verdict.MsgCellTriple, t+1), qod.Triple[t].P, qod.Triple[t].Q)
	}
	return s
}

func (s *Stats) add(p *receipt.Played) {
	for _, pk := range p.Picks {
		c := &s.Picks[pk.Hidden]
		c.Trials++
		if pk.Losing {
			c.Events++
		}
	}
	if p.Drawn {
		for t, m := range p.Multipliers {
			s.Triples[t].Trials++
			if m == 3 {
				s.Triples[t].Events++
			}
		}
	}
}

// Cells lists the cells with at least one trial.
func (s *Stats) Cells() []Cell {
	var out []Cell
	for n := qod.Numbers; n >= 1; n-- {
		if s.Picks[n].Trials > 0 {
			out = append(out, s.Picks[n])
		}
	}
	for _, c := range s.Triples {
		if c.Trials > 0 {
			out = append(out, c)
		}
	}
	return out
}

func (s *Stats) check(v *verdict.Verdict) {
	tested, worst := 0, 0.0
	var bad []verdict.Msg
	for _, c := range s.Cells() {
		if !c.Testable() {
			continue
		}
		tested++
		z := c.Z()
		worst = max(worst, math.Abs(z))
		if c.Off() {
			bad = append(bad, verdict.M(verdict.MsgCellBad, c.Name, c.Events, c.Trials, verdict.Decimal{V: c.Expected(), Prec: 1}, c.P, c.Q, verdict.Decimal{V: z, Prec: 1}))
		}
	}
	switch {
	case len(bad) > 0:
		// Not proof of misbehaviour, but an alarm: investigate.
		v.Fail(verdict.CheckStatistics, verdict.MsgSame, bad)
	case tested == 0:
		v.Skip(verdict.CheckStatistics, verdict.MsgTooFewDraws)
	default:
		v.Pass(verdict.CheckStatistics, verdict.MsgStatsExactOK, tested, verdict.Decimal{V: worst, Prec: 2})
	}
}

// Table renders the cells as a text table in lang ("fr" or "en").
func (s *Stats) Table(lang string) string {
	var b strings.Builder
	h := []string{"draw", "trials", "observed", "expected", "probability", "z"}
	if lang == "fr" {
		h = []string{"tirage", "essais", "observé", "attendu", "probabilité", "z"}
	}
	fmt.Fprintf(&b, "%-26s %9s %9s %11s %12s %7s\n", h[0], h[1], h[2], h[3], h[4], h[5])
	for _, c := range s.Cells() {
		z := "—"
		if c.Testable() {
			z = verdict.Decimal{V: c.Z(), Prec: 2}.Text(lang)
		}
		fmt.Fprintf(&b, "%-26s %9d %9d %11s %12s %7s\n", c.Name.Text(lang), c.Trials, c.Events, verdict.Decimal{V: c.Expected(), Prec: 1}.Text(lang), fmt.Sprintf("%d/%d", c.P, c.Q), z)
	}
	return b.String()
}
