package receipt

import (
	"bytes"
	"encoding/hex"

	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/qod"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/vrf"
)

// VerifyReceipt checks a receipt file: format, record, the log (key,
// signature, inclusion), and for a draw the key, α, proof and outcome.
func VerifyReceipt(file []byte, a Anchors) *verdict.Verdict {
	v := verdict.New(DocReceipt, verdict.MsgSubjectReceipt)
	var rc Receipt
	if isProtoJSON(file) {
		// The daemon's protobuf Receipt as JSON (grpcurl, protojson).
		r, err := FromProtoJSON(file)
		if err != nil {
			v.Fail(verdict.CheckFormat, verdict.MsgNotReceiptProto, Cause(err))
			return v
		}
		rc = *r
	} else if err := decodeStrict(file, &rc); err != nil {
		v.Fail(verdict.CheckFormat, verdict.MsgNotReceipt, Cause(err))
		return v
	}
	if rc.V != 1 || rc.Type != TypeReceipt {
		v.Fail(verdict.CheckFormat, verdict.MsgWrongVersion, rc.V, rc.Type, TypeReceipt)
		return v
	}
	v.Pass(verdict.CheckFormat, verdict.NoDetail)
	rec, err := record.Parse([]byte(rc.Record))
	if err != nil {
		recordProblem(v, err, verdict.M(verdict.MsgNameTheRecord))
		return v
	}
	if g, ok := rec.(record.GameRecord); ok {
		v.SetSubject(verdict.MsgSubjectReceiptOfGame, kind(rec), rc.Index, g.GameID())
	} else {
		v.SetSubject(verdict.MsgSubjectReceiptOf, kind(rec), rc.Index)
	}
	v.Pass(verdict.CheckRecord, verdict.MsgSame, kind(rec))
	v.Fact("leaf hash", verdict.MsgSame, record.Hex(record.LeafHash([]byte(rc.Record))))

	logCheck(v, &a, rc.Checkpoint, rc.LogKeys, []Logged{{Index: rc.Index, Record: rc.Record, Proof: rc.Proof}}, []verdict.Msg{verdict.M(verdict.MsgNameTheRecord)})

	keyID, proof, beta := drawOf(rec)
	if keyID == "" {
		v.Skip(verdict.CheckVRFProof, verdict.MsgDrawsNothing, kind(rec))
		return v
	}
	// The key.
	var pk *vrf.PublicKey
	switch {
	case rc.VRFKey == nil:
		v.Fail(verdict.CheckVRFKey, verdict.MsgReceiptNoKey)
	case rc.VRFKey.ID != keyID:
		v.Misbehaviour(verdict.CheckVRFKey, verdict.MsgKeyMismatch, keyID, rc.VRFKey.ID)
	default:
		pk, err = parseVRFKey(*rc.VRFKey)
		switch {
		case err != nil:
			v.Fail(verdict.CheckVRFKey, verdict.MsgSame, Cause(err))
			pk = nil
		case !a.vrfTrusted(pk):
			v.Fail(verdict.CheckVRFKey, verdict.MsgVRFKeyUntrusted, keyID, record.Hex(record.Fingerprint(pk.Bytes())))
		default:
			v.Pass(verdict.CheckVRFKey, verdict.MsgVRFKey, keyID, pk.Suite(), record.Hex(record.Fingerprint(pk.Bytes())))
		}
	}
	// α, then the proof.
	var alpha []byte
	if pd, ok := rec.(*record.PromoDraw); ok {
		alpha = pd.Alpha()
		v.Pass(verdict.CheckAlpha, verdict.MsgAlphaFromRecord)
	} else if rc.Alpha == "" {
		v.Skip(verdict.CheckAlpha, verdict.MsgAlphaNotInReceipt)
	} else if ab, err := hex.DecodeString(rc.Alpha); err != nil {
		v.Fail(verdict.CheckAlpha, verdict.MsgAlphaNotHex)
	} else if _, err := secretFromAlpha(rec, ab); err != nil {
		v.Misbehaviour(verdict.CheckAlpha, verdict.MsgSame, Cause(err))
	} else {
		alpha = ab
		v.Pass(verdict.CheckAlpha, verdict.MsgAlphaBinds)
	}
	switch {
	case alpha == nil:
		v.Skip(verdict.CheckVRFProof, verdict.MsgNoUsableAlpha)
	case pk == nil:
		v.Skip(verdict.CheckVRFProof, verdict.MsgNoUsableKey)
	default:
		b, err := vrf.Verify(pk, alpha, proof)
		switch {
		case err != nil:
			v.Misbehaviour(verdict.CheckVRFProof, verdict.MsgProofInvalid, kind(rec), keyID, vrfCause(err))
		case !bytes.Equal(b, beta):
			v.Misbehaviour(verdict.CheckVRFProof, verdict.MsgBetaNotOutput)
		default:
			v.Pass(verdict.CheckVRFProof, verdict.MsgBeta, b)
		}
	}
	// The outcome from β (with the record's β, whether or not the proof could be checked).
	switch r := rec.(type) {
	case *record.Pick:
		losing, err := PickLosing(r.Index, r.Number, r.Beta)
		want := record.OutcomeGood
		if losing {
			want = record.OutcomeLosing
		}
		switch {
		case err != nil:
			v.Misbehaviour(verdict.CheckOutcome, verdict.MsgPickErr, r.Index+1, Cause(err))
		case want != r.Outcome:
			v.Misbehaviour(verdict.CheckOutcome, verdict.MsgPickOutcomeWrong, r.Index+1, r.Number, verdict.Term(r.Outcome), verdict.Term(want))
		default:
			v.Pass(verdict.CheckOutcome, verdict.MsgPickOutcome, r.Index+1, r.Number, verdict.Term(want), qod.LosingChance(qod.Numbers-r.Index))
		}
	case *record.GameStart:
		m, err := qod.Multipliers(r.Stake, r.Beta)
		switch {
		case err != nil:
			v.Misbehaviour(verdict.CheckOutcome, verdict.MsgStartErr, Cause(err))
		case m != r.Multipliers:
			v.Misbehaviour(verdict.CheckOutcome, verdict.MsgStartMultipliers, r.Multipliers, m)
		case qod.Amounts(r.Stake, m) != r.Amounts:
			v.Misbehaviour(verdict.CheckOutcome, verdict.MsgStartAmounts, r.Amounts, qod.Amounts(r.Stake, m))
		default:
			v.Pass(verdict.CheckOutcome, verdict.MsgMultipliers, m)
		}
	case *record.PromoDraw:
		idx, err := promo.Picks(r.Beta, r.Winners+r.Reserves, r.Count)
		ok := err == nil && len(idx) == len(r.Ranking)
		for i := 0; ok && i < len(idx); i++ {
			ok = uint64(idx[i]) == r.Ranking[i]
		}
		if ok {
			v.Pass(verdict.CheckOutcome, verdict.MsgRanking, r.Ranking)
		} else {
			v.Misbehaviour(verdict.CheckOutcome, verdict.MsgRankingWrong, r.Ranking, idx)
		}
	}
	return v
}

// kind is a record's kind as a word of the verdict vocabulary.
func kind(r record.Record) verdict.Term { return verdict.Term(r.Kind()) }

// drawOf returns the key id, proof and β of a record that draws.
func drawOf(r record.Record) (string, []byte, []byte) {
	switch x := r.(type) {
	case *record.GameStart:
		return x.Key, x.Proof, x.Beta
	case *record.Pick:
		return x.Key, x.Proof, x.Beta
	case *record.PromoDraw:
		return x.Key, x.Proof, x.Beta
	}
	return "", nil, nil
}

// VerifyTranscript checks a game transcript: format and records, the log
// (key, signature, inclusion of every record), the VRF keys, then the game
// itself (CheckGame).
func VerifyTranscript(file []byte, a Anchors) *verdict.Verdict {
	v := verdict.New(DocTranscript, verdict.MsgSubjectTranscript)
	var t Transcript
	if err := decodeStrict(file, &t); err != nil {
		v.Fail(verdict.CheckFormat, verdict.MsgNotTranscript, Cause(err))
		return v
	}
	if t.V != 1 || t.Type != TypeTranscript {
		v.Fail(verdict.CheckFormat, verdict.MsgWrongVersion, t.V, t.Type, TypeTranscript)
		return v
	}
	if len(t.Records) == 0 {
		v.Fail(verdict.CheckFormat, verdict.MsgNoRecords)
		return v
	}
	v.Pass(verdict.CheckFormat, verdict.NoDetail)
	v.SetSubject(verdict.MsgSubjectGame, t.Game, len(t.Records))

	// Records parse; the optional emission and key announcement are what they claim.
	var emission *record.Emission
	var keys *record.KeyAnnouncement
	entries := append([]Logged(nil), t.Records...)
	names := make([]verdict.Msg, 0, len(entries)+2)
	for i := range t.Records {
		names = append(names, verdict.M(verdict.MsgNameRecord, i))
	}
	if t.Emission != nil {
		r, err := record.Parse([]byte(t.Emission.Record))
		e, ok := r.(*record.Emission)
		if err != nil || !ok {
			v.Misbehaviour(verdict.CheckRecord, verdict.MsgEmissionNotEmission)
			return v
		}
		emission = e
		entries, names = append(entries, *t.Emission), append(names, verdict.M(verdict.MsgNameEmission))
	}
	if t.Keys != nil {
		r, err := record.Parse([]byte(t.Keys.Record))
		k, ok := r.(*record.KeyAnnouncement)
		if err != nil || !ok {
			v.Misbehaviour(verdict.CheckRecord, verdict.MsgKeysNotAnnouncement)
			return v
		}
		keys = k
		entries, names = append(entries, *t.Keys), append(names, verdict.M(verdict.MsgNameKeys))
	}
	leaves := make([][]byte, len(t.Records))
	indices := make([]uint64, len(t.Records))
	var start *record.GameStart
	for i, e := range t.Records {
		r, err := record.Parse([]byte(e.Record))
		if err != nil {
			recordProblem(v, err, verdict.M(verdict.MsgNameRecord, i))
			return v
		}
		if gr, ok := r.(record.GameRecord); !ok || gr.GameID() != t.Game {
			v.Misbehaviour(verdict.CheckRecord, verdict.MsgRecordNotOfGame, i, t.Game)
			return v
		}
		if s, ok := r.(*record.GameStart); ok && i == 0 {
			start = s
		}
		leaves[i], indices[i] = []byte(e.Record), e.Index
	}
	v.Pass(verdict.CheckRecord, verdict.MsgCanonicalRecords, len(entries))
	if emission != nil && start != nil && emission.Emission != start.Emission {
		v.Misbehaviour(verdict.CheckRecord, verdict.MsgEmissionMismatch, emission.Emission, start.Emission)
		return v
	}
	// The emission's start deadline is the rules' (art. 2.2.4), not only
	// what its record claims: the game is checked against it below.
	if emission != nil {
		if err := qod.CheckEmission(emission, a.Location); err != nil {
			v.Misbehaviour(verdict.CheckRecord, verdict.MsgSame, Cause(err))
			return v
		}
	}

	included := logCheck(v, &a, t.Checkpoint, t.LogKeys, entries, names)
	keysIncluded := t.Keys != nil && included[len(entries)-1]

	// VRF keys: given, pinned, or announced in the trusted log before the start.
	ring := map[string]*vrf.PublicKey{}
	var problems []verdict.Msg
	for _, k := range t.VRFKeys {
		pk, err := parseVRFKey(k)
		if err != nil {
			problems = append(problems, verdict.M(verdict.MsgKeyProblem, k.ID, Cause(err)))
			continue
		}
		fp := record.Hex(record.Fingerprint(pk.Bytes()))
		switch {
		case a.vrfTrusted(pk):
			ring[k.ID] = pk
		case announced(keys, k.ID, pk) && keysIncluded && t.Keys.Index < t.Records[0].Index:
			// Announced in the trusted log before the game started.
			ring[k.ID] = pk
		default:
			problems = append(problems, verdict.M(verdict.MsgKeyNotAnchored, k.ID, fp))
		}
	}
	used := map[string]bool{}
	for _, leaf := range leaves {
		r, _ := record.Parse(leaf)
		if id, _, _ := drawOf(r); id != "" {
			used[id] = true
		}
	}
	for id := range used {
		if _, ok := ring[id]; !ok && len(problems) == 0 {
			problems = append(problems, verdict.M(verdict.MsgKeyNotGiven, id))
		}
	}
	switch {
	case len(problems) > 0:
		v.Fail(verdict.CheckVRFKey, verdict.MsgSame, problems[0])
	case len(used) == 0:
		v.Skip(verdict.CheckVRFKey, verdict.MsgNoDraw)
	default:
		for id, pk := range ring {
			v.Fact("vrf key", verdict.MsgVRFKey, id, pk.Suite(), record.Hex(record.Fingerprint(pk.Bytes())))
		}
		v.Pass(verdict.CheckVRFKey, verdict.MsgKeyCount, len(ring))
	}
	// The game. Proofs are checked with the document's keys even when they
	// are not trusted: the vrf-key check already failed then.
	all := map[string]*vrf.PublicKey{}
	for _, k := range t.VRFKeys {
		if pk, err := parseVRFKey(k); err == nil {
			all[k.ID] = pk
		}
	}
	g := Game{Leaves: leaves, Indices: indices, Location: a.Location,
		Key: func(id string) (*vrf.PublicKey, bool) { pk, ok := all[id]; return pk, ok }}
	if emission != nil {
		g.StartDeadline = emission.StartDeadline
	}
	if p := CheckGame(v, g); p != nil && p.Final.Phase != 0 {
		v.Fact("game", verdict.MsgGameFact, t.Game, p.Final.Picks, p.Final.Tier, verdict.Term(p.Final.Phase.String()))
	}
	return v
}

// announced reports whether the key announcement names pk as VRF key id.
func announced(ka *record.KeyAnnouncement, id string, pk *vrf.PublicKey) bool {
	if ka == nil {
		return false
	}
	for _, k := range ka.Keys {
		if k.ID == id && k.Use == "vrf" && k.Suite == string(pk.Suite()) && bytes.Equal(k.PublicKey, pk.Bytes()) {
			return true
		}
	}
	return false
}
