package rngd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The documented example parses, with every key known.
func TestExampleConfig(t *testing.T) {
	c, err := LoadConfig("../examples/rngd.toml")
	if err != nil {
		t.Fatal(err)
	}
	if c.GRPC.Listen != "0.0.0.0:7443" || c.Keys.AnnouncementFile == "" || len(c.Entropy.Sources) != 2 || c.Entropy.Sources[0].MinEntropy != 4 || c.Game.SweepInterval.Minutes() != 1 {
		t.Fatalf("example config: %+v", c)
	}
	if _, err := c.withDefaults(); err != nil {
		t.Fatal(err)
	}
}

func TestConfigErrors(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct{ toml, want string }{
		"unknown key": {"data_dir = \"x\"\ngrpcc = 1\n", "unknown keys: grpcc"},
		"dev in prod": {"dev = true\n", "built without dev mode"},
		"no certs":    {"[grpc]\nlisten = \"127.0.0.1:1\"\n", "cert_file, key_file and client_ca_file are required"},
		"bad zone":    {"[grpc]\ncert_file=\"a\"\nkey_file=\"b\"\nclient_ca_file=\"c\"\n[game]\ntime_zone = \"Mars/Olympus\"\n", "game.time_zone"},
		"bad backend": {"[grpc]\ncert_file=\"a\"\nkey_file=\"b\"\nclient_ca_file=\"c\"\n[log]\nbackend = \"mysql\"\n", "log.backend"},
	} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".toml")
		os.WriteFile(p, []byte(tc.toml), 0o600)
		c, err := LoadConfig(p)
		if err == nil {
			_, err = c.withDefaults()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
}
