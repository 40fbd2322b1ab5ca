package rngd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// game.refund_grace: unset is the default, 7 days; "0s" is a value (the
// expiry sealed at the deadline), not the default; a negative one is
// refused, naming the key, by rngd, a rebuild and the Go API alike.
func TestConfigRefundGrace(t *testing.T) {
	const base = `log.origin = "tirage.test/rngd"
grpc.cert_file = "a"
grpc.key_file = "b"
grpc.client_ca_file = "c"
keys.allow_software = true
keys.passphrase_file = "p"
`
	load := func(extra string) (Config, error) {
		t.Helper()
		p := filepath.Join(t.TempDir(), "rngd.toml")
		if err := os.WriteFile(p, []byte(base+extra), 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := ConfigFromFlags(p, false)
		if err != nil {
			return c, err
		}
		if _, err := ConfigForRebuild(p, false); err != nil {
			t.Fatalf("rngd accepts it, a rebuild refuses it: %v", err)
		}
		return c.withDefaults()
	}
	for extra, want := range map[string]time.Duration{
		"":                                  7 * 24 * time.Hour,
		"game.refund_grace = \"0s\"\n":      0,
		"game.refund_grace = \"36h\"\n":     36 * time.Hour,
		"[game]\nrefund_grace = \"720h\"\n": 720 * time.Hour,
	} {
		c, err := load(extra)
		if err != nil {
			t.Errorf("%q: %v", extra, err)
			continue
		}
		if c.Game.RefundGrace == nil || c.Game.RefundGrace.Duration != want || c.Game.refundGrace() != want {
			t.Errorf("%q: game.refund_grace = %v, want %s", extra, c.Game.RefundGrace, want)
		}
	}
	for _, extra := range []string{"game.refund_grace = \"-1s\"\n", "game.refund_grace = \"-168h\"\n", "game.refund_grace = \"745h\"\n", "game.refund_grace = \"2400h\"\n", "game.refund_grace = \"soon\"\n", "game.refund_grace = 7\n"} {
		if _, err := load(extra); err == nil || !strings.Contains(err.Error(), "game.refund_grace") {
			t.Errorf("%q: %v, want an error naming game.refund_grace", extra, err)
		}
	}

	// The Go API: nil is the default, a negative value refused, and a
	// config checked twice keeps its value.
	c := Config{DataDir: t.TempDir(), GRPC: GRPCConfig{CertFile: "a", KeyFile: "b", ClientCAFile: "c"},
		Log: LogConfig{Origin: "tirage.test/rngd"}, Keys: KeysConfig{AllowSoftware: true, PassphraseFile: "p"}}
	if got := c.Game.refundGrace(); got != 7*24*time.Hour {
		t.Errorf("unset refundGrace() = %s", got)
	}
	c.Game.RefundGrace = &Duration{-time.Second}
	if _, err := c.withDefaults(); err == nil || !strings.Contains(err.Error(), "config game.refund_grace = -1s") {
		t.Errorf("negative game.refund_grace: %v", err)
	}
	if _, err := Rebuild(t.Context(), c); err == nil || !strings.Contains(err.Error(), "game.refund_grace") {
		t.Errorf("Rebuild with a negative game.refund_grace: %v", err)
	}
	c.Game.RefundGrace = &Duration{}
	d, err := c.withDefaults()
	if err == nil {
		d, err = d.withDefaults()
	}
	if err != nil || d.Game.refundGrace() != 0 {
		t.Errorf("game.refund_grace 0 checked twice: %v %v", d.Game.RefundGrace, err)
	}
}
