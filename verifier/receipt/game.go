package receipt

import (
	"bytes"
	"errors"
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
// even parse).
func CheckGame(v *verdict.Verdict, g Game) *Played {
	recs := make([]record.GameRecord, len(g.Leaves))
	p := &Played{}
	for i, leaf := range g.Leaves {
		r, err := record.Parse(leaf)
		if err != nil {
			recordProblem(v, err, verdict.M(verdict.MsgNameRecord, i))
			return nil
		}
		gr, ok := r.(record.GameRecord)
		if !ok {
			v.Misbehaviour(verdict.CheckRecord, verdict.MsgNotGameRecord, i, kind(r))
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
		v.Misbehaviour(verdict.CheckChain, verdict.MsgFirstNotStart, kind(recs[0]))
		return nil
	}

	// Chain: one game, hash links, log order, nothing after the end.
	chainOK := true
	for i := 1; i < len(recs) && chainOK; i++ {
		switch {
		case recs[i].GameID() != start.Game:
			v.Misbehaviour(verdict.CheckChain, verdict.MsgChainOtherGame, i, kind(recs[i]), recs[i].GameID(), start.Game)
		case recs[i].PrevHash() != record.LeafHash(g.Leaves[i-1]):
			v.Misbehaviour(verdict.CheckChain, verdict.MsgChainBroken, i, kind(recs[i]), i-1)
		case g.Indices != nil && g.Indices[i] <= g.Indices[i-1]:
			v.Misbehaviour(verdict.CheckChain, verdict.MsgChainOrder, i, kind(recs[i]), g.Indices[i], i-1, g.Indices[i-1])
		case recs[i-1].Kind() == record.KindGameEnd:
			v.Misbehaviour(verdict.CheckChain, verdict.MsgChainAfterEnd, i, kind(recs[i]))
		case recs[i].Kind() == record.KindGameStart:
			v.Misbehaviour(verdict.CheckChain, verdict.MsgChainSecondStart, i)
		default:
			continue
		}
		chainOK = false
	}
	if chainOK {
		v.Pass(verdict.CheckChain, verdict.MsgChainOK, len(recs))
	}

	// Commitment: the end reveals r, which must open H(r) of the start.
	var secret [32]byte
	if end, ok := recs[len(recs)-1].(*record.GameEnd); ok {
		p.Ended = true
		secret = end.Secret
		if record.Commit(secret) != start.Commit {
			v.Misbehaviour(verdict.CheckCommitment, verdict.MsgCommitBroken, len(recs)-1)
		} else {
			v.Pass(verdict.CheckCommitment, verdict.MsgCommitOK, record.Hex(start.Commit))
		}
	} else {
		v.Skip(verdict.CheckCommitment, verdict.MsgNotEnded)
	}

	// VRF proofs, once r is known.
	if p.Ended {
		checkProofs(v, g, recs, start, secret)
	} else {
		v.Skip(verdict.CheckVRFProof, verdict.MsgNotEndedAlpha)
	}

	// Outcomes from β.
	checkOutcomes(v, recs, start, p)

	// Rules: replay the state machine (links and outcomes again, transitions, amounts, times).
	rep, err := qod.Replay(g.Leaves, qod.ReplayConfig{StartDeadline: g.StartDeadline, Location: g.Location})
	switch {
	case errors.Is(err, qod.ErrTranscript):
		v.Misbehaviour(verdict.CheckRules, verdict.MsgSame, CauseText(err, trimClass(err)))
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
// records and r.
func checkProofs(v *verdict.Verdict, g Game, recs []record.GameRecord, start *record.GameStart, secret [32]byte) {
	n := 0
	check := func(what any, keyID string, alpha, proof, beta []byte) bool {
		pk, ok := g.Key(keyID)
		if !ok {
			v.Fail(verdict.CheckVRFProof, verdict.MsgKeyUnknown, what, keyID)
			return false
		}
		b, err := vrf.Verify(pk, alpha, proof)
		if err != nil {
			v.Misbehaviour(verdict.CheckVRFProof, verdict.MsgProofInvalid, what, keyID, vrfCause(err))
			return false
		}
		if !bytes.Equal(b, beta) {
			v.Misbehaviour(verdict.CheckVRFProof, verdict.MsgBetaNotOutputOf, what)
			return false
		}
		n++
		return true
	}
	if start.Key != "" {
		if !check(verdict.Term("start"), start.Key, start.Alpha(secret), start.Proof, start.Beta) {
			return
		}
	}
	for i, r := range recs {
		if pk, ok := r.(*record.Pick); ok {
			what := verdict.M(verdict.MsgPickName, pk.Index+1, pk.Number, i)
			alpha := record.PickAlpha(start.Game, start.Emission, start.Ticket, secret, pk.Index, pk.Number)
			if !check(what, pk.Key, alpha, pk.Proof, pk.Beta) {
				return
			}
		}
	}
	v.Pass(verdict.CheckVRFProof, verdict.MsgProofs, n)
}

// checkOutcomes recomputes the multipliers and each pick's outcome from β.
func checkOutcomes(v *verdict.Verdict, recs []record.GameRecord, start *record.GameStart, p *Played) {
	if start.Key != "" {
		m, err := qod.Multipliers(start.Stake, start.Beta)
		if err != nil {
			v.Misbehaviour(verdict.CheckOutcome, verdict.MsgStartErr, Cause(err))
			return
		}
		if m != start.Multipliers {
			v.Misbehaviour(verdict.CheckOutcome, verdict.MsgStartMultipliers, start.Multipliers, m)
			return
		}
		p.Drawn = true
	}
	p.Multipliers = start.Multipliers
	n := 0
	for i, r := range recs {
		pk, ok := r.(*record.Pick)
		if !ok {
			continue
		}
		what := verdict.M(verdict.MsgPickName, pk.Index+1, pk.Number, i)
		losing, err := PickLosing(pk.Index, pk.Number, pk.Beta)
		if err != nil {
			v.Misbehaviour(verdict.CheckOutcome, verdict.MsgColon, what, Cause(err))
			return
		}
		want := record.OutcomeGood
		if losing {
			want = record.OutcomeLosing
		}
		if pk.Outcome != want {
			v.Misbehaviour(verdict.CheckOutcome, verdict.MsgOutcomeWrong, what, verdict.Term(pk.Outcome), verdict.Term(want))
			return
		}
		p.Picks = append(p.Picks, PickOutcome{Hidden: qod.Numbers - pk.Index, Losing: losing})
		n++
	}
	v.Pass(verdict.CheckOutcome, verdict.MsgOutcomesOK, start.Multipliers, n)
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
