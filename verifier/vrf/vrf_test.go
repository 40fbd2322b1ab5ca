package vrf

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	cryptorand "crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/asn1"
	"errors"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"filippo.io/nistec"

	"tirage.fr/tirage/verifier/verdict"
)

// example is a vector decoded into keys and byte strings.
type example struct {
	v               rfcVector
	suite           Suite
	sk              *PrivateKey
	pk              *PublicKey
	alpha, pi, beta []byte
	skRaw, pkRaw    []byte
}

func loadExamples(t testing.TB) []example {
	t.Helper()
	var out []example
	for _, v := range loadVectors(t) {
		s := Suite(v.Suite)
		skRaw, pkRaw := vectorKeys(t, v)
		sk, err := NewPrivateKey(s, skRaw)
		if err != nil {
			t.Fatal(err)
		}
		pk, err := ParsePublicKey(s, pkRaw)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, example{v: v, suite: s, sk: sk, pk: pk, skRaw: skRaw, pkRaw: pkRaw,
			alpha: unhex(t, v.Alpha), pi: unhex(t, v.Pi), beta: unhex(t, v.Beta)})
	}
	return out
}

// mustReject checks that Verify fails with an error wrapping
// ErrInvalidProof whose message contains want.
func mustReject(t *testing.T, pk *PublicKey, alpha, pi []byte, want string) {
	t.Helper()
	beta, err := Verify(pk, alpha, pi)
	if err == nil {
		t.Fatalf("Verify accepted a bad proof (beta %x)", beta)
	}
	if !errors.Is(err, ErrInvalidProof) {
		t.Errorf("error %q does not wrap ErrInvalidProof", err)
	}
	if beta != nil {
		t.Errorf("Verify returned beta %x with an error", beta)
	}
	if strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "vrf: ") {
		t.Errorf("error %q is not one line starting with \"vrf: \"", err)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
}

func TestRejectBitFlips(t *testing.T) {
	for _, e := range loadExamples(t) {
		t.Run(e.v.ID, func(t *testing.T) {
			bits := len(e.pi) * 8
			step := 1
			if e.suite == SuiteRSAFDH256 && len(e.pi) > 256 {
				step = 7 // keep the larger keys quick under -race
			}
			for i := 0; i < bits; i += step {
				pi := bytes.Clone(e.pi)
				pi[i/8] ^= 0x80 >> (i % 8)
				if _, err := Verify(e.pk, e.alpha, pi); !errors.Is(err, ErrInvalidProof) {
					t.Fatalf("bit %d flipped: Verify returned %v", i, err)
				}
			}
		})
	}
}

func TestRejectChangedAlpha(t *testing.T) {
	for _, e := range loadExamples(t) {
		t.Run(e.v.ID, func(t *testing.T) {
			mustReject(t, e.pk, append(bytes.Clone(e.alpha), 0), e.pi, "does not verify under this key")
			if len(e.alpha) > 0 {
				a := bytes.Clone(e.alpha)
				a[0] ^= 1
				mustReject(t, e.pk, a, e.pi, "does not verify under this key")
				mustReject(t, e.pk, e.alpha[1:], e.pi, "does not verify under this key")
			}
		})
	}
}

func TestRejectWrongKey(t *testing.T) {
	ex := loadExamples(t)
	for _, e := range ex {
		t.Run(e.v.ID, func(t *testing.T) {
			n := 0
			for _, o := range ex {
				if o.suite != e.suite || o.pk.Equal(e.pk) {
					continue
				}
				n++
				if e.suite == SuiteRSAFDH256 {
					// A key of another size rejects by length.
					mustReject(t, o.pk, e.alpha, e.pi, "proof has")
				} else {
					mustReject(t, o.pk, e.alpha, e.pi, "does not verify under this key")
				}
			}
			if n == 0 {
				t.Fatal("no other key of the suite to test with")
			}
			// A fresh key of the same size.
			var sk *PrivateKey
			var err error
			if e.suite == SuiteRSAFDH256 {
				sk = testRSAKey(t)
				if sk.Public().rsa.k != len(e.pi) {
					return
				}
			} else {
				sk, err = GenerateKey(e.suite, rand.NewChaCha8([32]byte{1}))
				if err != nil {
					t.Fatal(err)
				}
			}
			mustReject(t, sk.Public(), e.alpha, e.pi, "does not verify under this key")
		})
	}
}

func TestSuiteMismatch(t *testing.T) {
	// The same key and alpha under the other P-256 suite must not verify.
	for _, e := range loadExamples(t) {
		if !e.suite.isEC() {
			continue
		}
		other := SuiteP256TAI
		if e.suite == SuiteP256TAI {
			other = SuiteP256SSWU
		}
		pk, err := ParsePublicKey(other, e.pkRaw)
		if err != nil {
			t.Fatal(err)
		}
		mustReject(t, pk, e.alpha, e.pi, "does not verify under this key")
	}
}

var (
	p256P = elliptic.P256().Params().P
	p256N = elliptic.P256().Params().N
	p256B = elliptic.P256().Params().B
)

// smallestX returns the smallest x ≥ from with (square) or without (!square)
// a point (x, y) on P-256.
func smallestX(from int64, square bool) *big.Int {
	for x := big.NewInt(from); ; x.Add(x, big.NewInt(1)) {
		y2 := new(big.Int).Exp(x, big.NewInt(3), p256P)
		y2.Sub(y2, new(big.Int).Mul(big.NewInt(3), x))
		y2.Add(y2, p256B).Mod(y2, p256P)
		if (big.Jacobi(y2, p256P) >= 0) == square {
			return x
		}
	}
}

func compressed(prefix byte, x *big.Int) []byte {
	b := make([]byte, 33)
	b[0] = prefix
	x.FillBytes(b[1:])
	return b
}

// badPoints are 33-byte (or other) encodings that string_to_point must
// reject, with the reason a caller sees.
func badPoints(t *testing.T, valid []byte) map[string][]byte {
	t.Helper()
	onCurve := smallestX(1, true)
	if got := new(big.Int).Add(onCurve, p256P); got.BitLen() > 256 {
		t.Fatal("test point too large")
	}
	uncompressed := func() []byte {
		p, err := nistec.NewP256Point().SetBytes(valid)
		if err != nil {
			t.Fatal(err)
		}
		return p.Bytes()
	}()
	return map[string][]byte{
		"identity (SEC 1 0x00)":         {0x00},
		"identity padded to 33 bytes":   make([]byte, 33),
		"not on the curve":              compressed(0x02, smallestX(1, false)),
		"non-canonical x+p":             compressed(0x02, new(big.Int).Add(onCurve, p256P)),
		"x = p":                         compressed(0x02, p256P),
		"all ones":                      bytes.Repeat([]byte{0xff}, 33),
		"uncompressed":                  uncompressed,
		"hybrid prefix 0x06":            append([]byte{0x06}, uncompressed[1:]...),
		"prefix 0x04 with 33 bytes":     append([]byte{0x04}, valid[1:]...),
		"truncated":                     valid[:32],
		"extended":                      append(bytes.Clone(valid), 0),
		"empty":                         {},
		"valid point, wrong prefix 0x0": append([]byte{0x00}, valid[1:]...),
	}
}

func TestRejectInvalidECPublicKeys(t *testing.T) {
	valid := unhex(t, "0360fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6")
	// The small on-curve x is accepted in its canonical form.
	if _, err := ParsePublicKey(SuiteP256SSWU, compressed(0x02, smallestX(1, true))); err != nil {
		t.Fatalf("canonical point rejected: %v", err)
	}
	for name, b := range badPoints(t, valid) {
		for _, s := range []Suite{SuiteP256SSWU, SuiteP256TAI} {
			if pk, err := ParsePublicKey(s, b); err == nil {
				t.Errorf("%s: %s key accepted: %x", name, s, pk.Bytes())
			} else if !strings.HasPrefix(err.Error(), "vrf: public key: ") {
				t.Errorf("%s: error %q", name, err)
			}
		}
	}
	if _, err := ParsePublicKey(SuiteP256SSWU, badPoints(t, valid)["uncompressed"]); err == nil || !strings.Contains(err.Error(), "uncompressed") {
		t.Errorf("uncompressed key: error %v does not say uncompressed", err)
	}
}

func TestRejectBadGamma(t *testing.T) {
	for _, e := range loadExamples(t) {
		if !e.suite.isEC() {
			continue
		}
		for name, g := range badPoints(t, e.pi[:33]) {
			pi := append(append([]byte{}, g...), e.pi[33:]...)
			want := "Gamma is not a valid compressed point"
			if len(g) != 33 {
				want = "proof has"
			}
			t.Run(e.v.ID+"/"+name, func(t *testing.T) {
				mustReject(t, e.pk, e.alpha, pi, want)
				if _, err := ProofToHash(e.suite, pi); !errors.Is(err, ErrInvalidProof) {
					t.Errorf("ProofToHash: %v", err)
				}
			})
		}
	}
}

func TestRejectUnreducedS(t *testing.T) {
	for _, e := range loadExamples(t) {
		if !e.suite.isEC() {
			continue
		}
		for name, bad := range map[string]*big.Int{
			"q":       p256N,
			"q+1":     new(big.Int).Add(p256N, big.NewInt(1)),
			"2^256-1": new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1)),
		} {
			if bad.BitLen() > 256 {
				continue
			}
			pi := bytes.Clone(e.pi)
			bad.FillBytes(pi[49:])
			t.Run(e.v.ID+"/"+name, func(t *testing.T) {
				mustReject(t, e.pk, e.alpha, pi, "s is not reduced mod q")
				if _, err := ProofToHash(e.suite, pi); !errors.Is(err, ErrInvalidProof) {
					t.Errorf("ProofToHash: %v", err)
				}
			})
		}
	}
}

func TestRejectWrongLengths(t *testing.T) {
	for _, e := range loadExamples(t) {
		t.Run(e.v.ID, func(t *testing.T) {
			for _, pi := range [][]byte{nil, e.pi[:len(e.pi)-1], append(bytes.Clone(e.pi), 0), append([]byte{0}, e.pi...)} {
				mustReject(t, e.pk, e.alpha, pi, "proof has")
			}
		})
	}
	// The message names both lengths.
	e := loadExamples(t)[6]
	_, err := Verify(e.pk, e.alpha, e.pi[:80])
	if err == nil || err.Error() != "vrf: proof has 80 bytes, want 81" {
		t.Errorf("error %v", err)
	}
}

func TestRejectRSAProofNotBelowN(t *testing.T) {
	for _, e := range loadExamples(t) {
		if e.suite != SuiteRSAFDH256 {
			continue
		}
		n := e.pk.rsa.nBig
		for name, bad := range map[string]*big.Int{
			"n":      n,
			"n+1":    new(big.Int).Add(n, big.NewInt(1)),
			"pi+n":   new(big.Int).Add(new(big.Int).SetBytes(e.pi), n), // same pi mod n
			"2^8k-1": new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(8*len(e.pi))), big.NewInt(1)),
		} {
			if bad.BitLen() > 8*len(e.pi) {
				continue
			}
			t.Run(e.v.ID+"/"+name, func(t *testing.T) {
				mustReject(t, e.pk, e.alpha, bad.FillBytes(make([]byte, len(e.pi))), "not less than the RSA modulus")
			})
		}
		// pi = 0 and pi = 1 are below n but are not proofs.
		mustReject(t, e.pk, e.alpha, make([]byte, len(e.pi)), "does not verify")
		one := make([]byte, len(e.pi))
		one[len(one)-1] = 1
		mustReject(t, e.pk, e.alpha, one, "does not verify")
	}
}

func rsaSPKI(t *testing.T, n *big.Int, e int) []byte {
	t.Helper()
	b, err := x509.MarshalPKIXPublicKey(&rsa.PublicKey{N: n, E: e})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRejectInvalidRSAPublicKeys(t *testing.T) {
	e := loadExamples(t)[0]
	n := e.pk.rsa.nBig
	small, _ := new(big.Int).SetString("c8a2069182394a2ab7c3f4190c15589c56a2d4bc42dca675b34cc950e24663048441e8aa593b2bc59e198b8c257e882120c62336e5cc745012c7ffb063eebe53f3c6504cba6cfe51baa3b6d1074b2f398a3f6cc8bc8d4c0bb6d8ab9f7ed8ba3fc85bea7d6ca4fb1e4b6e2a0e3d59c7d8c1d8e1b7e0ebf9e76aee26f1efbb3aefa5", 16)
	ecKey := unhex(t, "0360fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6")
	for name, c := range map[string]struct {
		der  []byte
		want string
	}{
		"e = 1":           {rsaSPKI(t, n, 1), "public exponent 1"},
		"e = 2":           {rsaSPKI(t, n, 2), "public exponent 2"},
		"e even":          {rsaSPKI(t, n, 65536), "public exponent 65536"},
		"n even":          {rsaSPKI(t, new(big.Int).Add(n, big.NewInt(1)), 65537), "even"},
		"n too small":     {rsaSPKI(t, small, 65537), "bits, want 2048 to 8192"},
		"trailing data":   {append(bytes.Clone(e.pkRaw), 0), "DER"},
		"truncated":       {e.pkRaw[:len(e.pkRaw)-1], "DER"},
		"empty":           {nil, "DER"},
		"EC point":        {ecKey, "DER"},
		"PKCS#1 not SPKI": {x509.MarshalPKCS1PublicKey(&rsa.PublicKey{N: n, E: 65537}), "DER"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParsePublicKey(SuiteRSAFDH256, c.der)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
		})
	}
	// A P-256 suite rejects an RSA key and vice versa.
	if _, err := ParsePublicKey(SuiteP256SSWU, e.pkRaw); err == nil {
		t.Error("P-256 suite accepted an RSA SPKI")
	}
	if _, err := ParsePublicKey("ECVRF-EDWARDS25519-SHA512-TAI", ecKey); !errors.Is(err, ErrUnknownSuite) {
		t.Errorf("unknown suite: %v", err)
	}
}

func TestNewPrivateKeyRejects(t *testing.T) {
	q := p256N.Bytes()
	qPlus := new(big.Int).Add(p256N, big.NewInt(5)).Bytes()
	for name, raw := range map[string][]byte{
		"zero":     make([]byte, 32),
		"q":        q,
		"q+5":      qPlus,
		"31 bytes": make([]byte, 31),
		"33 bytes": append([]byte{0}, q...),
	} {
		if _, err := NewPrivateKey(SuiteP256SSWU, raw); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	if _, err := NewPrivateKey(SuiteRSAFDH256, []byte{0x30, 0}); err == nil {
		t.Error("bad PKCS #8 accepted")
	}
	if _, err := NewPrivateKey("nope", nil); !errors.Is(err, ErrUnknownSuite) {
		t.Errorf("unknown suite: %v", err)
	}
}

var rsaTestKey *PrivateKey

// testRSAKey returns a 2048-bit key generated once per test binary.
func testRSAKey(t *testing.T) *PrivateKey {
	t.Helper()
	if rsaTestKey == nil {
		k, err := GenerateKey(SuiteRSAFDH256, nil)
		if err != nil {
			t.Fatal(err)
		}
		rsaTestKey = k
	}
	return rsaTestKey
}

func TestGenerateRoundTrip(t *testing.T) {
	for _, s := range Suites() {
		t.Run(string(s), func(t *testing.T) {
			var sk *PrivateKey
			if s == SuiteRSAFDH256 {
				sk = testRSAKey(t)
			} else {
				var err error
				sk, err = GenerateKey(s, rand.NewChaCha8([32]byte{byte(len(s))}))
				if err != nil {
					t.Fatal(err)
				}
			}
			if sk.Suite() != s || sk.Public().Suite() != s {
				t.Fatal("wrong suite")
			}
			sk2, err := NewPrivateKey(s, sk.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			pk, err := ParsePublicKey(s, sk.Public().Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if !pk.Equal(sk2.Public()) {
				t.Fatal("public keys differ after round trip")
			}
			alpha := []byte("round trip")
			pi, err := sk.Prove(alpha)
			if err != nil {
				t.Fatal(err)
			}
			pi2, err := sk2.Prove(alpha)
			if err != nil || !bytes.Equal(pi, pi2) {
				t.Fatalf("proving is not deterministic: %x vs %x (%v)", pi, pi2, err)
			}
			if len(pi) != ProofSize(s, pk) {
				t.Errorf("proof has %d bytes, ProofSize says %d", len(pi), ProofSize(s, pk))
			}
			beta, err := Verify(pk, alpha, pi)
			if err != nil {
				t.Fatal(err)
			}
			if len(beta) != OutputSize {
				t.Errorf("beta has %d bytes", len(beta))
			}
			other, err := Verify(pk, []byte("round trip 2"), mustProve(t, sk, []byte("round trip 2")))
			if err != nil || bytes.Equal(other, beta) {
				t.Errorf("different alphas gave %x and %x (%v)", beta, other, err)
			}
			sk2.Destroy()
			if _, err := sk2.Prove(alpha); err == nil {
				t.Error("a destroyed key still proves")
			}
			if s != SuiteRSAFDH256 && !bytes.Equal(sk2.Bytes(), make([]byte, 32)) {
				t.Error("Destroy left the scalar in place")
			}
		})
	}
}

func mustProve(t *testing.T, sk *PrivateKey, alpha []byte) []byte {
	t.Helper()
	pi, err := sk.Prove(alpha)
	if err != nil {
		t.Fatal(err)
	}
	return pi
}

func TestGenerateKeyDeterministicFromRand(t *testing.T) {
	a, err := GenerateKey(SuiteP256SSWU, rand.NewChaCha8([32]byte{7}))
	if err != nil {
		t.Fatal(err)
	}
	b, err := GenerateKey(SuiteP256SSWU, rand.NewChaCha8([32]byte{7}))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("GenerateKey does not use the rand it is given")
	}
	if _, err := GenerateKey(SuiteP256SSWU, bytes.NewReader(make([]byte, 10))); err == nil {
		t.Error("short randomness accepted")
	}
	// A source of zeros only gives invalid scalars: refuse, do not loop.
	if _, err := GenerateKey(SuiteP256SSWU, zeros{}); err == nil {
		t.Error("all-zero randomness accepted")
	}
}

type zeros struct{}

func (zeros) Read(b []byte) (int, error) { clear(b); return len(b), nil }

func TestParseSuite(t *testing.T) {
	for _, s := range Suites() {
		got, err := ParseSuite(string(s))
		if err != nil || got != s {
			t.Errorf("ParseSuite(%q) = %q, %v", s, got, err)
		}
	}
	for _, name := range []string{"", "ecvrf-p256-sha256-sswu", "ECVRF-EDWARDS25519-SHA512-TAI", "RSA-FDH-VRF-SHA384"} {
		if _, err := ParseSuite(name); !errors.Is(err, ErrUnknownSuite) {
			t.Errorf("ParseSuite(%q): %v", name, err)
		}
	}
	if DefaultSuite != SuiteP256SSWU {
		t.Error("default suite changed")
	}
}

func TestNilAndMisuse(t *testing.T) {
	if _, err := Verify(nil, nil, nil); err == nil {
		t.Error("nil key accepted")
	}
	if _, err := RSAFDHEncode(nil, nil); err == nil {
		t.Error("RSAFDHEncode(nil)")
	}
	e := loadExamples(t)[6]
	if _, err := RSAFDHEncode(e.pk, nil); err == nil {
		t.Error("RSAFDHEncode of an EC key")
	}
	if ProofSize(SuiteRSAFDH256, nil) != 0 || ProofSize(SuiteP256TAI, nil) != 81 || ProofSize("x", nil) != 0 {
		t.Error("ProofSize")
	}
	if _, err := ProofToHash("x", e.pi); !errors.Is(err, ErrUnknownSuite) {
		t.Errorf("ProofToHash unknown suite: %v", err)
	}
	if _, err := ProofToHash(SuiteRSAFDH256, []byte{1}); !errors.Is(err, ErrInvalidProof) {
		t.Errorf("ProofToHash short RSA proof: %v", err)
	}
	if _, err := Verify(&PublicKey{}, nil, e.pi); err == nil {
		t.Error("zero PublicKey accepted")
	}
	if (&PublicKey{}).Bytes() != nil || (&PrivateKey{}).Bytes() != nil {
		t.Error("zero keys encode")
	}
	if _, err := (&PrivateKey{}).Prove(nil); err == nil {
		t.Error("zero PrivateKey proves")
	}
	if pi, beta, err := (&PrivateKey{}).ProveHash(nil); err == nil || pi != nil || beta != nil {
		t.Error("zero PrivateKey proves (ProveHash)")
	}
	var nilKey *PublicKey
	if !nilKey.Equal(nil) || nilKey.Equal(e.pk) || e.pk.Equal(nil) {
		t.Error("Equal with nil")
	}
}

func TestProveConcurrently(t *testing.T) {
	for _, e := range loadExamples(t) {
		done := make(chan error, 4)
		for range 4 {
			go func() {
				pi, err := e.sk.Prove(e.alpha)
				if err == nil && !bytes.Equal(pi, e.pi) {
					err = errors.New("concurrent proof differs")
				}
				done <- err
			}()
		}
		for range 4 {
			if err := <-done; err != nil {
				t.Fatalf("%s: %v", e.v.ID, err)
			}
		}
	}
}

func TestDestroyRSA(t *testing.T) {
	e := loadExamples(t)[0]
	sk, err := NewPrivateKey(SuiteRSAFDH256, e.skRaw)
	if err != nil {
		t.Fatal(err)
	}
	qModN := sk.rsa.qModN
	sk.Destroy()
	if _, err := sk.Prove(e.alpha); err == nil {
		t.Error("a destroyed RSA key still proves")
	}
	// Either prime factors n: none may stay with the key.
	if sk.rsa.p != nil || sk.rsa.q != nil {
		t.Error("a destroyed RSA key still holds its primes")
	}
	if !bytes.Equal(qModN.Bytes(sk.pub.rsa.n), make([]byte, sk.pub.rsa.n.Size())) {
		t.Error("a destroyed RSA key left q mod n in place")
	}
	if sk.Bytes() != nil {
		t.Error("a destroyed RSA key still encodes")
	}
	// The public half stays usable.
	if _, err := Verify(sk.Public(), e.alpha, e.pi); err != nil {
		t.Error(err)
	}
}

// TestRSAPrimeOrder proves with the primes of the RFC keys in both orders:
// the CRT recombination must not depend on p > q.
func TestRSAPrimeOrder(t *testing.T) {
	for _, e := range loadExamples(t) {
		if e.suite != SuiteRSAFDH256 {
			continue
		}
		rk := rsaKeyOf(t, e)
		swapped := &rsa.PrivateKey{PublicKey: rk.PublicKey, D: rk.D, Primes: []*big.Int{rk.Primes[1], rk.Primes[0]}}
		swapped.Precompute()
		der, err := x509.MarshalPKCS8PrivateKey(swapped)
		if err != nil {
			t.Fatal(err)
		}
		sk, err := NewPrivateKey(SuiteRSAFDH256, der)
		if err != nil {
			t.Fatal(err)
		}
		if got := mustProve(t, sk, e.alpha); !bytes.Equal(got, e.pi) {
			t.Errorf("%s: proof with swapped primes differs", e.v.ID)
		}
	}
}

func TestNewRSAPublicKey(t *testing.T) {
	e := loadExamples(t)[0]
	pub, err := x509.ParsePKIXPublicKey(e.pkRaw)
	if err != nil {
		t.Fatal(err)
	}
	pk, err := NewRSAPublicKey(pub.(*rsa.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	if !pk.Equal(e.pk) {
		t.Error("NewRSAPublicKey differs from ParsePublicKey")
	}
	if _, err := NewRSAPublicKey(&rsa.PublicKey{N: big.NewInt(15), E: 3}); err == nil {
		t.Error("tiny modulus accepted")
	}
	if _, err := NewRSAPublicKey(nil); err == nil {
		t.Error("nil accepted")
	}
}

// TestRSAFDHEncodeRawRSA plays the hardware token: a raw RSA private
// operation (textbook m^d mod n in math/big, as CKM_RSA_X_509 computes it) on
// RSAFDHEncode's output must give the proof Prove gives.
func TestRSAFDHEncodeRawRSA(t *testing.T) {
	for _, e := range loadExamples(t) {
		if e.suite != SuiteRSAFDH256 {
			continue
		}
		rk := rsaKeyOf(t, e)
		em, err := RSAFDHEncode(e.pk, e.alpha)
		if err != nil {
			t.Fatal(err)
		}
		if len(em) != ProofSize(e.suite, e.pk) {
			t.Fatalf("EM has %d bytes, want k = %d", len(em), ProofSize(e.suite, e.pk))
		}
		s := new(big.Int).Exp(new(big.Int).SetBytes(em), rk.D, rk.N)
		pi := s.FillBytes(make([]byte, len(em)))
		if !bytes.Equal(pi, e.pi) {
			t.Errorf("%s: raw RSA on EM differs from the RFC proof", e.v.ID)
		}
	}
}

// rsaKeyOf returns the crypto/rsa form of an RSA example's private key.
func rsaKeyOf(t *testing.T, e example) *rsa.PrivateKey {
	t.Helper()
	k, err := x509.ParsePKCS8PrivateKey(e.skRaw)
	if err != nil {
		t.Fatal(err)
	}
	return k.(*rsa.PrivateKey)
}

// TestKeyErrorsNamed: a refused public key's error is a message of
// verdict's catalog (so that a verifier says it in French) whose English is
// exactly the parser's text, with the parser's error still wrapped; an
// unknown suite likewise.
func TestKeyErrorsNamed(t *testing.T) {
	e := loadExamples(t)[0]
	n := e.pk.rsa.nBig
	valid := unhex(t, "0360fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6")
	type bad struct {
		suite Suite
		b     []byte
		raw   error // the parser's own error
	}
	var cases []bad
	for _, b := range badPoints(t, valid) {
		_, raw := parseECPublicKey(b)
		cases = append(cases, bad{SuiteP256SSWU, b, raw})
	}
	ecSPKI, err := x509.MarshalPKIXPublicKey(mustECDSAPublic(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range [][]byte{nil, {0}, valid, ecSPKI, append(bytes.Clone(e.pkRaw), 0), rsaSPKI(t, n, 3*65537*2),
		rsaSPKI(t, new(big.Int).Add(n, big.NewInt(1)), 65537), rsaSPKI(t, new(big.Int).Rsh(n, 1100), 65537),
		x509.MarshalPKCS1PublicKey(&rsa.PublicKey{N: n, E: 65537})} {
		_, raw := parseRSAPublicKey(b)
		cases = append(cases, bad{SuiteRSAFDH256, b, raw})
	}
	for _, c := range cases {
		_, err := ParsePublicKey(c.suite, c.b)
		var me *verdict.MsgError
		switch {
		case c.raw == nil || err == nil:
			t.Errorf("%s %x: accepted (parser: %v, ParsePublicKey: %v)", c.suite, c.b, c.raw, err)
		case err.Error() != c.raw.Error():
			t.Errorf("%s %x: text %q, the parser says %q", c.suite, c.b, err, c.raw)
		case !wrapsText(err, c.raw.Error()):
			t.Errorf("%s %x: %v does not wrap the parser's error", c.suite, c.b, err)
		case !errors.As(err, &me) || "vrf: "+me.Error() != err.Error() || me.Msg.Text("fr") == me.Error():
			t.Errorf("%s %x: %q is not named in the catalog (%v)", c.suite, c.b, err, me)
		}
	}
	var syn asn1.SyntaxError
	if _, err := ParsePublicKey(SuiteRSAFDH256, []byte{0}); !errors.As(err, &syn) {
		t.Errorf("%v: encoding/asn1's error is not wrapped", err)
	}
	_, err = ParseSuite("ECVRF-EDWARDS25519-SHA512-TAI")
	var me *verdict.MsgError
	if want := `vrf: unknown suite "ECVRF-EDWARDS25519-SHA512-TAI" (want ECVRF-P256-SHA256-SSWU, ECVRF-P256-SHA256-TAI or RSA-FDH-VRF-SHA256)`; err == nil || err.Error() != want ||
		!errors.Is(err, ErrUnknownSuite) || !errors.As(err, &me) || me.Msg.ID != verdict.MsgUnknownSuite {
		t.Errorf("unknown suite: %v", err)
	}
}

func mustECDSAPublic(t *testing.T) *ecdsa.PublicKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), cryptorand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return &k.PublicKey
}

// wrapsText reports whether err directly wraps an error whose text is text.
func wrapsText(err error, text string) bool {
	u, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return false
	}
	for _, e := range u.Unwrap() {
		if e.Error() == text {
			return true
		}
	}
	return false
}
