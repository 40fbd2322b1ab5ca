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
// Errors are [*Error]: the failed check, the key for the per-key checks, and
// the cause. Their text is English; each is built from verdict's message
// catalog (errors.As finds an *Error as a *verdict.MsgError), so that
// rngverify says it in French too, the English text unchanged.
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
	"io"
	"strconv"

	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
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

// Error is "bad key announcement: ", the key (keys[i] "id: ") for the
// per-key checks, the check and the cause: the English rendering of its
// message of verdict's catalog ([Error.As]).
func (e *Error) Error() string { return e.msg().Text("en") }

// Unwrap returns ErrBad and the cause.
func (e *Error) Unwrap() []error { return []error{ErrBad, e.Err} }

// As finds e as a *verdict.MsgError, its message in the catalog, so that a
// verifier can say it in French (receipt.Cause); its English text is e's.
func (e *Error) As(target any) bool {
	if p, ok := target.(**verdict.MsgError); ok {
		*p = &verdict.MsgError{Msg: e.msg()}
		return true
	}
	return false
}

// checkNames are the checks' names in the catalog (English: the name).
var checkNames = map[string]verdict.MsgID{
	CheckLeaf:        verdict.MsgAnnounceCheckRecord,
	CheckEnvelope:    verdict.MsgAnnounceCheckEnvelope,
	CheckPayloadType: verdict.MsgAnnounceCheckPayloadType,
	CheckPayload:     verdict.MsgAnnounceCheckPayload,
	CheckSignatures:  verdict.MsgAnnounceCheckSignatures,
	CheckKeyID:       verdict.MsgAnnounceCheckKeyID,
	CheckPossession:  verdict.MsgAnnounceCheckPossession,
}

func (e *Error) msg() verdict.Msg {
	check := verdict.M(verdict.MsgSame, e.Check)
	if id, ok := checkNames[e.Check]; ok {
		check = verdict.M(id)
	}
	if e.Index >= 0 {
		return verdict.M(verdict.MsgAnnounceBadKey, e.Index, e.Key, check, e.Err)
	}
	return verdict.M(verdict.MsgAnnounceBad, check, e.Err)
}

// fail is the failed check whose cause is the catalog's message id(args…).
func fail(check string, id verdict.MsgID, args ...any) error {
	return &Error{Check: check, Index: -1, Err: verdict.Errorf(id, args...)}
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
//
// Unlike [Check]'s, Seal's errors are plain English and not in verdict's
// catalog: only the appliance makes an announcement (hsm.Announce, for rngd
// and rngctl), so they reach its operators and logs, never rngverify.
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

// ParseEnvelope parses b as a DSSE envelope of payloadType (step 4
// reversed; [PayloadType] for a key announcement's attestation, package
// attestations passes its own): at most [MaxEnvelope] bytes, strict JSON
// with no repeated member (verdict.RepeatedMember), no unknown one, nothing
// after it, that payload type, a payload. Signatures are the caller's.
func ParseEnvelope(b []byte, payloadType string) (*Envelope, error) {
	if len(b) == 0 {
		return nil, fail(CheckEnvelope, verdict.MsgAnnounceEmpty)
	}
	if len(b) > MaxEnvelope {
		return nil, fail(CheckEnvelope, verdict.MsgAnnounceTooLarge, len(b), MaxEnvelope)
	}
	// One reading of the signed bytes: a repeated member is one encoding/json
	// reads as its last, another reader as its first.
	if err := verdict.RepeatedMember(b); err != nil {
		return nil, fail(CheckEnvelope, verdict.MsgAnnounceNotDSSE, err)
	}
	var env Envelope
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil {
		return nil, fail(CheckEnvelope, verdict.MsgAnnounceNotDSSE, verdict.JSONError(err))
	}
	// Only white space may follow (dec.More alone lets a stray '}' or ']'
	// through).
	if _, err := dec.Token(); err != io.EOF {
		return nil, fail(CheckEnvelope, verdict.MsgAnnounceTrailing)
	}
	if env.PayloadType != payloadType {
		return nil, fail(CheckPayloadType, verdict.MsgAnnouncePayloadType, env.PayloadType, payloadType)
	}
	if len(env.Payload) == 0 {
		return nil, fail(CheckPayload, verdict.MsgAnnounceMissing)
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
		return nil, fail(CheckLeaf, verdict.MsgAnnounceKind, r.Kind(), record.KindKey)
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
	env, err := ParseEnvelope(ann.Attestation, PayloadType)
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
		return fail(CheckPayload, verdict.MsgAnnounceNotAttached)
	}
	if len(env.Signatures) != len(ann.Keys) {
		return fail(CheckSignatures, verdict.MsgAnnounceSigCount, len(env.Signatures), len(ann.Keys))
	}
	// 2.
	m := PAE(env.PayloadType, env.Payload)
	// 3.
	vrfKeys := map[[32]byte]record.Key{} // by fingerprint
	for i, k := range ann.Keys {
		s := env.Signatures[i]
		if s.KeyID != k.ID {
			return &Error{Check: CheckKeyID, Index: i, Key: k.ID, Err: verdict.Errorf(verdict.MsgAnnounceSigNames, i, s.KeyID)}
		}
		// One VRF key under two suites would give two outputs for each
		// α, the log drawing under whichever suits it (the audit's
		// MsgEntryKeyTwoSuites, across announcements).
		if k.Use == UseVRF {
			if o, ok := vrfKeys[k.Fingerprint]; ok && o.Suite != k.Suite {
				return &Error{Check: CheckLeaf, Index: i, Key: k.ID, Err: verdict.Errorf(verdict.MsgAnnounceKeyTwoSuites, k.ID, k.Suite, o.ID, o.Suite)}
			}
			vrfKeys[k.Fingerprint] = k
		}
		if err := possession(k, m, s.Sig); err != nil {
			return &Error{Check: CheckPossession, Index: i, Key: k.ID, Err: err}
		}
	}
	return nil
}

// VRFKey parses VRF key k's suite and public key, as auditors read them.
func VRFKey(k record.Key) (*vrf.PublicKey, error) {
	suite, err := vrf.ParseSuite(k.Suite)
	if err != nil {
		return nil, err
	}
	return vrf.ParsePublicKey(suite, k.PublicKey)
}

// possession checks key k's signature or VRF proof of m.
func possession(k record.Key, m, sig []byte) error {
	if k.Use == UseVRF {
		pk, err := VRFKey(k)
		if err != nil {
			return err
		}
		if _, err := vrf.Verify(pk, m, sig); err != nil {
			return verdict.Errorf(verdict.MsgAnnounceVRFProof, err)
		}
		return nil
	}
	pub, err := x509.ParsePKIXPublicKey(k.PublicKey)
	if err != nil {
		return verdict.Errorf(verdict.MsgAnnouncePublicKey, verdict.X509Error(err))
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
			return verdict.Errorf(verdict.MsgAnnounceNotEd25519, fmt.Sprintf("%T", pub))
		}
		if !ed25519.Verify(p, msg, sig) {
			return verdict.Errorf(verdict.MsgAnnounceBadEd25519)
		}
		return nil
	case ECDSAP256SHA256:
		p, ok := pub.(*ecdsa.PublicKey)
		switch curve := curveName(p); {
		case !ok || curve == "":
			return verdict.Errorf(verdict.MsgAnnounceNotECDSA, fmt.Sprintf("%T", pub))
		case curve != "P-256": // P-384, P-521: named, so that the reader sees which
			return verdict.Errorf(verdict.MsgAnnounceECDSACurve, fmt.Sprintf("%T", pub), curve)
		}
		h := sha256.Sum256(msg)
		if !ecdsa.VerifyASN1(p, h[:], sig) {
			return verdict.Errorf(verdict.MsgAnnounceBadECDSA)
		}
		return nil
	}
	return verdict.Errorf(verdict.MsgAnnounceAlgorithm, alg)
}

// curveName is the name of p's curve ("P-256", "P-384"), "" for no key, no
// curve or a curve without a name.
func curveName(p *ecdsa.PublicKey) string {
	if p == nil || p.Curve == nil || p.Curve.Params() == nil {
		return ""
	}
	return p.Curve.Params().Name
}
