//go:build race

package rngd

// raceEnabled: the race detector drops some of sync.Pool's items, so
// allocation counts differ.
const raceEnabled = true
