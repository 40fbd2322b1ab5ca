// Package peertest decides what a test does when a real peer it needs is
// missing: a program (softhsm2-util, swtpm, chromium), a device
// (/dev/hwrng), a CPU instruction (RDSEED), a service (the MariaDB +
// Trillian stack that make test starts) or the root user. On a developer's
// machine the test skips, saying what is missing; in CI (the environment
// variable CI is "true", as .ci/run sets it), where make deps installs
// every peer and make test starts the services, the test fails, so that a
// run cannot go green having tested nothing.
package peertest

import (
	"os"
	"testing"

	"golang.org/x/sys/cpu"
)

// CI reports whether the tests run in CI: CI=true in the environment.
func CI() bool { return os.Getenv("CI") == "true" }

// Absent ends t, which cannot run without what the message names: it
// skips t, or fails it in CI.
func Absent(t testing.TB, format string, args ...any) {
	t.Helper()
	if CI() {
		t.Fatalf("absent in CI (CI=true), where every peer must be present: "+format, args...)
	} else {
		t.Skipf(format, args...)
	}
}

// Without notes that t goes on without what the message names (a source
// it leaves out, a stand-in it uses instead): it logs that, or fails t in
// CI (t goes on, and fails at its end).
func Without(t testing.TB, format string, args ...any) {
	t.Helper()
	if CI() {
		t.Errorf("absent in CI (CI=true), where every peer must be present: "+format, args...)
	} else {
		t.Logf(format, args...)
	}
}

// Device ends t as [Absent] does unless the device (or file) at path
// opens for reading.
func Device(t testing.TB, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		Absent(t, "%v", err) // names path
		return
	}
	f.Close()
}

// PhysicalSource is the physical entropy source a test's daemon can draw
// on here: "hwrng" when /dev/hwrng opens for reading — always in CI, where
// [Device] fails t otherwise — else, on a developer's machine where only
// root may read it, "rdseed" when the CPU has RDSEED (said in t's log);
// without either, t is skipped.
func PhysicalSource(t testing.TB) string {
	t.Helper()
	f, err := os.Open("/dev/hwrng")
	if err == nil {
		f.Close()
		return "hwrng"
	}
	switch {
	case CI():
		Absent(t, "%v", err) // names /dev/hwrng: CI requires it
	case !cpu.X86.HasRDSEED:
		Absent(t, "%v, and the CPU has no RDSEED", err)
	}
	t.Logf("entropy source RDSEED, not rngd's default /dev/hwrng: %v", err)
	return "rdseed"
}

// SourcesTOML is the [[entropy.source]] tables of an rngd config file for
// a test's daemon: none (rngd's default, /dev/hwrng) or RDSEED's, as
// [PhysicalSource] decides.
func SourcesTOML(t testing.TB) string {
	t.Helper()
	if PhysicalSource(t) == "hwrng" {
		return ""
	}
	return RDSEEDSourcesTOML
}

// RDSEEDSourcesTOML is RDSEED in /dev/hwrng's place among rngd's default
// sources (README.md: make run without root), as a config file says it.
const RDSEEDSourcesTOML = "[[entropy.source]]\nkind = \"rdseed\"\nmin_entropy = 4.0\n[[entropy.source]]\nkind = \"getrandom\"\n"
