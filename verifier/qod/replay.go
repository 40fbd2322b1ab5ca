package qod

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// ErrTranscript means a game's records contradict the rules or each other: a
// wrong outcome, a broken hash link, a bad proof, an impossible event. It is
// evidence of misbehaviour (or corruption), never an ordinary failure: report
// it, do not retry.
var ErrTranscript = errors.New("game transcript violates the rules")

// VerifyFunc checks a VRF proof of alpha under the announced key keyID and
// returns β (vrf.Verify with the key looked up by id).
type VerifyFunc func(keyID string, alpha, proof []byte) (beta []byte, err error)

// ReplayConfig is what Replay needs besides the records.
type ReplayConfig struct {
	// Verify checks VRF proofs. Nil: proofs are not checked and the β
	// written in the records is trusted (outcomes are still recomputed).
	// Proofs can only be checked once the game's end record has revealed r.
	Verify VerifyFunc
	// StartDeadline, when not zero, is the emission's start deadline
	// (record.Emission.StartDeadline); the start must come before it.
	StartDeadline time.Time
	// Location is the operator's legal time zone (Europe/Paris); nil = UTC.
	Location *time.Location
}

// Replayed is the result of Replay.
type Replayed struct {
	Game Game
	// Ended: the last record is the game's end (r revealed, checked against H(r)).
	Ended bool
	// SecretLost: the end does not reveal r, which the appliance lost
	// (record.GameEnd.SecretLost: a refund or an expiry): the proofs
	// cannot be checked.
	SecretLost bool
	// ProofsChecked counts the VRF proofs verified (0 unless Verify was
	// given and the game ended).
	ProofsChecked int
}

// violation is a rule broken on replay: the message id(args…) of verdict's
// catalog (its English text), then ErrTranscript.
func violation(id verdict.MsgID, args ...any) error {
	return fmt.Errorf("%w: %w", verdict.Errorf(id, args...), ErrTranscript)
}

// Replay re-runs the state machine over one game's leaves, in log order
// (start, then picks and decisions, then possibly the end), and checks every
// hash link, transition, amount and outcome; with cfg.Verify and an end
// record, every VRF proof too. Any violation wraps ErrTranscript and names
// the record (0-based position in leaves).
func Replay(leaves [][]byte, cfg ReplayConfig) (Replayed, error) {
	var out Replayed
	if len(leaves) == 0 {
		return out, violation(verdict.MsgNoRecords)
	}
	recs := make([]record.GameRecord, len(leaves))
	for i, leaf := range leaves {
		r, err := record.Parse(leaf)
		if err != nil {
			return out, violation(verdict.MsgReplayRecord, i, err)
		}
		gr, ok := r.(record.GameRecord)
		if !ok {
			return out, violation(verdict.MsgReplayNotGame, i, verdict.Term(r.Kind()))
		}
		recs[i] = gr
	}
	start, ok := recs[0].(*record.GameStart)
	if !ok {
		return out, violation(verdict.MsgReplayFirst, verdict.Term(recs[0].Kind()), verdict.Term(record.KindGameStart))
	}
	fail := func(i int, id verdict.MsgID, args ...any) error {
		return violation(verdict.MsgReplayAt, start.Game, i, verdict.Term(recs[i].Kind()), verdict.M(id, args...))
	}
	// Hash links and game id.
	for i := 1; i < len(recs); i++ {
		if recs[i].GameID() != start.Game {
			return out, fail(i, verdict.MsgRuleOtherGame, recs[i].GameID())
		}
		if recs[i].PrevHash() != record.LeafHash(leaves[i-1]) {
			return out, fail(i, verdict.MsgRulePrev, i-1)
		}
		if _, again := recs[i].(*record.GameStart); again {
			return out, fail(i, verdict.MsgRuleSecondStart)
		}
		if _, end := recs[i-1].(*record.GameEnd); end {
			return out, fail(i, verdict.MsgRuleAfterEnd)
		}
	}
	// The secret, when revealed, opens the commitment and every α.
	var secret [32]byte
	if end, ok := recs[len(recs)-1].(*record.GameEnd); ok {
		out.Ended = true
		secret = end.Secret
		if end.SecretLost() {
			out.SecretLost = true
		} else if record.Commit(secret) != start.Commit {
			return out, fail(len(recs)-1, verdict.MsgRuleSecret)
		}
	}
	failErr := func(i int, err error) error {
		return violation(verdict.MsgReplayAtErr, start.Game, i, verdict.Term(recs[i].Kind()), err)
	}
	verify := func(i int, key string, alpha, proof, beta []byte) error {
		if cfg.Verify == nil || !out.Ended || out.SecretLost {
			return nil
		}
		b, err := cfg.Verify(key, alpha, proof)
		if err != nil {
			return violation(verdict.MsgReplayAtProof, start.Game, i, verdict.Term(recs[i].Kind()), err)
		}
		if !bytes.Equal(b, beta) {
			return fail(i, verdict.MsgRuleBeta)
		}
		out.ProofsChecked++
		return nil
	}

	// Start.
	if start.Stake == MaxStake && (start.Key != "" || len(start.Proof) > 0) {
		return out, fail(0, verdict.MsgRuleNotDrawn)
	}
	g, err := NewGame(Start{
		Game: start.Game, Emission: start.Emission, Ticket: start.Ticket, Stake: start.Stake,
		Beta: start.Beta, Now: start.Time, StartDeadline: cfg.StartDeadline, Location: cfg.Location,
	})
	if err != nil {
		return out, failErr(0, err)
	}
	switch {
	case g.Multipliers != start.Multipliers:
		return out, fail(0, verdict.MsgRuleMultipliers, start.Multipliers, g.Multipliers)
	case g.Amounts != start.Amounts:
		return out, fail(0, verdict.MsgRuleAmounts, start.Amounts, g.Amounts)
	case !SealedPlayDeadline(start.Time, start.Expires, cfg.Location):
		return out, fail(0, verdict.MsgRuleExpires, start.Expires.UTC().Format(time.RFC3339), g.Expires.Format(time.RFC3339))
	}
	g.Expires = start.Expires // the deadline sealed (before PlayDeadlineFloorFrom, maybe the calendar reading)
	// The game's VRF key: the start's, "" until its first draw when the
	// start draws nothing (S = 50,000 €). Every draw must be under it.
	key := start.Key
	if start.Stake != MaxStake {
		if err := verify(0, start.Key, start.Alpha(secret), start.Proof, start.Beta); err != nil {
			return out, err
		}
	}

	// Picks, decisions, end.
	for i := 1; i < len(recs); i++ {
		switch r := recs[i].(type) {
		case *record.Pick:
			if r.Index != g.Picks {
				return out, fail(i, verdict.MsgRuleIndex, r.Index, g.Picks)
			}
			if key, err = DrawKey(key, r.Key); err != nil {
				return out, failErr(i, err)
			}
			next, losing, err := g.Pick(r.Number, r.Beta, r.Time)
			if err != nil {
				return out, failErr(i, err)
			}
			want := record.OutcomeGood
			if losing {
				want = record.OutcomeLosing
			}
			if r.Outcome != want {
				return out, fail(i, verdict.MsgRuleOutcome, verdict.Term(r.Outcome), verdict.Term(want))
			}
			alpha := record.PickAlpha(g.ID, g.Emission, g.Ticket, secret, r.Index, r.Number)
			if err := verify(i, r.Key, alpha, r.Proof, r.Beta); err != nil {
				return out, err
			}
			g = next
		case *record.Decision:
			if g.Phase == AtTier && r.Tier != g.Tier {
				return out, fail(i, verdict.MsgRuleTier, r.Tier, g.Tier)
			}
			if r.Choice == record.ChoiceStop {
				g, err = g.Stop(r.Time)
			} else {
				g, err = g.Continue(r.Time)
			}
			if err != nil {
				return out, failErr(i, err)
			}
		case *record.GameEnd:
			if g, err = endGame(g, r); err != nil {
				return out, failErr(i, err)
			}
		}
	}
	out.Game = g
	return out, nil
}

// DrawKey applies the rule that every VRF proof of one game is under one
// key: the start's, or, when the start draws nothing (S = 50,000 €), the
// first pick's. gameKey is the game's key so far ("" before its first
// draw); DrawKey returns it after a draw under key, or an error when key is
// another one. A game on two keys is a re-roll: once two keys are announced
// (a rotation), an operator free to choose the key per draw could prove each
// pick under both and log the outcome it liked. An honest rngd holds one
// key and refuses to rotate while a game is in play on another
// (docs/keys.md, "Rotating the VRF key").
func DrawKey(gameKey, key string) (string, error) {
	if gameKey != "" && key != gameKey {
		return gameKey, verdict.Errorf(verdict.MsgRuleKey, key, gameKey)
	}
	return key, nil
}

// endGame applies an end record: a final phase must match it; an unfinished
// game may only expire (at or after the deadline) or be refunded (at any
// time, after the deadline too: art. 2.2.11, see Game.Refund).
func endGame(g Game, r *record.GameEnd) (Game, error) {
	var err error
	if !g.Phase.Over() {
		switch r.Result {
		case record.ResultExpired:
			g, err = g.Expire(r.Time)
		case record.ResultRefunded:
			g, err = g.Refund(r.Time)
		default:
			return g, verdict.Errorf(verdict.MsgRuleResultPhase, verdict.Term(r.Result), verdict.Term(g.Phase.String()))
		}
		if err != nil {
			return g, err
		}
	} else if r.Time.Before(g.Last) {
		return g, verdict.Errorf(verdict.MsgRuleEndTime, r.Time.UTC().Format(time.RFC3339), ErrTimeOrder)
	}
	switch {
	case r.Result != g.Result():
		return g, verdict.Errorf(verdict.MsgRuleResult, verdict.Term(r.Result), verdict.Term(g.Phase.String()))
	case r.Tier != g.Tier:
		return g, verdict.Errorf(verdict.MsgRuleTierReached, r.Tier, g.Tier)
	case r.Win != g.Win:
		return g, verdict.Errorf(verdict.MsgRuleWin, r.Win, g.Win)
	case r.Refund != g.RefundAmount:
		return g, verdict.Errorf(verdict.MsgRuleRefund, r.Refund, g.RefundAmount)
	}
	return g, nil
}

// CheckEmission checks an emission record against art. 2.2.4: its start
// deadline must be StartDeadline of its closure date in loc (Europe/Paris).
// A mismatch wraps ErrTranscript.
func CheckEmission(e *record.Emission, loc *time.Location) error {
	want, err := StartDeadline(e.Closure, loc)
	if err != nil {
		return violation(verdict.MsgReplayEmission, e.Emission, err)
	}
	if !e.StartDeadline.Equal(want) {
		return violation(verdict.MsgReplayEmissionDeadline, e.Emission,
			e.StartDeadline.UTC().Format(time.RFC3339), e.Closure, want.Format(time.RFC3339))
	}
	return nil
}
