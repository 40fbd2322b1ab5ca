//go:build tirage_dev

package ctl

import (
	"context"
	"os"
	"strings"
	"testing"

	"tirage.fr/tirage/internal/peertest"
	"tirage.fr/tirage/rngd"
)

// An rngctl built with dev mode rebuilds the data directory of make run
// (rngd --dev: ./data, the dev keystore passphrase) with --dev alone, or
// with a config file saying dev = true: what a production rngctl refuses
// (TestStateRebuildDevRefused, state_nodev_test.go).
func TestStateRebuildDev(t *testing.T) {
	peertest.Device(t, "/dev/hwrng") // the default entropy source
	t.Chdir(t.TempDir())
	cfg, err := rngd.ConfigFromFlags("", true)
	if err != nil {
		t.Fatal(err)
	}
	cfg.GRPC.Listen, cfg.Audit.Listen, cfg.HTTP.Listen = "127.0.0.1:0", "off", "off"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d, err := rngd.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- d.Serve(ctx) }()
	if code, out, errOut := rngctl("emission", "create", "--id", "E1", "--closure", "2199-01-01"); code != ExitOK {
		t.Fatalf("emission create (default socket data/admin.sock): exit %d %s%s", code, out, errOut)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("rngd: %v", err)
	}
	code, out, errOut := rngctl("state", "rebuild", "--dev")
	if code != ExitOK || !strings.Contains(out, "state store rebuilt from 2 log records") {
		t.Fatalf("state rebuild --dev: exit %d %q %q", code, out, errOut)
	}
	if err := os.WriteFile("dev.toml", []byte("dev = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = rngctl("state", "rebuild", "--config", "dev.toml")
	if code != ExitOK || !strings.Contains(out, "state store rebuilt from 2 log records") {
		t.Fatalf("state rebuild --config dev.toml (dev = true): exit %d %q %q", code, out, errOut)
	}
}
