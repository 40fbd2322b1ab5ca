// Package drawtest holds what statistical tests of draws need: Pearson's χ²
// test of observed counts against exact probabilities, with a stated
// false-failure rate.
//
//	stat, crit, ok := drawtest.ChiSquare(counts, probs, 1e-6)
//
// A test that uses it must fix its seeds (so a given build always passes or
// always fails) and state its false-failure rate: the probability that
// correct code fails, P(χ²_df > crit) = rate, with df = len(counts) − 1.
// Expected counts should be at least 5 for the χ² approximation to hold.
package drawtest

import (
	"math"
	"math/big"
)

// GammaQ is the regularized upper incomplete gamma function Q(a, x) (series
// for x < a+1, Lentz's continued fraction otherwise; about 1e-12 relative).
// The χ² survival function is P(χ²_k > x) = Q(k/2, x/2).
func GammaQ(a, x float64) float64 {
	if x <= 0 {
		return 1
	}
	lg, _ := math.Lgamma(a)
	if x < a+1 {
		sum, term := 1/a, 1/a
		for n := 1.0; n < 10000; n++ {
			term *= x / (a + n)
			sum += term
			if term < sum*1e-16 {
				break
			}
		}
		return 1 - sum*math.Exp(-x+a*math.Log(x)-lg)
	}
	const tiny = 1e-300
	b := x + 1 - a
	c, d := 1/tiny, 1/b
	h := d
	for i := 1.0; i < 10000; i++ {
		an := -i * (i - a)
		b += 2
		d = an*d + b
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = b + an/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < 1e-16 {
			break
		}
	}
	return math.Exp(-x+a*math.Log(x)-lg) * h
}

// ChiSquareCritical returns x with P(χ²_df > x) = rate.
func ChiSquareCritical(df int, rate float64) float64 {
	lo, hi := 0.0, 10.0*float64(df)+200
	for range 200 {
		mid := (lo + hi) / 2
		if GammaQ(float64(df)/2, mid/2) > rate {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// ChiSquare computes Pearson's statistic of observed counts against exact
// probabilities (which must sum to 1) and the critical value at the
// false-failure rate; ok reports stat ≤ critical.
func ChiSquare(observed []int, probs []*big.Rat, rate float64) (stat, critical float64, ok bool) {
	if len(observed) != len(probs) || len(observed) < 2 {
		panic("drawtest: need as many probabilities as counts, at least 2")
	}
	sum := new(big.Rat)
	n := 0
	for i, p := range probs {
		sum.Add(sum, p)
		n += observed[i]
	}
	if sum.Cmp(big.NewRat(1, 1)) != 0 {
		panic("drawtest: probabilities sum to " + sum.String() + ", not 1")
	}
	for i, p := range probs {
		pf, _ := p.Float64()
		e := float64(n) * pf
		d := float64(observed[i]) - e
		stat += d * d / e
	}
	critical = ChiSquareCritical(len(observed)-1, rate)
	return stat, critical, stat <= critical
}
