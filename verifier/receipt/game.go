package receipt

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"time"

	"tirage.fr/tirage/verifier/qod"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/vrf"
)

// Game is one game's records to check.
type Game struct {
	// Leaves are the game's records in log order: start, picks and
	// decisions, possibly the end.
	Leaves [][]byte
	// Indices are their log indices (nil: unknown; order then comes from
	// the chain alone).
	Indices []uint64
	// Key returns the VRF key a record names (trust is the caller's
	// business: see Anchors).
	Key func(id string) (*vrf.PublicKey, bool)
	// StartDeadline is the emission's start deadline, when known.
	StartDeadline time.Time
	// Location is the operator's legal time zone (nil: UTC).
	Location *time.Location

	// Included, when not nil, says which leaves are proven in the
	// appliance's log (a transcript's records, included under a checkpoint
	// signed by a trusted log key): the leaves are then a document's, which
	// anyone may edit or leave records out of. A contradiction is then
	// misbehaviour only when every leaf it rests on is proven, and a broken
	// hash link only between leaves adjacent in the log (Indices); anything
	// else is a failure that says why it proves nothing. nil: the caller
	// read every record of the game from a log it trusts (the audit).
	Included []bool
	// Trusted, when not nil, says whether the VRF key id is the appliance's
	// (key) and whether its suite is too (suite: false for a key pinned by
	// fingerprint, which fixes only its bytes). A proof that fails under a
	// key not trusted proves nothing. nil: every key Key returns is the
	// appliance's, suite included.
	Trusted func(id string) (key, suite bool)
	// Paired, when not nil, says why a proof of α with output β that fails
	// under key id proves nothing because nothing proves the document's
	// pairing of id with the key Key returns (a document names each key id
	// with bytes itself; see Anchors.Announced), or nil when a key
	// announcement the verifier authenticated pairs them. nil: every key
	// Key returns is the one its id names (the audit reads the pairings
	// from the log).
	Paired func(id string, alpha, proof, beta []byte) *verdict.Msg
}

// unproven says why a contradiction resting on the leaves deps is no
// proof against the appliance (nil: it is proof).
func (g Game) unproven(deps ...int) *verdict.Msg {
	if g.Included == nil {
		return nil
	}
	for _, d := range deps {
		if d < 0 || d >= len(g.Included) || !g.Included[d] {
			m := verdict.M(verdict.MsgWhyNotIncluded, verdict.M(verdict.MsgNameRecord, d))
			return &m
		}
	}
	return nil
}

// layout is why a contradiction in the document's choice or order of
// records (a transcript's) is no proof; nil for the audit's own reading.
func (g Game) layout() *verdict.Msg {
	if g.Included == nil {
		return nil
	}
	m := verdict.M(verdict.MsgWhyLayout)
	return &m
}

// Played is what a verified game tells the statistics.
type Played struct {
	Ended       bool
	Drawn       bool           // the multipliers were drawn (S < 50,000 €)
	Multipliers [qod.Tiers]int // m_1..m_4
	Picks       []PickOutcome  // in order
	Final       qod.Game       // the replayed state
}

// PickOutcome is one pick: numbers hidden before it and whether it lost.
type PickOutcome struct {
	Hidden int
	Losing bool
}

// CheckGame runs the game checks on g and records them in v: chain,
// commitment, vrf-proof, outcome, rules. Records that do not parse are a
// record failure. It returns what was played (nil if the records do not
// even parse). With g.Included, a contradiction that rests on what is not
// proven to be the appliance's is a failure, not misbehaviour (see Game).
//
// A game that ended after the appliance lost its secret r
// (record.GameEnd.SecretLost: refunded or expired, r all zero) fails the
// commitment check — r was not revealed, which is no contradiction — and its
// proofs are not checked; outcomes and rules still are.
func CheckGame(v *verdict.Verdict, g Game) *Played {
	recs := make([]record.GameRecord, len(g.Leaves))
	p := &Played{}
	for i, leaf := range g.Leaves {
		r, err := record.Parse(leaf)
		if err != nil {
			recordProblem(v, err, verdict.M(verdict.MsgNameRecord, i), g.unproven(i))
			return nil
		}
		gr, ok := r.(record.GameRecord)
		if !ok {
			claim(v, verdict.CheckRecord, g.unproven(i), verdict.MsgNotGameRecord, i, kind(r))
			return nil
		}
		recs[i] = gr
	}
	if len(recs) == 0 {
		v.Fail(verdict.CheckRecord, verdict.MsgNoRecord)
		return nil
	}
	start, ok := recs[0].(*record.GameStart)
	if !ok {
		claim(v, verdict.CheckChain, g.layout(), verdict.MsgFirstNotStart, kind(recs[0]))
		return nil
	}

	// Chain: one game, hash links, log order, nothing after the end. A
	// transcript's broken link is proof only between records adjacent in
	// the log; otherwise a record may just have been left out, and the
	// replay's verdict (rules) is no proof either.
	chainOK := true
	var gap *verdict.Msg
	for i := 1; i < len(recs) && chainOK; i++ {
		switch {
		case recs[i].GameID() != start.Game:
			gap = g.layout()
			claim(v, verdict.CheckChain, gap, verdict.MsgChainOtherGame, i, kind(recs[i]), recs[i].GameID(), start.Game)
		case recs[i].PrevHash() != record.LeafHash(g.Leaves[i-1]):
			why := g.unproven(i-1, i)
			if why == nil && g.Included != nil && (g.Indices == nil || g.Indices[i] != g.Indices[i-1]+1) {
				m := verdict.M(verdict.MsgWhyNotAdjacent, i-1, i)
				why = &m
			}
			gap = why
			claim(v, verdict.CheckChain, why, verdict.MsgChainBroken, i, kind(recs[i]), i-1)
		case g.Indices != nil && g.Indices[i] <= g.Indices[i-1]:
			claim(v, verdict.CheckChain, g.unproven(i-1, i), verdict.MsgChainOrder, i, kind(recs[i]), g.Indices[i], i-1, g.Indices[i-1])
		case recs[i-1].Kind() == record.KindGameEnd:
			claim(v, verdict.CheckChain, g.unproven(i-1, i), verdict.MsgChainAfterEnd, i, kind(recs[i]))
		case recs[i].Kind() == record.KindGameStart:
			claim(v, verdict.CheckChain, g.unproven(i-1, i), verdict.MsgChainSecondStart, i)
		default:
			continue
		}
		chainOK = false
	}
	if chainOK {
		v.Pass(verdict.CheckChain, verdict.MsgChainOK, len(recs))
	}

	// Commitment: the end reveals r, which must open H(r) of the start.
	last := len(recs) - 1
	var secret [32]byte
	var lost verdict.Term // the end's result, when r was lost
	if end, ok := recs[last].(*record.GameEnd); ok {
		p.Ended = true
		factRefundReason(v, end)
		secret = end.Secret
		switch {
		case end.SecretLost():
			// Not revealed, which contradicts nothing: the draws cannot be verified.
			lost = verdict.Term(end.Result)
			v.Fail(verdict.CheckCommitment, verdict.MsgSecretLost, lost)
		case record.Commit(secret) != start.Commit:
			claim(v, verdict.CheckCommitment, g.unproven(0, last), verdict.MsgCommitBroken, last)
		default:
			v.Pass(verdict.CheckCommitment, verdict.MsgCommitOK, record.Hex(start.Commit))
		}
	} else {
		v.Skip(verdict.CheckCommitment, verdict.MsgNotEnded)
	}

	// VRF proofs, once r is known.
	switch {
	case lost != "":
		v.Skip(verdict.CheckVRFProof, verdict.MsgSecretLost, lost)
	case p.Ended:
		checkProofs(v, g, recs, start, secret)
	default:
		v.Skip(verdict.CheckVRFProof, verdict.MsgNotEndedAlpha)
	}

	// Outcomes from β.
	checkOutcomes(v, g, recs, start, p)

	// Rules: replay the state machine (links and outcomes again, transitions,
	// amounts, times). Its verdict rests on every record, and on the chain
	// being whole.
	rep, err := qod.Replay(g.Leaves, qod.ReplayConfig{StartDeadline: g.StartDeadline, Location: g.Location})
	switch {
	case errors.Is(err, qod.ErrTranscript):
		why := gap
		if why == nil {
			all := make([]int, len(recs))
			for i := range all {
				all[i] = i
			}
			why = g.unproven(all...)
		}
		claim(v, verdict.CheckRules, why, verdict.MsgSame, CauseText(err, trimClass(err)))
	case err != nil:
		v.Fail(verdict.CheckRules, verdict.MsgSame, Cause(err))
	default:
		p.Final = rep.Game
		var state any = verdict.Term(rep.Game.Phase.String())
		if rep.Game.Phase == qod.Won {
			state = verdict.M(verdict.MsgWon, rep.Game.Win/100, rep.Game.Win%100, rep.Game.Tier)
		}
		v.Pass(verdict.CheckRules, verdict.MsgRulesOK, rep.Game.Picks, state)
	}
	return p
}

// checkProofs verifies every VRF proof of the game with α rebuilt from the
// records and r. A failing proof rests on the start (α's fields), its own
// record and the end (r), on its key being the appliance's, and on its
// id naming that key (Game.Paired).
func checkProofs(v *verdict.Verdict, g Game, recs []record.GameRecord, start *record.GameStart, secret [32]byte) {
	n := 0
	last := len(recs) - 1
	var f finding
	check := func(what any, keyID string, alpha, proof, beta []byte, i int) {
		pk, ok := g.Key(keyID)
		if !ok {
			f.add(true, nil, verdict.MsgKeyUnknown, what, keyID)
			return
		}
		b, err := vrf.Verify(pk, alpha, proof)
		if err == nil && bytes.Equal(b, beta) {
			n++
			return
		}
		why := g.unproven(0, i, last)
		if why == nil && g.Trusted != nil {
			key, suite := g.Trusted(keyID)
			why = whyKey(keyID, key, suite, pk, alpha, proof, beta)
		}
		if why == nil && g.Paired != nil {
			why = g.Paired(keyID, alpha, proof, beta)
		}
		if err != nil {
			f.add(false, why, verdict.MsgProofInvalid, what, keyID, vrfCause(err))
		} else {
			f.add(false, why, verdict.MsgBetaNotOutputOf, what)
		}
	}
	if start.Key != "" {
		check(verdict.Term("start"), start.Key, start.Alpha(secret), start.Proof, start.Beta, 0)
	}
	for i, r := range recs {
		if f.proof() {
			break
		}
		if pk, ok := r.(*record.Pick); ok {
			what := verdict.M(verdict.MsgPickName, pk.Index+1, pk.Number, i)
			alpha := record.PickAlpha(start.Game, start.Emission, start.Ticket, secret, pk.Index, pk.Number)
			check(what, pk.Key, alpha, pk.Proof, pk.Beta, i)
		}
	}
	if !f.report(v, verdict.CheckVRFProof) {
		v.Pass(verdict.CheckVRFProof, verdict.MsgProofs, n)
	}
}

// checkOutcomes recomputes the multipliers and each pick's outcome from β:
// each rests on its own record.
func checkOutcomes(v *verdict.Verdict, g Game, recs []record.GameRecord, start *record.GameStart, p *Played) {
	var f finding
	if start.Key != "" {
		m, err := qod.Multipliers(start.Stake, start.Beta)
		switch {
		case err != nil:
			f.add(false, g.unproven(0), verdict.MsgStartErr, Cause(err))
		case m != start.Multipliers:
			f.add(false, g.unproven(0), verdict.MsgStartMultipliers, start.Multipliers, m)
		default:
			p.Drawn = true
		}
	}
	p.Multipliers = start.Multipliers
	n := 0
	for i, r := range recs {
		pk, ok := r.(*record.Pick)
		if !ok || f.proof() {
			continue
		}
		what := verdict.M(verdict.MsgPickName, pk.Index+1, pk.Number, i)
		losing, err := PickLosing(pk.Index, pk.Number, pk.Beta)
		if err != nil {
			f.add(false, g.unproven(i), verdict.MsgColon, what, Cause(err))
			continue
		}
		want := record.OutcomeGood
		if losing {
			want = record.OutcomeLosing
		}
		if pk.Outcome != want {
			f.add(false, g.unproven(i), verdict.MsgOutcomeWrong, what, verdict.Term(pk.Outcome), verdict.Term(want))
			continue
		}
		p.Picks = append(p.Picks, PickOutcome{Hidden: qod.Numbers - pk.Index, Losing: losing})
		n++
	}
	if !f.report(v, verdict.CheckOutcome) {
		v.Pass(verdict.CheckOutcome, verdict.MsgOutcomesOK, start.Multipliers, n)
	}
}

// PickLosing decides the pick at index (picks before it) of number from β
// with the rules' own code (qod.Game.Pick): losing with probability 3/n,
// n = 30 − index.
func PickLosing(index, number int, beta []byte) (bool, error) {
	if index < 0 || index >= qod.Numbers {
		return false, verdict.Errorf(verdict.MsgPickIndexRange, index)
	}
	// A game that has made index good picks, none of them number, and is
	// waiting for the next pick: only Hidden() = 30 − index matters.
	g := qod.Game{ID: "receipt", Phase: qod.Playing, Picks: index, Expires: time.Unix(1, 0)}
	_, losing, err := g.Pick(number, beta, time.Unix(0, 0))
	return losing, err
}

func trimClass(err error) string {
	s := err.Error()
	return strings.TrimSuffix(s, ": "+qod.ErrTranscript.Error())
}

// vrfCause is the cause of a proof that does not verify, without vrf's
// "vrf: " prefix.
func vrfCause(err error) verdict.Msg {
	return CauseText(err, strings.TrimPrefix(err.Error(), "vrf: "))
}

// factRefundReason shows the operator's reason sealed in a refund's end,
// quoted as Go quotes it: what is not printable is escaped, so it reads as
// it is.
func factRefundReason(v *verdict.Verdict, end *record.GameEnd) {
	if len(end.Reason) != 0 {
		v.Fact("refund reason", verdict.MsgSame, strconv.Quote(string(end.Reason)))
	}
}
