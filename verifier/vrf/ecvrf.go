package vrf

import (
	"crypto"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"math/big"

	"filippo.io/bigmod"
	"filippo.io/nistec"
	"github.com/cloudflare/circl/expander"

	"tirage.fr/tirage/verifier/verdict"
)

// ECVRF parameters of the P-256 suites (RFC 9381 §5.5).
const (
	ptLen      = 33 // point_to_string: SEC 1 compressed
	cLen       = 16 // challenge length
	qLen       = 32 // scalar length
	ecProofLen = ptLen + cLen + qLen

	// h2cSuiteID is the RFC 9380 suite of ECVRF-P256-SHA256-SSWU (§5.5).
	h2cSuiteID = "P256_XMD:SHA-256_SSWU_NU_"
)

// Domain separators of RFC 9381 §5.
const (
	encodeTAIFront   = 0x01 // §5.4.1.1
	challengeFront   = 0x02 // §5.4.3
	proofToHashFront = 0x03 // §5.2
	back             = 0x00
)

// orderP256 is q, the order of the P-256 base point.
var orderP256 = []byte{
	0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84,
	0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51,
}

var scalarQ = func() *bigmod.Modulus {
	m, err := bigmod.NewModulus(orderP256)
	if err != nil {
		panic(err)
	}
	return m
}()

func suiteString(s Suite) byte {
	if s == SuiteP256SSWU {
		return 0x02
	}
	return 0x01 // ECVRF-P256-SHA256-TAI and RSA-FDH-VRF-SHA256
}

type ecPublicKey struct {
	enc [ptLen]byte // PK_string
	y   *nistec.P256Point
}

// parseECPublicKey is steps 1-3 of ECVRF_verify (RFC 9381 §5.3), which
// "need to be performed only once for a given public key", with validate_key
// = TRUE: this package always validates keys.
func parseECPublicKey(b []byte) (*ecPublicKey, error) {
	// 1. Y = string_to_point(PK_string)
	y, err := stringToPoint(b)
	// 2. If Y is "INVALID", output "INVALID" and stop
	if err != nil {
		return nil, fmt.Errorf("vrf: public key: %w", err)
	}
	// 3. ECVRF_validate_key(Y) (§5.4.5): 1. Y' = cofactor*Y; 2. if Y' is the
	//    identity, "INVALID". The cofactor of P-256 is 1 and stringToPoint
	//    never yields the identity (it has no 33-byte encoding).
	if y.IsInfinity() == 1 {
		return nil, errors.New("vrf: public key: the identity")
	}
	k := &ecPublicKey{y: y}
	copy(k.enc[:], b)
	return k, nil
}

// stringToPoint is string_to_point of RFC 9381 §5.5: a canonical SEC 1
// compressed encoding of a point other than the identity.
func stringToPoint(b []byte) (*nistec.P256Point, error) {
	if len(b) != ptLen {
		if len(b) == 65 && b[0] == 4 {
			return nil, errors.New("uncompressed point, want 33-byte compressed")
		}
		return nil, fmt.Errorf("point has %d bytes, want 33 (compressed)", len(b))
	}
	if b[0] != 2 && b[0] != 3 {
		return nil, fmt.Errorf("point prefix %#02x, want 0x02 or 0x03", b[0])
	}
	// nistec rejects x ≥ p and x with no square root; 33 bytes cannot encode
	// the identity.
	p, err := nistec.NewP256Point().SetBytes(b)
	if err != nil {
		return nil, errors.New("not a point on P-256")
	}
	return p, nil
}

type ecPrivateKey struct {
	x         [qLen]byte // SK, big-endian; equals the secret scalar x
	xn        *bigmod.Nat
	destroyed bool
}

func newECPrivateKey(s Suite, raw []byte) (*PrivateKey, error) {
	if len(raw) != qLen {
		return nil, fmt.Errorf("vrf: P-256 private key has %d bytes, want 32", len(raw))
	}
	xn, err := bigmod.NewNat().SetBytes(raw, scalarQ)
	if err != nil || xn.IsZero() == 1 {
		return nil, errors.New("vrf: P-256 private key is not in [1, q-1]")
	}
	sk := &ecPrivateKey{xn: xn}
	copy(sk.x[:], raw)
	// Y = x*B
	y, err := nistec.NewP256Point().ScalarBaseMult(sk.x[:])
	if err != nil {
		return nil, fmt.Errorf("vrf: P-256 private key: %w", err)
	}
	pk := &ecPublicKey{y: y}
	copy(pk.enc[:], y.BytesCompressed())
	return &PrivateKey{suite: s, pub: &PublicKey{suite: s, ec: pk}, ec: sk}, nil
}

func generateECKey(s Suite, rand io.Reader) (*PrivateKey, error) {
	// Rejection sampling of a uniform scalar in [1, q-1]; the probability
	// of a rejection is about 2⁻³².
	var b [qLen]byte
	defer clear(b[:])
	for range 64 {
		if _, err := io.ReadFull(rand, b[:]); err != nil {
			return nil, fmt.Errorf("vrf: couldn't read randomness: %w", err)
		}
		if sk, err := newECPrivateKey(s, b[:]); err == nil {
			return sk, nil
		}
	}
	return nil, errors.New("vrf: randomness source keeps returning invalid scalars")
}

func (sk *ecPrivateKey) destroy() {
	clear(sk.x[:])
	if sk.xn != nil {
		clear(sk.xn.Bits())
	}
	sk.destroyed = true
}

// encodeToCurve is ECVRF_encode_to_curve (RFC 9381 §5.4.1) with
// encode_to_curve_salt = PK_string (§5.5). It returns H, h_string =
// point_to_string(H) and, for TAI, the counter that succeeded.
func encodeToCurve(s Suite, pk []byte, alpha []byte) (*nistec.P256Point, []byte, int, error) {
	if s == SuiteP256SSWU {
		return encodeToCurveH2C(pk, alpha)
	}
	return encodeToCurveTAI(pk, alpha)
}

var h2cDST = []byte("ECVRF_" + h2cSuiteID + "\x02")

// The simplified SWU map's constants for P-256 (RFC 9380 §8.2): Z = -10,
// A = -3, B = the curve's b.
var (
	sswuP = fieldHex("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff")
	sswuB = fieldHex("5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b")
	sswuZ = new(big.Int).Sub(sswuP, big.NewInt(10))
	// -B/A = B/3 and B/(Z·A) = B/30, mod p.
	sswuBOver3  = new(big.Int).Mod(new(big.Int).Mul(sswuB, new(big.Int).ModInverse(big.NewInt(3), sswuP)), sswuP)
	sswuBOver30 = new(big.Int).Mod(new(big.Int).Mul(sswuB, new(big.Int).ModInverse(big.NewInt(30), sswuP)), sswuP)
)

// fieldHex is a constant of SEC 2 §2.4.2 (P-256), from hex.
func fieldHex(h string) *big.Int {
	v, ok := new(big.Int).SetString(h, 16)
	if !ok {
		panic("vrf: bad constant " + h)
	}
	return v
}

// encodeToCurveH2C is ECVRF_encode_to_curve_h2c_suite (§5.4.1.2): RFC 9380
// encode_to_curve for P256_XMD:SHA-256_SSWU_NU_.
func encodeToCurveH2C(salt, alpha []byte) (*nistec.P256Point, []byte, int, error) {
	// 1. string_to_be_hashed = encode_to_curve_salt || alpha_string
	msg := make([]byte, 0, len(salt)+len(alpha))
	msg = append(append(msg, salt...), alpha...)
	// 2. H = encode(string_to_be_hashed), RFC 9380 encode_to_curve with
	//    DST = "ECVRF_" || h2c_suite_ID_string || suite_string:
	//    u = hash_to_field(msg, 1) (§5.2, L = 48),
	u := new(big.Int).SetBytes(expander.NewExpanderMD(crypto.SHA256, h2cDST).Expand(msg, 48))
	u.Mod(u, sswuP)
	//    Q = map_to_curve(u), the simplified SWU map (§6.6.2), and
	//    clear_cofactor(Q) = Q (h = 1).
	h, hString, err := sswu(u)
	if err != nil {
		return nil, nil, 0, err
	}
	// 3. Output H
	return h, hString, 0, nil
}

// sswu is the simplified SWU map of RFC 9380 §6.6.2 for P-256, returning the
// point and its SEC 1 compression. The candidates x1 and x2 are computed
// with math/big (its input u is hashed from α; math/big is not constant
// time, nor was circl's map that this replaces, about twice as slow), and
// nistec's point decompression does the rest in constant time: it computes
// g(x) and its square root, fails when there is none, and returns the root
// of the parity asked for (sgn0 is the parity for P-256).
func sswu(u *big.Int) (*nistec.P256Point, []byte, error) {
	p := sswuP
	// 1. tv1 = inv0(Z² u⁴ + Z u²)
	zu2 := new(big.Int).Mul(u, u)
	zu2.Mul(zu2, sswuZ).Mod(zu2, p)
	den := new(big.Int).Mul(zu2, zu2)
	den.Add(den, zu2).Mod(den, p)
	x1 := new(big.Int)
	if den.Sign() == 0 {
		// 3. If tv1 == 0, set x1 = B / (Z·A)
		x1.Set(sswuBOver30)
	} else {
		// 2. x1 = (-B / A)·(1 + tv1)
		tv1 := new(big.Int).ModInverse(den, p)
		x1.Add(tv1, big.NewInt(1))
		x1.Mul(x1, sswuBOver3).Mod(x1, p)
	}
	// 4. gx1 = x1³ + A·x1 + B: nistec computes it below.
	// 5.-9. x = x1 when gx1 is a square, else x2 = Z·u²·x1, whose
	//       gx2 = Z³u⁶·gx1 is then a square (Z is not); y = sqrt(gx) with
	//       sgn0(y) = sgn0(u). Decompressing x with the prefix
	//       0x02 | sgn0(u) computes that y, and fails exactly when gx is not
	//       a square (gx1 is never 0: P-256 has no point of order 2).
	// 10. return (x, y), compressed.
	enc := make([]byte, ptLen)
	enc[0] = 0x02 | byte(u.Bit(0))
	x1.FillBytes(enc[1:])
	q, err := nistec.NewP256Point().SetBytes(enc)
	if err != nil {
		x2 := x1.Mul(zu2, x1)
		x2.Mod(x2, p).FillBytes(enc[1:])
		if q, err = nistec.NewP256Point().SetBytes(enc); err != nil {
			return nil, nil, fmt.Errorf("vrf: simplified SWU gave no point: %w", err)
		}
	}
	return q, enc, nil
}

// encodeToCurveTAI is ECVRF_encode_to_curve_try_and_increment (§5.4.1.1).
func encodeToCurveTAI(salt, alpha []byte) (*nistec.P256Point, []byte, int, error) {
	// 1. ctr = 0
	// 2. encode_to_curve_domain_separator_front = 0x01
	// 3. encode_to_curve_domain_separator_back = 0x00
	// 4. H = "INVALID"
	// 5. While H is "INVALID" or H is the identity element of the group
	//    (ctr_string has one octet: give up at 256, probability 2⁻²⁵⁶):
	var buf [ptLen]byte
	buf[0] = 0x02
	for ctr := 0; ctr < 256; ctr++ {
		// a. ctr_string = int_to_string(ctr, 1)
		// b. hash_string = Hash(suite_string || front || salt || alpha || ctr_string || back)
		h := sha256.New()
		h.Write([]byte{suiteString(SuiteP256TAI), encodeTAIFront})
		h.Write(salt)
		h.Write(alpha)
		h.Write([]byte{byte(ctr), back})
		// c. H = interpret_hash_value_as_a_point(hash_string) = string_to_point(0x02 || hash_string)
		h.Sum(buf[1:1])
		if p, err := nistec.NewP256Point().SetBytes(buf[:]); err == nil {
			// d. (cofactor 1: nothing to do)
			// 6. Output H; h_string is the encoding it was decoded from.
			return p, buf[:], ctr, nil
		}
		// e. ctr = ctr + 1
	}
	return nil, nil, 0, errors.New("vrf: try_and_increment found no point")
}

// nonceRFC6979 is ECVRF_nonce_generation_RFC6979 (RFC 9381 §5.4.2.1): RFC
// 6979 §3.2 with m = h_string, Hash = SHA-256 and qlen = hlen = 256.
func nonceRFC6979(x *[qLen]byte, hString []byte) *bigmod.Nat {
	// a. h1 = H(m)
	h1 := sha256.Sum256(hString)
	// bits2octets(h1) = int2octets(bits2int(h1) mod q); qlen = hlen so no shift.
	z, _ := bigmod.NewNat().SetOverflowingBytes(h1[:], scalarQ)
	hOct := z.Bytes(scalarQ)
	// b. V = 0x01 0x01 ... ; c. K = 0x00 0x00 ...
	var v, k [sha256.Size]byte
	for i := range v {
		v[i] = 0x01
	}
	// d. K = HMAC_K(V || 0x00 || int2octets(x) || bits2octets(h1))
	k = hmacSHA256(&k, v[:], []byte{0x00}, x[:], hOct)
	// e. V = HMAC_K(V)
	v = hmacSHA256(&k, v[:])
	// f. K = HMAC_K(V || 0x01 || int2octets(x) || bits2octets(h1))
	k = hmacSHA256(&k, v[:], []byte{0x01}, x[:], hOct)
	// g. V = HMAC_K(V)
	v = hmacSHA256(&k, v[:])
	defer clear(k[:])
	defer clear(v[:])
	// h. Loop until k is in [1, q-1].
	for {
		// 1.-2. T = V = HMAC_K(V), tlen = qlen
		v = hmacSHA256(&k, v[:])
		// 3. k = bits2int(T)
		kn, err := bigmod.NewNat().SetBytes(v[:], scalarQ)
		if err == nil && kn.IsZero() == 0 {
			return kn
		}
		// K = HMAC_K(V || 0x00); V = HMAC_K(V)
		k = hmacSHA256(&k, v[:], []byte{0x00})
		v = hmacSHA256(&k, v[:])
	}
}

// hmacSHA256 is HMAC-SHA-256 (RFC 2104) of the concatenated parts under a
// 32-byte key, for the RFC 6979 nonce: on the stack, where crypto/hmac
// allocates its two hash states and their saved pads for every key, and
// the nonce takes five keys (half of what a proof allocated). The parts
// are at most 97 bytes (V ‖ 0x0X ‖ x ‖ h1); more would only spill to the
// heap. TestNonceRFC6979's known answers check it, as do RFC 9381's.
func hmacSHA256(key *[sha256.Size]byte, parts ...[]byte) [sha256.Size]byte {
	var buf hmacBuf
	b := hmacPad(&buf, key, 0x36) // ipad
	for _, p := range parts {
		b = append(b, p...)
	}
	inner := sha256.Sum256(b)
	out := sha256.Sum256(append(hmacPad(&buf, key, 0x5c), inner[:]...)) // opad
	// Clear the padded key (and the message after it) before returning.
	clear(buf[:])
	return out
}

// hmacBlock is SHA-256's block size; an HMAC key shorter than it is
// zero-padded to it.
const hmacBlock = 64

// hmacBuf holds a padded key and what is hashed after it: the longest is
// the nonce's V ‖ 0x0X ‖ x ‖ h1.
type hmacBuf [hmacBlock + 2*sha256.Size + 1 + sha256.Size]byte

// hmacPad writes key ⊕ pad, the key zero-padded to a block, at the start of
// buf and returns that block.
func hmacPad(buf *hmacBuf, key *[sha256.Size]byte, pad byte) []byte {
	b := buf[:hmacBlock]
	for i := range b {
		b[i] = pad
	}
	for i, c := range key {
		b[i] ^= c
	}
	return b
}

// challenge is ECVRF_challenge_generation (§5.4.3) over the encoded points
// (point_to_string already applied).
// It returns c_string, cLen bytes.
func challenge(s Suite, p1, p2, p3, p4, p5 []byte) [cLen]byte {
	// 1. challenge_generation_domain_separator_front = 0x02
	// 2. Initialize str = suite_string || front
	// 3. for PJ in [P1, P2, P3, P4, P5]: str = str || point_to_string(PJ)
	// 4. challenge_generation_domain_separator_back = 0x00
	// 5. str = str || back
	h := sha256.New()
	h.Write([]byte{suiteString(s), challengeFront})
	for _, p := range [][]byte{p1, p2, p3, p4, p5} {
		h.Write(p)
	}
	h.Write([]byte{back})
	// 6. c_string = Hash(str)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	// 7. truncated_c_string = c_string[0]...c_string[cLen-1]
	var c [cLen]byte
	copy(c[:], sum[:cLen])
	// 8. c = string_to_int(truncated_c_string): the caller's business.
	return c
}

// ecProveTrace holds the intermediate values of one proof, for tests.
type ecProveTrace struct {
	h, u, v []byte
	k       []byte
	ctr     int
}

func (sk *ecPrivateKey) prove(s Suite, pk *ecPublicKey, alpha []byte) ([]byte, error) {
	return sk.proveTrace(s, pk, alpha, nil)
}

// proveTrace is ECVRF_prove (RFC 9381 §5.1). When tr is not nil it receives
// the intermediate values, the secret nonce k included: tests only.
func (sk *ecPrivateKey) proveTrace(s Suite, pk *ecPublicKey, alpha []byte, tr *ecProveTrace) ([]byte, error) {
	// 1. Use SK to derive the VRF secret scalar x and the VRF public key Y = x*B
	//    (cached by newECPrivateKey).
	// 2. H = ECVRF_encode_to_curve(encode_to_curve_salt, alpha_string),
	//    encode_to_curve_salt = PK_string
	// 3. h_string = point_to_string(H)
	h, hString, ctr, err := encodeToCurve(s, pk.enc[:], alpha)
	if err != nil {
		return nil, err
	}
	// 4. Gamma = x*H
	gamma, err := nistec.NewP256Point().ScalarMult(h, sk.x[:])
	if err != nil {
		return nil, fmt.Errorf("vrf: Gamma: %w", err)
	}
	gammaString := gamma.BytesCompressed()
	// 5. k = ECVRF_nonce_generation(SK, h_string)
	k := nonceRFC6979(&sk.x, hString)
	kBytes := k.Bytes(scalarQ)
	defer clear(kBytes)
	// 6. c = ECVRF_challenge_generation(Y, H, Gamma, k*B, k*H)
	kB, err := nistec.NewP256Point().ScalarBaseMult(kBytes)
	if err != nil {
		return nil, fmt.Errorf("vrf: k*B: %w", err)
	}
	kH, err := nistec.NewP256Point().ScalarMult(h, kBytes)
	if err != nil {
		return nil, fmt.Errorf("vrf: k*H: %w", err)
	}
	u, v := kB.BytesCompressed(), kH.BytesCompressed()
	c := challenge(s, pk.enc[:], hString, gammaString, u, v)
	// 7. s = (k + c*x) mod q, in constant time.
	var cFull [qLen]byte
	copy(cFull[qLen-cLen:], c[:])
	cn, err := bigmod.NewNat().SetBytes(cFull[:], scalarQ)
	if err != nil {
		return nil, err // c < 2^128 < q
	}
	sn := cn.Mul(sk.xn, scalarQ).Add(k, scalarQ)
	// 8. pi_string = point_to_string(Gamma) || int_to_string(c, cLen) || int_to_string(s, qLen)
	pi := make([]byte, 0, ecProofLen)
	pi = append(pi, gammaString...)
	pi = append(pi, c[:]...)
	pi = append(pi, sn.Bytes(scalarQ)...)
	clear(k.Bits())
	// 9. Output pi_string
	if tr != nil {
		*tr = ecProveTrace{h: hString, u: u, v: v, k: append([]byte(nil), kBytes...), ctr: ctr}
	}
	return pi, nil
}

// ecProof is a decoded proof (Gamma, c, s).
type ecProof struct {
	gamma       *nistec.P256Point
	gammaString []byte
	c           [qLen]byte // left-padded to a full scalar
	s           []byte
}

// decodeProof is ECVRF_decode_proof (RFC 9381 §5.4.4).
func decodeProof(pi []byte) (*ecProof, error) {
	if len(pi) != ecProofLen {
		return nil, invalid(verdict.MsgVRFProofLength, len(pi), ecProofLen)
	}
	// 1. let gamma_string = pi_string[0]...pi_string[ptLen-1]
	// 2. let c_string = pi_string[ptLen]...pi_string[ptLen+cLen-1]
	// 3. let s_string = pi_string[ptLen+cLen]...pi_string[ptLen+cLen+qLen-1]
	d := &ecProof{gammaString: pi[:ptLen], s: pi[ptLen+cLen:]}
	// 4. Gamma = string_to_point(gamma_string)
	g, err := stringToPoint(d.gammaString)
	// 5. if Gamma = "INVALID" output "INVALID" and stop.
	if err != nil {
		return nil, invalid(verdict.MsgVRFGamma, err)
	}
	d.gamma = g
	// 6. c = string_to_int(c_string)
	copy(d.c[qLen-cLen:], pi[ptLen:ptLen+cLen])
	// 7. s = string_to_int(s_string)
	// 8. if s ≥ q, output "INVALID" and stop.
	if _, err := bigmod.NewNat().SetBytes(d.s, scalarQ); err != nil {
		return nil, invalid(verdict.MsgVRFScalar)
	}
	// 9. Output Gamma, c, and s
	return d, nil
}

// ecProofToHash is ECVRF_proof_to_hash (§5.2) after steps 1-3 (decoding);
// with cofactor 1 and a canonical Gamma, point_to_string(cofactor*Gamma) =
// gamma_string.
func ecProofToHash(s Suite, gammaString []byte) []byte {
	// 4. proof_to_hash_domain_separator_front = 0x03
	// 5. proof_to_hash_domain_separator_back = 0x00
	// 6. beta_string = Hash(suite_string || front || point_to_string(cofactor * Gamma) || back)
	h := sha256.New()
	h.Write([]byte{suiteString(s), proofToHashFront})
	h.Write(gammaString)
	h.Write([]byte{back})
	return h.Sum(nil)
}

// verifyEC is ECVRF_verify (RFC 9381 §5.3).
func verifyEC(s Suite, pk *ecPublicKey, alpha, pi []byte) ([]byte, error) {
	// 1.-3. Y = string_to_point(PK_string), validated by ParsePublicKey.
	y := pk.y
	// 4. D = ECVRF_decode_proof(pi_string)
	// 5. If D is "INVALID", output "INVALID" and stop
	d, err := decodeProof(pi)
	if err != nil {
		return nil, err
	}
	// 6. (Gamma, c, s) = D
	// 7. H = ECVRF_encode_to_curve(encode_to_curve_salt, alpha_string)
	h, hString, _, err := encodeToCurve(s, pk.enc[:], alpha)
	if err != nil {
		return nil, err
	}
	// -c mod q, public.
	cn, err := bigmod.NewNat().SetBytes(d.c[:], scalarQ)
	if err != nil {
		return nil, err
	}
	negC := bigmod.NewNat().ExpandFor(scalarQ).Sub(cn, scalarQ).Bytes(scalarQ)
	// 8. U = s*B - c*Y
	u, err := nistec.NewP256Point().ScalarBaseMult(d.s)
	if err != nil {
		return nil, err
	}
	t, err := nistec.NewP256Point().ScalarMult(y, negC)
	if err != nil {
		return nil, err
	}
	u.Add(u, t)
	// 9. V = s*H - c*Gamma
	v, err := nistec.NewP256Point().ScalarMult(h, d.s)
	if err != nil {
		return nil, err
	}
	if _, err := t.ScalarMult(d.gamma, negC); err != nil {
		return nil, err
	}
	v.Add(v, t)
	// 10. c' = ECVRF_challenge_generation(Y, H, Gamma, U, V)
	c2 := challenge(s, pk.enc[:], hString, d.gammaString, u.BytesCompressed(), v.BytesCompressed())
	// 11. If c and c' are equal, output ("VALID", ECVRF_proof_to_hash(pi_string)).
	if subtle.ConstantTimeCompare(c2[:], d.c[qLen-cLen:]) != 1 {
		return nil, invalid(verdict.MsgVRFNoVerify)
	}
	return ecProofToHash(s, d.gammaString), nil
}
