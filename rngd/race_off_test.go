//go:build !race

package rngd

const raceEnabled = false
