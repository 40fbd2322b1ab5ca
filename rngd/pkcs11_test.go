//go:build cgo

package rngd

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/hsm/hsmtest"
	"tirage.fr/tirage/hsm/pkcs11"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/verifier/vrf"
)

func init() { hsmKeys = softHSMKeys }

// softHSMKeys makes the keys inside a new SoftHSM2 token, as rngctl keys
// init does on an HSM (an RSA-FDH-VRF-SHA256 VRF key, through
// CKM_RSA_X_509, and an Ed25519 checkpoint key), and returns the config
// change that has the daemon use them.
func softHSMKeys(t testing.TB) func(*Config) {
	sh := hsmtest.NewSoftHSM(t)
	tok := sh.InitToken(t, "tirage-rngd")
	b, err := pkcs11.Open(pkcs11.Config{Module: sh.Module, TokenLabel: tok.Label, PIN: tok.PIN})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.GenerateVRF("vrf", vrf.SuiteRSAFDH256); err != nil {
		t.Fatal(err)
	}
	if _, err := b.GenerateSigner("log", hsm.Ed25519); err != nil {
		t.Fatal(err)
	}
	b.Close()
	pin := filepath.Join(t.TempDir(), "pin")
	if err := os.WriteFile(pin, append(tok.PIN, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	return func(c *Config) {
		// SoftHSM2 keeps its keys in files on this host: a software token,
		// which rngd runs on outside dev mode only with the opt-in.
		c.Keys = KeysConfig{Backend: "pkcs11", Module: sh.Module, TokenLabel: tok.Label, PINFile: pin, AllowSoftware: true}
	}
}

// The daemon on an HSM: keys generated inside a SoftHSM2 token (RSA-FDH-VRF
// through CKM_RSA_X_509, Ed25519 checkpoints), games played over mTLS, every
// receipt verified offline.
func TestE2EPKCS11(t *testing.T) {
	td := newTestDaemon(t, softHSMKeys(t))
	if td.d.engine.suite != vrf.SuiteRSAFDH256 {
		t.Fatalf("suite %s", td.d.engine.suite)
	}
	codes := td.emission("HSM", "2026-12-31", 30)
	a := td.client("server-a")
	for _, code := range codes[1:4] {
		g := playUntil(t, a, start(t, a, code).Game, func(*qodv1.Game) bool { return false })
		verifyGame(t, td, a, g)
	}
	if _, err := a.GetGame(context.Background(), &qodv1.GetGameRequest{GameId: "x"}); err == nil {
		t.Fatal("unknown game found")
	}
}
