// Package drawtest holds what statistical tests of draws need: tests of
// observed counts against exact probabilities, with a stated false-failure
// rate (the probability that correct code fails the test).
//
//	lower, upper, ok := drawtest.Binomial(k, n, p, 1e-6) // exact: no approximation
//	cell, ok := drawtest.Cells(counts, probs, 1e-6)      // each cell exact, union bound
//	stat, crit, ok := drawtest.ChiSquare(counts, probs, 1e-6) // Pearson, approximate
//
// A test that uses them must fix its seeds (so a given build always passes
// or always fails) and state its false-failure rate. Binomial and Cells
// keep it rigorously (up to float64 rounding of the tails, about 1e-9
// relative). ChiSquare's rate P(χ²_df > crit) is only that of the χ²
// approximation, which in the far tail a test at 1e-6 lives in is not
// kept for a skewed count: a count of mean 119 with p = 3/506 fails a
// 1-df test at 4.3e-8 with probability 1.3e-7, three times the rate. Use
// Binomial and Cells to keep a stated rate.
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
	n := sampleSize(observed, probs)
	for i, p := range probs {
		pf, _ := p.Float64()
		e := float64(n) * pf
		d := float64(observed[i]) - e
		stat += d * d / e
	}
	critical = ChiSquareCritical(len(observed)-1, rate)
	return stat, critical, stat <= critical
}

// BinomialTails returns P(X ≤ k) and P(X ≥ k) for X ~ Binomial(n, p),
// summed term by term in log space from k outwards (math.Lgamma; about
// 1e-9 relative for n up to 10^7).
func BinomialTails(k, n int, p *big.Rat) (lower, upper float64) {
	if n < 0 || k < 0 || k > n || p.Sign() < 0 || p.Cmp(big.NewRat(1, 1)) > 0 {
		panic("drawtest: binomial tails need 0 ≤ k ≤ n and 0 ≤ p ≤ 1")
	}
	switch {
	case p.Sign() == 0: // X = 0
		return 1, b2f(k == 0)
	case p.Cmp(big.NewRat(1, 1)) == 0: // X = n
		return b2f(k == n), 1
	}
	pf, _ := p.Float64()
	lp, lq := math.Log(pf), math.Log1p(-pf)
	lgn, _ := math.Lgamma(float64(n) + 1)
	logPMF := func(j int) float64 {
		a, _ := math.Lgamma(float64(j) + 1)
		b, _ := math.Lgamma(float64(n-j) + 1)
		return lgn - a - b + float64(j)*lp + float64(n-j)*lq
	}
	// sum returns Σ pmf(j) for j from `from` towards `to` (step ±1), in
	// log-sum-exp. Past the mode the terms decrease geometrically; once one
	// is e^60 below the largest the rest, at most n of them, add less than
	// n·e^-60 < 1e-19 relative and are left out.
	mode := int(math.Floor(float64(n+1) * pf))
	sum := func(from, to, step int) float64 {
		m, s := math.Inf(-1), 0.0
		for j := from; ; j += step {
			l := logPMF(j)
			if l > m {
				s = s*math.Exp(m-l) + 1
				m = l
			} else {
				s += math.Exp(l - m)
			}
			if j == to || (j-mode)*step > 0 && l < m-60 {
				break
			}
		}
		return math.Min(1, math.Exp(m)*s)
	}
	return sum(k, 0, -1), sum(k, n, 1)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Binomial tests a count of k successes in n trials against the exact
// probability p, two-sided: it fails (ok = false) when P(X ≤ k) ≤ rate/2 or
// P(X ≥ k) ≤ rate/2, X ~ Binomial(n, p). Each side fails correct code with
// probability at most rate/2, so the test does with probability at most
// rate, whatever n and p (no normal or χ² approximation).
func Binomial(k, n int, p *big.Rat, rate float64) (lower, upper float64, ok bool) {
	lower, upper = BinomialTails(k, n, p)
	return lower, upper, lower > rate/2 && upper > rate/2
}

// Cells tests each count of a multinomial sample against its exact
// probability with Binomial at rate/len(observed): by the union bound,
// correct code fails with probability at most rate. It returns the first
// failing cell (or −1) and ok.
func Cells(observed []int, probs []*big.Rat, rate float64) (cell int, ok bool) {
	n := sampleSize(observed, probs)
	for i, p := range probs {
		if _, _, ok := Binomial(observed[i], n, p, rate/float64(len(observed))); !ok {
			return i, false
		}
	}
	return -1, true
}

// sampleSize checks a multinomial sample's counts against its exact
// probabilities (as many, at least 2, summing to 1: a test's own mistake,
// so a panic) and returns the number of draws.
func sampleSize(observed []int, probs []*big.Rat) int {
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
	return n
}
