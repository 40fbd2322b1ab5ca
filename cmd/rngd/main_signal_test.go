package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"tirage.fr/tirage/internal/peertest"
	"tirage.fr/tirage/rngd"
)

// SIGTERM while rngd starts (here, reading keys.passphrase_file from a FIFO
// no one writes to) is a clean stop: exit 0, one line saying so.
func TestSignalDuringStart(t *testing.T) {
	dir := t.TempDir()
	pki, err := rngd.GenerateDevPKI(filepath.Join(dir, "pki"), "server-a")
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "passphrase")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "rngd.toml")
	toml := "data_dir = \"" + filepath.Join(dir, "data") + "\"\n[grpc]\nlisten = \"127.0.0.1:0\"\ncert_file = \"" + pki.ServerCert() +
		"\"\nkey_file = \"" + pki.ServerKey() + "\"\nclient_ca_file = \"" + pki.CA() + "\"\n[audit]\nlisten = \"off\"\n[http]\nlisten = \"off\"\n" +
		"[log]\norigin = \"tirage.test/rngd\"\n[keys]\nallow_software = true\npassphrase_file = \"" + fifo + "\"\n" + peertest.SourcesTOML(t)
	if err := os.WriteFile(p, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "--config", p)
	cmd.Env = append(os.Environ(), "RNGD_TEST_MAIN=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// The FIFO opens for writing once rngd opened it for reading; the
	// writer is held open, so rngd waits for the passphrase.
	var w int
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if w, err = unix.Open(fifo, unix.O_WRONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("rngd did not open keys.passphrase_file: %v; stderr %q", err, stderr.String())
		}
	}
	defer unix.Close(w)
	cmd.Process.Signal(syscall.SIGTERM)
	err = cmd.Wait()
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code != 0 || !strings.Contains(stderr.String(), "stopped before it started") {
		t.Errorf("SIGTERM during the start: exit %d, stderr %q; want 0 and \"stopped before it started\"", code, stderr.String())
	}
}
