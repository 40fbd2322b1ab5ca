// Package vrf implements verifiable random functions as specified by RFC 9381
// ("Verifiable Random Functions (VRFs)", IRTF CFRG, August 2023).
//
// A VRF is the public-key version of a keyed hash: only the holder of the
// private key can compute β = VRF_hash(SK, α), but anyone holding the public
// key can check, from the proof π, that β is the one and only output for α
// (RFC 9381 §1, §3: full uniqueness, full collision resistance and, for the
// suites here, pseudorandomness). Tirage computes every outcome from such a β,
// and auditors check π with this very package.
//
// # Suites
//
//   - ECVRF-P256-SHA256-SSWU (suite_string 0x02, RFC 9381 §5.5), the default.
//     encode_to_curve is the RFC 9380 encode_to_curve of suite
//     P256_XMD:SHA-256_SSWU_NU_ with DST "ECVRF_" || h2c_suite_ID_string ||
//     suite_string and input PK_string || α (§5.4.1.2).
//   - ECVRF-P256-SHA256-TAI (suite_string 0x01, §5.5), with encode_to_curve by
//     try-and-increment (§5.4.1.1).
//   - RSA-FDH-VRF-SHA256 (suite_string 0x01, §4): π is the raw RSA signature
//     of EM = MGF1(suite_string || 0x01 || I2OSP(k, 4) || I2OSP(n, k) || α, k-1).
//     A hardware token can compute it with a raw RSA operation
//     (CKM_RSA_X_509) on [RSAFDHEncode]'s output. Unlike the ECVRF, it has
//     only "trusted" uniqueness and collision resistance (§7.1.1): a key
//     whose RSA function is not a bijection could have several valid β for
//     one α. The checks of [ParsePublicKey] are sanity checks, not a proof
//     that (n, e) is well formed; the key must be generated honestly and
//     announced before use.
//
// Both ECVRF suites use RFC 6979 deterministic nonces (§5.4.2.1), the
// challenge of §5.4.3 (cLen = 16), proofs Gamma(33) || c(16) || s(32) of 81
// bytes, and β = SHA-256(suite_string || 0x03 || Gamma || 0x00) (§5.2).
//
// # Encodings
//
// A P-256 public key is its 33-byte SEC 1 compressed point; a P-256 private
// key is the 32-byte big-endian scalar x, 1 ≤ x < q. An RSA public key is its
// DER SubjectPublicKeyInfo; an RSA private key is its PKCS #8 DER encoding.
//
// # Validation
//
// ECVRF verification always runs with validate_key = TRUE (§5.3): once per
// key, [ParsePublicKey] runs string_to_point and ECVRF_validate_key (§5.4.5):
// the point must be a canonical compressed encoding of a point on the curve
// (no uncompressed form, no x ≥ p, never the identity). RSA keys must have a modulus of 2048 to
// 8192 bits that is odd, and an odd public exponent 3 ≤ e < 2³¹; the SPKI
// must be strict DER. [Verify] rejects proofs of the wrong length, a Gamma
// that is not a valid compressed point, s ≥ q, and RSA proofs ≥ n, each with
// an error that names the defect and wraps [ErrInvalidProof].
//
// # Implementation
//
// Group arithmetic is filippo.io/nistec, the exported copy of the standard
// library's crypto/internal/fips140/nistec that backs crypto/ecdh and
// crypto/ecdsa: constant-time scalar multiplication (amd64/arm64 assembly,
// fiat-crypto elsewhere), complete addition formulas, no math/big, and
// invalid points cannot be represented. Hash-to-curve (RFC 9380) takes
// expand_message_xmd from circl's expander, and the simplified SWU map is
// ours (sswu): its two candidate x are computed with math/big, which is not
// constant time (neither was circl's group.P256 map it replaced: the map's
// input is hashed from α, and α becomes public when the game ends), and
// nistec's point decompression computes y in constant time. It gives the
// same points as circl's map (TestSSWUAgreesWithCircl, and the RFC 9381
// vectors) in about half the time: a proof went from 105 to 90 µs of CPU
// here, a verification from 137 to 119 µs (docs/bench/vrf.md, medians of
// BenchmarkProve and BenchmarkVerify, -cpu 1). circl's group.P256 is not used for scalar
// multiplication either: it calls the deprecated crypto/elliptic, converts
// every point through math/big, crypto/elliptic panics on invalid points, and
// circl's Scalar arithmetic is math/big and not constant time; so no point
// goes through circl. Decoding is strict: SEC 1 compressed
// only, x < p, never the identity.
//
// The secret arithmetic s = k + c·x mod q and the RSA private operation (CRT,
// with the result checked against the public key before it is released)
// use filippo.io/bigmod, which is constant time. The RFC 6979 nonce rejects
// candidates ≥ q, which leaks nothing about the accepted k.
//
// The package does no I/O and keeps no state: the daemon proves and the
// verifier checks with the same code.
package vrf

import (
	cryptorand "crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/asn1"
	"errors"
	"fmt"
	"io"

	"tirage.fr/tirage/verifier/verdict"
)

// Suite names an RFC 9381 ciphersuite, written as in the RFC.
type Suite string

// The supported suites.
const (
	SuiteP256SSWU  Suite = "ECVRF-P256-SHA256-SSWU"
	SuiteP256TAI   Suite = "ECVRF-P256-SHA256-TAI"
	SuiteRSAFDH256 Suite = "RSA-FDH-VRF-SHA256"
)

// DefaultSuite is the suite Tirage uses unless configured otherwise.
const DefaultSuite = SuiteP256SSWU

// Suites lists the supported suites, the default first.
func Suites() []Suite { return []Suite{SuiteP256SSWU, SuiteP256TAI, SuiteRSAFDH256} }

// ErrInvalidProof is wrapped by every error of [Verify] that means the proof
// is wrong (as opposed to a nil key): the output must not be used, and the
// draw it claims to prove must be treated as not proven.
var ErrInvalidProof = errors.New("vrf: invalid proof")

// ErrUnknownSuite is wrapped by errors about a suite name this package does
// not implement.
var ErrUnknownSuite = errors.New("vrf: unknown suite")

// ParseSuite returns the suite named name, exactly as RFC 9381 writes it.
func ParseSuite(name string) (Suite, error) {
	for _, s := range Suites() {
		if string(s) == name {
			return s, nil
		}
	}
	return "", &reasonError{reason: &verdict.MsgError{Msg: verdict.M(verdict.MsgUnknownSuite, name)}, cause: ErrUnknownSuite}
}

func (s Suite) isEC() bool { return s == SuiteP256SSWU || s == SuiteP256TAI }

// reasonError is a one-line reason package vrf refused something: a
// message of verdict's catalog, so that a verifier can say it in French
// too. Its Error is "vrf: " and the English text; it wraps cause (a
// sentinel, or the parser's own error) and the reason.
type reasonError struct {
	reason *verdict.MsgError
	cause  error
}

func (e *reasonError) Error() string { return "vrf: " + e.reason.Error() }

// Unwrap returns the cause and the reason.
func (e *reasonError) Unwrap() []error { return []error{e.cause, e.reason} }

// invalid is a reason a proof was rejected; it wraps ErrInvalidProof.
func invalid(id verdict.MsgID, args ...any) error {
	return &reasonError{reason: &verdict.MsgError{Msg: verdict.M(id, args...)}, cause: ErrInvalidProof}
}

// keyError names the reason parsing public key b of suite s failed with
// err in the catalog: the candidate reason whose English is err's text
// (after "vrf: "), so that the text stays what it always was, byte for byte.
// An error no candidate matches is returned as it is.
func keyError(s Suite, b []byte, err error) error {
	var candidates []verdict.Msg
	if s.isEC() {
		candidates = []verdict.Msg{verdict.M(verdict.MsgVRFKeyPointLength, len(b)), verdict.M(verdict.MsgVRFKeyUncompressed),
			verdict.M(verdict.MsgVRFKeyNotOnCurve), verdict.M(verdict.MsgVRFKeyIdentity)}
		if len(b) > 0 {
			candidates = append(candidates, verdict.M(verdict.MsgVRFKeyPointPrefix, b[0]))
		}
	} else {
		candidates = []verdict.Msg{verdict.M(verdict.MsgVRFKeyRSANotCanonical), verdict.M(verdict.MsgVRFKeyRSAModulusSign),
			verdict.M(verdict.MsgVRFKeyRSAEven)}
		pub, perr := x509.ParsePKIXPublicKey(b)
		switch rp, ok := pub.(*rsa.PublicKey); {
		case perr != nil:
			candidates = append(candidates, verdict.M(verdict.MsgVRFKeyRSANotDER, derCause(perr)))
		case !ok:
			candidates = append(candidates, verdict.M(verdict.MsgVRFKeyNotRSA, fmt.Sprintf("%T", pub)))
		case rp.N != nil:
			candidates = append(candidates, verdict.M(verdict.MsgVRFKeyRSABits, rp.N.BitLen(), minRSABits, maxRSABits),
				verdict.M(verdict.MsgVRFKeyRSAExponent, rp.E))
		}
	}
	for _, m := range candidates {
		if "vrf: "+m.Text("en") == err.Error() {
			return &reasonError{reason: &verdict.MsgError{Msg: m}, cause: err}
		}
	}
	return err
}

// derCause is the x509 or asn1 error of a DER key in the catalog (its
// English text unchanged), or err itself.
func derCause(err error) any {
	var syn asn1.SyntaxError
	var st asn1.StructuralError
	switch {
	case errors.As(err, &syn):
		return verdict.M(verdict.MsgASN1Syntax, verdict.ASN1Detail(syn.Msg))
	case errors.As(err, &st):
		return verdict.M(verdict.MsgASN1Structure, verdict.ASN1Detail(st.Msg))
	}
	return verdict.Named(err, verdict.MsgX509PKCS1, verdict.MsgX509Trailing, verdict.MsgX509UnknownAlgorithm)
}

// PublicKey is a validated VRF public key of one suite.
type PublicKey struct {
	suite Suite
	ec    *ecPublicKey
	rsa   *rsaPublicKey
}

// ParsePublicKey decodes and validates a public key: for the P-256 suites
// the 33-byte SEC 1 compressed point, for RSA the DER SubjectPublicKeyInfo.
func ParsePublicKey(s Suite, b []byte) (*PublicKey, error) {
	switch {
	case s.isEC():
		k, err := parseECPublicKey(b)
		if err != nil {
			return nil, keyError(s, b, err)
		}
		return &PublicKey{suite: s, ec: k}, nil
	case s == SuiteRSAFDH256:
		k, err := parseRSAPublicKey(b)
		if err != nil {
			return nil, keyError(s, b, err)
		}
		return &PublicKey{suite: s, rsa: k}, nil
	}
	return nil, fmt.Errorf("%w %q", ErrUnknownSuite, string(s))
}

// Suite returns the suite the key belongs to.
func (pk *PublicKey) Suite() Suite { return pk.suite }

// Bytes returns the encoding [ParsePublicKey] takes.
func (pk *PublicKey) Bytes() []byte {
	switch {
	case pk.ec != nil:
		return append([]byte(nil), pk.ec.enc[:]...)
	case pk.rsa != nil:
		return append([]byte(nil), pk.rsa.spki...)
	}
	return nil
}

// Equal reports whether pk and other are the same key of the same suite.
func (pk *PublicKey) Equal(other *PublicKey) bool {
	if pk == nil || other == nil {
		return pk == other
	}
	return pk.suite == other.suite && string(pk.Bytes()) == string(other.Bytes())
}

// PrivateKey is a VRF private key of one suite.
type PrivateKey struct {
	suite Suite
	pub   *PublicKey
	ec    *ecPrivateKey
	rsa   *rsaPrivateKey
}

// DefaultRSABits is the modulus size GenerateKey uses for RSA.
const DefaultRSABits = 2048

// GenerateKey returns a new private key of suite s drawn from rand, or from
// crypto/rand when rand is nil. RSA keys have DefaultRSABits bits (see
// [GenerateRSAKey]).
func GenerateKey(s Suite, rand io.Reader) (*PrivateKey, error) {
	if rand == nil {
		rand = cryptorand.Reader
	}
	switch {
	case s.isEC():
		return generateECKey(s, rand)
	case s == SuiteRSAFDH256:
		return GenerateRSAKey(DefaultRSABits, rand)
	}
	return nil, fmt.Errorf("%w %q", ErrUnknownSuite, string(s))
}

// NewPrivateKey decodes a private key: for the P-256 suites the 32-byte
// big-endian scalar, for RSA its PKCS #8 DER encoding.
func NewPrivateKey(s Suite, raw []byte) (*PrivateKey, error) {
	switch {
	case s.isEC():
		return newECPrivateKey(s, raw)
	case s == SuiteRSAFDH256:
		return newRSAPrivateKey(raw)
	}
	return nil, fmt.Errorf("%w %q", ErrUnknownSuite, string(s))
}

// Suite returns the suite the key belongs to.
func (sk *PrivateKey) Suite() Suite { return sk.suite }

// Bytes returns the encoding [NewPrivateKey] takes. It is the secret key:
// never log it. After [PrivateKey.Destroy] it returns zeros (P-256) or nil
// (RSA).
func (sk *PrivateKey) Bytes() []byte {
	switch {
	case sk.ec != nil:
		return append([]byte(nil), sk.ec.x[:]...)
	case sk.rsa != nil:
		return sk.rsa.pkcs8()
	}
	return nil
}

// Public returns the public key.
func (sk *PrivateKey) Public() *PublicKey { return sk.pub }

// Prove returns the proof π for input alpha (RFC 9381 §4.1, §5.1). The
// output β is [ProofToHash] of π. Proving is deterministic: the same key and
// alpha always give the same proof.
func (sk *PrivateKey) Prove(alpha []byte) ([]byte, error) {
	if sk.ec != nil {
		if sk.ec.destroyed {
			return nil, errDestroyed
		}
		return sk.ec.prove(sk.suite, sk.pub.ec, alpha)
	}
	if sk.rsa == nil {
		return nil, errors.New("vrf: empty private key (use GenerateKey or NewPrivateKey)")
	}
	if sk.rsa.destroyed {
		return nil, errDestroyed
	}
	return sk.rsa.prove(sk.pub.rsa, alpha)
}

// ProveHash is [PrivateKey.Prove] that also returns the proof's output β,
// as [ProofToHash] and [Verify] compute it, from the Γ just computed rather
// than decoded again from π (for P-256 a square root mod p: ProofToHash
// takes 3.5 µs, a proof 133, BenchmarkProofToHash and BenchmarkProve on a
// 2-core AMD EPYC guest).
func (sk *PrivateKey) ProveHash(alpha []byte) (proof, beta []byte, err error) {
	proof, err = sk.Prove(alpha)
	if err != nil {
		return nil, nil, err
	}
	if sk.suite.isEC() {
		// proof[:ptLen] is point_to_string(Γ) of the point prove computed:
		// canonical, so it is what decodeProof would give back.
		return proof, ecProofToHash(sk.suite, proof[:ptLen]), nil
	}
	return proof, rsaProofToHash(proof), nil
}

var errDestroyed = errors.New("vrf: private key was destroyed")

// Destroy overwrites the secret values of sk (best effort: the Go runtime may
// have copied them, hash states are not wiped, and an RSA key's primes, held
// as bigmod moduli, are dropped for the collector) and makes sk unusable for
// proving. It must not run concurrently with Prove; Prove itself is safe for
// concurrent use.
func (sk *PrivateKey) Destroy() {
	if sk.ec != nil {
		sk.ec.destroy()
	}
	if sk.rsa != nil {
		sk.rsa.destroy()
	}
}

// Verify checks proof π for alpha under pk (RFC 9381 §4.3, §5.3) and returns
// β. When the proof is wrong the error wraps [ErrInvalidProof] and says in
// one line what is wrong.
func Verify(pk *PublicKey, alpha, proof []byte) (beta []byte, err error) {
	switch {
	case pk != nil && pk.ec != nil:
		return verifyEC(pk.suite, pk.ec, alpha, proof)
	case pk != nil && pk.rsa != nil:
		return verifyRSA(pk.rsa, alpha, proof)
	}
	return nil, errors.New("vrf: no public key")
}

// ProofToHash returns β for proof π without verifying it (RFC 9381 §4.2,
// §5.2). Only use β after [Verify] accepted π; Verify returns the same β.
func ProofToHash(s Suite, proof []byte) (beta []byte, err error) {
	switch {
	case s.isEC():
		d, err := decodeProof(proof)
		if err != nil {
			return nil, err
		}
		return ecProofToHash(s, d.gammaString), nil
	case s == SuiteRSAFDH256:
		if len(proof) < minRSABits/8 || len(proof) > maxRSABits/8 {
			return nil, invalid(verdict.MsgVRFProofLengthRSA, len(proof), minRSABits/8, maxRSABits/8)
		}
		return rsaProofToHash(proof), nil
	}
	return nil, fmt.Errorf("%w %q", ErrUnknownSuite, string(s))
}

// ProofSize returns the length of a proof of suite s under pk: 81 for the
// P-256 suites (pk may be nil), the modulus length k for RSA (0 when pk is
// nil or of another suite).
func ProofSize(s Suite, pk *PublicKey) int {
	switch {
	case s.isEC():
		return ecProofLen
	case s == SuiteRSAFDH256 && pk != nil && pk.rsa != nil:
		return pk.rsa.k
	}
	return 0
}

// OutputSize is the length of β for every supported suite (SHA-256).
const OutputSize = 32
