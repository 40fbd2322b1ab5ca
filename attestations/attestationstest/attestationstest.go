// Package attestationstest makes throwaway appliance keys for tests of
// attestations: an attestation key, a log key, and their signed key
// announcement, as hsm.Announce makes it.
package attestationstest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/json"
	"time"

	"tirage.fr/tirage/attestations"
	"tirage.fr/tirage/verifier/announce"
	"tirage.fr/tirage/verifier/record"
)

// Appliance holds an attestation key and the announcement of it.
type Appliance struct {
	KeyID  string        // the attestation key's id
	Signer crypto.Signer // the attestation key
	Log    ed25519.PrivateKey
	// Announcement is the signed key announcement leaf.
	Announcement []byte
	// Record is the parsed announcement.
	Record *record.KeyAnnouncement
}

// New makes an appliance whose attestation key is Ed25519 (from seed) or,
// with ecdsaKey, ECDSA P-256.
func New(seed byte, ecdsaKey bool) (*Appliance, error) {
	s := make([]byte, ed25519.SeedSize)
	for i := range s {
		s[i] = seed + byte(i)
	}
	a := &Appliance{KeyID: "att-1", Log: ed25519.NewKeyFromSeed(append([]byte{seed ^ 0xff}, s[1:]...))}
	suite := announce.Ed25519
	if ecdsaKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, err
		}
		a.Signer, suite = k, announce.ECDSAP256SHA256
	} else {
		a.Signer = ed25519.NewKeyFromSeed(s)
	}
	attPub, err := x509.MarshalPKIXPublicKey(a.Signer.Public())
	if err != nil {
		return nil, err
	}
	logPub, err := x509.MarshalPKIXPublicKey(a.Log.Public())
	if err != nil {
		return nil, err
	}
	keys := []record.Key{
		{ID: "log-1", Use: announce.UseLog, Suite: announce.Ed25519, PublicKey: logPub},
		{ID: a.KeyID, Use: announce.UseAttestation, Suite: suite, PublicKey: attPub},
	}
	for i := range keys {
		keys[i].Fingerprint = record.Fingerprint(keys[i].PublicKey)
	}
	ann := &record.KeyAnnouncement{Time: time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC), Keys: keys}
	a.Announcement, err = announce.Seal(ann, func(i int, m []byte) ([]byte, error) {
		if i == 0 {
			return ed25519.Sign(a.Log, m), nil
		}
		if ecdsaKey {
			h := sha256.Sum256(m)
			return a.Signer.Sign(rand.Reader, h[:], crypto.SHA256)
		}
		return a.Signer.Sign(rand.Reader, m, crypto.Hash(0))
	})
	if err != nil {
		return nil, err
	}
	if a.Record, err = announce.Parse(a.Announcement); err != nil {
		return nil, err
	}
	return a, nil
}

// Key is the announced attestation key.
func (a *Appliance) Key() record.Key { return a.Record.Keys[1] }

// Sign signs s with the attestation key.
func (a *Appliance) Sign(s *attestations.Statement) ([]byte, error) {
	return attestations.Sign(a.Signer, a.KeyID, s)
}

// SignPayload signs payload, whatever it is, as an in-toto envelope: for
// tests of what a signed but bad statement gives.
func (a *Appliance) SignPayload(payload []byte) []byte {
	m := announce.PAE(attestations.PayloadType, payload)
	var sig []byte
	if k, ok := a.Signer.(ed25519.PrivateKey); ok {
		sig = ed25519.Sign(k, m)
	} else {
		h := sha256.Sum256(m)
		sig, _ = a.Signer.Sign(rand.Reader, h[:], crypto.SHA256)
	}
	b, _ := jsonEnvelope(payload, a.KeyID, sig)
	return b
}

func jsonEnvelope(payload []byte, keyID string, sig []byte) ([]byte, error) {
	return json.Marshal(announce.Envelope{Payload: payload, PayloadType: attestations.PayloadType, Signatures: []announce.Signature{{KeyID: keyID, Sig: sig}}})
}
