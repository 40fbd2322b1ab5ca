package rngd

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// signalHelper is TestSecondSignalKills' child (TestMain runs it when
// RNGD_TEST_SIGNAL is set): it waits for a signal with SignalContext, as
// rngd and rngctl do, then stands for a shutdown that does not end.
func signalHelper() {
	ctx, stop := SignalContext()
	defer stop()
	os.Stdout.WriteString("ready\n")
	<-ctx.Done()
	os.Stdout.WriteString("stopping\n")
	time.Sleep(time.Minute)
	os.Exit(0)
}

// A second SIGTERM while stopping takes long (rngd's shutdown, an rngctl
// ceremony) ends the process at once (the signal's default action): it is
// not swallowed.
func TestSecondSignalKills(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "RNGD_TEST_SIGNAL=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(out)
	expect := func(want string) {
		t.Helper()
		if !lines.Scan() || lines.Text() != want {
			t.Fatalf("child said %q (%v), want %q", lines.Text(), lines.Err(), want)
		}
	}
	expect("ready")
	cmd.Process.Signal(syscall.SIGTERM)
	expect("stopping")
	cmd.Process.Signal(syscall.SIGTERM)
	go io.Copy(io.Discard, out)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
			t.Errorf("after a second SIGTERM the child exited with %v, want killed by SIGTERM", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("a second SIGTERM during the shutdown was swallowed: the child still runs")
	}
}
