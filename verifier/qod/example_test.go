package qod_test

import (
	"crypto/sha256"
	"fmt"
	"time"

	"tirage.fr/tirage/verifier/qod"
)

// A game as the daemon drives it; β would be VRF outputs over
// record.StartAlpha and record.PickAlpha.
func Example() {
	beta := func(s string) []byte { b := sha256.Sum256([]byte(s)); return b[:] }
	now := time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)
	g, err := qod.NewGame(qod.Start{Game: "g-1", Emission: "QOD-1", Stake: 2000, Beta: beta("start"),
		Now: now, StartDeadline: now.AddDate(0, 1, 0)})
	if err != nil {
		panic(err)
	}
	fmt.Println("multipliers", g.Multipliers, "amounts", g.Amounts)
	fmt.Println(g.CheckPick(31, now))
	for n := 1; g.Phase == qod.Playing; n++ {
		var losing bool
		g, losing, err = g.Pick(n, beta(fmt.Sprint("pick ", n)), now)
		if err != nil {
			panic(err)
		}
		fmt.Println("pick", n, "losing:", losing)
	}
	fmt.Println(g.Phase, "tier", g.Tier, "good", g.Good())
	// Output:
	// multipliers [2 2 2 2] amounts [4000 8000 16000 32000]
	// number 31: number out of range 1..30
	// pick 1 losing: false
	// pick 2 losing: false
	// pick 3 losing: false
	// pick 4 losing: true
	// lost tier 0 good 3
}
