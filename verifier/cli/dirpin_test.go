package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestDirPinsWithLogKey: a tile directory (--dir) serves no vkey, so its
// log key comes from --log-key; a --pin beside it that needs nothing the
// log serves — a VRF key's SUITE:FP pin, or the fingerprint of a key the
// --log-key file gives — is taken on the first run too (before, the
// command read DIR/vkey for any pin and refused, exit 2, asking for the
// --log-key that was given). A bare pin of another key still needs the
// served keys: refused, naming --log-key.
func TestDirPinsWithLogKey(t *testing.T) {
	const dir = "testdata/rngd"
	tiles, key := filepath.Join(dir, "tiles"), filepath.Join(dir, "log.vkey")
	const (
		vrfPin = "ECVRF-P256-SHA256-SSWU:30540d548dc6d5c905f0700a8213e7ca8cf7e80bcc43ac2fe595cf16bb99834f"
		logPin = "2828a7ba6f6b9382bf406461388ea7e2ca4cbb92c0299841b8d3b7ca0fa446ed"
	)
	for _, tc := range []struct {
		cmd string
		pin string
	}{
		{"audit", vrfPin},
		{"audit", logPin},
		{"log", logPin},
		{"log", "SHA256:" + strings.ToUpper(logPin)},
	} {
		state := filepath.Join(t.TempDir(), "state.json") // a first run: the state does not know the log
		code, out, errs := run(t, tc.cmd, "--dir", tiles, "--log-key", key, "--pin", tc.pin, "--state", state, "--quiet")
		if code != ExitOK || !strings.Contains(out, "[PASS] checkpoint-signature") {
			t.Errorf("%s --dir --log-key --pin %s: exit %d\n%s%s", tc.cmd, tc.pin, code, out, errs)
		}
	}

	other := strings.Repeat("ab", 32) // no key of the file
	state := filepath.Join(t.TempDir(), "state.json")
	code, out, errs := run(t, "log", "--dir", tiles, "--log-key", key, "--pin", other, "--state", state)
	if code != ExitUsage || !strings.Contains(errs, "--log-key") || out != "" {
		t.Errorf("log --dir --pin of another key: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
