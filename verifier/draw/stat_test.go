package draw

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"testing"
)

// falseFailure is the probability that a statistical test below fails for
// correct code (per test; the seeds are fixed, so a given build either
// always passes or always fails).
const falseFailure = 1e-6

// gammaQ is the regularized upper incomplete gamma function Q(a, x)
// (series for x < a+1, Lentz continued fraction otherwise).
func gammaQ(a, x float64) float64 {
	if x <= 0 {
		return 1
	}
	lg, _ := math.Lgamma(a)
	if x < a+1 {
		sum, term := 1/a, 1/a
		for n := 1.0; n < 1000; n++ {
			term *= x / (a + n)
			sum += term
			if term < sum*1e-15 {
				break
			}
		}
		return 1 - sum*math.Exp(-x+a*math.Log(x)-lg)
	}
	const tiny = 1e-300
	b := x + 1 - a
	c, d := 1/tiny, 1/b
	h := d
	for i := 1.0; i < 1000; i++ {
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
		if math.Abs(del-1) < 1e-15 {
			break
		}
	}
	return math.Exp(-x+a*math.Log(x)-lg) * h
}

// chiSquareCritical returns x with P(χ²_df > x) = p, by bisection.
func chiSquareCritical(df int, p float64) float64 {
	lo, hi := 0.0, 10.0*float64(df)+200
	for range 200 {
		mid := (lo + hi) / 2
		if gammaQ(float64(df)/2, mid/2) > p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// TestGammaQ checks the χ² tail against closed forms: Q(1/2, x) = erfc(√x)
// and, for integer k, Q(k, x) = e^(−x) Σ_{i<k} x^i/i!.
func TestGammaQ(t *testing.T) {
	for _, x := range []float64{0.01, 0.5, 1, 3, 7.5, 12, 20, 40, 60} {
		if got, want := gammaQ(0.5, x), math.Erfc(math.Sqrt(x)); math.Abs(got-want) > 1e-12+1e-9*want {
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
			if got := gammaQ(float64(k), x); math.Abs(got-want) > 1e-12+1e-9*want {
				t.Errorf("Q(%d, %g) = %g, want %g", k, x, got, want)
			}
		}
	}
	// And the quantile: P(χ²_1 > 23.928127) = 1e-6 (erfc form above).
	if got := chiSquareCritical(1, 1e-6); math.Abs(got-23.928127) > 1e-4 {
		t.Errorf("critical(df 1, 1e-6) = %f", got)
	}
}

// seededBeta is a fixed pseudo-VRF output for statistical tests.
func seededBeta(seed string, i int) []byte {
	b := sha256.Sum256(binary.BigEndian.AppendUint64([]byte(seed), uint64(i)))
	return b[:]
}

// chiSquare tests observed counts against exact expected probabilities
// (num[i]/den) at the false-failure rate above.
func chiSquare(t *testing.T, what string, observed []int, num []uint64, den uint64, trials int) {
	t.Helper()
	var x2 float64
	for i, o := range observed {
		e := float64(trials) * float64(num[i]) / float64(den)
		x2 += (float64(o) - e) * (float64(o) - e) / e
	}
	crit := chiSquareCritical(len(observed)-1, falseFailure)
	if x2 > crit {
		t.Errorf("%s: χ² = %.2f > %.2f (df %d, false-failure rate %g)", what, x2, crit, len(observed)-1, falseFailure)
	}
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "%s: χ² = %.2f, critical %.2f (df %d)\n", what, x2, crit, len(observed)-1)
	}
}

// TestUniformStatistics draws from β = SHA-256(seed || i), as production
// draws from VRF outputs, and compares with the exact uniform law.
func TestUniformStatistics(t *testing.T) {
	trials := 120_000
	if testing.Short() {
		trials = 30_000
	}
	for _, n := range []uint64{30, 129, 1015} {
		obs := make([]int, n)
		num := make([]uint64, n)
		for i := range num {
			num[i] = 1
		}
		for i := range trials {
			v, err := NewStream(seededBeta(fmt.Sprint("uniform", n), i), "u").Uniform(n)
			if err != nil {
				t.Fatal(err)
			}
			obs[v]++
		}
		chiSquare(t, fmt.Sprintf("Uniform(%d)", n), obs, num, n, trials)
	}
}

func TestBernoulliStatistics(t *testing.T) {
	trials := 50_000
	for _, pq := range [][2]uint64{{3, 506}, {86, 969}, {59, 455}, {3, 44}, {3, 30}, {3, 13}} {
		obs := make([]int, 2)
		for i := range trials {
			v, err := NewStream(seededBeta(fmt.Sprint("bernoulli", pq), i), "b").Bernoulli(pq[0], pq[1])
			if err != nil {
				t.Fatal(err)
			}
			if v {
				obs[1]++
			} else {
				obs[0]++
			}
		}
		chiSquare(t, fmt.Sprintf("Bernoulli(%d/%d)", pq[0], pq[1]), obs, []uint64{pq[1] - pq[0], pq[0]}, pq[1], trials)
	}
}

func TestRankedSampleStatistics(t *testing.T) {
	const k, n, trials = 2, 6, 60_000
	// Every ordered pair of distinct indices: probability 1/30; and the
	// rank-1 index alone: 1/6.
	obs := make([]int, n*n)
	for i := range trials {
		v, err := NewStream(seededBeta("ranked", i), "r").RankedSample(k, n)
		if err != nil {
			t.Fatal(err)
		}
		obs[v[0]*n+v[1]]++
	}
	var pairs []int
	var num []uint64
	for a := range n {
		for b := range n {
			if a != b {
				pairs = append(pairs, obs[a*n+b])
				num = append(num, 1)
			} else if obs[a*n+b] != 0 {
				t.Fatalf("index %d drawn twice", a)
			}
		}
	}
	chiSquare(t, "RankedSample(2, 6) pairs", pairs, num, uint64(len(num)), trials)
}

// TestUniformStatisticsLong repeats the uniform test with 3,000,000 draws
// over the grid (make test-long).
func TestUniformStatisticsLong(t *testing.T) {
	if os.Getenv("TIRAGE_LONG_TESTS") != "1" {
		t.Skip("set TIRAGE_LONG_TESTS=1")
	}
	const n, trials = 30, 3_000_000
	obs := make([]int, n)
	num := make([]uint64, n)
	for i := range num {
		num[i] = 1
	}
	for i := range trials {
		v, err := NewStream(seededBeta("uniform-long", i), "u").Uniform(n)
		if err != nil {
			t.Fatal(err)
		}
		obs[v]++
	}
	chiSquare(t, "Uniform(30) long", obs, num, n, trials)
}
