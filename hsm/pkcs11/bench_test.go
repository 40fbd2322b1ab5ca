//go:build cgo

package pkcs11_test

import (
	"runtime"
	"testing"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/hsm/hsmtest"
	"tirage.fr/tirage/hsm/pkcs11"
	"tirage.fr/tirage/verifier/vrf"
)

// BenchmarkSoftHSM: proving and signing inside SoftHSM2 (one session per
// core), including the host-side check of every result.
func BenchmarkSoftHSM(b *testing.B) {
	sh := hsmtest.NewSoftHSM(b)
	tok := sh.InitToken(b, "tirage-bench")
	t, err := pkcs11.Open(pkcs11.Config{Module: sh.Module, TokenLabel: tok.Label, PIN: tok.PIN, Sessions: runtime.GOMAXPROCS(0)})
	if err != nil {
		b.Fatal(err)
	}
	defer t.Close()
	if _, err := t.GenerateVRF("rsa-fdh-vrf-2048", vrf.SuiteRSAFDH256); err != nil {
		b.Fatal(err)
	}
	for label, alg := range map[string]string{"ed25519": hsm.Ed25519, "ecdsa-p256": hsm.ECDSAP256SHA256} {
		if _, err := t.GenerateSigner(label, alg); err != nil {
			b.Fatal(err)
		}
	}
	hsmtest.Bench(b, t)
}
