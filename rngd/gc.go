package rngd

import (
	"os"
	"runtime/debug"
)

// GCPercent is the garbage collector's target for the daemon process
// (GOGC). A draw allocates a few kilobytes that die with the call, and the
// live heap is small (the games in play, the log's buffers): letting the
// heap grow to five times the live data instead of twice cuts the
// collector's share of the CPU by about two thirds (docs/rngd.md).
const GCPercent = 400

// TuneGC applies GCPercent unless the environment sets GOGC. cmd/rngd calls
// it; a program embedding the daemon decides for itself.
func TuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(GCPercent)
	}
}
