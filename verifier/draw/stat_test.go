package draw

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/big"
	"os"
	"testing"

	"tirage.fr/tirage/verifier/draw/drawtest"
)

// falseFailure bounds the probability that one comparison below fails for
// correct code, exactly (drawtest.Binomial for two outcomes, drawtest.Cells
// for more: no χ² approximation, which at this rate is off 2.6-fold for a
// count of mean 178 with p = 3/506). The file makes 10 comparisons (3 of
// Uniform, 6 of Bernoulli, 1 of RankedSample), so by the union bound the
// probability that any of them fails for correct code is at most
// 10 × 1e-7 = 1e-6; with the long test (TIRAGE_LONG_TESTS=1), 11
// comparisons, it is at most 11 × 1e-7 = 1.1e-6. The seeds are fixed: a
// given build always passes or always fails.
const falseFailure = 1e-7

// seededBeta is a fixed pseudo-VRF output for statistical tests.
func seededBeta(seed string, i int) []byte {
	b := sha256.Sum256(binary.BigEndian.AppendUint64([]byte(seed), uint64(i)))
	return b[:]
}

// compare tests observed counts against exact expected probabilities
// (num[i]/den) at the false-failure rate above.
func compare(t *testing.T, what string, observed []int, num []uint64, den uint64, trials int) {
	t.Helper()
	probs := make([]*big.Rat, len(num))
	for i := range num {
		probs[i] = new(big.Rat).SetFrac(new(big.Int).SetUint64(num[i]), new(big.Int).SetUint64(den))
	}
	if len(observed) == 2 {
		lower, upper, ok := drawtest.Binomial(observed[1], trials, probs[1], falseFailure)
		if !ok {
			t.Errorf("%s: %d of %d, tails %.3g %.3g (false-failure rate %g)", what, observed[1], trials, lower, upper, falseFailure)
		}
		return
	}
	if cell, ok := drawtest.Cells(observed, probs, falseFailure); !ok {
		t.Errorf("%s: cell %d: %d of %d off its exact law (false-failure rate %g)", what, cell, observed[cell], trials, falseFailure)
	}
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "%s: %d cells, %d trials\n", what, len(observed), trials)
	}
}

// TestUniformStatistics draws from β = SHA-256(seed || i), as production
// draws from VRF outputs, and compares with the exact uniform law.
func TestUniformStatistics(t *testing.T) {
	trials := 60_000
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
		compare(t, fmt.Sprintf("Uniform(%d)", n), obs, num, n, trials)
	}
}

func TestBernoulliStatistics(t *testing.T) {
	trials := 30_000
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
		compare(t, fmt.Sprintf("Bernoulli(%d/%d)", pq[0], pq[1]), obs, []uint64{pq[1] - pq[0], pq[0]}, pq[1], trials)
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
	compare(t, "RankedSample(2, 6) pairs", pairs, num, uint64(len(num)), trials)
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
	compare(t, "Uniform(30) long", obs, num, n, trials)
}
