package vrf

import (
	"bytes"
	"crypto"
	"crypto/elliptic"
	"encoding/binary"
	"math/big"
	"testing"

	"github.com/cloudflare/circl/expander"
	"github.com/cloudflare/circl/group"
)

// The map agrees with circl's RFC 9380 implementation of the same suite,
// which it replaces, on inputs that exercise both of its branches (gx1 a
// square or not) and both parities of y.
func TestSSWUAgreesWithCircl(t *testing.T) {
	var x1Branch, x2Branch, odd int
	for i := range 2000 {
		alpha := binary.BigEndian.AppendUint32([]byte("sswu differential "), uint32(i))
		_, got, _, err := encodeToCurveH2C([]byte("salt"), alpha)
		if err != nil {
			t.Fatal(err)
		}
		e := group.P256.HashToElementNonUniform(append([]byte("salt"), alpha...), h2cDST)
		want, err := e.MarshalBinaryCompress()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("alpha %q: H = %x, circl %x", alpha, got, want)
		}
		// Which branch: is H.x the x1 of step 2?
		u := new(big.Int).SetBytes(expander.NewExpanderMD(crypto.SHA256, h2cDST).Expand(append([]byte("salt"), alpha...), 48))
		u.Mod(u, sswuP)
		if x1 := referenceX1(u); new(big.Int).SetBytes(got[1:]).Cmp(x1) == 0 {
			x1Branch++
		} else {
			x2Branch++
		}
		odd += int(got[0] & 1)
	}
	// Each is about half of 2000: fewer than 800 has probability < 1e-19.
	if x1Branch < 800 || x2Branch < 800 || odd < 800 || 2000-odd < 800 {
		t.Fatalf("branches x1 %d, x2 %d; odd y %d of 2000", x1Branch, x2Branch, odd)
	}
}

// u = 0 takes the exceptional case of step 3 (tv1 = 0): x1 = B/(Z·A), and
// when g(x1) is not a square, x2 = Z·u²·x1 = 0.
func TestSSWUZero(t *testing.T) {
	q, enc, err := sswu(new(big.Int))
	if err != nil {
		t.Fatal(err)
	}
	curve := elliptic.P256().Params()
	x1 := new(big.Int).ModInverse(big.NewInt(30), curve.P) // Z·A = 30
	x1.Mul(x1, curve.B).Mod(x1, curve.P)
	gx1 := new(big.Int).Exp(x1, big.NewInt(3), curve.P)
	gx1.Sub(gx1, new(big.Int).Mul(big.NewInt(3), x1)).Add(gx1, curve.B).Mod(gx1, curve.P)
	want := x1
	if big.Jacobi(gx1, curve.P) < 0 {
		want = new(big.Int)
	}
	if got := new(big.Int).SetBytes(enc[1:]); got.Cmp(want) != 0 || enc[0] != 0x02 {
		t.Fatalf("map(0) = %x, want x %x with even y", enc, want)
	}
	if !bytes.Equal(q.BytesCompressed(), enc) {
		t.Fatalf("point %x, encoding %x", q.BytesCompressed(), enc)
	}
}

// referenceX1 is step 2 of the map, as the vectors test computes it.
func referenceX1(u *big.Int) *big.Int {
	p := sswuP
	zu2 := new(big.Int).Mul(u, u)
	zu2.Mul(zu2, big.NewInt(-10)).Mod(zu2, p)
	den := new(big.Int).Mul(zu2, zu2)
	den.Add(den, zu2).Mod(den, p)
	x1 := new(big.Int).ModInverse(den, p)
	x1.Add(x1, big.NewInt(1))
	b3 := new(big.Int).ModInverse(big.NewInt(3), p)
	b3.Mul(b3, sswuB)
	return x1.Mul(x1, b3).Mod(x1, p)
}
