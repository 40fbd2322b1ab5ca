//go:build cgo

package pkcs11

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/asn1"
	"errors"
	"testing"

	p11 "github.com/miekg/pkcs11"

	"tirage.fr/tirage/hsm"
)

func octetString(t *testing.T, b []byte) []byte {
	t.Helper()
	der, err := asn1.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

// p256Point returns the uncompressed point of a fresh P-256 key whose X
// starts with x0.
func p256Point(t *testing.T, x0 byte) []byte {
	t.Helper()
	for range 1 << 16 {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		pt, err := k.PublicKey.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		if pt[1] == x0 {
			return pt
		}
	}
	t.Fatalf("no P-256 key with X[0] = %#x", x0)
	return nil
}

// TestECPointEncodings: CKA_EC_POINT is accepted DER-wrapped (PKCS#11) and
// bare (some tokens), whatever the first bytes of the point. A bare point
// whose bytes happen to parse as a DER OCTET STRING (04 3f … for P-256,
// 04 1e … for Ed25519) used to be unwrapped and truncated.
func TestECPointEncodings(t *testing.T) {
	var p256 [][]byte
	for _, x0 := range []byte{0x3f, 0x3e, 0x00, 0x81, 0xff} {
		p256 = append(p256, p256Point(t, x0))
	}
	for _, pt := range p256 {
		for name, enc := range map[string][]byte{"bare": pt, "DER": octetString(t, pt)} {
			pub, alg, err := ecPublic(p11.CKK_EC, oidP256, enc)
			if err != nil {
				t.Errorf("P-256 %s point %x…: %v", name, pt[:4], err)
				continue
			}
			got, _ := pub.(*ecdsa.PublicKey).Bytes()
			if alg != hsm.ECDSAP256SHA256 || !bytes.Equal(got, pt) {
				t.Errorf("P-256 %s point %x…: got %s %x", name, pt[:4], alg, got)
			}
		}
	}

	edKeys := [][]byte{
		append([]byte{0x04, 0x1e}, make([]byte, 30)...), // a DER OCTET STRING of 30 bytes, read bare
		append([]byte{0x04, 0x20}, make([]byte, 30)...),
	}
	for range 4 {
		pub, _, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		edKeys = append(edKeys, pub)
	}
	for _, pt := range edKeys {
		for name, enc := range map[string][]byte{"bare": pt, "DER": octetString(t, pt)} {
			pub, alg, err := ecPublic(ckkECEdwards, oidEd25519, enc)
			if err != nil {
				t.Errorf("Ed25519 %s point %x…: %v", name, pt[:4], err)
				continue
			}
			if alg != hsm.Ed25519 || !bytes.Equal(pub.(ed25519.PublicKey), pt) {
				t.Errorf("Ed25519 %s point %x…: got %s %x", name, pt[:4], alg, pub)
			}
		}
	}

	// Malformed values are refused.
	pt := p256[0]
	offCurve := bytes.Clone(pt)
	offCurve[64] ^= 1
	for name, c := range map[string]struct {
		keyType uint
		params  []byte
		v       []byte
	}{
		"P-256 off the curve":           {p11.CKK_EC, oidP256, offCurve},
		"P-256 DER off the curve":       {p11.CKK_EC, oidP256, octetString(t, offCurve)},
		"P-256 DER with trailing bytes": {p11.CKK_EC, oidP256, append(octetString(t, pt), 0)},
		"P-256 DER of a short point":    {p11.CKK_EC, oidP256, octetString(t, pt[:64])},
		"P-256 compressed":              {p11.CKK_EC, oidP256, append([]byte{0x02}, pt[1:33]...)},
		"P-256 empty":                   {p11.CKK_EC, oidP256, nil},
		"Ed25519 short":                 {ckkECEdwards, oidEd25519, edKeys[2][:31]},
		"Ed25519 DER of a short point":  {ckkECEdwards, oidEd25519, octetString(t, edKeys[2][:31])},
		"Ed25519 DER with trailing":     {ckkECEdwards, oidEd25519, append(octetString(t, edKeys[2]), 0)},
	} {
		if pub, _, err := ecPublic(c.keyType, c.params, c.v); err == nil {
			t.Errorf("%s: accepted as %x", name, pub)
		}
	}
	if _, _, err := ecPublic(p11.CKK_EC, oidEd25519, octetString(t, pt)); !errors.Is(err, hsm.ErrUnsupported) {
		t.Errorf("EC key with Ed25519 parameters: err = %v, want ErrUnsupported", err)
	}
}
