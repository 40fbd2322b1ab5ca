// Package hsm is Tirage's key custody: the keys that decide outcomes (the VRF
// key) and the keys that vouch for the log and the appliance (the signing
// key) live behind the two interfaces of this package, and nowhere else.
//
// # Interfaces
//
//   - [VRFProver] proves RFC 9381 VRF statements. Software keys use
//     ECVRF-P256-SHA256-SSWU; keys inside an HSM use RSA-FDH-VRF-SHA256, whose
//     only private operation is the raw RSA primitive RSASP1 (PKCS#11
//     CKM_RSA_X_509), so the key never leaves the token.
//   - [Signer] signs log checkpoints and attestations with Ed25519, or with
//     ECDSA P-256 (SHA-256, ASN.1 DER signatures) where a token lacks EdDSA.
//   - [Backend] is one custody backend: it generates keys, lists them and
//     hands out provers and signers by label. Implementations:
//     tirage.fr/tirage/hsm/keystore (software, encrypted at rest; dev mode)
//     and tirage.fr/tirage/hsm/pkcs11 (a PKCS#11 token, e.g. an HSM or
//     SoftHSM2). Every backend passes the conformance suite in
//     tirage.fr/tirage/hsm/hsmtest.
//
// # Failure
//
// A backend never papers over a failure: an error from the token or the
// keystore is returned, wrapped, and the caller refuses the draw (fail
// closed). Errors that mean "the key custody cannot serve right now" wrap
// [ErrUnavailable]. Errors never carry a PIN, a passphrase or key material.
//
// # Public key encodings and fingerprints
//
// A VRF public key is encoded as the verifier/vrf package encodes it
// (vrf.PublicKey.Bytes: the 33-byte compressed point for P-256, DER
// SubjectPublicKeyInfo for RSA). A signing public key is encoded as DER
// SubjectPublicKeyInfo (RFC 5280, RFC 8410 for Ed25519). A fingerprint is
// the lower-case hex SHA-256 of that encoding; see [Fingerprint].
package hsm

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"tirage.fr/tirage/verifier/announce"
	"tirage.fr/tirage/verifier/vrf"
)

// Signature algorithms of a [Signer], as returned by Signer.Algorithm.
const (
	// Ed25519 is RFC 8032 Ed25519 over the whole message (PureEdDSA).
	Ed25519 = "Ed25519"
	// ECDSAP256SHA256 is ECDSA over NIST P-256 of SHA-256(message); the
	// signature is ASN.1 DER (SEQUENCE { r, s }) as crypto/ecdsa.SignASN1 makes.
	ECDSAP256SHA256 = "ECDSA-P256-SHA256"
)

// Purposes of a key.
const (
	PurposeVRF  = "vrf"  // a VRF key: decides outcomes
	PurposeSign = "sign" // a signing key: checkpoints, attestations, announcements
)

// Signer signs messages with a key held by a [Backend]. It is safe for
// concurrent use.
type Signer interface {
	// Public returns the public key: ed25519.PublicKey or *ecdsa.PublicKey.
	Public() crypto.PublicKey
	// Sign signs msg (the message itself, not a digest). An error means no
	// signature was made; it wraps ErrUnavailable when the backend failed.
	Sign(msg []byte) ([]byte, error)
	// Algorithm is Ed25519 or ECDSAP256SHA256.
	Algorithm() string
}

// VRFProver proves VRF statements with a key held by a [Backend]. It is safe
// for concurrent use.
type VRFProver interface {
	// Suite is the RFC 9381 ciphersuite of the key.
	Suite() vrf.Suite
	// PublicKey is the key that verifies the proofs.
	PublicKey() *vrf.PublicKey
	// Prove returns the proof π for alpha and its output β, computed by the
	// verifier/vrf code auditors run (β is what vrf.Verify returns for the
	// proof). An error means no proof: the draw must be refused.
	Prove(alpha []byte) (proof, beta []byte, err error)
}

// Key describes one key of a backend, public parts only.
type Key struct {
	Label     string // unique within the backend
	Purpose   string // PurposeVRF or PurposeSign
	Algorithm string // a vrf.Suite for VRF keys; Ed25519 or ECDSAP256SHA256 for signers
	Public    []byte // the public key encoding (see the package doc)
}

// Fingerprint is the hex SHA-256 of the key's public encoding.
func (k Key) Fingerprint() string { return Fingerprint(k.Public) }

// Backend is one key custody backend. It is safe for concurrent use.
type Backend interface {
	// Kind names the backend: "software" or "pkcs11".
	Kind() string
	// Software reports whether keys are held in this process's memory (a
	// file keystore) rather than in a separate device. The daemon announces
	// software keys loudly: they are for development.
	Software() bool
	// Keys lists the keys, sorted by label.
	Keys() ([]Key, error)
	// GenerateVRF makes a new VRF key of the given suite under label, inside
	// the backend. It fails with ErrExists if label is taken and with
	// ErrUnsupported if the backend cannot hold that suite.
	GenerateVRF(label string, suite vrf.Suite) (VRFProver, error)
	// GenerateSigner makes a new signing key with algorithm (Ed25519,
	// ECDSAP256SHA256, or "" for the best the backend supports: Ed25519,
	// else ECDSA P-256).
	GenerateSigner(label, algorithm string) (Signer, error)
	// VRFProver returns the prover of an existing VRF key (ErrNotFound).
	VRFProver(label string) (VRFProver, error)
	// Signer returns the signer of an existing signing key (ErrNotFound).
	Signer(label string) (Signer, error)
	// Close releases the backend; key memory held by it is wiped.
	Close() error
}

var (
	// ErrUnavailable means the key custody could not perform an operation
	// (token removed, session lost, device error, key memory wiped): no proof
	// or signature was made. The draw must be refused and an alarm raised;
	// never retry with another key or backend.
	ErrUnavailable = errors.New("key custody unavailable")
	// ErrBadCredentials means the PIN or passphrase was rejected. It never
	// says what was tried.
	ErrBadCredentials = errors.New("wrong PIN or passphrase")
	// ErrNotFound means there is no key with that label (or not of that
	// purpose): check the configured label against `rngctl keys show`.
	ErrNotFound = errors.New("key not found")
	// ErrExists means a key with that label already exists; key generation
	// never replaces a key.
	ErrExists = errors.New("key already exists")
	// ErrUnsupported means the backend cannot make or use that kind of key.
	ErrUnsupported = errors.New("unsupported by this backend")
	// ErrBadLabel means a label is empty, too long or has characters outside
	// [A-Za-z0-9._-].
	ErrBadLabel = errors.New("bad key label")
)

// CheckLabel reports whether label is a valid key label: 1 to 64 bytes of
// [A-Za-z0-9._-], not starting with a dot.
func CheckLabel(label string) error {
	if len(label) == 0 || len(label) > 64 || label[0] == '.' {
		return fmt.Errorf("%w %q: want 1 to 64 characters of [A-Za-z0-9._-], not starting with '.'", ErrBadLabel, label)
	}
	for _, c := range []byte(label) {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '_', c == '-':
		default:
			return fmt.Errorf("%w %q: want 1 to 64 characters of [A-Za-z0-9._-], not starting with '.'", ErrBadLabel, label)
		}
	}
	return nil
}

// Fingerprint is the lower-case hex SHA-256 of a public key encoding.
func Fingerprint(public []byte) string {
	h := sha256.Sum256(public)
	return hex.EncodeToString(h[:])
}

// MarshalSignerPublic encodes a signing public key as DER SubjectPublicKeyInfo.
func MarshalSignerPublic(pub crypto.PublicKey) ([]byte, error) {
	switch p := pub.(type) {
	case ed25519.PublicKey:
	case *ecdsa.PublicKey:
		if p.Curve.Params().Name != "P-256" {
			return nil, fmt.Errorf("%w: ECDSA curve %s", ErrUnsupported, p.Curve.Params().Name)
		}
	default:
		return nil, fmt.Errorf("%w: public key type %T", ErrUnsupported, pub)
	}
	return x509.MarshalPKIXPublicKey(pub)
}

// SignerKey describes a signer as a [Key] under label.
func SignerKey(label string, s Signer) (Key, error) {
	pub, err := MarshalSignerPublic(s.Public())
	if err != nil {
		return Key{}, err
	}
	return Key{Label: label, Purpose: PurposeSign, Algorithm: s.Algorithm(), Public: pub}, nil
}

// ProverKey describes a VRF prover as a [Key] under label.
func ProverKey(label string, p VRFProver) Key {
	return Key{Label: label, Purpose: PurposeVRF, Algorithm: string(p.Suite()), Public: p.PublicKey().Bytes()}
}

// VerifySignature checks a signature made by a [Signer] with algorithm alg.
// The verification is the verifier core's (announce.VerifySignature).
func VerifySignature(pub crypto.PublicKey, alg string, msg, sig []byte) error {
	if alg != Ed25519 && alg != ECDSAP256SHA256 {
		return fmt.Errorf("%w: signature algorithm %q", ErrUnsupported, alg)
	}
	return announce.VerifySignature(pub, alg, msg, sig)
}

// DigestSigner is implemented by ECDSA signers that can sign a SHA-256
// digest directly; [CryptoSigner] uses it.
type DigestSigner interface {
	SignDigest(digest []byte) ([]byte, error)
}

// CryptoSigner adapts s to crypto.Signer (for crypto/tls, x509, signed
// notes…). Ed25519 signers take opts.HashFunc() == 0 and the whole message;
// ECDSA signers take a SHA-256 digest and must implement [DigestSigner].
func CryptoSigner(s Signer) (crypto.Signer, error) {
	if s.Algorithm() == ECDSAP256SHA256 {
		if _, ok := s.(DigestSigner); !ok {
			return nil, fmt.Errorf("%w: ECDSA signer %T cannot sign digests", ErrUnsupported, s)
		}
	}
	return cryptoSigner{s}, nil
}

type cryptoSigner struct{ s Signer }

func (c cryptoSigner) Public() crypto.PublicKey { return c.s.Public() }

func (c cryptoSigner) Sign(_ io.Reader, digest []byte, opts crypto.SignerOpts) ([]byte, error) {
	switch c.s.Algorithm() {
	case Ed25519:
		if opts.HashFunc() != 0 {
			return nil, fmt.Errorf("%w: Ed25519 with pre-hash %v", ErrUnsupported, opts.HashFunc())
		}
		return c.s.Sign(digest)
	case ECDSAP256SHA256:
		if opts.HashFunc() != crypto.SHA256 || len(digest) != sha256.Size {
			return nil, fmt.Errorf("%w: ECDSA P-256 signs SHA-256 digests only", ErrUnsupported)
		}
		return c.s.(DigestSigner).SignDigest(digest)
	}
	return nil, fmt.Errorf("%w: signature algorithm %q", ErrUnsupported, c.s.Algorithm())
}
