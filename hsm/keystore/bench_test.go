package keystore_test

import (
	"path/filepath"
	"testing"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/hsm/hsmtest"
	"tirage.fr/tirage/hsm/keystore"
	"tirage.fr/tirage/verifier/vrf"
)

// BenchmarkSoftware: proving and signing with software keys.
func BenchmarkSoftware(b *testing.B) {
	s, err := keystore.Open(keystore.Config{Dir: filepath.Join(b.TempDir(), "keys"), Passphrase: []byte(passphrase), KDF: testKDF})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for label, suite := range map[string]vrf.Suite{"ecvrf-p256-sswu": vrf.SuiteP256SSWU, "rsa-fdh-vrf-2048": vrf.SuiteRSAFDH256} {
		if _, err := s.GenerateVRF(label, suite); err != nil {
			b.Fatal(err)
		}
	}
	for label, alg := range map[string]string{"ed25519": hsm.Ed25519, "ecdsa-p256": hsm.ECDSAP256SHA256} {
		if _, err := s.GenerateSigner(label, alg); err != nil {
			b.Fatal(err)
		}
	}
	hsmtest.Bench(b, s)
}

// BenchmarkOpen: unsealing one key file with the default Argon2id cost.
func BenchmarkOpen(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "keys")
	s, err := keystore.Open(keystore.Config{Dir: dir, Passphrase: []byte(passphrase)})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.GenerateSigner("log", ""); err != nil {
		b.Fatal(err)
	}
	s.Close()
	for b.Loop() {
		s, err := keystore.Open(keystore.Config{Dir: dir, Passphrase: []byte(passphrase)})
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}
