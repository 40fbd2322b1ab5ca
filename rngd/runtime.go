package rngd

import (
	"os"
	"runtime"
	"runtime/debug"
)

// GCPercent is the garbage collector's target for the daemon process
// (GOGC). A draw allocates a few kilobytes that die with the call, and the
// live heap is small (the games in play, the log's buffers): letting the
// heap grow to five times the live data instead of twice cuts the
// collector's share of the CPU from about 5 % to 1–2 % (docs/rngd.md).
const GCPercent = 400

// TuneRuntime sets the daemon process's runtime, unless the environment
// does: GOGC = GCPercent, and GOMAXPROCS = twice the CPUs. The daemon's
// goroutines spend much of their time in blocking file system calls (the
// journal's, the store's and tessera's fsyncs), and a goroutine in such a
// call holds one of the GOMAXPROCS slots until the runtime takes it back;
// with twice as many slots as CPUs (the runtime's default, which follows
// the CPU set and cgroup quota) the calls in flight keep being served
// meanwhile (see docs/rngd.md for the figures on 2 cores).
// cmd/rngd calls it; a program embedding the daemon decides for itself.
func TuneRuntime() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(GCPercent)
	}
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(2 * runtime.GOMAXPROCS(0))
	}
}
