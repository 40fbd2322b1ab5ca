package vrf

import (
	"bytes"
	cryptorand "crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/big"

	"filippo.io/bigmod"

	"tirage.fr/tirage/verifier/verdict"
)

// Limits on RSA moduli accepted by this package.
const (
	minRSABits = 2048
	maxRSABits = 8192
)

// RSA-FDH-VRF domain separators (RFC 9381 §4).
const (
	mgfDomainSeparator         = 0x01 // §4.1, §4.3
	rsaProofToHashDomSeparator = 0x02 // §4.2
)

type rsaPublicKey struct {
	spki []byte
	n    *bigmod.Modulus
	nBig *big.Int
	e    int
	k    int // octet length of n
}

func parseRSAPublicKey(der []byte) (*rsaPublicKey, error) {
	pub, err := x509.ParsePKIXPublicKey(der)
	if err != nil {
		return nil, fmt.Errorf("vrf: RSA public key is not a DER SubjectPublicKeyInfo: %w", err)
	}
	rp, ok := pub.(*rsa.PublicKey)
	if !ok {
		return nil, fmt.Errorf("vrf: public key is a %T, want RSA", pub)
	}
	k, err := newRSAPublicKey(rp)
	if err != nil {
		return nil, err
	}
	// Only the one DER encoding of the key is accepted, so that Bytes
	// round-trips and a key has a single identity.
	if !bytes.Equal(k.spki, der) {
		return nil, errors.New("vrf: RSA public key is not in canonical DER")
	}
	return k, nil
}

// NewRSAPublicKey returns the RSA-FDH-VRF-SHA256 public key of pub (for
// example read from a hardware token), with the checks of [ParsePublicKey].
func NewRSAPublicKey(pub *rsa.PublicKey) (*PublicKey, error) {
	if pub == nil {
		return nil, errors.New("vrf: no RSA public key")
	}
	k, err := newRSAPublicKey(pub)
	if err != nil {
		return nil, err
	}
	return &PublicKey{suite: SuiteRSAFDH256, rsa: k}, nil
}

// newRSAPublicKey checks the key's sanity: n odd and 2048 to 8192 bits
// long, e odd and 3 ≤ e < 2³¹.
func newRSAPublicKey(rp *rsa.PublicKey) (*rsaPublicKey, error) {
	if rp.N == nil || rp.N.Sign() <= 0 {
		return nil, errors.New("vrf: RSA modulus n is not positive")
	}
	if bits := rp.N.BitLen(); bits < minRSABits || bits > maxRSABits {
		return nil, fmt.Errorf("vrf: RSA modulus has %d bits, want %d to %d", bits, minRSABits, maxRSABits)
	}
	if rp.N.Bit(0) == 0 {
		return nil, errors.New("vrf: RSA modulus n is even")
	}
	if rp.E < 3 || rp.E > 1<<31-1 || rp.E%2 == 0 {
		return nil, fmt.Errorf("vrf: RSA public exponent %d is not an odd number in [3, 2^31)", rp.E)
	}
	n, err := bigmod.NewModulus(rp.N.Bytes())
	if err != nil {
		return nil, fmt.Errorf("vrf: RSA modulus: %w", err)
	}
	spki, err := x509.MarshalPKIXPublicKey(rp)
	if err != nil {
		return nil, fmt.Errorf("vrf: RSA public key: %w", err)
	}
	return &rsaPublicKey{spki: spki, n: n, nBig: new(big.Int).Set(rp.N), e: rp.E, k: (rp.N.BitLen() + 7) / 8}, nil
}

// mgf1SHA256 is MGF1 of RFC 8017 §B.2.1 with SHA-256.
func mgf1SHA256(seed []byte, maskLen int) []byte {
	out := make([]byte, 0, maskLen+sha256.Size)
	var ctr [4]byte
	for i := uint32(0); len(out) < maskLen; i++ {
		binary.BigEndian.PutUint32(ctr[:], i)
		h := sha256.New()
		h.Write(seed)
		h.Write(ctr[:])
		out = h.Sum(out)
	}
	return out[:maskLen]
}

// encodeEM computes EM (RFC 9381 §4.1 steps 1-2), k-1 octets.
func (pk *rsaPublicKey) encodeEM(alpha []byte) []byte {
	// 1. mgf_domain_separator = 0x01
	// 2. EM = MGF1(suite_string || mgf_domain_separator || I2OSP(k, 4) || I2OSP(n, k) || alpha_string, k - 1)
	seed := make([]byte, 0, 6+pk.k+len(alpha))
	seed = append(seed, suiteString(SuiteRSAFDH256), mgfDomainSeparator)
	seed = binary.BigEndian.AppendUint32(seed, uint32(pk.k))
	seed = append(seed, make([]byte, pk.k)...)
	pk.nBig.FillBytes(seed[len(seed)-pk.k:])
	seed = append(seed, alpha...)
	return mgf1SHA256(seed, pk.k-1)
}

// RSAFDHEncode returns EM for alpha under an RSA-FDH-VRF key, left-padded
// with one zero octet to the modulus length k: the input of the raw RSA
// private operation (for example PKCS #11 CKM_RSA_X_509) whose output,
// left-padded with zeros to k bytes, is the proof π. As for any signature
// made outside this package, check π with [Verify] before using it: a faulty
// token must not produce an outcome.
func RSAFDHEncode(pk *PublicKey, alpha []byte) ([]byte, error) {
	if pk == nil || pk.rsa == nil {
		return nil, errors.New("vrf: RSAFDHEncode needs an RSA-FDH-VRF public key")
	}
	return append([]byte{0}, pk.rsa.encodeEM(alpha)...), nil
}

func rsaProofToHash(pi []byte) []byte {
	// RFC 9381 §4.2:
	// 1. proof_to_hash_domain_separator = 0x02
	// 2. beta_string = Hash(suite_string || proof_to_hash_domain_separator || pi_string)
	h := sha256.New()
	h.Write([]byte{suiteString(SuiteRSAFDH256), rsaProofToHashDomSeparator})
	h.Write(pi)
	return h.Sum(nil)
}

// verifyRSA is RSAFDHVRF_verify (RFC 9381 §4.3).
func verifyRSA(pk *rsaPublicKey, alpha, pi []byte) ([]byte, error) {
	if len(pi) != pk.k {
		return nil, invalid(verdict.MsgVRFProofLength, len(pi), pk.k)
	}
	// 1. s = OS2IP(pi_string)
	// 2. m = RSAVP1(pk, s): s must be in [0, n-1].
	s, err := bigmod.NewNat().SetBytes(pi, pk.n)
	if err != nil {
		return nil, invalid(verdict.MsgVRFNotBelowN)
	}
	m := bigmod.NewNat().ExpShortVarTime(s, uint(pk.e), pk.n)
	// 3.-4. EM' = MGF1(...), 5. m' = OS2IP(EM')
	emPrime := pk.encodeEM(alpha)
	// 6. If m and m' are equal, output ("VALID", RSAFDHVRF_proof_to_hash(pi_string)).
	mb := m.Bytes(pk.n) // k octets; m' < 256^(k-1) has a zero first octet
	if mb[0] != 0 || subtle.ConstantTimeCompare(mb[1:], emPrime) != 1 {
		return nil, invalid(verdict.MsgVRFNoVerify)
	}
	return rsaProofToHash(pi), nil
}

type rsaPrivateKey struct {
	key       *rsa.PrivateKey
	p, q      *bigmod.Modulus
	dP, dQ    []byte
	qInv      *bigmod.Nat // q⁻¹ mod p
	qModN     *bigmod.Nat // q as an element mod n
	destroyed bool
}

// GenerateRSAKey returns a new RSA-FDH-VRF-SHA256 private key with a
// modulus of bits bits (2048 to 8192) and e = 65537. rand may be nil;
// crypto/rsa draws from the system's secure source regardless of rand (Go
// 1.26), so RSA keys cannot be generated deterministically.
func GenerateRSAKey(bits int, rand io.Reader) (*PrivateKey, error) {
	if rand == nil {
		rand = cryptorand.Reader
	}
	if bits < minRSABits || bits > maxRSABits {
		return nil, fmt.Errorf("vrf: RSA key size %d bits, want %d to %d", bits, minRSABits, maxRSABits)
	}
	k, err := rsa.GenerateKey(rand, bits)
	if err != nil {
		return nil, fmt.Errorf("vrf: couldn't generate RSA key: %w", err)
	}
	return newRSAPrivateKeyFrom(k)
}

func newRSAPrivateKey(der []byte) (*PrivateKey, error) {
	k, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, fmt.Errorf("vrf: RSA private key is not PKCS #8 DER: %w", err)
	}
	rk, ok := k.(*rsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("vrf: private key is a %T, want RSA", k)
	}
	return newRSAPrivateKeyFrom(rk)
}

func newRSAPrivateKeyFrom(k *rsa.PrivateKey) (*PrivateKey, error) {
	if len(k.Primes) != 2 {
		return nil, fmt.Errorf("vrf: RSA private key has %d primes, want 2", len(k.Primes))
	}
	if err := k.Validate(); err != nil {
		return nil, fmt.Errorf("vrf: invalid RSA private key: %w", err)
	}
	k.Precompute()
	pub, err := newRSAPublicKey(&k.PublicKey)
	if err != nil {
		return nil, err
	}
	p, err := bigmod.NewModulus(k.Primes[0].Bytes())
	if err != nil {
		return nil, fmt.Errorf("vrf: RSA prime p: %w", err)
	}
	q, err := bigmod.NewModulus(k.Primes[1].Bytes())
	if err != nil {
		return nil, fmt.Errorf("vrf: RSA prime q: %w", err)
	}
	qInv, err := bigmod.NewNat().SetBytes(k.Precomputed.Qinv.Bytes(), p)
	if err != nil {
		return nil, fmt.Errorf("vrf: RSA q⁻¹ mod p: %w", err)
	}
	sk := &rsaPrivateKey{
		key:   k,
		p:     p,
		q:     q,
		dP:    k.Precomputed.Dp.Bytes(),
		dQ:    k.Precomputed.Dq.Bytes(),
		qInv:  qInv,
		qModN: bigmod.NewNat().Mod(q.Nat(), pub.n),
	}
	return &PrivateKey{suite: SuiteRSAFDH256, pub: &PublicKey{suite: SuiteRSAFDH256, rsa: pub}, rsa: sk}, nil
}

func (sk *rsaPrivateKey) pkcs8() []byte {
	if sk.key == nil {
		return nil
	}
	b, err := x509.MarshalPKCS8PrivateKey(sk.key)
	if err != nil {
		return nil
	}
	return b
}

// rsasp1 is RSASP1 (RFC 8017 §5.2.1) by the Chinese remainder theorem, in
// constant time with bigmod, followed by a check of the result against the
// public key (a fault would otherwise leak a factor of n).
func (sk *rsaPrivateKey) rsasp1(pk *rsaPublicKey, em []byte) ([]byte, error) {
	n := pk.n
	c, err := bigmod.NewNat().SetBytes(em, n)
	if err != nil {
		return nil, errors.New("vrf: RSA message representative out of range")
	}
	// m1 = c^dP mod p, m2 = c^dQ mod q
	m1 := bigmod.NewNat().Mod(c, sk.p)
	m1.Exp(m1, sk.dP, sk.p)
	m2 := bigmod.NewNat().Mod(c, sk.q)
	m2.Exp(m2, sk.dQ, sk.q)
	// h = qInv·(m1 - m2) mod p
	t := bigmod.NewNat().Mod(m2, sk.p)
	m1.Sub(t, sk.p).Mul(sk.qInv, sk.p)
	// s = m2 + q·h mod n
	s := m1.ExpandFor(n).Mul(sk.qModN, n)
	s.Add(m2.ExpandFor(n), n)
	// Check s^e = c mod n.
	if bigmod.NewNat().ExpShortVarTime(s, uint(pk.e), n).Equal(c) != 1 {
		return nil, errors.New("vrf: RSA private operation failed its consistency check")
	}
	return s.Bytes(n), nil
}

// prove is RSAFDHVRF_prove (RFC 9381 §4.1).
func (sk *rsaPrivateKey) prove(pk *rsaPublicKey, alpha []byte) ([]byte, error) {
	// 1.-2. EM = MGF1(suite_string || 0x01 || I2OSP(k, 4) || I2OSP(n, k) || alpha_string, k - 1)
	// 3. m = OS2IP(EM)
	em := pk.encodeEM(alpha)
	// 4. s = RSASP1(K, m)
	// 5. pi_string = I2OSP(s, k)
	return sk.rsasp1(pk, em)
}

func (sk *rsaPrivateKey) destroy() {
	clear(sk.dP)
	clear(sk.dQ)
	for _, m := range []*bigmod.Nat{sk.qInv, sk.qModN} {
		clear(m.Bits())
	}
	// The moduli p and q cannot be overwritten (bigmod has no way to):
	// they are dropped.
	sk.p, sk.q = nil, nil
	if k := sk.key; k != nil {
		for _, v := range []*big.Int{k.D, k.Precomputed.Dp, k.Precomputed.Dq, k.Precomputed.Qinv} {
			if v != nil {
				clear(v.Bits())
			}
		}
		for _, p := range k.Primes {
			clear(p.Bits())
		}
	}
	sk.key = nil
	sk.destroyed = true
}
