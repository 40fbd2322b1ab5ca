//go:build amd64

package entropy

import "golang.org/x/sys/cpu"

func rdseedSupported() bool { return cpu.X86.HasRDSEED }

// rdseed64 executes RDSEED up to retries times until the CPU sets CF, and
// returns the 64-bit value and whether one was delivered. Implemented in
// rdseed_amd64.s; only call when rdseedSupported.
//
//go:noescape
func rdseed64(retries int) (v uint64, ok bool)
