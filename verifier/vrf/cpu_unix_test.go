//go:build unix

package vrf

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user + system) the process has used so
// far. With -cpu 1 it is the cost of the benchmark loop even when the
// machine is shared and wall time is not.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
