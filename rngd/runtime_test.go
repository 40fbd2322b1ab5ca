package rngd

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// ProtectProcess leaves the process without core dumps and not dumpable,
// and the banner says so; a process that did not call it is reported
// unprotected. (It runs in a child process: the test process stays as it
// is.)
func TestProtectProcess(t *testing.T) {
	if os.Getenv("TIRAGE_PROTECT_CHILD") == "1" {
		before := processProtection()
		if err := ProtectProcess(); err != nil {
			fmt.Println("error:", err)
			return
		}
		var lim unix.Rlimit
		unix.Getrlimit(unix.RLIMIT_CORE, &lim)
		dumpable, _ := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
		fmt.Printf("before: %s\ncore %d/%d dumpable %d\nafter: %s\n", before, lim.Cur, lim.Max, dumpable, processProtection())
		return
	}
	out := childTest(t, "TestProtectProcess", "TIRAGE_PROTECT_CHILD=1")
	for _, want := range []string{"before: UNPROTECTED", "core 0/0 dumpable 0", "after: core dumps off, not dumpable"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("child output lacks %q:\n%s", want, out)
		}
	}
}

// childTest runs the test named test alone in a child process (this test
// binary) with env added, for a test that changes process-wide state
// (limits, scheduling policies) the test process must keep, and returns
// the child's output.
func childTest(t *testing.T, test, env string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return string(out)
}
