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
