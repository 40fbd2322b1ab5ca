// Package entropytest holds test helpers for the entropy sources: it starts
// Debian's swtpm on free loopback ports so that tests of the TPM source (in
// this module's packages and binaries) talk to a real TPM 2.0 implementation.
package entropytest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"tirage.fr/tirage/internal/peertest"
	"tirage.fr/tirage/rngd/internal/testio"
)

// StartSwtpm starts `swtpm socket --tpm2` with a fresh state directory, its
// command and control channels on free loopback ports, already initialised
// and started (--flags not-need-init,startup-clear). It returns the command
// address and stops swtpm (by its PID) at cleanup. Without swtpm installed
// it skips the test, or fails it in CI ([peertest.Absent]; make deps
// installs swtpm).
func StartSwtpm(t testing.TB) string {
	t.Helper()
	addr, _ := StartSwtpmProcess(t)
	return addr
}

// StartSwtpmProcess is StartSwtpm that also returns the swtpm process, for
// tests that make the TPM stop answering (SIGSTOP) and resume (SIGCONT).
func StartSwtpmProcess(t testing.TB) (string, *os.Process) {
	t.Helper()
	bin, err := exec.LookPath("swtpm")
	if err != nil {
		peertest.Absent(t, "swtpm not installed (install Debian's swtpm: make deps)")
	}
	port, ctrl := FreePort(t), FreePort(t)
	cmd := exec.Command(bin, "socket", "--tpm2",
		"--server", "type=tcp,port="+strconv.Itoa(port)+",bindaddr=127.0.0.1",
		"--ctrl", "type=tcp,port="+strconv.Itoa(ctrl)+",bindaddr=127.0.0.1",
		"--tpmstate", "dir="+t.TempDir(),
		"--flags", "not-need-init,startup-clear")
	out := &testio.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	// Wait for the process to listen (start-up, not the passage of time).
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return addr, cmd.Process
		}
		if time.Now().After(deadline) {
			t.Fatalf("swtpm did not listen on %s: %v; output: %s", addr, err, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
