package audit

import (
	"errors"

	"tirage.fr/tirage/attestations"
	"tirage.fr/tirage/verifier/announce"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// checkAttestations is the audit's check of the log's attestation records
// (docs/attestations.md), reported when the log holds one.
const checkAttestations = "attestations"

// attestationKeys are the keys the log announced before an attestation
// record, each (use, id) by its first announcement (the one rngd knows it
// by, as auditors do the VRF keys'), from announcements whose every key
// proved possession (announce.CheckRecord): a key of one that does not
// check signs nothing an auditor accepts.
type attestationKeys struct {
	att map[string]record.Key  // attestation keys by id
	ann record.KeyAnnouncement // every key, for attestations.CheckKeys
	ids map[[2]string]bool     // (use, id) in ann

	// The attestation records read, those checked in full and without
	// issue, and those checked for their key only (no envelope embedded).
	records, ok, keyOnly int
}

// announced adds the keys of announcement ann.
func (k *attestationKeys) announced(ann *record.KeyAnnouncement) {
	if announce.CheckRecord(ann) != nil {
		return // its keys proved nothing (the VRF key check reports it)
	}
	if k.att == nil {
		k.att, k.ids = map[string]record.Key{}, map[[2]string]bool{}
	}
	for _, key := range ann.Keys {
		if k.ids[[2]string{key.Use, key.ID}] {
			continue
		}
		k.ids[[2]string{key.Use, key.ID}] = true
		k.ann.Keys = append(k.ann.Keys, key)
		if key.Use == announce.UseAttestation {
			k.att[key.ID] = key
		}
	}
}

// attestation checks the attestation record r at entry index, as rngd
// checked it before logging it (rngd's checkAttestation), with the log's
// own announcements:
//
//   - its key is an attestation key announced before it;
//   - the envelope it embeds (record.Parse checked its digest) is signed by
//     that key alone, and its statement is the record's subject and type;
//   - the statement's predicate is right: a paytable whose figures are not
//     the rules' is MISBEHAVIOUR (the appliance signed it), as is a build
//     statement listing keys other than the log announced.
//
// A record without its envelope (larger than attestations.MaxEmbedded,
// published beside the log) is checked for its key only: the verdict says
// how many, and rngverify attestation checks such an envelope.
func (a *auditor) attestation(index uint64, r *record.Attestation) {
	a.attKeys.records++
	key, ok := a.attKeys.att[r.Key]
	if !ok {
		a.issue(checkAttestations, false, verdict.MsgEntry, index, verdict.M(verdict.MsgAttestAuditKey, r.Key))
		return
	}
	if len(r.Statement) == 0 {
		a.attKeys.keyOnly++
		return
	}
	env, err := attestations.ParseEnvelope(r.Statement)
	if err == nil {
		err = attestations.VerifyEnvelope(env, key)
	}
	if err != nil {
		// Not signed by the key: the appliance's log says so, its key
		// does not (nothing proven about the statement).
		a.issue(checkAttestations, false, verdict.MsgEntry, index, receipt.Cause(err))
		return
	}
	s, err := attestations.Parse(env.Payload)
	if err == nil {
		err = attestations.CheckRecord(r, r.Statement, attestations.KeyID(env), s)
	}
	if err != nil {
		a.issue(checkAttestations, false, verdict.MsgEntry, index, receipt.Cause(err))
		return
	}
	// Signed by the appliance: a false claim from here on is its own.
	if err := attestations.Verify(s); err != nil {
		var fe *attestations.FigureError
		if errors.As(err, &fe) {
			a.issue(checkAttestations, true, verdict.MsgEntry, index, verdict.M(verdict.MsgAttestFigure, fe.Field, fe.Attested, fe.Want))
		} else {
			a.issue(checkAttestations, true, verdict.MsgEntry, index, receipt.Cause(err))
		}
		return
	}
	if b, ok := s.Predicate.(*attestations.Build); ok {
		if err := attestations.CheckKeys(b, &a.attKeys.ann); err != nil {
			// The keys the log announced are those of the entries read:
			// one refused before it may be an announcement.
			a.missing(checkAttestations, verdict.M(verdict.MsgEntry, index, receipt.Cause(err)))
			return
		}
	}
	a.attKeys.ok++
}

// attestationsReport reports checkAttestations when the log holds an
// attestation record.
func (a *auditor) attestationsReport() {
	k := &a.attKeys
	if k.records == 0 {
		return
	}
	a.report(checkAttestations, verdict.M(verdict.MsgAttestAuditOK, k.records, k.ok, k.keyOnly), k.records, verdict.NoDetail)
}
