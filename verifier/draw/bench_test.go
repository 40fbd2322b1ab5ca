package draw

import (
	"fmt"
	"testing"
)

// BenchmarkUniform: one draw on a fresh stream (the production pattern:
// one stream per VRF output and label), including the first SHA-256 block.
func BenchmarkUniform(b *testing.B) {
	beta := seededBeta("bench", 0)
	for _, n := range []uint64{30, 1015, 1 << 40} {
		b.Run(fmt.Sprint("n=", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := NewStream(beta, "pick").Uniform(n); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBernoulli: the pick draw, Bernoulli(3, 30), on a fresh stream.
func BenchmarkBernoulli(b *testing.B) {
	beta := seededBeta("bench", 0)
	for b.Loop() {
		if _, err := NewStream(beta, "pick").Bernoulli(3, 30); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRankedSample: 10 winners and reserves among 3,000,000 entrants.
func BenchmarkRankedSample(b *testing.B) {
	beta := seededBeta("bench", 0)
	for b.Loop() {
		if _, err := NewStream(beta, "promo").RankedSample(10, 3_000_000); err != nil {
			b.Fatal(err)
		}
	}
}
