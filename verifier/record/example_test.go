package record_test

import (
	"fmt"
	"time"

	"tirage.fr/tirage/verifier/record"
)

func ExampleFormat() {
	leaf, err := record.Format(&record.Decision{
		Time:   time.Date(2026, 11, 30, 1, 44, 0, 0, time.UTC),
		Game:   "g-1",
		Tier:   1,
		Choice: record.ChoiceStop,
		Prev:   [32]byte{0xab},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(leaf))
	r, err := record.Parse(leaf)
	fmt.Println(r.Kind(), err)
	// Output:
	// {"choice":"stop","game":"g-1","kind":"decision","prev":"ab00000000000000000000000000000000000000000000000000000000000000","tier":1,"time":"2026-11-30T01:44:00Z","v":1}
	// decision <nil>
}
