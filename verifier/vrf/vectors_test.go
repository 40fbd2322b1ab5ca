package vrf

import (
	"bytes"
	"crypto"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"os"
	"testing"

	"github.com/cloudflare/circl/expander"
)

// rfcVector is one example of testdata/rfc9381-vectors.json (see the README
// there for its source).
type rfcVector struct {
	ID    string          `json:"id"`
	Suite string          `json:"suite"`
	SK    json.RawMessage `json:"SK"`
	PK    json.RawMessage `json:"PK"`
	Alpha string          `json:"alpha"`
	Pi    string          `json:"pi"`
	Beta  string          `json:"beta"`
	// ECVRF intermediates
	H      string `json:"H"`
	K      string `json:"k"`
	U      string `json:"U"`
	V      string `json:"V"`
	TAICtr *int   `json:"tai_ctr"`
	// SSWU intermediates
	SSWUUniform  string `json:"sswu_uniform_bytes"`
	SSWUU        string `json:"sswu_u"`
	SSWUX1       string `json:"sswu_x1"`
	SSWUGX1IsSqr *bool  `json:"sswu_gx1_is_square"`
	// RSA intermediates
	EM string `json:"EM"`
}

type rsaHexKey struct {
	N, E, D, P, Q string
}

func loadVectors(t testing.TB) []rfcVector {
	t.Helper()
	b, err := os.ReadFile("testdata/rfc9381-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Vectors []rfcVector `json:"vectors"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	var out []rfcVector
	for _, v := range f.Vectors {
		if _, err := ParseSuite(v.Suite); err == nil {
			out = append(out, v)
		}
	}
	// Examples 1-3 (RSA-FDH-VRF-SHA256), 10-12 (TAI), 13-15 (SSWU).
	if len(out) != 9 {
		t.Fatalf("found %d vectors of the supported suites, want 9", len(out))
	}
	return out
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

func bigHex(t testing.TB, s string) *big.Int {
	t.Helper()
	n, ok := new(big.Int).SetString(s, 16)
	if !ok {
		t.Fatalf("bad hex integer %q", s)
	}
	return n
}

// vectorKeys returns the encoded private and public keys of a vector, in the
// encodings NewPrivateKey and ParsePublicKey take.
func vectorKeys(t testing.TB, v rfcVector) (sk, pk []byte) {
	t.Helper()
	if Suite(v.Suite) != SuiteRSAFDH256 {
		var skHex, pkHex string
		if err := json.Unmarshal(v.SK, &skHex); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(v.PK, &pkHex); err != nil {
			t.Fatal(err)
		}
		return unhex(t, skHex), unhex(t, pkHex)
	}
	var k rsaHexKey
	if err := json.Unmarshal(v.SK, &k); err != nil {
		t.Fatal(err)
	}
	rk := &rsa.PrivateKey{
		PublicKey: rsa.PublicKey{N: bigHex(t, k.N), E: int(bigHex(t, k.E).Int64())},
		D:         bigHex(t, k.D),
		Primes:    []*big.Int{bigHex(t, k.P), bigHex(t, k.Q)},
	}
	rk.Precompute()
	skDER, err := x509.MarshalPKCS8PrivateKey(rk)
	if err != nil {
		t.Fatal(err)
	}
	var pub rsaHexKey
	if err := json.Unmarshal(v.PK, &pub); err != nil {
		t.Fatal(err)
	}
	pkDER, err := x509.MarshalPKIXPublicKey(&rsa.PublicKey{N: bigHex(t, pub.N), E: int(bigHex(t, pub.E).Int64())})
	if err != nil {
		t.Fatal(err)
	}
	return skDER, pkDER
}

func TestVectors(t *testing.T) {
	for _, v := range loadVectors(t) {
		t.Run(v.ID, func(t *testing.T) {
			s := Suite(v.Suite)
			skRaw, pkRaw := vectorKeys(t, v)
			alpha, pi, beta := unhex(t, v.Alpha), unhex(t, v.Pi), unhex(t, v.Beta)

			sk, err := NewPrivateKey(s, skRaw)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(sk.Public().Bytes(), pkRaw) {
				t.Errorf("public key = %x, want %x", sk.Public().Bytes(), pkRaw)
			}
			if !bytes.Equal(sk.Bytes(), skRaw) {
				t.Errorf("private key does not round-trip")
			}
			pk, err := ParsePublicKey(s, pkRaw)
			if err != nil {
				t.Fatal(err)
			}
			if !pk.Equal(sk.Public()) || pk.Suite() != s {
				t.Errorf("parsed key differs from derived key")
			}
			if got := ProofSize(s, pk); got != len(pi) {
				t.Errorf("ProofSize = %d, want %d", got, len(pi))
			}

			got, err := sk.Prove(alpha)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, pi) {
				t.Errorf("pi = %x\n want %x", got, pi)
			}
			b, err := Verify(pk, alpha, pi)
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if !bytes.Equal(b, beta) {
				t.Errorf("beta = %x, want %x", b, beta)
			}
			b, err = ProofToHash(s, pi)
			if err != nil || !bytes.Equal(b, beta) {
				t.Errorf("ProofToHash = %x, %v; want %x", b, err, beta)
			}
			got, b, err = sk.ProveHash(alpha)
			if err != nil || !bytes.Equal(got, pi) || !bytes.Equal(b, beta) {
				t.Errorf("ProveHash = %x, %x, %v; want %x, %x", got, b, err, pi, beta)
			}

			if s == SuiteRSAFDH256 {
				em, err := RSAFDHEncode(pk, alpha)
				if err != nil {
					t.Fatal(err)
				}
				want := append([]byte{0}, unhex(t, v.EM)...)
				if !bytes.Equal(em, want) {
					t.Errorf("EM = %x\n want %x", em, want)
				}
				return
			}

			// ECVRF intermediate values.
			tr := new(ecProveTrace)
			if _, err := sk.ec.proveTrace(s, pk.ec, alpha, tr); err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				name      string
				got, want []byte
			}{
				{"H", tr.h, unhex(t, v.H)},
				{"k", tr.k, unhex(t, v.K)},
				{"U", tr.u, unhex(t, v.U)},
				{"V", tr.v, unhex(t, v.V)},
			} {
				if !bytes.Equal(c.got, c.want) {
					t.Errorf("%s = %x, want %x", c.name, c.got, c.want)
				}
			}
			if v.TAICtr != nil && tr.ctr != *v.TAICtr {
				t.Errorf("tai_ctr = %d, want %d", tr.ctr, *v.TAICtr)
			}
			if s == SuiteP256SSWU {
				checkSSWU(t, v, pkRaw, alpha)
			}
		})
	}
}

// checkSSWU recomputes the printed hash-to-curve intermediates of RFC 9380
// (expand_message_xmd, hash_to_field, the simplified SWU map) independently
// of circl's map, with math/big, and checks them and H against the vector.
func checkSSWU(t *testing.T, v rfcVector, pk, alpha []byte) {
	t.Helper()
	p := elliptic.P256().Params().P
	msg := append(append([]byte{}, pk...), alpha...)
	// hash_to_field, count = 1, L = 48.
	uniform := expander.NewExpanderMD(crypto.SHA256, h2cDST).Expand(msg, 48)
	if want := unhex(t, v.SSWUUniform); !bytes.Equal(uniform, want) {
		t.Errorf("uniform_bytes = %x, want %x", uniform, want)
	}
	u := new(big.Int).Mod(new(big.Int).SetBytes(uniform), p)
	if want := bigHex(t, v.SSWUU); u.Cmp(want) != 0 {
		t.Errorf("u = %x, want %x", u, want)
	}
	// RFC 9380 §6.6.2, Z = -10, A = -3.
	mod := func(x *big.Int) *big.Int { return x.Mod(x, p) }
	z := big.NewInt(-10)
	a := big.NewInt(-3)
	b := elliptic.P256().Params().B
	u2 := mod(new(big.Int).Mul(u, u))
	zu2 := mod(new(big.Int).Mul(z, u2))
	den := mod(new(big.Int).Add(new(big.Int).Mul(zu2, zu2), zu2)) // Z²u⁴ + Zu²
	var x1 *big.Int
	negBoverA := mod(new(big.Int).Mul(new(big.Int).Neg(b), new(big.Int).ModInverse(mod(new(big.Int).Set(a)), p)))
	if den.Sign() == 0 {
		x1 = mod(new(big.Int).Mul(b, new(big.Int).ModInverse(mod(new(big.Int).Mul(z, a)), p)))
	} else {
		tv1 := new(big.Int).ModInverse(den, p)
		x1 = mod(new(big.Int).Mul(negBoverA, new(big.Int).Add(big.NewInt(1), tv1)))
	}
	if want := bigHex(t, v.SSWUX1); x1.Cmp(want) != 0 {
		t.Errorf("x1 = %x, want %x", x1, want)
	}
	gx1 := mod(new(big.Int).Add(new(big.Int).Add(new(big.Int).Exp(x1, big.NewInt(3), p), new(big.Int).Mul(a, x1)), b))
	isSq := big.Jacobi(gx1, p) >= 0
	if v.SSWUGX1IsSqr == nil || isSq != *v.SSWUGX1IsSqr {
		t.Errorf("gx1 is square = %v, want %v", isSq, v.SSWUGX1IsSqr)
	}
	// x2 = Z·u²·x1; H.x is x1 or x2.
	x := x1
	if !isSq {
		x = mod(new(big.Int).Mul(zu2, x1))
	}
	h := unhex(t, v.H)
	if got := new(big.Int).SetBytes(h[1:]); got.Cmp(x) != 0 {
		t.Errorf("H.x = %x, want %x from the SSWU map", got, x)
	}
	// sgn0(u) = sgn0(y): the parity of H's y is that of u.
	if want := byte(2 + u.Bit(0)); h[0] != want {
		t.Errorf("H prefix %#x, want %#x (sgn0(y) = sgn0(u))", h[0], want)
	}
}
