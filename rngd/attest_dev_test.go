//go:build tirage_dev

package rngd

import (
	"bytes"
	"testing"
)

// In dev mode the start says that no build attestation can be made with
// its keystore, which has no attestation key (docs/keys.md), rather than
// sending the operator to rngctl attest build, which needs one.
func TestDevStartAttestationAdvice(t *testing.T) {
	td := newTestDaemon(t, func(c *Config) { c.Dev = true })
	logs := td.logs()
	if !bytes.Contains(logs, []byte(`level=INFO msg="no build attestation of this rngd in the log: auditors cannot tie its draws to a known build; dev mode's keystore has no attestation key, so none can be made here: attestations need a production keystore (rngctl keys init makes the attestation key`)) {
		t.Errorf("dev start: no advice a dev operator can follow:\n%s", logs)
	}
	if bytes.Contains(logs, []byte("sign one with rngctl attest build")) {
		t.Errorf("dev start sends the operator to rngctl attest build, which needs an attestation key:\n%s", logs)
	}
}
