package hsm

import (
	"fmt"
	"time"

	"tirage.fr/tirage/verifier/announce"
	"tirage.fr/tirage/verifier/record"
)

// The key announcement is the log's first record: a record.KeyAnnouncement
// listing the appliance's public keys, whose Attestation field is a DSSE
// envelope in which every announced key proves that the appliance holds it.
// Package verifier/announce specifies it (steps 1–4) and checks it; this
// file makes it.
const AnnouncementPayloadType = announce.PayloadType

// Key uses in the announcement (record.Key.Use).
const (
	UseVRF         = announce.UseVRF         // decides outcomes
	UseLog         = announce.UseLog         // signs log checkpoints
	UseAttestation = announce.UseAttestation // signs attestations
)

// AnnouncedKey is one key to announce: a VRF prover (Use UseVRF) or a
// signer (UseLog, UseAttestation), under its label.
type AnnouncedKey struct {
	Use    string
	Label  string
	Prover VRFProver // for UseVRF
	Signer Signer    // otherwise
}

// Announce makes the signed key announcement leaf for keys at time now
// (truncated to the second, UTC). Every key signs or proves; any failure of
// the backend fails the announcement, and so does a leaf that
// CheckAnnouncement would reject (error wrapping ErrUnavailable). A log key
// (UseLog) must be Ed25519, as the log signs its checkpoints with Ed25519
// only; CheckAnnouncement, the verifiers' check, does not ask it.
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
			if k.Use == UseLog && sk.Algorithm != Ed25519 {
				// The log's checkpoints are signed with Ed25519 only
				// (transparency): an appliance announcing another log key
				// could not run its log.
				return nil, fmt.Errorf("key %q: a log key must be %s, not %s (the log's checkpoints are signed with %s only)",
					k.Label, Ed25519, sk.Algorithm, Ed25519)
			}
			rk = record.Key{ID: k.Label, Use: k.Use, Suite: sk.Algorithm, PublicKey: sk.Public}
		default:
			return nil, fmt.Errorf("key %q: use %q needs a VRF prover for %q and a signer for %q or %q", k.Label, k.Use, UseVRF, UseLog, UseAttestation)
		}
		rk.Fingerprint = record.Fingerprint(rk.PublicKey)
		ann.Keys = append(ann.Keys, rk)
	}
	leaf, err := announce.Seal(ann, func(i int, m []byte) ([]byte, error) {
		if keys[i].Use == UseVRF {
			pi, _, err := keys[i].Prover.Prove(m)
			return pi, err
		}
		return keys[i].Signer.Sign(m)
	})
	if err != nil {
		return nil, err
	}
	// Checked before release, as auditors will check it: a backend whose
	// key signs other than it announces (faulty, misconfigured) fails the
	// announcement here instead of at every auditor.
	if _, err := CheckAnnouncement(leaf); err != nil {
		return nil, fmt.Errorf("%w: the announcement made does not verify: %w", ErrUnavailable, err)
	}
	return leaf, nil
}

// ErrBadAnnouncement is wrapped by every error of CheckAnnouncement that
// means the announcement is not one the announced keys made: it must not
// be trusted. It is announce.ErrBad.
var ErrBadAnnouncement = announce.ErrBad

// CheckAnnouncement parses a key announcement leaf and checks that every
// announced key signed (or, for a VRF key, proved) it, as [Announce] makes
// them: announce.Parse.
func CheckAnnouncement(leaf []byte) (*record.KeyAnnouncement, error) {
	return announce.Parse(leaf)
}
