package receipt

import (
	"bytes"
	"encoding/hex"
	"fmt"

	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/qod"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/vrf"
)

// VerifyReceipt checks a receipt file: format, record, the log (key,
// signature, inclusion), and for a draw the key, α, proof and outcome.
func VerifyReceipt(file []byte, a Anchors) *verdict.Verdict {
	v := verdict.New(DocReceipt, "receipt")
	var rc Receipt
	if isProtoJSON(file) {
		// The daemon's protobuf Receipt as JSON (grpcurl, protojson).
		r, err := FromProtoJSON(file)
		if err != nil {
			v.Fail(verdict.CheckFormat, "not a receipt (protobuf JSON): %s", err)
			return v
		}
		rc = *r
	} else if err := decodeStrict(file, &rc); err != nil {
		v.Fail(verdict.CheckFormat, "not a receipt: %s", err)
		return v
	}
	if rc.V != 1 || rc.Type != TypeReceipt {
		v.Fail(verdict.CheckFormat, "version %d type %q, want 1 %q", rc.V, rc.Type, TypeReceipt)
		return v
	}
	v.Pass(verdict.CheckFormat, "")
	rec, err := record.Parse([]byte(rc.Record))
	if err != nil {
		recordProblem(v, err, "the record")
		return v
	}
	v.Subject = fmt.Sprintf("receipt of a %s record at log index %d%s", rec.Kind(), rc.Index, gameOf(rec))
	v.Pass(verdict.CheckRecord, "%s", rec.Kind())
	v.Fact("leaf hash", "%s", record.Hex(record.LeafHash([]byte(rc.Record))))

	logCheck(v, &a, rc.Checkpoint, rc.LogKeys, []Logged{{Index: rc.Index, Record: rc.Record, Proof: rc.Proof}}, []string{"the record"})

	keyID, proof, beta := drawOf(rec)
	if keyID == "" {
		v.Skip(verdict.CheckVRFProof, "a %s record draws nothing", rec.Kind())
		return v
	}
	// The key.
	var pk *vrf.PublicKey
	switch {
	case rc.VRFKey == nil:
		v.Fail(verdict.CheckVRFKey, "the receipt names no VRF key")
	case rc.VRFKey.ID != keyID:
		v.Misbehaviour(verdict.CheckVRFKey, "the record names key %q, the receipt %q", keyID, rc.VRFKey.ID)
	default:
		pk, err = parseVRFKey(*rc.VRFKey)
		switch {
		case err != nil:
			v.Fail(verdict.CheckVRFKey, "%s", err)
			pk = nil
		case !a.vrfTrusted(pk):
			v.Fail(verdict.CheckVRFKey, "key %s (fingerprint %s) is not trusted: give --vrf-key FILE or --pin FINGERPRINT", keyID, record.Hex(record.Fingerprint(pk.Bytes())))
		default:
			v.Pass(verdict.CheckVRFKey, "%s %s fingerprint %s", keyID, pk.Suite(), record.Hex(record.Fingerprint(pk.Bytes())))
		}
	}
	// α, then the proof.
	var alpha []byte
	if pd, ok := rec.(*record.PromoDraw); ok {
		alpha = pd.Alpha()
		v.Pass(verdict.CheckAlpha, "α rebuilt from the record")
	} else if rc.Alpha == "" {
		v.Skip(verdict.CheckAlpha, "α is not in the receipt (it contains the game's secret r, revealed at the end): verify the game's transcript")
	} else if ab, err := hex.DecodeString(rc.Alpha); err != nil {
		v.Fail(verdict.CheckAlpha, "alpha is not hex")
	} else if _, err := secretFromAlpha(rec, ab); err != nil {
		v.Misbehaviour(verdict.CheckAlpha, "%s", err)
	} else {
		alpha = ab
		v.Pass(verdict.CheckAlpha, "α binds the record's game, pick and number")
	}
	switch {
	case alpha == nil:
		v.Skip(verdict.CheckVRFProof, "no usable α")
	case pk == nil:
		v.Skip(verdict.CheckVRFProof, "no usable key")
	default:
		b, err := vrf.Verify(pk, alpha, proof)
		switch {
		case err != nil:
			v.Misbehaviour(verdict.CheckVRFProof, "%s: the proof does not verify under key %s (%s)", rec.Kind(), keyID, trimVRF(err))
		case !bytes.Equal(b, beta):
			v.Misbehaviour(verdict.CheckVRFProof, "β in the record is not the proof's output")
		default:
			v.Pass(verdict.CheckVRFProof, "β = %x", b)
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
			v.Misbehaviour(verdict.CheckOutcome, "pick %d: %s", r.Index+1, err)
		case want != r.Outcome:
			v.Misbehaviour(verdict.CheckOutcome, "pick %d (number %d): recorded %s, β gives %s", r.Index+1, r.Number, r.Outcome, want)
		default:
			v.Pass(verdict.CheckOutcome, "pick %d, number %d: %s (probability of losing %s)", r.Index+1, r.Number, want, qod.LosingChance(qod.Numbers-r.Index))
		}
	case *record.GameStart:
		m, err := qod.Multipliers(r.Stake, r.Beta)
		switch {
		case err != nil:
			v.Misbehaviour(verdict.CheckOutcome, "start: %s", err)
		case m != r.Multipliers:
			v.Misbehaviour(verdict.CheckOutcome, "start: multipliers %v, β gives %v", r.Multipliers, m)
		case qod.Amounts(r.Stake, m) != r.Amounts:
			v.Misbehaviour(verdict.CheckOutcome, "start: amounts %v, the rules give %v", r.Amounts, qod.Amounts(r.Stake, m))
		default:
			v.Pass(verdict.CheckOutcome, "multipliers %v", m)
		}
	case *record.PromoDraw:
		idx, err := promo.Picks(r.Beta, r.Winners+r.Reserves, r.Count)
		ok := err == nil && len(idx) == len(r.Ranking)
		for i := 0; ok && i < len(idx); i++ {
			ok = uint64(idx[i]) == r.Ranking[i]
		}
		if ok {
			v.Pass(verdict.CheckOutcome, "ranking %v", r.Ranking)
		} else {
			v.Misbehaviour(verdict.CheckOutcome, "ranking %v, β gives %v", r.Ranking, idx)
		}
	}
	return v
}

func gameOf(r record.Record) string {
	if g, ok := r.(record.GameRecord); ok {
		return ", game " + g.GameID()
	}
	return ""
}

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
	v := verdict.New(DocTranscript, "game transcript")
	var t Transcript
	if err := decodeStrict(file, &t); err != nil {
		v.Fail(verdict.CheckFormat, "not a transcript: %s", err)
		return v
	}
	if t.V != 1 || t.Type != TypeTranscript {
		v.Fail(verdict.CheckFormat, "version %d type %q, want 1 %q", t.V, t.Type, TypeTranscript)
		return v
	}
	if len(t.Records) == 0 {
		v.Fail(verdict.CheckFormat, "no records")
		return v
	}
	v.Pass(verdict.CheckFormat, "")
	v.Subject = fmt.Sprintf("game %s (%d records)", t.Game, len(t.Records))

	// Records parse; the optional emission and key announcement are what they claim.
	var emission *record.Emission
	var keys *record.KeyAnnouncement
	entries := append([]Logged(nil), t.Records...)
	names := make([]string, 0, len(entries)+2)
	for i := range t.Records {
		names = append(names, fmt.Sprintf("record %d", i))
	}
	if t.Emission != nil {
		r, err := record.Parse([]byte(t.Emission.Record))
		e, ok := r.(*record.Emission)
		if err != nil || !ok {
			v.Misbehaviour(verdict.CheckRecord, "emission: not an emission record")
			return v
		}
		emission = e
		entries, names = append(entries, *t.Emission), append(names, "the emission record")
	}
	if t.Keys != nil {
		r, err := record.Parse([]byte(t.Keys.Record))
		k, ok := r.(*record.KeyAnnouncement)
		if err != nil || !ok {
			v.Misbehaviour(verdict.CheckRecord, "keys: not a key announcement")
			return v
		}
		keys = k
		entries, names = append(entries, *t.Keys), append(names, "the key announcement")
	}
	leaves := make([][]byte, len(t.Records))
	indices := make([]uint64, len(t.Records))
	var start *record.GameStart
	for i, e := range t.Records {
		r, err := record.Parse([]byte(e.Record))
		if err != nil {
			recordProblem(v, err, "record %d", i)
			return v
		}
		if gr, ok := r.(record.GameRecord); !ok || gr.GameID() != t.Game {
			v.Misbehaviour(verdict.CheckRecord, "record %d: not a record of game %q", i, t.Game)
			return v
		}
		if s, ok := r.(*record.GameStart); ok && i == 0 {
			start = s
		}
		leaves[i], indices[i] = []byte(e.Record), e.Index
	}
	v.Pass(verdict.CheckRecord, "%d canonical records", len(entries))
	if emission != nil && start != nil && emission.Emission != start.Emission {
		v.Misbehaviour(verdict.CheckRecord, "the emission record is for %q, the game for %q", emission.Emission, start.Emission)
		return v
	}

	included := logCheck(v, &a, t.Checkpoint, t.LogKeys, entries, names)
	keysIncluded := t.Keys != nil && included[len(entries)-1]

	// VRF keys: given, pinned, or announced in the trusted log before the start.
	ring := map[string]*vrf.PublicKey{}
	var problems []string
	for _, k := range t.VRFKeys {
		pk, err := parseVRFKey(k)
		if err != nil {
			problems = append(problems, fmt.Sprintf("key %q: %s", k.ID, err))
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
			problems = append(problems, fmt.Sprintf("key %s (fingerprint %s) is neither given, pinned, nor announced in the trusted log before the game", k.ID, fp))
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
			problems = append(problems, fmt.Sprintf("the records name key %q, which the transcript does not give", id))
		}
	}
	switch {
	case len(problems) > 0:
		v.Fail(verdict.CheckVRFKey, "%s", problems[0])
	case len(used) == 0:
		v.Skip(verdict.CheckVRFKey, "no record of this game draws")
	default:
		for id, pk := range ring {
			v.Fact("vrf key", "%s %s fingerprint %s", id, pk.Suite(), record.Hex(record.Fingerprint(pk.Bytes())))
		}
		v.Pass(verdict.CheckVRFKey, "%d key(s)", len(ring))
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
		v.Fact("game", "%s: %d picks, tier %d, %s", t.Game, p.Final.Picks, p.Final.Tier, p.Final.Phase)
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
