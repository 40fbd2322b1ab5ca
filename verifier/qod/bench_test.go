package qod

import (
	"testing"
)

// BenchmarkNewGame: the start's four multiplier draws and the game state.
func BenchmarkNewGame(b *testing.B) {
	s := Start{Game: "g", Emission: "E", Stake: 2000, Beta: beta("start"), Now: t0}
	for b.Loop() {
		if _, err := NewGame(s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPick: one pick through the state machine (validation, the
// Bernoulli(3, n) draw from β, the transition).
func BenchmarkPick(b *testing.B) {
	g, err := NewGame(Start{Game: "g", Emission: "E", Stake: 2000, Beta: beta("start"), Now: t0})
	if err != nil {
		b.Fatal(err)
	}
	bt := beta("pick")
	for b.Loop() {
		if _, _, err := g.Pick(17, bt, t0); err != nil {
			b.Fatal(err)
		}
	}
}
