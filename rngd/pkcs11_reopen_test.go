//go:build cgo

package rngd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPKCS11TokenBack: with the token's files moved away under a running
// daemon, proofs are refused and readiness names the keys; once they are
// back, the pkcs11 backend reopens the token by itself (no restart), the
// readiness probe's proof succeeds and proofs are made again.
func TestPKCS11TokenBack(t *testing.T) {
	td := newTestDaemon(t, softHSMKeys(t))
	e := td.d.engine
	alpha := []byte("tirage/alpha/v1 token back")
	if _, _, err := e.prove(alpha); err != nil {
		t.Fatal(err)
	}
	tokens := filepath.Join(filepath.Dir(os.Getenv("SOFTHSM2_CONF")), "tokens")
	ents, err := os.ReadDir(tokens)
	if err != nil || len(ents) != 1 {
		t.Fatalf("SoftHSM2 tokens %s: %d, %v", tokens, len(ents), err)
	}
	files, aside := filepath.Join(tokens, ents[0].Name()), filepath.Join(t.TempDir(), "token")
	if err := os.Rename(files, aside); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.prove(alpha); err == nil || !strings.Contains(err.Error(), "key custody unavailable") {
		t.Fatalf("prove with the token files away: %v, want refused", err)
	}
	if err := e.keysHealth(); err == nil {
		t.Error("readiness healthy with the token files away")
	}
	if err := os.Rename(aside, files); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); e.keysHealth() != nil; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("readiness still failed with the token back: %v", e.keysHealth())
		}
	}
	if _, _, err := e.prove(alpha); err != nil {
		t.Errorf("prove with the token back: %v", err)
	}
}
