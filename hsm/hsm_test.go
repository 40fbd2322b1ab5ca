package hsm_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"strings"
	"testing"

	"tirage.fr/tirage/hsm"
)

func TestCheckLabel(t *testing.T) {
	for _, ok := range []string{"vrf", "log-2026.1", "A_b", strings.Repeat("x", 64)} {
		if err := hsm.CheckLabel(ok); err != nil {
			t.Errorf("CheckLabel(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", ".x", "a/b", "a b", "é", "a\x00", strings.Repeat("x", 65)} {
		if err := hsm.CheckLabel(bad); !errors.Is(err, hsm.ErrBadLabel) {
			t.Errorf("CheckLabel(%q) = %v, want ErrBadLabel", bad, err)
		}
	}
}

func TestSignerPublicOnlyP256AndEd25519(t *testing.T) {
	k, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hsm.MarshalSignerPublic(&k.PublicKey); !errors.Is(err, hsm.ErrUnsupported) {
		t.Errorf("P-384 key: %v, want ErrUnsupported", err)
	}
	if err := hsm.VerifySignature(&k.PublicKey, hsm.ECDSAP256SHA256, []byte("m"), []byte("sig")); err == nil {
		t.Error("VerifySignature accepted a P-384 key as P-256")
	}
	if err := hsm.VerifySignature(&k.PublicKey, "RSA-PSS", nil, nil); !errors.Is(err, hsm.ErrUnsupported) {
		t.Errorf("unknown algorithm: %v", err)
	}
}
