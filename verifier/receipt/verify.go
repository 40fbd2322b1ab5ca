package receipt

import (
	"bytes"
	"encoding/hex"
	"errors"
	"time"

	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/qod"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/vrf"
)

// VerifyReceipt checks a receipt file: format, record, the log (key,
// signature, inclusion), and for a draw the key, α, its commitment, the
// proof and the outcome. A pick's α is bound to the game's commitment only
// through the game's start record (the receipt's "start"), a promotion
// draw's through its freeze ("freeze"): without it the proof check fails.
// Without α (a game in play: α holds r, which only the game's end reveals)
// the proof cannot be checked and β is the appliance's word: the proof check
// fails as not yet verifiable (verdict.MsgProofNotYet), never a pass. A pick
// under another VRF key than its start's breaks the rules (qod.DrawKey).
//
// A contradiction is misbehaviour only when what it rests on is proven to
// be the appliance's (see evidence.go): the records included under a
// checkpoint signed by a trusted log key, a trusted VRF key, and for the
// receipt's own α a valid proof under that key. Otherwise it is a failure.
//
// file may also be the daemon's GetReceipts reply as JSON ({"receipts":
// […]}, ReceiptsFromReply): one game's receipts, each once, in log order,
// every one verified, each into a part of the verdict
// (verdict.Verdict.Part, check verdict.CheckReceipt), which passes only
// when every one does. It proves each receipt, not that the game's
// receipts are all there: the game's transcript does (VerifyTranscript).
func VerifyReceipt(file []byte, a Anchors) *verdict.Verdict {
	if replyMember(file) == replyReceipts {
		return verifyReceiptsReply(file, a)
	}
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
	return verifyReceipt(v, &rc, a)
}

// verifyReceiptsReply verifies every receipt of a GetReceipts reply, each
// into a part of the verdict. The reply must be one game's receipts, each
// once, in log order (receiptsFromReply); it is not shown to hold all of
// them (a transcript is: VerifyTranscript).
func verifyReceiptsReply(file []byte, a Anchors) *verdict.Verdict {
	v := verdict.New(DocReceipt, verdict.MsgSubjectReceipt)
	rcs, game, err := receiptsFromReply(file)
	if err != nil {
		v.Fail(verdict.CheckFormat, verdict.MsgNotReceiptsReply, Cause(err))
		return v
	}
	if game != "" {
		v.SetSubject(verdict.MsgSubjectReceiptsReplyGame, game, len(rcs))
	} else {
		v.SetSubject(verdict.MsgSubjectReceiptsReply, len(rcs))
	}
	v.Pass(verdict.CheckFormat, verdict.MsgFromReceiptsReply)
	for i, rc := range rcs {
		p := verifyReceipt(verdict.New(DocReceipt, verdict.MsgSubjectReceipt), rc, a)
		p.SetSubject(verdict.MsgSubjectReplyReceipt, *p.SubjectMsg, i+1, len(rcs))
		v.Part(verdict.CheckReceipt, p)
	}
	return v
}

// verifyReceipt verifies a decoded receipt into v.
func verifyReceipt(v *verdict.Verdict, rc *Receipt, a Anchors) *verdict.Verdict {
	if rc.V != 1 || rc.Type != TypeReceipt {
		v.Fail(verdict.CheckFormat, verdict.MsgWrongVersion, rc.V, rc.Type, TypeReceipt)
		return v
	}
	v.Pass(verdict.CheckFormat, verdict.NoDetail)

	// The log's entries: the record (0), and the start or freeze it carries.
	entries := []Logged{{Index: rc.Index, Record: rc.Record, Proof: rc.Proof}}
	names := []verdict.Msg{verdict.M(verdict.MsgNameTheRecord)}
	startAt, freezeAt := -1, -1
	if rc.Start != nil {
		startAt = len(entries)
		entries, names = append(entries, *rc.Start), append(names, verdict.M(verdict.MsgNameStart))
	}
	if rc.Freeze != nil {
		freezeAt = len(entries)
		entries, names = append(entries, *rc.Freeze), append(names, verdict.M(verdict.MsgNameFreeze))
	}
	// what: the entries by name, when there are several.
	var what verdict.Series
	if len(names) > 1 {
		what = names
	}
	ev := newEvidence(v)
	// settled: the log checks, then every misbehaviour claim settled
	// against them.
	settled := func() *verdict.Verdict {
		ev.settle(logCheck(v, &a, rc.Checkpoint, rc.LogKeys, entries, names, what), names)
		return v
	}

	rec, err := record.Parse([]byte(rc.Record))
	if err != nil {
		recordProblem(v, err, verdict.M(verdict.MsgNameTheRecord), nil)
		ev.on(0)
		return settled()
	}
	if g, ok := rec.(record.GameRecord); ok {
		v.SetSubject(verdict.MsgSubjectReceiptOfGame, kind(rec), rc.Index, g.GameID())
	} else {
		v.SetSubject(verdict.MsgSubjectReceiptOf, kind(rec), rc.Index)
	}
	start, freeze, ok := companions(v, ev, rec, rc, startAt, freezeAt)
	if !ok {
		return settled()
	}
	v.Pass(verdict.CheckRecord, verdict.MsgSame, kind(rec))
	v.Fact("leaf hash", verdict.MsgSame, record.Hex(record.LeafHash([]byte(rc.Record))))

	included := logCheck(v, &a, rc.Checkpoint, rc.LogKeys, entries, names, what)

	if keyID, proof, beta := drawOf(rec); keyID == "" {
		v.Skip(verdict.CheckVRFProof, verdict.MsgDrawsNothing, kind(rec))
	} else {
		pk, suiteKnown, pair := receiptKey(v, ev, &a, rc.VRFKey, keyID)
		alpha, unbound, bad := receiptAlpha(v, ev, rec, rc.Alpha, start, freeze, startAt, freezeAt)
		switch {
		case bad >= 0:
			// α contradicts the records: proof only when the appliance's
			// key signed that α (the receipt's α is not in the log).
			if b, err := verifyWith(pk, alpha, proof); err == nil && bytes.Equal(b, beta) {
				ev.onAt(bad, 0, startAt)
			} else {
				ev.documentAt(bad, verdict.M(verdict.MsgWhyAlpha))
			}
			v.Skip(verdict.CheckVRFProof, verdict.MsgNoUsableAlpha)
		case alpha == nil && rc.Alpha == "":
			// α holds r, which the appliance reveals only at the game's
			// end: until then β, and the outcome drawn from it, are its
			// word. Not a pass: a forged β would go unseen.
			v.Fail(verdict.CheckVRFProof, verdict.MsgProofNotYet, kind(rec))
		case alpha == nil:
			v.Skip(verdict.CheckVRFProof, verdict.MsgNoUsableAlpha)
		case pk == nil:
			v.Skip(verdict.CheckVRFProof, verdict.MsgNoUsableKey)
		default:
			b, err := vrf.Verify(pk, alpha, proof)
			switch {
			case err != nil || !bytes.Equal(b, beta):
				if err != nil {
					v.Misbehaviour(verdict.CheckVRFProof, verdict.MsgProofInvalid, kind(rec), keyID, vrfCause(err))
				} else {
					v.Misbehaviour(verdict.CheckVRFProof, verdict.MsgBetaNotOutput)
				}
				_, isPromo := rec.(*record.PromoDraw)
				why := whyKey(keyID, true, suiteKnown, pk, alpha, proof, beta)
				if why == nil {
					why = pair.why(a.givenVRFKeys(), alpha, proof, beta)
				}
				switch {
				case unbound != "" && !isPromo:
					// α may hold any r: an edited α fails the proof too.
					ev.document(verdict.M(verdict.MsgWhyAlpha))
				case why != nil:
					ev.document(*why)
				case isPromo:
					ev.on(0) // α is the record's own
				default:
					ev.on(0, startAt) // α: the record's fields, the start's, and r opening its H(r)
				}
			case unbound != "":
				// The proof is right for the α given, but that α may
				// hold any r: it proves nothing about the draw.
				v.Fail(verdict.CheckVRFProof, unbound)
			default:
				v.Pass(verdict.CheckVRFProof, verdict.MsgBeta, b)
			}
		}
	}
	if end, ok := rec.(*record.GameEnd); ok {
		factRefundReason(v, end)
		// An end's r opens the start's commitment, unless the appliance lost r.
		switch {
		case start == nil:
		case end.SecretLost():
			v.Fail(verdict.CheckCommitment, verdict.MsgSecretLost, verdict.Term(end.Result))
		case record.Commit(end.Secret) != start.Commit:
			v.Misbehaviour(verdict.CheckCommitment, verdict.MsgEndCommitBroken)
			ev.on(0, startAt)
		default:
			v.Pass(verdict.CheckCommitment, verdict.MsgCommitOK, record.Hex(start.Commit))
		}
	}
	// The outcome from β (with the record's β, whether or not the proof
	// could be checked): it rests on the record alone.
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
		// Drawn or not: the stake is a gain of the prize table, and only
		// S = 50,000 € goes without a draw (qod.Multipliers refuses the rest).
		err := qod.CheckStake(r.Stake)
		var m [qod.Tiers]int
		if err == nil {
			m, err = qod.Multipliers(r.Stake, r.Beta)
		}
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
	case *record.TicketQuit:
		// QUITTER draws nothing: the player keeps S, which must be a gain
		// of the prize table, as a start's.
		if err := qod.CheckStake(r.Stake); err != nil {
			v.Misbehaviour(verdict.CheckOutcome, verdict.MsgQuitErr, Cause(err))
		} else {
			v.Pass(verdict.CheckOutcome, verdict.MsgQuitKept, r.Stake)
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
	if c := v.Checks[len(v.Checks)-1]; c.Name == verdict.CheckOutcome && c.Status == verdict.StatusMisbehaviour {
		ev.on(0) // the outcome just checked rests on the record alone
	}
	// A pick is drawn under its game's key, the start's (qod.DrawKey):
	// under another, valid or not, it is a draw whose key the appliance
	// chose. (A start that draws nothing, S = 50,000 €, leaves the key to
	// the first pick, which only the transcript shows.)
	if p, ok := rec.(*record.Pick); ok && start != nil {
		if _, err := qod.DrawKey(start.Key, p.Key); err != nil {
			v.Misbehaviour(verdict.CheckRules, verdict.MsgSame, Cause(err))
			ev.on(0, startAt)
		}
	}
	if d, ok := rec.(*record.PromoDraw); ok {
		receiptBeacon(v, ev, d, freeze, freezeAt)
	}
	ev.settle(included, names)
	return v
}

// receiptBeacon checks the beacon value a promotion draw binds, as the
// certificate (promo.Verify) and the audit do: the published signature of
// the drand round its freeze announced (the draw's beacon is the freeze's:
// companions), published after the freeze. A value that is not that round's
// could have been tried until the winners suited the appliance: the VRF
// proof over it proves nothing about the draw. A free-text beacon (an older
// rngd's) or a chain this verifier does not pin cannot be checked: a
// failure, not misbehaviour.
func receiptBeacon(v *verdict.Verdict, ev *evidence, d *record.PromoDraw, freeze *record.PromoFreeze, freezeAt int) {
	b, err := promo.VerifyBeacon(d.Beacon, d.BeaconValue)
	var me *verdict.MsgError
	switch {
	case err != nil && errors.As(err, &me) && (me.Msg.ID == verdict.MsgBeaconFreeText || me.Msg.ID == verdict.MsgBeaconChainUnpinned):
		v.Fail(promo.CheckBeacon, verdict.MsgSame, Cause(err))
	case err != nil:
		v.Misbehaviour(promo.CheckBeacon, verdict.MsgSame, Cause(err))
		ev.on(0) // the draw's beacon and value
	case freeze == nil && !b.Verified():
		// "No beacon" is the draw's own claim: only the freeze (which
		// the draw must equal) shows that none was announced.
		v.Skip(promo.CheckBeacon, verdict.MsgReceiptNoBeacon)
	case !b.Verified():
		// Nothing to check: the freeze (which the draw equals) announced
		// no round. Whether its rules promised one, only they show (the
		// receipt does not carry them): the skip says so.
		v.Skip(promo.CheckBeacon, verdict.MsgReceiptBeaconNone)
	case freeze == nil:
		v.Skip(promo.CheckBeacon, verdict.MsgReceiptBeaconTime, b.Chain.String(), b.Round)
	default:
		if err := b.Chain.PublishedAfter(b.Round, freeze.Time); err != nil {
			v.Misbehaviour(promo.CheckBeacon, verdict.MsgSame, Cause(err))
			ev.on(0, freezeAt) // the round, and the freeze's time
			return
		}
		v.Pass(promo.CheckBeacon, verdict.MsgReceiptBeacon, b.Chain.String(), b.Round, freeze.Time.UTC().Format(time.RFC3339))
	}
}

// verifyWith verifies proof for α under pk (an error when pk or α is missing).
func verifyWith(pk *vrf.PublicKey, alpha, proof []byte) ([]byte, error) {
	if pk == nil || alpha == nil {
		return nil, verdict.Errorf(verdict.MsgNoUsableKey)
	}
	return vrf.Verify(pk, alpha, proof)
}

// companions reads the receipt's start or freeze record (entries startAt,
// freezeAt), which must be this game's start (logged before the record) or
// this draw's freeze (which the draw links to). ok is false when the
// verdict is already settled. The receipt's choice of companion is its
// own: another game's start or another draw's freeze proves nothing.
func companions(v *verdict.Verdict, ev *evidence, rec record.Record, rc *Receipt, startAt, freezeAt int) (start *record.GameStart, freeze *record.PromoFreeze, ok bool) {
	layout := verdict.M(verdict.MsgWhyLayout)
	if rc.Start != nil {
		gr, isGame := rec.(record.GameRecord)
		if !isGame || rec.Kind() == record.KindGameStart {
			v.Fail(verdict.CheckRecord, verdict.MsgReceiptNoStart, kind(rec))
			return nil, nil, false
		}
		r, err := record.Parse([]byte(rc.Start.Record))
		if err != nil {
			recordProblem(v, err, verdict.M(verdict.MsgNameStart), nil)
			ev.on(startAt)
			return nil, nil, false
		}
		s, isStart := r.(*record.GameStart)
		if !isStart || s.Game != gr.GameID() {
			v.Misbehaviour(verdict.CheckRecord, verdict.MsgStartNotOfGame, gr.GameID())
			ev.document(layout)
			return nil, nil, false
		}
		if rc.Start.Index >= rc.Index {
			v.Misbehaviour(verdict.CheckChain, verdict.MsgStartNotBefore, rc.Start.Index, rc.Index)
			ev.on(0, startAt)
			return nil, nil, false
		}
		start = s
	}
	if rc.Freeze != nil {
		d, isDraw := rec.(*record.PromoDraw)
		if !isDraw {
			v.Fail(verdict.CheckRecord, verdict.MsgReceiptNoFreeze, kind(rec))
			return nil, nil, false
		}
		r, err := record.Parse([]byte(rc.Freeze.Record))
		if err != nil {
			recordProblem(v, err, verdict.M(verdict.MsgNameFreeze), nil)
			ev.on(freezeAt)
			return nil, nil, false
		}
		f, isFreeze := r.(*record.PromoFreeze)
		if !isFreeze {
			v.Misbehaviour(verdict.CheckRecord, verdict.MsgFreezeNotFreeze)
			ev.document(layout)
			return nil, nil, false
		}
		// The draw is this freeze's, logged after it (as promo.Verify checks).
		shareErr := promo.VerifyShareCommitment(f, string(d.Share))
		switch {
		case d.Draw != f.Draw:
			v.Misbehaviour(verdict.CheckChain, verdict.MsgFreezeOtherDraw, f.Draw, d.Draw)
			ev.document(layout)
		case d.Prev != record.LeafHash([]byte(rc.Freeze.Record)):
			v.Misbehaviour(verdict.CheckChain, verdict.MsgPromoNoLink)
			ev.on(0, freezeAt)
		case d.Root != f.Root || d.Count != f.Count || d.Winners != f.Winners || d.Reserves != f.Reserves || d.Beacon != f.Beacon:
			v.Misbehaviour(verdict.CheckChain, verdict.MsgPromoLinkFields)
			ev.on(0, freezeAt)
		case rc.Index <= rc.Freeze.Index:
			v.Misbehaviour(verdict.CheckChain, verdict.MsgPromoOrder, rc.Index, rc.Freeze.Index)
			ev.on(0, freezeAt)
		case f.Key != "" && d.Key != f.Key:
			// The freeze bound the key before the bailiff's share existed.
			v.Misbehaviour(verdict.CheckChain, verdict.MsgDrawKeyNotFrozen, d.Key, f.Key)
			ev.on(0, freezeAt)
		case shareErr != nil:
			// The bailiff committed to the share at the freeze, before
			// the beacon round was published (and a freeze timed from
			// promo.ShareCommitmentsRequired on must hold one).
			m := Cause(shareErr)
			v.Misbehaviour(verdict.CheckChain, m.ID, m.Args...)
			ev.on(0, freezeAt)
		default:
			freeze = f
		}
		if freeze == nil {
			return nil, nil, false
		}
	}
	return start, freeze, true
}

// receiptKey checks the receipt's VRF key against the record's key id and
// the anchors; it returns the key when its bytes are trusted, whether its
// suite is known to be the appliance's (Anchors.VRFTrusted), and what the
// key announcements given say of the receipt's pairing of the id with it
// (pairing: the receipt's vrf_key is not in the log, so only an
// announcement given proves it). A key pinned by a bare fingerprint only
// fails the check — the receipt chose its suite, and a P-256 key proves
// under two — but is still returned, so that the reason a failing proof
// proves nothing says what the suites show (whyKey). So is a trusted key
// whose id a key announcement given names with another key: the check
// fails, the receipt is wrong.
func receiptKey(v *verdict.Verdict, ev *evidence, a *Anchors, k *VRFKey, keyID string) (*vrf.PublicKey, bool, pairing) {
	switch {
	case k == nil:
		v.Fail(verdict.CheckVRFKey, verdict.MsgReceiptNoKey)
	case k.ID != keyID:
		// The receipt's vrf_key is not in the log: no proof of anything.
		v.Misbehaviour(verdict.CheckVRFKey, verdict.MsgKeyMismatch, keyID, k.ID)
		ev.document(verdict.M(verdict.MsgWhyReceiptKey))
	default:
		pk, err := parseVRFKey(*k)
		switch {
		case err != nil:
			v.Fail(verdict.CheckVRFKey, verdict.MsgSame, k.keyError(err))
		default:
			fp := record.Hex(record.Fingerprint(pk.Bytes()))
			pair := a.pairOf(keyID, pk, nil)
			switch trusted, known := a.VRFTrusted(pk); {
			case pair.contradicted:
				v.Fail(verdict.CheckVRFKey, verdict.MsgSame, pair.mismatch())
				if trusted {
					return pk, known, pair
				}
			case !trusted:
				v.Fail(verdict.CheckVRFKey, verdict.MsgVRFKeyUntrusted, keyID, fp)
			case !known:
				v.Fail(verdict.CheckVRFKey, verdict.MsgVRFKeyBytesOnly, keyID, fp, string(pk.Suite()))
				return pk, false, pair
			default:
				v.Pass(verdict.CheckVRFKey, verdict.MsgVRFKey, keyID, pk.Suite(), fp)
				return pk, true, pair
			}
		}
	}
	return nil, false, pairing{}
}

// receiptAlpha checks α (the receipt's, or the promotion draw record's
// own) and that its r opens the commitment H(r) logged before the draw:
// the start's own for a start, the game's start's for a pick, the freeze's
// for a promotion draw. It returns α when the proof can be checked with it
// and, when that commitment is not at hand, the reason the proof, even
// valid, proves nothing (a cheating appliance may have drawn with any r).
// When the receipt's α contradicts the records (its fields, or an r that
// does not open H(r)), bad is the position of that check in v and α is
// returned for the caller to see whether the appliance's key signed it:
// only then is it proof.
func receiptAlpha(v *verdict.Verdict, ev *evidence, rec record.Record, alphaHex string, start *record.GameStart, freeze *record.PromoFreeze, startAt, freezeAt int) (alpha []byte, unbound verdict.MsgID, bad int) {
	if pd, ok := rec.(*record.PromoDraw); ok {
		// The record carries r and H(r) (Parse checks that r opens it).
		v.Pass(verdict.CheckAlpha, verdict.MsgAlphaFromRecord)
		switch {
		case freeze == nil:
			return pd.Alpha(), verdict.MsgAlphaUnboundFreeze, -1
		case pd.Commit != freeze.Commit:
			v.Misbehaviour(verdict.CheckCommitment, verdict.MsgPromoCommit)
			ev.on(0, freezeAt)
			return nil, "", -1
		}
		v.Pass(verdict.CheckCommitment, verdict.MsgCommitOK, record.Hex(freeze.Commit))
		return pd.Alpha(), "", -1
	}
	if alphaHex == "" {
		v.Skip(verdict.CheckAlpha, verdict.MsgAlphaNotInReceipt)
		return nil, "", -1
	}
	ab, err := hex.DecodeString(alphaHex)
	if err != nil {
		v.Fail(verdict.CheckAlpha, verdict.MsgAlphaNotHex)
		return nil, "", -1
	}
	r, err := secretFromAlpha(rec, ab, start)
	if err != nil {
		v.Misbehaviour(verdict.CheckAlpha, verdict.MsgSame, Cause(err))
		return ab, "", len(v.Checks) - 1
	}
	commit := start
	if s, ok := rec.(*record.GameStart); ok {
		// A start draws the multipliers: its α binds no pick or number
		// (record.StartAlpha).
		v.Pass(verdict.CheckAlpha, verdict.MsgAlphaBindsStart)
		commit = s
	} else {
		v.Pass(verdict.CheckAlpha, verdict.MsgAlphaBinds)
	}
	if commit == nil {
		return ab, verdict.MsgAlphaUnboundStart, -1
	}
	if record.Commit(r) != commit.Commit {
		v.Misbehaviour(verdict.CheckCommitment, verdict.MsgAlphaCommitBroken)
		return ab, "", len(v.Checks) - 1
	}
	v.Pass(verdict.CheckCommitment, verdict.MsgCommitOK, record.Hex(commit.Commit))
	return ab, "", -1
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
// itself (CheckGame). A contradiction is misbehaviour only when the records
// it rests on are proven in the appliance's log — included under a
// checkpoint signed by a trusted log key — and, for a proof, under a
// trusted key; a transcript's own choice of records proves nothing (see
// Game.Included). A game with draws but no end record (r not revealed, no
// proof checked) fails the proof check as not yet verifiable, or, when the
// game is over, as missing its end.
//
// file may also be the daemon's GetTranscript reply as JSON ({"document":
// "<base64>"}, TranscriptFromReply): the transcript it carries is verified.
func VerifyTranscript(file []byte, a Anchors) *verdict.Verdict {
	v := verdict.New(DocTranscript, verdict.MsgSubjectTranscript)
	format := verdict.NoDetail
	if replyMember(file) == replyDocument {
		doc, err := TranscriptFromReply(file)
		if err != nil {
			v.Fail(verdict.CheckFormat, verdict.MsgNotTranscriptReply, Cause(err))
			return v
		}
		file, format = doc, verdict.MsgFromTranscriptReply
	}
	// bad fails the format check with id(args…), naming the reply's
	// document when the transcript came in one.
	bad := func(id verdict.MsgID, args ...any) *verdict.Verdict {
		if format == verdict.NoDetail {
			v.Fail(verdict.CheckFormat, id, args...)
		} else {
			v.Fail(verdict.CheckFormat, verdict.MsgNotTranscriptReply, verdict.M(verdict.MsgColon, replyDocument, verdict.M(id, args...)))
		}
		return v
	}
	var t Transcript
	if err := decodeStrict(file, &t); err != nil {
		if format == verdict.NoDetail {
			return bad(verdict.MsgNotTranscript, Cause(err))
		}
		return bad(verdict.MsgSame, Cause(err))
	}
	if t.V != 1 || t.Type != TypeTranscript {
		return bad(verdict.MsgWrongVersion, t.V, t.Type, TypeTranscript)
	}
	if len(t.Records) == 0 {
		return bad(verdict.MsgNoRecords)
	}
	v.Pass(verdict.CheckFormat, format)
	v.SetSubject(verdict.MsgSubjectGame, t.Game, len(t.Records))

	// The log's entries: the records, then the optional emission and key
	// announcement.
	entries := append([]Logged(nil), t.Records...)
	names := make([]verdict.Msg, 0, len(entries)+2)
	for i := range t.Records {
		names = append(names, verdict.M(verdict.MsgNameRecord, i))
	}
	emAt, keysAt := -1, -1
	if t.Emission != nil {
		emAt = len(entries)
		entries, names = append(entries, *t.Emission), append(names, verdict.M(verdict.MsgNameEmission))
	}
	if t.Keys != nil {
		keysAt = len(entries)
		entries, names = append(entries, *t.Keys), append(names, verdict.M(verdict.MsgNameKeys))
	}
	// what: the entries, when the emission or key announcement come with
	// the game's records (the subject counts the game's only).
	var what verdict.Series
	if len(entries) > len(t.Records) {
		what = verdict.Series{verdict.M(verdict.MsgGameRecordsN, len(t.Records))}
		if emAt >= 0 {
			what = append(what, names[emAt])
		}
		if keysAt >= 0 {
			what = append(what, names[keysAt])
		}
	}
	ev := newEvidence(v)
	layout := verdict.M(verdict.MsgWhyLayout)
	settled := func() *verdict.Verdict {
		ev.settle(logCheck(v, &a, t.Checkpoint, t.LogKeys, entries, names, what), names)
		return v
	}

	// Records parse; the optional emission and key announcement are what they claim.
	var emission *record.Emission
	var keys *record.KeyAnnouncement
	if t.Emission != nil {
		r, err := record.Parse([]byte(t.Emission.Record))
		e, ok := r.(*record.Emission)
		if err != nil || !ok {
			v.Misbehaviour(verdict.CheckRecord, verdict.MsgEmissionNotEmission)
			if err != nil {
				ev.on(emAt) // malformed, if the log holds it
			} else {
				ev.document(layout)
			}
			return settled()
		}
		emission = e
	}
	if t.Keys != nil {
		r, err := record.Parse([]byte(t.Keys.Record))
		k, ok := r.(*record.KeyAnnouncement)
		if err != nil || !ok {
			v.Misbehaviour(verdict.CheckRecord, verdict.MsgKeysNotAnnouncement)
			if err != nil {
				ev.on(keysAt)
			} else {
				ev.document(layout)
			}
			return settled()
		}
		keys = k
	}
	leaves := make([][]byte, len(t.Records))
	indices := make([]uint64, len(t.Records))
	var start *record.GameStart
	for i, e := range t.Records {
		r, err := record.Parse([]byte(e.Record))
		if err != nil {
			recordProblem(v, err, verdict.M(verdict.MsgNameRecord, i), nil)
			ev.on(i)
			return settled()
		}
		if gr, ok := r.(record.GameRecord); !ok || gr.GameID() != t.Game {
			v.Misbehaviour(verdict.CheckRecord, verdict.MsgRecordNotOfGame, i, t.Game)
			ev.document(layout)
			return settled()
		}
		if s, ok := r.(*record.GameStart); ok && i == 0 {
			start = s
		}
		leaves[i], indices[i] = []byte(e.Record), e.Index
	}
	if len(what) > 0 {
		v.Pass(verdict.CheckRecord, verdict.MsgCanonicalRecordsOf, len(entries), what)
	} else {
		v.Pass(verdict.CheckRecord, verdict.MsgCanonicalRecords, len(entries))
	}
	if emission != nil && start != nil && emission.Emission != start.Emission {
		v.Misbehaviour(verdict.CheckRecord, verdict.MsgEmissionMismatch, emission.Emission, start.Emission)
		ev.document(layout)
		return settled()
	}
	// The emission's start deadline is the rules' (art. 2.2.4), not only
	// what its record claims: the game is checked against it below.
	if emission != nil {
		if err := qod.CheckEmission(emission, a.Location); err != nil {
			v.Misbehaviour(verdict.CheckRecord, verdict.MsgSame, Cause(err))
			ev.on(emAt)
			return settled()
		}
	}

	included := logCheck(v, &a, t.Checkpoint, t.LogKeys, entries, names, what)
	ev.settle(included, names)
	keysIncluded := keysAt >= 0 && included[keysAt]

	// VRF keys: given, pinned with their suite, or announced in the
	// trusted log before the start (the announcement fixes the suite). A
	// key pinned by a bare fingerprint and not announced fails the check
	// (the transcript chose its suite) but stays in the ring with its suite
	// unknown. The transcript pairs each key id with bytes: a proof failing
	// under a key is proof only when that pairing is proven (pairOf: the
	// announcement logged before the start, or one given as an anchor),
	// and a pairing they contradict fails the check.
	var loggedKeys *record.KeyAnnouncement
	if keysIncluded && t.Keys.Index < t.Records[0].Index {
		loggedKeys = keys
	}
	ring := map[string]*vrf.PublicKey{}
	suiteKnown := map[string]bool{}
	pairs := map[string]pairing{}
	var problems []verdict.Msg
	for _, k := range t.VRFKeys {
		pk, err := parseVRFKey(k)
		if err != nil {
			problems = append(problems, verdict.M(verdict.MsgKeyProblem, k.ID, Cause(err)))
			continue
		}
		fp := record.Hex(record.Fingerprint(pk.Bytes()))
		logged := announced(loggedKeys, k.ID, pk)
		trusted, known := a.VRFTrusted(pk)
		pair := a.pairOf(k.ID, pk, loggedKeys)
		pairs[k.ID] = pair
		switch {
		case pair.contradicted:
			problems = append(problems, pair.mismatch())
			if trusted {
				ring[k.ID] = pk
				suiteKnown[k.ID] = known
			}
		case logged || (trusted && known):
			// Given or pinned with its suite, or announced in the trusted log before the game started.
			ring[k.ID] = pk
			suiteKnown[k.ID] = true
		case trusted:
			ring[k.ID] = pk
			problems = append(problems, verdict.M(verdict.MsgVRFKeyBytesOnly, k.ID, fp, string(pk.Suite())))
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
	// are not trusted: the vrf-key check already failed then, and a proof
	// that fails under such a key proves nothing (Game.Trusted).
	all := map[string]*vrf.PublicKey{}
	for _, k := range t.VRFKeys {
		if pk, err := parseVRFKey(k); err == nil {
			all[k.ID] = pk
		}
	}
	// The keys a failing proof may verify under instead (a relabelled
	// key): given, and the transcript's trusted, in its order.
	trustedKeys := a.givenVRFKeys()
	for _, k := range t.VRFKeys {
		if pk, ok := ring[k.ID]; ok {
			trustedKeys = append(trustedKeys, pk)
		}
	}
	g := Game{Leaves: leaves, Indices: indices, Location: a.Location, Included: included[:len(t.Records)],
		Key: func(id string) (*vrf.PublicKey, bool) { pk, ok := all[id]; return pk, ok },
		Trusted: func(id string) (bool, bool) {
			pk, ok := ring[id]
			return ok && pk.Equal(all[id]), suiteKnown[id]
		},
		Paired: func(id string, alpha, proof, beta []byte) *verdict.Msg {
			p, ok := pairs[id]
			if !ok || !p.pk.Equal(all[id]) {
				m := verdict.M(verdict.MsgWhyKeyUntrusted, id)
				return &m
			}
			return p.why(trustedKeys, alpha, proof, beta)
		}}
	emissionProven := emission != nil && included[emAt]
	if emissionProven {
		g.StartDeadline = emission.StartDeadline
	}
	p := CheckGame(v, g)
	if p != nil && p.Final.Phase != 0 {
		v.Fact("game", verdict.MsgGameFact, t.Game, p.Final.Picks, p.Final.Tier, verdict.Term(p.Final.Phase.String()))
	}
	// Without the end, r is not revealed and no proof was checked: the
	// draws are the appliance's word, which is no pass (a forged losing β
	// would go unseen). A game over with no end is one whose end was held
	// back or left out of the document.
	if c := v.Find(verdict.CheckVRFProof); p != nil && p.Final.Phase != 0 && !p.Ended && len(used) > 0 && c != nil && c.Status == verdict.StatusSkip {
		if p.Final.Phase.Over() {
			v.Set(verdict.CheckVRFProof, verdict.StatusFail, verdict.MsgTranscriptNoEnd, verdict.Term(p.Final.Phase.String()))
		} else {
			v.Set(verdict.CheckVRFProof, verdict.StatusFail, verdict.MsgTranscriptNotYet)
		}
	}
	switch {
	case emission == nil:
		// Without its emission, the game's start deadline is unknown: the
		// rules were replayed without it, and the verdict says so.
		v.Skip(verdict.CheckRules, verdict.MsgDeadlineNotChecked)
	case !emissionProven:
		// Nor with an emission record not proven to be the appliance's.
		v.Skip(verdict.CheckRules, verdict.MsgDeadlineNotProven)
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
