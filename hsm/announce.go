package hsm

import (
	"bytes"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/vrf"
)

// The key announcement is the log's first record: a record.KeyAnnouncement
// listing the appliance's public keys, whose Attestation field is a DSSE
// envelope (github.com/secure-systems-lab/dsse, protocol v1.0) in which
// every announced key proves that the appliance holds it:
//
//  1. payload = record.Format of the announcement without its attestation;
//     payloadType = AnnouncementPayloadType.
//  2. m = PAE(payloadType, payload) = "DSSEv1" SP LEN(type) SP type SP
//     LEN(payload) SP payload, lengths in ASCII decimal.
//  3. For each key, in the order of the record, one signature whose keyid
//     is the key's id (its label) and whose sig is: for a signing key, its
//     signature of m (Ed25519, or ECDSA P-256 SHA-256 in ASN.1 DER); for a
//     VRF key, its VRF proof π for α = m (a VRF proof is unforgeable without
//     the private key, RFC 9381 §3.3).
//  4. The envelope is JSON {"payload","payloadType","signatures":[{"keyid",
//     "sig"}]} with payload and sig in standard base64, as DSSE defines, and
//     becomes the record's attestation.
//
// [CheckAnnouncement] reverses the steps. It does no I/O and belongs with
// the verifier core; it lives here until verifier/record takes it.
const AnnouncementPayloadType = "application/vnd.tirage.key-announcement.v1+json"

// Key uses in the announcement (record.Key.Use).
const (
	UseVRF         = "vrf"         // decides outcomes
	UseLog         = "log"         // signs log checkpoints
	UseAttestation = "attestation" // signs attestations
)

// AnnouncedKey is one key to announce: a VRF prover (Use UseVRF) or a
// signer (UseLog, UseAttestation), under its label.
type AnnouncedKey struct {
	Use    string
	Label  string
	Prover VRFProver // for UseVRF
	Signer Signer    // otherwise
}

type dsseSignature struct {
	KeyID string `json:"keyid"`
	Sig   []byte `json:"sig"`
}

type dsseEnvelope struct {
	Payload     []byte          `json:"payload"`
	PayloadType string          `json:"payloadType"`
	Signatures  []dsseSignature `json:"signatures"`
}

// pae is DSSE's pre-authentication encoding.
func pae(payloadType string, payload []byte) []byte {
	var b bytes.Buffer
	b.WriteString("DSSEv1 " + strconv.Itoa(len(payloadType)) + " " + payloadType + " " + strconv.Itoa(len(payload)) + " ")
	b.Write(payload)
	return b.Bytes()
}

// Announce makes the signed key announcement leaf for keys at time now
// (truncated to the second, UTC). Every key signs or proves; any failure of
// the backend fails the announcement.
func Announce(now time.Time, keys []AnnouncedKey) ([]byte, error) {
	ann := &record.KeyAnnouncement{Time: now.UTC().Truncate(time.Second)}
	for _, k := range keys {
		var rk record.Key
		switch {
		case k.Use == UseVRF && k.Prover != nil:
			pk := ProverKey(k.Label, k.Prover)
			rk = record.Key{ID: k.Label, Use: k.Use, Suite: pk.Algorithm, PublicKey: pk.Public}
		case (k.Use == UseLog || k.Use == UseAttestation) && k.Signer != nil:
			sk, err := SignerKey(k.Label, k.Signer)
			if err != nil {
				return nil, err
			}
			rk = record.Key{ID: k.Label, Use: k.Use, Suite: sk.Algorithm, PublicKey: sk.Public}
		default:
			return nil, fmt.Errorf("key %q: use %q needs a VRF prover for %q and a signer for %q or %q", k.Label, k.Use, UseVRF, UseLog, UseAttestation)
		}
		rk.Fingerprint = record.Fingerprint(rk.PublicKey)
		ann.Keys = append(ann.Keys, rk)
	}
	// 1.
	payload, err := record.Format(ann)
	if err != nil {
		return nil, err
	}
	// 2.
	m := pae(AnnouncementPayloadType, payload)
	env := dsseEnvelope{Payload: payload, PayloadType: AnnouncementPayloadType}
	// 3.
	for _, k := range keys {
		var sig []byte
		if k.Use == UseVRF {
			sig, err = k.Prover.Prove(m)
		} else {
			sig, err = k.Signer.Sign(m)
		}
		if err != nil {
			return nil, fmt.Errorf("key %q couldn't sign the announcement: %w", k.Label, err)
		}
		env.Signatures = append(env.Signatures, dsseSignature{KeyID: k.Label, Sig: sig})
	}
	// 4.
	if ann.Attestation, err = json.Marshal(env); err != nil {
		return nil, err
	}
	return record.Format(ann)
}

// ErrBadAnnouncement is wrapped by every error of CheckAnnouncement that
// means the announcement is not one the announced keys made: it must not
// be trusted.
var ErrBadAnnouncement = errors.New("bad key announcement")

// CheckAnnouncement parses a key announcement leaf and checks that every
// announced key signed (or, for a VRF key, proved) it, as [Announce] makes
// them.
func CheckAnnouncement(leaf []byte) (*record.KeyAnnouncement, error) {
	r, err := record.Parse(leaf)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadAnnouncement, err)
	}
	ann, ok := r.(*record.KeyAnnouncement)
	if !ok {
		return nil, fmt.Errorf("%w: record kind %q, want %q", ErrBadAnnouncement, r.Kind(), record.KindKey)
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrBadAnnouncement}, args...)...)
	}
	if len(ann.Attestation) == 0 {
		return nil, bad("attestation: missing")
	}
	var env dsseEnvelope
	dec := json.NewDecoder(bytes.NewReader(ann.Attestation))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil {
		return nil, bad("attestation: not a DSSE envelope: %v", err)
	}
	if env.PayloadType != AnnouncementPayloadType {
		return nil, bad("attestation.payloadType: %q, want %q", env.PayloadType, AnnouncementPayloadType)
	}
	bare := *ann
	bare.Attestation = nil
	payload, err := record.Format(&bare)
	if err != nil {
		return nil, bad("%v", err)
	}
	if !bytes.Equal(payload, env.Payload) {
		return nil, bad("attestation.payload: is not the announcement it is attached to")
	}
	if len(env.Signatures) != len(ann.Keys) {
		return nil, bad("attestation.signatures: %d, want one per key (%d)", len(env.Signatures), len(ann.Keys))
	}
	m := pae(env.PayloadType, env.Payload)
	for i, k := range ann.Keys {
		s := env.Signatures[i]
		if s.KeyID != k.ID {
			return nil, bad("attestation.signatures[%d].keyid: %q, want %q", i, s.KeyID, k.ID)
		}
		if err := checkKeySignature(k, m, s.Sig); err != nil {
			return nil, bad("keys[%d] %q: %v", i, k.ID, err)
		}
	}
	return ann, nil
}

func checkKeySignature(k record.Key, m, sig []byte) error {
	if k.Use == UseVRF {
		suite, err := vrf.ParseSuite(k.Suite)
		if err != nil {
			return err
		}
		pk, err := vrf.ParsePublicKey(suite, k.PublicKey)
		if err != nil {
			return err
		}
		_, err = vrf.Verify(pk, m, sig)
		return err
	}
	pub, err := x509.ParsePKIXPublicKey(k.PublicKey)
	if err != nil {
		return fmt.Errorf("public_key: %w", err)
	}
	return VerifySignature(pub, k.Suite, m, sig)
}
