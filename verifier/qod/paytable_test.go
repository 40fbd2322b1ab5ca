package qod

import (
	"math/big"
	"testing"
)

func rat(p, q int64) *big.Rat { return big.NewRat(p, q) }

// oneIn renders 1/p as the rules do: "1 chance sur X", X rounded
// arithmetically (half up) to two decimals, "," as in the French table.
func oneIn(p *big.Rat) string {
	x := new(big.Rat).Inv(p)
	x.Mul(x, big.NewRat(100, 1))
	x.Add(x, big.NewRat(1, 2))
	cents := new(big.Int).Quo(x.Num(), x.Denom()) // floor(100/p + 1/2)
	s := cents.String()
	for len(s) < 3 {
		s = "0" + s
	}
	return s[:len(s)-2] + "," + s[len(s)-2:]
}

// TestPaytable recomputes the published table from the exact rationals:
// P_t from binomials, the twelve "1 chance sur" figures of art. 2.2.7, the
// fair-bet identity and the product.
func TestPaytable(t *testing.T) {
	wantReach := []*big.Rat{rat(506, 1015), rat(969, 2024), rat(455, 969), rat(44, 91)}
	// Art. 2.2.7, S < 50,000 €: ×2, ×3, reach.
	published := [][3]string{
		{"2,02", "338,33", "2,01"},
		{"2,29", "23,53", "2,09"},
		{"2,45", "16,42", "2,13"},
		{"2,22", "30,33", "2,07"},
	}
	prod := big.NewRat(1, 1)
	for tier := 1; tier <= Tiers; tier++ {
		p := Reach(tier)
		if p.Cmp(wantReach[tier-1]) != 0 {
			t.Errorf("P_%d = %s, spec says %s", tier, p, wantReach[tier-1])
		}
		q := Triple[tier-1].Rat()
		// Each step is a fair bet: P_t·(2(1−q_t) + 3q_t) = P_t·(2 + q_t) = 1.
		fair := new(big.Rat).Mul(p, new(big.Rat).Add(big.NewRat(2, 1), q))
		if fair.Cmp(big.NewRat(1, 1)) != 0 {
			t.Errorf("tier %d: P·(2+q) = %s, want 1", tier, fair)
		}
		x2 := new(big.Rat).Mul(p, new(big.Rat).Sub(big.NewRat(1, 1), q))
		x3 := new(big.Rat).Mul(p, q)
		got := [3]string{oneIn(x2), oneIn(x3), oneIn(p)}
		if got != published[tier-1] {
			t.Errorf("tier %d: 1 chance sur %v, published %v", tier, got, published[tier-1])
		}
		// S = 50,000 €: ×2 certain ("1"), reach unchanged.
		if oneIn(p) != published[tier-1][2] {
			t.Errorf("tier %d at 50,000 €: reach 1 in %s", tier, oneIn(p))
		}
		prod.Mul(prod, p)
		// Fractions are in lowest terms (Bernoulli reads the fraction as given).
		if q.Num().Uint64() != Triple[tier-1].P || q.Denom().Uint64() != Triple[tier-1].Q {
			t.Errorf("q_%d = %s is not in lowest terms", tier, Triple[tier-1])
		}
	}
	// Π P_t = C(27,18)/C(30,18) = 11/203.
	c := new(big.Rat).SetFrac(new(big.Int).Binomial(27, 18), new(big.Int).Binomial(30, 18))
	if prod.Cmp(rat(11, 203)) != 0 || c.Cmp(prod) != 0 {
		t.Errorf("Π P_t = %s, C(27,18)/C(30,18) = %s, want 11/203", prod, c)
	}
	if got := oneIn(prod); got != "18,45" {
		t.Errorf("P(tier 4) = 1 in %s, spec 18.45", got)
	}
}

// TestExpectedValues: continuing is a fair bet below 50,000 €; at 50,000 €
// its value is 2·P_t = 0.99704, 0.95751, 0.93911, 0.96703 (spec).
func TestExpectedValues(t *testing.T) {
	want := []string{"0.99704", "0.95751", "0.93911", "0.96703"}
	for tier := 1; tier <= Tiers; tier++ {
		ev := new(big.Rat).Mul(big.NewRat(2, 1), Reach(tier))
		if got := ev.FloatString(5); got != want[tier-1] {
			t.Errorf("tier %d at 50,000 €: E = %s, spec %s", tier, got, want[tier-1])
		}
	}
	// Always continuing to tier 4 at 50,000 €: 5,000,000 cents × 16 × 11/203.
	ev := new(big.Rat).Mul(big.NewRat(MaxStake*16, 1), rat(11, 203))
	if got := ev.FloatString(2); got != "4334975.37" {
		t.Errorf("E[A_4 reached] at 50,000 € = %s cents", got)
	}
	// Below 50,000 €, E[m_t] = 2 + q_t and every strategy returns S on
	// average: E[A_t · 1{reach t}] = S · Π_{i≤t} P_i(2+q_i) = S.
	for _, stake := range []int64{500, 1000, 2000, 100000} {
		e := big.NewRat(stake, 1)
		for tier := 1; tier <= Tiers; tier++ {
			e.Mul(e, new(big.Rat).Mul(Reach(tier), new(big.Rat).Add(big.NewRat(2, 1), Triple[tier-1].Rat())))
			if e.Cmp(big.NewRat(stake, 1)) != 0 {
				t.Errorf("S=%d: stop at tier %d is worth %s", stake, tier, e)
			}
		}
	}
}

func TestAmounts(t *testing.T) {
	for _, c := range []struct {
		s    int64
		m    [4]int
		want [4]int64
	}{
		{500, [4]int{2, 2, 2, 2}, [4]int64{1000, 2000, 4000, 8000}},
		{2000, [4]int{3, 3, 3, 3}, [4]int64{6000, 18000, 54000, 162000}},
		{MaxStake, [4]int{2, 2, 2, 2}, [4]int64{10_000_000, 20_000_000, 40_000_000, 80_000_000}},
		{100000, [4]int{2, 3, 2, 3}, [4]int64{200000, 600000, 1200000, 3600000}},
	} {
		if got := Amounts(c.s, c.m); got != c.want {
			t.Errorf("Amounts(%d, %v) = %v, want %v", c.s, c.m, got, c.want)
		}
	}
}

func TestLabels(t *testing.T) {
	for tier, want := range []string{"tier1", "tier2", "tier3", "tier4"} {
		if got := tierLabel(tier + 1); got != want {
			t.Errorf("tierLabel(%d) = %q", tier+1, got)
		}
	}
}
