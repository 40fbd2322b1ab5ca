package ctl

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tirage.fr/tirage/internal/peertest"
	"tirage.fr/tirage/rngd/rngdtest"
)

// stoppedDaemon runs a test rngd (rngdtest), has rngctl register an
// emission on it, and stops it: its data directory, passphrase file and
// log origin.
func stoppedDaemon(t *testing.T) *rngdtest.Daemon {
	t.Helper()
	d := rngdtest.Start(t)
	if code, out, errOut := rngctl("emission", "create", "--socket", d.Admin, "--id", "E1", "--closure", "2199-01-01"); code != ExitOK {
		t.Fatalf("emission create: exit %d %s%s", code, out, errOut)
	}
	d.Stop()
	return d
}

// A rebuild's config needs what a rebuild uses — data_dir, [log], [keys],
// [entropy] — and not the game servers' certificate files, which it never
// reads; what it has is checked as rngd checks it (exit 2 naming the key).
func TestStateRebuildConfigWithoutTLS(t *testing.T) {
	dir := t.TempDir()
	peertest.Device(t, "/dev/hwrng") // the default entropy source
	d := stoppedDaemon(t)
	data, pass := d.DataDir, d.PassphraseFile
	config := filepath.Join(dir, "rebuild.toml")
	text := fmt.Sprintf("data_dir = %q\n[log]\norigin = %q\n[keys]\nallow_software = true\npassphrase_file = %q\n", data, d.Origin, pass)
	if err := os.WriteFile(config, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := rngctl("state", "rebuild", "--config", config)
	if code != ExitOK || !strings.Contains(out, "state store rebuilt from 2 log records") {
		t.Fatalf("state rebuild without [grpc]: exit %d %q %q", code, out, errOut)
	}
	// A [grpc] table with only some of the files, or other keys: the same.
	partial := filepath.Join(dir, "partial.toml")
	os.WriteFile(partial, []byte(text+"[grpc]\nlisten = \"127.0.0.1:9443\"\ncert_file = \"/nonexistent/rngd.pem\"\n"), 0o600)
	if code, out, errOut := rngctl("state", "rebuild", "--config", partial); code != ExitOK {
		t.Errorf("state rebuild with a partial [grpc]: exit %d %q %q", code, out, errOut)
	}
	// The rest is checked as rngd checks it, naming the file and the key.
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte(text+"[game]\nsweep_interval = \"-1s\"\n"), 0o600)
	code, out, errOut = rngctl("state", "rebuild", "--config", bad)
	if want := "rngctl: state rebuild: --config: " + bad + ": config game.sweep_interval = -1s: want a positive duration"; code != ExitUsage || out != "" || !strings.HasPrefix(errOut, want) || strings.Count(errOut, "\n") != 1 {
		t.Errorf("state rebuild, bad config: exit %d %q %q; want exit 2 and %q", code, out, errOut, want)
	}
	noOrigin := filepath.Join(dir, "noorigin.toml")
	os.WriteFile(noOrigin, []byte(fmt.Sprintf("data_dir = %q\n[keys]\nallow_software = true\npassphrase_file = %q\n", data, pass)), 0o600)
	if code, _, errOut := rngctl("state", "rebuild", "--config", noOrigin); code != ExitUsage || !strings.Contains(errOut, noOrigin+": config log.origin is required") {
		t.Errorf("state rebuild, no origin: exit %d %q", code, errOut)
	}
}
