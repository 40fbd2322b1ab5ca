package attestations

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"tirage.fr/tirage/verifier/announce"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// Sign makes the signed envelope of s (steps 1–5 of the package
// documentation) with signer, the attestation key announced as keyID: an
// Ed25519 key, or an ECDSA P-256 key (which receives SHA-256(m) and
// crypto.SHA256, as crypto.Signer specifies).
func Sign(signer crypto.Signer, keyID string, s *Statement) ([]byte, error) {
	return SignMessage(signer.Public(), keyID, s, func(m []byte) ([]byte, error) {
		if _, ok := signer.Public().(*ecdsa.PublicKey); ok {
			h := sha256.Sum256(m)
			return signer.Sign(rand.Reader, h[:], crypto.SHA256)
		}
		return signer.Sign(rand.Reader, m, crypto.Hash(0))
	})
}

// SignMessage is [Sign] for a signer that signs the message m itself, as
// hsm.Signer does (SignMessage(sg.Public(), label, s, sg.Sign)): sign
// returns the Ed25519 signature of m, or the ECDSA P-256 ASN.1 DER signature
// of SHA-256(m), by the key whose public half is pub. The signature is
// checked before the envelope is returned, as auditors will check it: a
// signer that signs with another key than pub fails here.
func SignMessage(pub crypto.PublicKey, keyID string, s *Statement, sign func(m []byte) ([]byte, error)) ([]byte, error) {
	if keyID == "" {
		return nil, errors.New("couldn't sign the attestation: no key id")
	}
	var alg string
	switch p := pub.(type) {
	case ed25519.PublicKey:
		alg = announce.Ed25519
	case *ecdsa.PublicKey:
		if p.Curve != elliptic.P256() {
			return nil, fmt.Errorf("couldn't sign the attestation: key %q is not on P-256", keyID)
		}
		alg = announce.ECDSAP256SHA256
	default:
		return nil, fmt.Errorf("couldn't sign the attestation: key %q is a %T, want Ed25519 or ECDSA P-256", keyID, p)
	}
	// 1–2.
	payload, err := Format(s)
	if err != nil {
		return nil, fmt.Errorf("couldn't sign the attestation: %w", err)
	}
	// 3.
	m := announce.PAE(PayloadType, payload)
	// 4.
	sig, err := sign(m)
	if err != nil {
		return nil, fmt.Errorf("couldn't sign the attestation with key %q: %w", keyID, err)
	}
	if err := announce.VerifySignature(pub, alg, m, sig); err != nil {
		return nil, fmt.Errorf("key %q made a signature that does not verify: %w", keyID, err)
	}
	// 5.
	return json.Marshal(announce.Envelope{Payload: payload, PayloadType: PayloadType, Signatures: []announce.Signature{{KeyID: keyID, Sig: sig}}})
}

// ParseEnvelope parses an attestation's DSSE envelope (step 5 reversed),
// strictly: at most MaxEnvelope bytes, no repeated or unknown member,
// nothing after it, payload type [PayloadType], a payload, exactly one
// signature naming its key. The signature is not checked ([VerifyEnvelope]).
func ParseEnvelope(b []byte) (*announce.Envelope, error) {
	env, err := parseEnvelope(b)
	if err != nil {
		return nil, fmt.Errorf("%w: envelope: %w", ErrBad, err)
	}
	return env, nil
}

func parseEnvelope(b []byte) (*announce.Envelope, error) {
	if len(b) == 0 {
		return nil, errors.New("empty")
	}
	env, err := announce.ParseEnvelope(b, PayloadType)
	if ae := (*announce.Error)(nil); errors.As(err, &ae) {
		// announce's check and cause, not its "bad key announcement"
		// (its check "envelope" is what ParseEnvelope says already).
		if ae.Check == announce.CheckEnvelope {
			return nil, ae.Err
		}
		return nil, fmt.Errorf("%s: %w", ae.Check, ae.Err)
	}
	if err != nil {
		return nil, err
	}
	switch {
	case len(env.Signatures) != 1:
		return nil, fmt.Errorf("%d signatures, want 1 (the appliance's)", len(env.Signatures))
	case env.Signatures[0].KeyID == "":
		return nil, errors.New("the signature names no key")
	}
	// One spelling of each envelope, the one Sign writes: encoding/json
	// also reads members named in another case, white space, and base64
	// broken by new lines, each giving the same statement another digest.
	if c, err := json.Marshal(env); err != nil || !bytes.Equal(c, b) {
		return nil, errors.New("not in its canonical form (members payload, payloadType, signatures with keyid and sig, in that order and case, standard padded base64, no white space: as rngctl attest writes it)")
	}
	return env, nil
}

// EnvelopeBytes are the envelope in file, an envelope file as rngctl attest
// writes it: the envelope and a final new line, which is not the
// envelope's (rngctl attest log sends it without; the record's digest is
// of the envelope alone).
func EnvelopeBytes(file []byte) []byte {
	return bytes.TrimSuffix(file, []byte("\n"))
}

// KeyID is the id of the key that signed env (its keyid).
func KeyID(env *announce.Envelope) string {
	if len(env.Signatures) == 0 {
		return ""
	}
	return env.Signatures[0].KeyID
}

// VerifyEnvelope checks env's signature (steps 3–4) under key, an announced
// attestation key (use "attestation", whose id the signature names).
// Errors wrap ErrBad; announce's errors in them read in French too.
func VerifyEnvelope(env *announce.Envelope, key record.Key) error {
	if err := verifyEnvelope(env, key); err != nil {
		return fmt.Errorf("%w: signature: %w", ErrBad, err)
	}
	return nil
}

func verifyEnvelope(env *announce.Envelope, key record.Key) error {
	if key.Use != announce.UseAttestation {
		return fmt.Errorf("key %q is announced for %q, not %q", key.ID, key.Use, announce.UseAttestation)
	}
	if len(env.Signatures) != 1 || env.Signatures[0].KeyID != key.ID {
		return fmt.Errorf("the envelope is not signed by key %q alone", key.ID)
	}
	pub, err := x509.ParsePKIXPublicKey(key.PublicKey)
	if err != nil {
		return verdict.Errorf(verdict.MsgAnnouncePublicKey, verdict.X509Error(err))
	}
	return announce.VerifySignature(pub, key.Suite, announce.PAE(env.PayloadType, env.Payload), env.Signatures[0].Sig)
}

// Open parses an envelope, checks its signature under key and parses its
// statement ([ParseEnvelope], [VerifyEnvelope], [Parse]). The statement's
// claims are not checked: that is [Verify].
func Open(envelope []byte, key record.Key) (*Statement, error) {
	env, err := ParseEnvelope(envelope)
	if err != nil {
		return nil, err
	}
	if err := VerifyEnvelope(env, key); err != nil {
		return nil, err
	}
	return Parse(env.Payload)
}

// AnnouncedKey returns the attestation key named id in ann, which the
// caller has checked (announce.Parse or announce.CheckRecord).
func AnnouncedKey(ann *record.KeyAnnouncement, id string) (record.Key, error) {
	for _, k := range ann.Keys {
		if k.ID != id {
			continue
		}
		if k.Use != announce.UseAttestation {
			return k, fmt.Errorf("%w: key %q is announced for %q, not %q", ErrBad, id, k.Use, announce.UseAttestation)
		}
		return k, nil
	}
	return record.Key{}, fmt.Errorf("%w: key %q is not announced", ErrBad, id)
}

// NewRecord is the log record of envelope (step 6), made at t by key keyID:
// s is the statement the envelope carries. The envelope is embedded when it
// is at most MaxEmbedded bytes.
func NewRecord(t time.Time, keyID string, envelope []byte, s *Statement) *record.Attestation {
	r := &record.Attestation{Time: t.UTC().Truncate(time.Second), Type: s.Type(), Digest: sha256.Sum256(envelope), Key: keyID}
	if len(s.Subject) > 0 {
		r.Subject = s.Subject[0].Name
	}
	if len(envelope) <= MaxEmbedded {
		r.Statement = bytes.Clone(envelope)
	}
	return r
}

// CheckRecord checks that r is the log record of envelope, whose signature
// names keyID and whose statement is s: r's digest is SHA-256(envelope), its
// subject the statement's first, its type the predicate type, its key
// keyID, and what it embeds (if anything) the envelope. Errors wrap ErrBad.
func CheckRecord(r *record.Attestation, envelope []byte, keyID string, s *Statement) error {
	d := sha256.Sum256(envelope)
	switch {
	case len(s.Subject) == 0:
		return fmt.Errorf("%w: statement has no subject", ErrBad)
	case r.Digest != d:
		return fmt.Errorf("%w: record: digest %s, the envelope's SHA-256 is %s", ErrBad, record.Hex(r.Digest), record.Hex(d))
	case len(r.Statement) > 0 && !bytes.Equal(r.Statement, envelope):
		return fmt.Errorf("%w: record: it embeds another envelope", ErrBad)
	case r.Subject != s.Subject[0].Name:
		return fmt.Errorf("%w: record: subject %q, the statement's is %q", ErrBad, r.Subject, s.Subject[0].Name)
	case r.Type != s.Type():
		return fmt.Errorf("%w: record: type %q, the statement's is %q", ErrBad, r.Type, s.Type())
	case r.Key != keyID:
		return fmt.Errorf("%w: record: key %q, the envelope is signed by %q", ErrBad, r.Key, keyID)
	}
	return nil
}

// checkSubject checks that s is about one subject named name.
func checkSubject(s *Statement, name string) error {
	if len(s.Subject) != 1 || s.Subject[0].Name != name {
		return fmt.Errorf("the subject must be %q alone", name)
	}
	return nil
}
