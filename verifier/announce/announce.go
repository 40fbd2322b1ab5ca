// Package announce checks the appliance's signed key announcement: the log's
// first record, a record.KeyAnnouncement listing the appliance's public keys,
// whose Attestation field is a DSSE envelope
// (github.com/secure-systems-lab/dsse, protocol v1.0) in which every
// announced key proves that the appliance holds its private half.
//
// The announcement is made ([Seal], which hsm.Announce calls with the
// appliance's keys) in these steps, and [Check] reverses them:
//
//  1. payload = record.Format of the announcement without its attestation;
//     payloadType = [PayloadType].
//  2. m = PAE(payloadType, payload) = "DSSEv1" SP LEN(type) SP type SP
//     LEN(payload) SP payload, lengths in ASCII decimal ([PAE]).
//  3. For each key, in the order of the record, one signature whose keyid
//     is the key's id (its label) and whose sig is: for a signing key, its
//     signature of m (Ed25519, or ECDSA P-256 SHA-256 in ASN.1 DER); for a
//     VRF key, its VRF proof π for α = m (a VRF proof is unforgeable without
//     the private key, RFC 9381 §3.3).
//  4. The envelope is JSON {"payload","payloadType","signatures":[{"keyid",
//     "sig"}]} with payload and sig in standard base64, as DSSE defines, and
//     becomes the record's attestation.
//
// A passing check proves possession of every announced key by whoever made
// the announcement; it does not say who that was. Trust still comes from the
// user: the announcement file they were given, or pinned fingerprints.
//
// The package does no I/O; it is the code both the daemon (which checks the
// announcement it logs) and rngverify (which checks one given as a trust
// anchor) run.
package announce

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/vrf"
)

// PayloadType is the DSSE payload type of a key announcement.
const PayloadType = "application/vnd.tirage.key-announcement.v1+json"

// Key uses in the announcement (record.Key.Use).
const (
	UseVRF         = "vrf"         // decides outcomes
	UseLog         = "log"         // signs log checkpoints
	UseAttestation = "attestation" // signs attestations
)

// Signature algorithms of the signing keys (record.Key.Suite).
const (
	Ed25519         = "Ed25519"
	ECDSAP256SHA256 = "ECDSA-P256-SHA256" // signature: ASN.1 DER of SHA-256(m)
)

// MaxEnvelope bounds the size of an envelope that [ParseEnvelope] reads.
const MaxEnvelope = 1 << 20

// Names of the checks, as errors name them.
const (
	CheckLeaf        = "record"       // the leaf is a canonical key announcement
	CheckEnvelope    = "envelope"     // the attestation is a DSSE envelope
	CheckPayloadType = "payload-type" // of the envelope
	CheckPayload     = "payload"      // is the announcement the envelope is attached to
	CheckSignatures  = "signatures"   // one per key, in order
	CheckKeyID       = "keyid"        // the signature names its key
	CheckPossession  = "possession"   // the key's signature or VRF proof of m verifies
)

// ErrBad is wrapped by every error of [Check]: the announcement is not
// one its announced keys made and must not be trusted.
var ErrBad = errors.New("bad key announcement")

// Error is a failed check of an announcement: which check, which key (for
// the per-key checks), and why.
type Error struct {
	Check string
	Index int    // the key's position in the record, -1 for whole-envelope checks
	Key   string // the key's id, "" for whole-envelope checks
	Err   error
}

func (e *Error) Error() string {
	if e.Index >= 0 {
		return fmt.Sprintf("%s: keys[%d] %q: %s: %v", ErrBad, e.Index, e.Key, e.Check, e.Err)
	}
	return fmt.Sprintf("%s: %s: %v", ErrBad, e.Check, e.Err)
}

// Unwrap returns ErrBad and the cause.
func (e *Error) Unwrap() []error { return []error{ErrBad, e.Err} }

func fail(check string, format string, args ...any) error {
	return &Error{Check: check, Index: -1, Err: fmt.Errorf(format, args...)}
}

// Signature is one DSSE signature.
type Signature struct {
	KeyID string `json:"keyid"`
	Sig   []byte `json:"sig"`
}

// Envelope is a DSSE envelope.
type Envelope struct {
	Payload     []byte      `json:"payload"`
	PayloadType string      `json:"payloadType"`
	Signatures  []Signature `json:"signatures"`
}

// PAE is DSSE's pre-authentication encoding (step 2).
func PAE(payloadType string, payload []byte) []byte {
	var b bytes.Buffer
	b.WriteString("DSSEv1 " + strconv.Itoa(len(payloadType)) + " " + payloadType + " " + strconv.Itoa(len(payload)) + " ")
	b.Write(payload)
	return b.Bytes()
}

// Seal attaches to ann (whose Attestation is replaced) the DSSE envelope in
// which each key proves possession (steps 1–4), and returns the formatted
// leaf. prove is called once per key, with its index in ann.Keys and m: it
// returns the key's signature of m, or for a VRF key its proof for α = m.
func Seal(ann *record.KeyAnnouncement, prove func(i int, m []byte) ([]byte, error)) ([]byte, error) {
	ann.Attestation = nil
	// 1.
	payload, err := record.Format(ann)
	if err != nil {
		return nil, err
	}
	// 2.
	m := PAE(PayloadType, payload)
	env := Envelope{Payload: payload, PayloadType: PayloadType}
	// 3.
	for i, k := range ann.Keys {
		sig, err := prove(i, m)
		if err != nil {
			return nil, fmt.Errorf("key %q couldn't sign the announcement: %w", k.ID, err)
		}
		env.Signatures = append(env.Signatures, Signature{KeyID: k.ID, Sig: sig})
	}
	// 4.
	if ann.Attestation, err = json.Marshal(env); err != nil {
		return nil, err
	}
	return record.Format(ann)
}

// ParseEnvelope parses an attestation as a DSSE envelope of a key
// announcement (step 4 reversed): strict JSON, no unknown field, nothing
// after it, the announcement's payload type, a payload.
func ParseEnvelope(b []byte) (*Envelope, error) {
	if len(b) == 0 {
		return nil, fail(CheckEnvelope, "the record's attestation is empty: no DSSE envelope, no proof of possession")
	}
	if len(b) > MaxEnvelope {
		return nil, fail(CheckEnvelope, "%d bytes, more than %d", len(b), MaxEnvelope)
	}
	var env Envelope
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil {
		return nil, fail(CheckEnvelope, "not a DSSE envelope: %v", err)
	}
	if dec.More() {
		return nil, fail(CheckEnvelope, "data after the envelope")
	}
	if env.PayloadType != PayloadType {
		return nil, fail(CheckPayloadType, "%q, want %q", env.PayloadType, PayloadType)
	}
	if len(env.Payload) == 0 {
		return nil, fail(CheckPayload, "missing")
	}
	return &env, nil
}

// Parse parses a key announcement leaf and checks it ([CheckRecord]).
func Parse(leaf []byte) (*record.KeyAnnouncement, error) {
	r, err := record.Parse(leaf)
	if err != nil {
		return nil, &Error{Check: CheckLeaf, Index: -1, Err: err}
	}
	ann, ok := r.(*record.KeyAnnouncement)
	if !ok {
		return nil, fail(CheckLeaf, "record kind %q, want %q", r.Kind(), record.KindKey)
	}
	if err := CheckRecord(ann); err != nil {
		return nil, err
	}
	return ann, nil
}

// Check is [Parse] for callers that only need the verdict.
func Check(leaf []byte) error {
	_, err := Parse(leaf)
	return err
}

// CheckRecord checks that every key of ann signed (or, for a VRF key,
// proved) ann, as the package documentation describes. Errors are *Error
// and wrap ErrBad.
func CheckRecord(ann *record.KeyAnnouncement) error {
	env, err := ParseEnvelope(ann.Attestation)
	if err != nil {
		return err
	}
	// 1.
	bare := *ann
	bare.Attestation = nil
	payload, err := record.Format(&bare)
	if err != nil {
		return &Error{Check: CheckLeaf, Index: -1, Err: err}
	}
	if !bytes.Equal(payload, env.Payload) {
		return fail(CheckPayload, "is not the announcement it is attached to")
	}
	if len(env.Signatures) != len(ann.Keys) {
		return fail(CheckSignatures, "%d, want one per key (%d)", len(env.Signatures), len(ann.Keys))
	}
	// 2.
	m := PAE(env.PayloadType, env.Payload)
	// 3.
	for i, k := range ann.Keys {
		s := env.Signatures[i]
		if s.KeyID != k.ID {
			return &Error{Check: CheckKeyID, Index: i, Key: k.ID, Err: fmt.Errorf("signature %d names %q", i, s.KeyID)}
		}
		if err := possession(k, m, s.Sig); err != nil {
			return &Error{Check: CheckPossession, Index: i, Key: k.ID, Err: err}
		}
	}
	return nil
}

// possession checks key k's signature or VRF proof of m.
func possession(k record.Key, m, sig []byte) error {
	if k.Use == UseVRF {
		suite, err := vrf.ParseSuite(k.Suite)
		if err != nil {
			return err
		}
		pk, err := vrf.ParsePublicKey(suite, k.PublicKey)
		if err != nil {
			return err
		}
		if _, err := vrf.Verify(pk, m, sig); err != nil {
			return fmt.Errorf("the VRF proof does not verify: %w", err)
		}
		return nil
	}
	pub, err := x509.ParsePKIXPublicKey(k.PublicKey)
	if err != nil {
		return fmt.Errorf("public_key: %w", err)
	}
	return VerifySignature(pub, k.Suite, m, sig)
}

// VerifySignature verifies sig over msg by pub under algorithm alg
// ([Ed25519] or [ECDSAP256SHA256]).
func VerifySignature(pub any, alg string, msg, sig []byte) error {
	switch alg {
	case Ed25519:
		p, ok := pub.(ed25519.PublicKey)
		if !ok || len(p) != ed25519.PublicKeySize {
			return fmt.Errorf("public key %T is not an Ed25519 key", pub)
		}
		if !ed25519.Verify(p, msg, sig) {
			return errors.New("invalid Ed25519 signature")
		}
		return nil
	case ECDSAP256SHA256:
		p, ok := pub.(*ecdsa.PublicKey)
		if !ok || p.Curve.Params().Name != "P-256" {
			return fmt.Errorf("public key %T is not an ECDSA P-256 key", pub)
		}
		h := sha256.Sum256(msg)
		if !ecdsa.VerifyASN1(p, h[:], sig) {
			return errors.New("invalid ECDSA P-256 signature")
		}
		return nil
	}
	return fmt.Errorf("unsupported signature algorithm %q", alg)
}
