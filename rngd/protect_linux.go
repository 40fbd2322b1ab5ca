package rngd

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// ProtectProcess keeps the process's secrets (keys, PINs, passphrases, the
// DRBG's state, the games' secrets r) out of core dumps and away from other
// processes: RLIMIT_CORE 0 (no core file), and PR_SET_DUMPABLE 0, which
// also holds when the limit is raised again and forbids other processes of
// the same user to ptrace it or read /proc/<pid>/mem (root's
// CAP_SYS_PTRACE still can). cmd/rngd and cmd/rngctl call it first thing;
// an error stops them.
func ProtectProcess() error {
	if err := unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{Cur: 0, Max: 0}); err != nil {
		return fmt.Errorf("couldn't turn core dumps off (RLIMIT_CORE): %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("couldn't make the process not dumpable (PR_SET_DUMPABLE): %w", err)
	}
	return nil
}

// processProtection says, for the banner, whether ProtectProcess holds.
func processProtection() string {
	var lim unix.Rlimit
	unix.Getrlimit(unix.RLIMIT_CORE, &lim)
	dumpable, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
	if err == nil && dumpable == 0 && lim.Cur == 0 {
		return "core dumps off, not dumpable"
	}
	return fmt.Sprintf("UNPROTECTED: core dump limit %d bytes, dumpable %d (cmd/rngd calls rngd.ProtectProcess)", lim.Cur, dumpable)
}
