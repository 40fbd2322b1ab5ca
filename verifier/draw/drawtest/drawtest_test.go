package drawtest

import (
	"math"
	"math/big"
	"testing"
)

// TestGammaQ checks the χ² tail against closed forms: Q(1/2, x) = erfc(√x)
// and, for integer k, Q(k, x) = e^(−x) Σ_{i<k} x^i/i!.
func TestGammaQ(t *testing.T) {
	for _, x := range []float64{0.01, 0.5, 1, 3, 7.5, 12, 20, 40, 60, 300} {
		if got, want := GammaQ(0.5, x), math.Erfc(math.Sqrt(x)); math.Abs(got-want) > 1e-12+1e-9*want {
			t.Errorf("Q(1/2, %g) = %g, want %g", x, got, want)
		}
		for _, k := range []int{1, 2, 15, 64, 507} {
			sum, term := 0.0, 1.0
			for i := range k {
				if i > 0 {
					term *= x / float64(i)
				}
				sum += term
			}
			want := math.Exp(-x) * sum
			if got := GammaQ(float64(k), x); math.Abs(got-want) > 1e-12+1e-9*want {
				t.Errorf("Q(%d, %g) = %g, want %g", k, x, got, want)
			}
		}
	}
	// P(χ²_1 > 23.928127) = 1e-6 (from the erfc form).
	if got := ChiSquareCritical(1, 1e-6); math.Abs(got-23.928127) > 1e-4 {
		t.Errorf("critical(df 1, 1e-6) = %f", got)
	}
}

func TestChiSquare(t *testing.T) {
	half := []*big.Rat{big.NewRat(1, 2), big.NewRat(1, 2)}
	if stat, _, ok := ChiSquare([]int{500, 500}, half, 1e-6); stat != 0 || !ok {
		t.Errorf("perfect fit: %g %v", stat, ok)
	}
	// 600 vs 400 of 1000: χ² = 40 > 23.93.
	if stat, crit, ok := ChiSquare([]int{600, 400}, half, 1e-6); ok || math.Abs(stat-40) > 1e-9 || math.Abs(crit-23.928) > 1e-3 {
		t.Errorf("biased coin passed: %g %g %v", stat, crit, ok)
	}
}

// TestBinomialTails checks the tails against exact sums of rationals.
func TestBinomialTails(t *testing.T) {
	for _, c := range []struct {
		n  int
		p  *big.Rat
		ks []int
	}{
		{30, big.NewRat(3, 506), []int{0, 1, 2, 5, 30}},
		{200, big.NewRat(3, 44), []int{0, 3, 14, 25, 60, 200}},
		{97, big.NewRat(1, 2), []int{0, 10, 48, 49, 97}},
	} {
		pmf := make([]*big.Rat, c.n+1)
		q := new(big.Rat).Sub(big.NewRat(1, 1), c.p)
		for j := range pmf {
			v := new(big.Rat).SetInt(new(big.Int).Binomial(int64(c.n), int64(j)))
			v.Mul(v, new(big.Rat).SetFrac(new(big.Int).Exp(c.p.Num(), big.NewInt(int64(j)), nil), new(big.Int).Exp(c.p.Denom(), big.NewInt(int64(j)), nil)))
			v.Mul(v, new(big.Rat).SetFrac(new(big.Int).Exp(q.Num(), big.NewInt(int64(c.n-j)), nil), new(big.Int).Exp(q.Denom(), big.NewInt(int64(c.n-j)), nil)))
			pmf[j] = v
		}
		for _, k := range c.ks {
			lo, up := new(big.Rat), new(big.Rat)
			for j, v := range pmf {
				if j <= k {
					lo.Add(lo, v)
				}
				if j >= k {
					up.Add(up, v)
				}
			}
			wl, _ := lo.Float64()
			wu, _ := up.Float64()
			gl, gu := BinomialTails(k, c.n, c.p)
			if math.Abs(gl-wl) > 1e-10*wl || math.Abs(gu-wu) > 1e-10*wu {
				t.Errorf("n=%d p=%s k=%d: tails %g %g, exact %g %g", c.n, c.p, k, gl, gu, wl, wu)
			}
		}
	}
}

// TestBinomialRate: the exact test keeps its rate where χ² does not. With
// n = 20,000 and p = 3/506 (mean 118.6; the ×3 count of tier 1 in qod's
// statistics), Pearson's χ² at rate 1e-6/23 fails every count from 179 up,
// yet correct code draws one with probability P(X ≥ 179) ≈ 1.3e-7: three
// times the rate on its own. The exact test passes 179.
func TestBinomialRate(t *testing.T) {
	p := big.NewRat(3, 506)
	q := new(big.Rat).Sub(big.NewRat(1, 1), p)
	rate := 1e-6 / 23
	if _, _, ok := ChiSquare([]int{20000 - 179, 179}, []*big.Rat{q, p}, rate); ok {
		t.Fatal("χ² passes 179: the example no longer shows the approximation's excess")
	}
	_, up, ok := Binomial(179, 20000, p, rate)
	if up < 1.2e-7 || up > 1.4e-7 || !ok {
		t.Errorf("P(X ≥ 179) = %g, exact test ok = %v; want ≈1.3e-7 and a pass", up, ok)
	}
	// The exact acceptance region at this rate: 64 … 183 (both tails
	// computed independently in Python with mpmath).
	for k, want := range map[int]bool{63: false, 64: true, 183: true, 184: false} {
		if _, _, ok := Binomial(k, 20000, p, rate); ok != want {
			t.Errorf("k = %d: ok = %v, want %v", k, ok, want)
		}
	}
}
