package receipt

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"

	"tirage.fr/tirage/attestations"
	"tirage.fr/tirage/verifier/announce"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// The checks of an attestation (rngverify attestation, the browser page),
// after verdict's format and record.
const (
	CheckEnvelope             = "envelope"              // the record embeds a DSSE envelope of an in-toto statement
	CheckAttestationKey       = "attestation-key"       // the envelope names an announced attestation key (pinned, if pins are given)
	CheckAttestationSignature = "attestation-signature" // its DSSE signature verifies under that key
	CheckStatement            = "statement"             // the payload is a canonical in-toto statement of a known type
	CheckPredicate            = "predicate"             // the statement says what the rules give (paytable) or is well formed (build)
	CheckBuildKeys            = "build-keys"            // the keys a build attests are the announced ones
	CheckConfigDigest         = "config-digest"         // the configuration file's SHA-256 is the attested one
	CheckBinaryDigest         = "binary-digest"         // the executable's SHA-256 is the attested subject's
)

// AttestationInputs is what an attestation is checked against besides
// itself (rngverify attestation's flags).
type AttestationInputs struct {
	// Announcements are the appliance's key announcement records, each
	// one that announce.Parse accepted (--attestation-key): the envelope
	// must be signed by one of their attestation keys (AttestationKeys).
	Announcements []*record.KeyAnnouncement
	// Pins, if any, must include the signing key's fingerprint (bare or
	// SHA256:; ParsePin).
	Pins []string
	// Config, if not nil, is the configuration file (--config) a build
	// attestation's digest must be of; ConfigName names it.
	Config     []byte
	ConfigName string
	// Binary, if not nil, is the SHA-256 of the rngd executable (--binary)
	// a build attestation's subject must have; BinaryName names it.
	Binary     *[32]byte
	BinaryName string
}

// AttestationKeys are the keys ann announces for attestations.
func AttestationKeys(ann *record.KeyAnnouncement) []record.Key {
	var keys []record.Key
	for _, k := range ann.Keys {
		if k.Use == announce.UseAttestation {
			keys = append(keys, k)
		}
	}
	return keys
}

// VerifyAttestation checks file (named name), a DSSE envelope or an
// attestation log record embedding one, as rngverify attestation and the
// browser page show it: its record if it is one, its envelope's signature
// by an attestation key of in.Announcements, its statement, and what the
// statement claims.
func VerifyAttestation(file []byte, name string, in AttestationInputs) *verdict.Verdict {
	keys := map[string][]record.Key{} // the attestation keys, by id (two announcements may reuse an id)
	for _, ann := range in.Announcements {
		for _, k := range AttestationKeys(ann) {
			keys[k.ID] = append(keys[k.ID], k)
		}
	}
	v := verdict.New(DocAttestation, verdict.MsgSubjectAttestation, name)
	// A record ("kind") or an envelope ("payloadType").
	var top map[string]json.RawMessage
	if err := json.Unmarshal(file, &top); err != nil {
		v.Fail(verdict.CheckFormat, verdict.MsgAttestNotAttestation, name, Cause(verdict.JSONError(err)))
		return v
	}
	// A file's final new line is not the envelope's, nor the record's.
	envelope := attestations.EnvelopeBytes(file)
	var rec *record.Attestation
	if _, ok := top["kind"]; ok {
		r, err := record.Parse(envelope)
		if err != nil {
			// A record whose digest is not its statement's is refused here.
			v.Fail(verdict.CheckRecord, verdict.MsgSame, Cause(err))
			return v
		}
		if rec, ok = r.(*record.Attestation); !ok {
			v.Fail(verdict.CheckFormat, verdict.MsgAttestRecordKind, name, verdict.Term(r.Kind()))
			return v
		}
		if len(rec.Statement) == 0 {
			v.Fail(verdict.CheckRecord, verdict.MsgAttestNoStatement, record.Hex(rec.Digest))
			return v
		}
		envelope = rec.Statement
	}
	env, err := attestations.ParseEnvelope(envelope)
	switch {
	case err != nil && rec == nil:
		v.Fail(verdict.CheckFormat, verdict.MsgAttestNotAttestation, name, Cause(err))
		return v
	case err != nil:
		v.Fail(CheckEnvelope, verdict.MsgSame, Cause(err))
		return v
	}
	// The key: announced for attestations, and pinned if pins are given.
	id := attestations.KeyID(env)
	candidates, ok := keys[id]
	switch {
	case len(keys) == 0:
		// rngverify attestation refuses to run without one; the page
		// checks what it is given.
		v.Fail(CheckAttestationKey, verdict.MsgAttestNoAnnouncement, id)
		return v
	case !ok:
		ids := slices.Sorted(maps.Keys(keys))
		v.Fail(CheckAttestationKey, verdict.MsgAttestKeyUnknown, id, strings.Join(ids, ", "))
		return v
	}
	if len(in.Pins) > 0 {
		// A bare or SHA256: fingerprint; a VRF key's suite pin never
		// names an attestation key.
		pins := Anchors{Pins: in.Pins}
		candidates = slices.DeleteFunc(slices.Clone(candidates), func(k record.Key) bool { return !pins.pinned(record.Hex(k.Fingerprint)) })
		if len(candidates) == 0 {
			v.Fail(CheckAttestationKey, verdict.MsgAttestKeyNotPinned, id, record.Hex(keys[id][0].Fingerprint))
			return v
		}
	}
	v.Pass(CheckAttestationKey, verdict.MsgAttestKeyOK, id, record.Hex(candidates[0].Fingerprint))
	// The signature, under the key of that id of any announcement given.
	var sigErr error
	for _, k := range candidates {
		if sigErr = attestations.VerifyEnvelope(env, k); sigErr == nil {
			v.Set(CheckAttestationKey, verdict.StatusPass, verdict.MsgAttestKeyOK, id, record.Hex(k.Fingerprint))
			break
		}
	}
	if sigErr != nil {
		v.Fail(CheckAttestationSignature, verdict.MsgSame, Cause(sigErr))
		return v
	}
	v.Pass(CheckAttestationSignature, verdict.MsgAttestSigOK, id)
	// The statement: signed by the appliance, so from here on a false claim
	// is its own (misbehaviour); one this verifier cannot read is not.
	s, err := attestations.Parse(env.Payload)
	if err != nil {
		v.Fail(CheckStatement, verdict.MsgSame, Cause(err))
		return v
	}
	v.Pass(CheckStatement, verdict.MsgAttestStatementOK, s.Type(), s.Subject[0].Name)
	if rec != nil {
		// The record is not authenticated here (no inclusion proof): a
		// record that disagrees with the envelope proves nothing.
		if err := attestations.CheckRecord(rec, envelope, id, s); err != nil {
			v.Fail(verdict.CheckRecord, verdict.MsgSame, Cause(err))
		} else {
			v.Pass(verdict.CheckRecord, verdict.MsgAttestRecordOK, record.Hex(rec.Digest))
		}
	}
	if err := attestations.Verify(s); err != nil {
		var fe *attestations.FigureError
		if errors.As(err, &fe) {
			v.Misbehaviour(CheckPredicate, verdict.MsgAttestFigure, fe.Field, fe.Attested, fe.Want)
		} else {
			v.Misbehaviour(CheckPredicate, verdict.MsgSame, Cause(err))
		}
	} else {
		switch p := s.Predicate.(type) {
		case *attestations.Paytable:
			v.Pass(CheckPredicate, verdict.MsgAttestPaytableOK, len(p.Tiers), len(p.Picks), len(p.Returns))
		case *attestations.Build:
			v.Pass(CheckPredicate, verdict.MsgAttestBuildOK, p.Path, p.Main.Version, p.GoVersion, p.VCS.Revision)
		}
	}
	b, isBuild := s.Predicate.(*attestations.Build)
	switch {
	case !isBuild:
		if in.Config != nil {
			v.Skip(CheckConfigDigest, verdict.MsgAttestNotBuild, s.Type())
		}
		if in.Binary != nil {
			v.Skip(CheckBinaryDigest, verdict.MsgAttestNotBuild, s.Type())
		}
	default:
		checkBuildKeys(v, b, in.Announcements)
		if in.Config != nil {
			if err := attestations.CheckConfig(b, in.Config); err != nil {
				d := sha256.Sum256(in.Config)
				v.Fail(CheckConfigDigest, verdict.MsgAttestDigestDiffers, in.ConfigName, record.Hex(d), b.ConfigSHA256)
			} else {
				v.Pass(CheckConfigDigest, verdict.MsgAttestDigestOK, in.ConfigName, b.ConfigSHA256)
			}
		}
		if in.Binary != nil {
			if d := *in.Binary; d != s.Subject[0].SHA256 {
				v.Fail(CheckBinaryDigest, verdict.MsgAttestDigestDiffers, in.BinaryName, record.Hex(d), record.Hex(s.Subject[0].SHA256))
			} else {
				v.Pass(CheckBinaryDigest, verdict.MsgAttestDigestOK, in.BinaryName, record.Hex(d))
			}
		}
	}
	v.FactNamed(verdict.M(verdict.MsgAttestFactType), verdict.MsgSame, s.Type())
	v.FactNamed(verdict.M(verdict.MsgAttestFactSubject), verdict.MsgAttestSubjectValue, s.Subject[0].Name, record.Hex(s.Subject[0].SHA256))
	v.FactNamed(verdict.M(verdict.MsgAttestFactEnvelope), verdict.MsgSha256, record.Hex(sha256.Sum256(envelope)))
	return v
}

// checkBuildKeys checks the build's keys against the announcements given:
// each must be announced, with its use and fingerprint, in one of them (the
// appliance may have announced new keys since, and a VRF key rotated
// without the attestation key is announced apart from it). The
// announcements are the user's, not the appliance's word: a difference
// fails, it proves nothing.
func checkBuildKeys(v *verdict.Verdict, b *attestations.Build, anns []*record.KeyAnnouncement) {
	if err := attestations.CheckKeysIn(b, anns); err != nil {
		v.Fail(CheckBuildKeys, verdict.MsgSame, Cause(err))
		return
	}
	v.Pass(CheckBuildKeys, verdict.MsgAttestKeysOK, len(b.Keys))
}
