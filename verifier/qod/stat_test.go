package qod

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/big"
	"os"
	"testing"

	"tirage.fr/tirage/verifier/draw/drawtest"
)

// falseFailure bounds the probability that a whole simulation check fails
// for correct code: it makes 23 comparisons (game ends, 4 multipliers, 18
// picks), each at falseFailure/23 (union bound), each exact: a binomial
// test (drawtest.Binomial), or for the five ends one per cell at a fifth
// of that (drawtest.Cells). The seeds are fixed.
const (
	falseFailure = 1e-6
	comparisons  = 23
)

// simulate plays games always continuing, with β = SHA-256(seed || game ||
// step) standing in for VRF outputs, and counts how each ends (lost before
// tier 1, …, lost before tier 4, tier 4 reached), the ×3 draws per tier, and
// losses per pick index.
func simulate(t *testing.T, seed string, games int) (ends [5]int, x3 [Tiers]int, picks, losses [Numbers]int) {
	b := func(i, step int) []byte {
		h := sha256.Sum256(binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64([]byte(seed), uint64(i)), uint64(step)))
		return h[:]
	}
	for i := range games {
		g, err := NewGame(Start{Game: "sim", Emission: "E", Stake: 1000, Beta: b(i, 1000), Now: t0})
		if err != nil {
			t.Fatal(err)
		}
		for tier, m := range g.Multipliers {
			if m == 3 {
				x3[tier]++
			}
		}
		for !g.Phase.Over() {
			if g.Phase == AtTier {
				g, _ = g.Continue(t0)
				continue
			}
			n := 1
			for g.IsPicked(n) {
				n++
			}
			index := g.Picks
			var losing bool
			if g, losing, err = g.Pick(n, b(i, index), t0); err != nil {
				t.Fatal(err)
			}
			picks[index]++
			if losing {
				losses[index]++
			}
		}
		if g.Phase == Won {
			ends[4]++
		} else {
			ends[g.Tier]++
		}
	}
	return
}

func checkSimulation(t *testing.T, seed string, games int) {
	ends, x3, picks, losses := simulate(t, seed, games)
	one := big.NewRat(1, 1)
	// Exact law of the end of an always-continue game.
	probs := make([]*big.Rat, 5)
	reach := big.NewRat(1, 1)
	for tier := 1; tier <= Tiers; tier++ {
		probs[tier-1] = new(big.Rat).Mul(reach, new(big.Rat).Sub(one, Reach(tier)))
		reach.Mul(reach, Reach(tier))
	}
	probs[4] = reach // 11/203
	compared := 0
	rate := falseFailure / comparisons
	// binomial compares k of n with p exactly (drawtest.Binomial: no χ²
	// approximation, whose tail at this rate is off threefold for q_1).
	binomial := func(what string, k, n int, p *big.Rat) {
		compared++
		lower, upper, ok := drawtest.Binomial(k, n, p, rate)
		if !ok {
			t.Errorf("%s: %d of %d, P(X ≤ %d) = %.3g, P(X ≥ %d) = %.3g, each side must exceed %.3g",
				what, k, n, k, lower, k, upper, rate/2)
		}
		if testing.Verbose() {
			fmt.Fprintf(os.Stderr, "%s: %d of %d, tails %.3g %.3g\n", what, k, n, lower, upper)
		}
	}
	compared++
	if cell, ok := drawtest.Cells(ends[:], probs, rate); !ok {
		t.Errorf("game ends (lost before tier 1..4, tier 4) %v: cell %d off its exact law", ends, cell)
	}
	for tier := range Tiers {
		binomial(fmt.Sprintf("×3 at tier %d", tier+1), x3[tier], games, Triple[tier].Rat())
	}
	// Loss at pick index i, given that it was played: 3/(30 − i). Given
	// the games that made pick i, the count is exactly binomial.
	for i := range 18 {
		binomial(fmt.Sprintf("loss at pick %d", i), losses[i], picks[i], big.NewRat(3, int64(30-i)))
	}
	if compared > comparisons {
		t.Fatalf("%d comparisons, the rate assumes at most %d", compared, comparisons)
	}
}

// TestGameStatistics plays 20,000 games through the state machine and
// compares how they end, the multipliers and the loss per pick with the
// exact rationals (exact binomial tests, false-failure rate at most 1e-6
// for the whole test).
func TestGameStatistics(t *testing.T) {
	checkSimulation(t, "qod statistics", 20_000)
}

// TestGameStatisticsLong does the same with 1,000,000 games (make test-long).
func TestGameStatisticsLong(t *testing.T) {
	if os.Getenv("TIRAGE_LONG_TESTS") != "1" {
		t.Skip("set TIRAGE_LONG_TESTS=1")
	}
	checkSimulation(t, "qod statistics long", 1_000_000)
}
