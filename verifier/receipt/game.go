package receipt

import (
	"bytes"
	"errors"
	"fmt"
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
			recordProblem(v, err, "record %d", i)
			return nil
		}
		gr, ok := r.(record.GameRecord)
		if !ok {
			v.Misbehaviour(verdict.CheckRecord, "record %d: a %s record is not a game record", i, r.Kind())
			return nil
		}
		recs[i] = gr
	}
	if len(recs) == 0 {
		v.Fail(verdict.CheckRecord, "no record")
		return nil
	}
	start, ok := recs[0].(*record.GameStart)
	if !ok {
		v.Misbehaviour(verdict.CheckChain, "the first record is a %s, not the game's start: records are missing", recs[0].Kind())
		return nil
	}

	// Chain: one game, hash links, log order, nothing after the end.
	chainOK := true
	for i := 1; i < len(recs) && chainOK; i++ {
		switch {
		case recs[i].GameID() != start.Game:
			v.Misbehaviour(verdict.CheckChain, "record %d (%s) belongs to game %q, not %q", i, recs[i].Kind(), recs[i].GameID(), start.Game)
		case recs[i].PrevHash() != record.LeafHash(g.Leaves[i-1]):
			v.Misbehaviour(verdict.CheckChain, "record %d (%s) does not link to record %d: a record was dropped, added or reordered", i, recs[i].Kind(), i-1)
		case g.Indices != nil && g.Indices[i] <= g.Indices[i-1]:
			v.Misbehaviour(verdict.CheckChain, "record %d (%s) at log index %d is not after record %d (index %d)", i, recs[i].Kind(), g.Indices[i], i-1, g.Indices[i-1])
		case recs[i-1].Kind() == record.KindGameEnd:
			v.Misbehaviour(verdict.CheckChain, "record %d (%s) comes after the game's end", i, recs[i].Kind())
		case recs[i].Kind() == record.KindGameStart:
			v.Misbehaviour(verdict.CheckChain, "record %d is a second start", i)
		default:
			continue
		}
		chainOK = false
	}
	if chainOK {
		v.Pass(verdict.CheckChain, "%d records linked by hash", len(recs))
	}

	// Commitment: the end reveals r, which must open H(r) of the start.
	var secret [32]byte
	if end, ok := recs[len(recs)-1].(*record.GameEnd); ok {
		p.Ended = true
		secret = end.Secret
		if record.Commit(secret) != start.Commit {
			v.Misbehaviour(verdict.CheckCommitment, "the r revealed at the end (record %d) does not open the commitment H(r) of the start", len(recs)-1)
		} else {
			v.Pass(verdict.CheckCommitment, "H(r) = %s", record.Hex(start.Commit))
		}
	} else {
		v.Skip(verdict.CheckCommitment, "the game has not ended: r is revealed by its end record")
	}

	// VRF proofs, once r is known.
	if p.Ended {
		checkProofs(v, g, recs, start, secret)
	} else {
		v.Skip(verdict.CheckVRFProof, "the game has not ended: α contains r, revealed at the end")
	}

	// Outcomes from β.
	checkOutcomes(v, recs, start, p)

	// Rules: replay the state machine (links and outcomes again, transitions, amounts, times).
	rep, err := qod.Replay(g.Leaves, qod.ReplayConfig{StartDeadline: g.StartDeadline, Location: g.Location})
	switch {
	case errors.Is(err, qod.ErrTranscript):
		v.Misbehaviour(verdict.CheckRules, "%s", trimClass(err))
	case err != nil:
		v.Fail(verdict.CheckRules, "%s", err)
	default:
		p.Final = rep.Game
		state := rep.Game.Phase.String()
		if rep.Game.Phase == qod.Won {
			state = fmt.Sprintf("won %d.%02d € at tier %d", rep.Game.Win/100, rep.Game.Win%100, rep.Game.Tier)
		}
		v.Pass(verdict.CheckRules, "%d picks, %s", rep.Game.Picks, state)
	}
	return p
}

// checkProofs verifies every VRF proof of the game with α rebuilt from the
// records and r.
func checkProofs(v *verdict.Verdict, g Game, recs []record.GameRecord, start *record.GameStart, secret [32]byte) {
	n := 0
	check := func(what, keyID string, alpha, proof, beta []byte) bool {
		pk, ok := g.Key(keyID)
		if !ok {
			v.Fail(verdict.CheckVRFProof, "%s: key %q is not known", what, keyID)
			return false
		}
		b, err := vrf.Verify(pk, alpha, proof)
		if err != nil {
			v.Misbehaviour(verdict.CheckVRFProof, "%s: the proof does not verify under key %s (%s)", what, keyID, trimVRF(err))
			return false
		}
		if !bytes.Equal(b, beta) {
			v.Misbehaviour(verdict.CheckVRFProof, "%s: β in the record is not the proof's output", what)
			return false
		}
		n++
		return true
	}
	if start.Key != "" {
		if !check("start", start.Key, start.Alpha(secret), start.Proof, start.Beta) {
			return
		}
	}
	for i, r := range recs {
		if pk, ok := r.(*record.Pick); ok {
			what := fmt.Sprintf("pick %d (number %d, record %d)", pk.Index+1, pk.Number, i)
			alpha := record.PickAlpha(start.Game, start.Emission, start.Ticket, secret, pk.Index, pk.Number)
			if !check(what, pk.Key, alpha, pk.Proof, pk.Beta) {
				return
			}
		}
	}
	v.Pass(verdict.CheckVRFProof, "%d proofs", n)
}

// checkOutcomes recomputes the multipliers and each pick's outcome from β.
func checkOutcomes(v *verdict.Verdict, recs []record.GameRecord, start *record.GameStart, p *Played) {
	if start.Key != "" {
		m, err := qod.Multipliers(start.Stake, start.Beta)
		if err != nil {
			v.Misbehaviour(verdict.CheckOutcome, "start: %s", err)
			return
		}
		if m != start.Multipliers {
			v.Misbehaviour(verdict.CheckOutcome, "start: multipliers %v, β gives %v", start.Multipliers, m)
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
		what := fmt.Sprintf("pick %d (number %d, record %d)", pk.Index+1, pk.Number, i)
		losing, err := PickLosing(pk.Index, pk.Number, pk.Beta)
		if err != nil {
			v.Misbehaviour(verdict.CheckOutcome, "%s: %s", what, err)
			return
		}
		want := record.OutcomeGood
		if losing {
			want = record.OutcomeLosing
		}
		if pk.Outcome != want {
			v.Misbehaviour(verdict.CheckOutcome, "%s: recorded %s, β gives %s", what, pk.Outcome, want)
			return
		}
		p.Picks = append(p.Picks, PickOutcome{Hidden: qod.Numbers - pk.Index, Losing: losing})
		n++
	}
	v.Pass(verdict.CheckOutcome, "multipliers %v and %d pick outcomes recomputed from β", start.Multipliers, n)
}

// PickLosing decides the pick at index (picks before it) of number from β
// with the rules' own code (qod.Game.Pick): losing with probability 3/n,
// n = 30 − index.
func PickLosing(index, number int, beta []byte) (bool, error) {
	if index < 0 || index >= qod.Numbers {
		return false, fmt.Errorf("index %d out of 0..29", index)
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

func trimVRF(err error) string {
	return strings.TrimPrefix(err.Error(), "vrf: ")
}
