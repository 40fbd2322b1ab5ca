package receipt

import (
	"bytes"

	"tirage.fr/tirage/verifier/announce"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/vrf"
)

// Misbehaviour is proof against the appliance only when what it rests on is
// proven to be the appliance's: records included, by their inclusion
// proofs, under a checkpoint signed by a trusted log key (Anchors), and VRF
// keys that are trusted. A receipt, a transcript or a certificate is a file
// anyone can edit: a contradiction that rests on a record not so proven, or
// on the document's own members (its choice of records, a receipt's α or
// vrf_key, a certificate's picks), proves nothing against the appliance and
// is an ordinary failure (verdict.MsgNotProof: why, then the contradiction).

// evidence records what each misbehaviour check of a verdict rests on, and
// settles them once the log checks have said which entries are proven.
type evidence struct {
	v     *verdict.Verdict
	rests map[int][]int       // check position → the entries it rests on
	never map[int]verdict.Msg // check position → why it proves nothing whatever the log says
}

func newEvidence(v *verdict.Verdict) *evidence {
	return &evidence{v: v, rests: map[int][]int{}, never: map[int]verdict.Msg{}}
}

// on says that the check last recorded rests on the entries deps.
func (e *evidence) on(deps ...int) { e.onAt(len(e.v.Checks)-1, deps...) }

// onAt says that the check at position at rests on the entries deps.
func (e *evidence) onAt(at int, deps ...int) {
	for _, d := range deps {
		if d >= 0 {
			e.rests[at] = append(e.rests[at], d)
		}
	}
	if _, ok := e.rests[at]; !ok {
		e.rests[at] = nil
	}
}

// document says that the check last recorded rests on the document's own
// members: it is never proof, for the reason why.
func (e *evidence) document(why verdict.Msg) { e.documentAt(len(e.v.Checks)-1, why) }

func (e *evidence) documentAt(at int, why verdict.Msg) { e.never[at] = why }

// settle turns every misbehaviour check recorded so far that is not proof
// into a failure: one that rests on the document, or on an entry not
// included (included[i], named names[i]). A check nobody said anything
// about rests on every entry. A fork of the log (log-consistency) rests on
// the two checkpoints' signatures alone.
func (e *evidence) settle(included []bool, names []verdict.Msg) {
	all := make([]int, len(included))
	for i := range all {
		all[i] = i
	}
	for at := range e.v.Checks {
		c := &e.v.Checks[at]
		if c.Status != verdict.StatusMisbehaviour || c.Name == verdict.CheckConsistent {
			continue
		}
		if why, ok := e.never[at]; ok {
			downgrade(c, why)
			continue
		}
		deps, ok := e.rests[at]
		if !ok {
			deps = all
		}
		for _, d := range deps {
			if d >= len(included) || !included[d] {
				downgrade(c, verdict.M(verdict.MsgWhyNotIncluded, names[d]))
				break
			}
		}
	}
}

// downgrade turns a misbehaviour check into a failure saying why it is no proof.
func downgrade(c *verdict.Check, why verdict.Msg) {
	orig := verdict.M(verdict.NoDetail)
	if c.Message != nil {
		orig = *c.Message
	}
	c.Set(verdict.StatusFail, verdict.M(verdict.MsgNotProof, why, orig))
}

// claim records check as misbehaviour id(args…), or, when why is not nil,
// as a failure saying why the contradiction is no proof.
func claim(v *verdict.Verdict, check string, why *verdict.Msg, id verdict.MsgID, args ...any) {
	if why != nil {
		v.Fail(check, verdict.MsgNotProof, *why, verdict.M(id, args...))
		return
	}
	v.Misbehaviour(check, id, args...)
}

// finding keeps the first contradiction of a check that is proof, else the
// first one that is not (or the first plain failure).
type finding struct {
	set   bool
	plain bool         // an ordinary failure (a key not given …), not a contradiction
	why   *verdict.Msg // a contradiction that is no proof, and why
	id    verdict.MsgID
	args  []any
}

func (f *finding) proof() bool { return f.set && !f.plain && f.why == nil }

// add notes a contradiction (why nil: proof) or, with plain, a failure.
func (f *finding) add(plain bool, why *verdict.Msg, id verdict.MsgID, args ...any) {
	if !f.set || (!f.proof() && !plain && why == nil) {
		*f = finding{set: true, plain: plain, why: why, id: id, args: args}
	}
}

// report records the finding as check; false when there is none.
func (f *finding) report(v *verdict.Verdict, check string) bool {
	switch {
	case !f.set:
		return false
	case f.plain:
		v.Fail(check, f.id, f.args...)
	default:
		claim(v, check, f.why, f.id, f.args...)
	}
	return true
}

// otherSuite returns a suite other than pk's under which pk's bytes verify
// proof for α with output β: the document named the wrong suite, which a
// key pinned by fingerprint (its bytes only) does not fix.
func otherSuite(pk *vrf.PublicKey, alpha, proof, beta []byte) (vrf.Suite, bool) {
	for _, s := range vrf.Suites() {
		if s == pk.Suite() {
			continue
		}
		k, err := vrf.ParsePublicKey(s, pk.Bytes())
		if err != nil {
			continue
		}
		if b, err := vrf.Verify(k, alpha, proof); err == nil && bytes.Equal(b, beta) {
			return s, true
		}
	}
	return "", false
}

// whyKey says why a proof that fails under key id proves nothing: the key
// is not trusted, or only its bytes are (a pinned fingerprint) and they
// verify the proof under another suite. nil: the failure is proof.
func whyKey(id string, trusted, suiteKnown bool, pk *vrf.PublicKey, alpha, proof, beta []byte) *verdict.Msg {
	switch {
	case !trusted:
		m := verdict.M(verdict.MsgWhyKeyUntrusted, id)
		return &m
	case !suiteKnown:
		if s, ok := otherSuite(pk, alpha, proof, beta); ok {
			m := verdict.M(verdict.MsgWhySuite, string(s))
			return &m
		}
	}
	return nil
}

// Records name their VRF key by id; trust anchors fix key bytes (given,
// pinned), and the document pairs the id with bytes. That pairing is the
// document's, and anyone may edit it: after a rotation, a document that
// puts the other trusted key's bytes under the id the records name makes
// every proof of an honest appliance fail. So a proof failing under the
// document's key is proof only when a key announcement the verifier
// authenticated pairs the id with that key: one given as a trust anchor
// (Anchors.Announced), or the document's own, logged before the draw.

// pairing is what the authenticated key announcements say of a
// document's pairing of key id with its key pk: which bytes the id names.
// The suite is another matter, settled as before (Anchors.VRFTrusted: a
// document naming another suite for the announced bytes is not trusted
// with its suite, and a proof that verifies under the other suite proves
// nothing, whyKey).
type pairing struct {
	id     string
	pk     *vrf.PublicKey
	proven bool // an authenticated announcement pairs id with pk's bytes
	// Else, when one names id with other bytes: that key (its suite and
	// fingerprint) and the announcement that does.
	contradicted      bool
	otherSuite, other string
	where             verdict.Msg
}

// pairOf finds what the key announcements the anchors give and, when not
// nil, the one the document holds logged before the draw (logged) say of
// the document's pairing of key id with pk.
func (a *Anchors) pairOf(id string, pk *vrf.PublicKey, logged *record.KeyAnnouncement) pairing {
	p := pairing{id: id, pk: pk}
	contradict := func(suite string, key []byte, where verdict.MsgID) {
		if !p.contradicted {
			p.contradicted, p.otherSuite, p.other, p.where = true, suite, record.Hex(record.Fingerprint(key)), verdict.M(where)
		}
	}
	if logged != nil {
		for _, k := range logged.Keys {
			switch {
			case k.ID != id || k.Use != announce.UseVRF:
			case bytes.Equal(k.PublicKey, pk.Bytes()):
				p.proven = true
				return p
			default:
				contradict(k.Suite, k.PublicKey, verdict.MsgAnnouncementLogged)
			}
		}
	}
	for _, k := range a.Announced {
		switch {
		case k.ID != id:
		case bytes.Equal(k.Key.Bytes(), pk.Bytes()):
			p.proven = true
			return p
		default:
			contradict(string(k.Key.Suite()), k.Key.Bytes(), verdict.MsgAnnouncementGiven)
		}
	}
	return p
}

// mismatch is the reason an authenticated announcement contradicts the
// document's pairing (p.contradicted): the document is wrong.
func (p pairing) mismatch() verdict.Msg {
	return verdict.M(verdict.MsgVRFKeyIDMismatch, p.id, p.otherSuite, p.other, p.where, string(p.pk.Suite()), fingerprint(p.pk))
}

// why says why a proof that fails under the document's key proves nothing
// for want of a proven pairing: an authenticated announcement names the
// id with another key (the document is wrong), or none names it — then,
// when the proof verifies under another trusted key of trusted (with
// output β), the document relabelled that key. nil: the pairing is proven.
func (p pairing) why(trusted []*vrf.PublicKey, alpha, proof, beta []byte) *verdict.Msg {
	var m verdict.Msg
	switch {
	case p.proven:
		return nil
	case p.contradicted:
		m = p.mismatch()
	default:
		m = verdict.M(verdict.MsgWhyKeyPairing, p.id, string(p.pk.Suite()), fingerprint(p.pk))
		for _, k := range trusted {
			if k.Equal(p.pk) {
				continue
			}
			if b, err := vrf.Verify(k, alpha, proof); err == nil && bytes.Equal(b, beta) {
				m = verdict.M(verdict.MsgWhyKeyRelabelled, p.id, string(p.pk.Suite()), fingerprint(p.pk), string(k.Suite()), fingerprint(k))
				break
			}
		}
	}
	return &m
}

// givenVRFKeys are the VRF keys the anchors give with their bytes (given,
// or announced).
func (a *Anchors) givenVRFKeys() []*vrf.PublicKey {
	keys := append([]*vrf.PublicKey(nil), a.VRFKeys...)
	for _, k := range a.Announced {
		keys = append(keys, k.Key)
	}
	return keys
}

// fingerprint is a VRF key's fingerprint as the verdicts spell it.
func fingerprint(pk *vrf.PublicKey) string { return record.Hex(record.Fingerprint(pk.Bytes())) }
