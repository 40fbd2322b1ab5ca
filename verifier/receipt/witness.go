package receipt

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"tirage.fr/tirage/verifier/beacon"
	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// witnesses are the witnesses given, one per key (checkpoint.AddWitness:
// a key given again, under whatever name, is the same witness).
func (a *Anchors) witnesses() []*checkpoint.Witness { return distinctWitnesses(a.Witnesses) }

func distinctWitnesses(ws []*checkpoint.Witness) []*checkpoint.Witness {
	var out []*checkpoint.Witness
	for _, w := range ws {
		if !slices.ContainsFunc(out, func(x *checkpoint.Witness) bool { return bytes.Equal(x.Public, w.Public) }) {
			out = append(out, w)
		}
	}
	return out
}

// rule returns the witnesses (one per key) a checkpoint of the log origin
// must be cosigned by, and how many of them: LogWitnesses' for that log,
// else Witnesses and WitnessQuorum; the quorum is all of them when 0.
func (a *Anchors) rule(origin string) ([]*checkpoint.Witness, int) {
	ws, q := a.Witnesses, a.WitnessQuorum
	if r, ok := a.LogWitnesses[origin]; ok {
		ws, q = r.Witnesses, r.Quorum
	}
	ws = distinctWitnesses(ws)
	if q <= 0 {
		q = len(ws)
	}
	return ws, q
}

// anyWitness reports whether some log's checkpoints must be cosigned.
func (a *Anchors) anyWitness() bool { return len(a.Witnesses) > 0 || len(a.LogWitnesses) > 0 }

// SetQuorum sets WitnessQuorum to n, as rngverify --witness-quorum N
// gives it: 1 to the number of witnesses given; else an error, with
// rngverify's words, and WitnessQuorum unchanged.
func (a *Anchors) SetQuorum(n int) error {
	ws := len(a.witnesses())
	switch {
	case ws == 0:
		return verdict.Errorf(verdict.MsgCLIQuorumNoWitness, n)
	case n < 1 || n > ws:
		return verdict.Errorf(verdict.MsgCLIFlagRange, "--witness-quorum", n, 1, ws)
	}
	a.WitnessQuorum = n
	return nil
}

// WitnessCheck records the witness-cosignatures check of cp, a checkpoint
// opened under trusted log keys, when witnesses are given (nothing
// otherwise): it passes when at least the quorum of them cosigned cp,
// naming each witness and its cosignature's time; it fails naming cp's
// size and the witnesses missing, or the cosignature that does not
// verify. It returns the valid cosignatures when it passed, else nil.
func (a *Anchors) WitnessCheck(v *verdict.Verdict, cp *checkpoint.Checkpoint) []checkpoint.Cosignature {
	ws, q := a.rule(cp.Origin)
	if len(ws) == 0 {
		return nil
	}
	sigs, err := checkpoint.Cosignatures(cp, ws)
	if err != nil {
		v.Fail(verdict.CheckWitness, verdict.MsgWitnessRefused, cp.Size, Cause(err))
		return nil
	}
	if len(sigs) < q {
		var missing []string
		for _, w := range ws {
			if !slices.ContainsFunc(sigs, func(s checkpoint.Cosignature) bool { return bytes.Equal(s.Witness.Public, w.Public) }) {
				missing = append(missing, w.String())
			}
		}
		v.Fail(verdict.CheckWitness, verdict.MsgWitnessMissing, cp.Size, len(sigs), q, len(ws), strings.Join(missing, ", "))
		return nil
	}
	var seen verdict.Series
	for _, s := range sigs {
		seen = append(seen, verdict.M(verdict.MsgWitnessAt, s.Witness.String(), formatUTC(s.Time)))
	}
	v.Pass(verdict.CheckWitness, verdict.MsgWitnessQuorumOK, cp.Size, len(sigs), len(ws), q, seen)
	return sigs
}

// witnessCheckNote is WitnessCheck for a document's checkpoint note that
// checkpoint-signature passed under logKeys (the trusted keys' texts, or
// the document's own when none is trusted); a checkpoint-signature that did
// not pass leaves the check not reached.
func (a *Anchors) witnessCheckNote(v *verdict.Verdict, note string, logKeys []string) (*checkpoint.Checkpoint, []checkpoint.Cosignature) {
	if !a.anyWitness() {
		return nil, nil
	}
	var keys []*checkpoint.Key
	for _, t := range logKeys {
		if k, err := checkpoint.ParseKey(t); err == nil {
			keys = append(keys, k)
		}
	}
	c := v.Find(verdict.CheckSignature)
	cp, err := checkpoint.Open([]byte(note), keys)
	if c == nil || c.Status != verdict.StatusPass || err != nil {
		v.Skip(verdict.CheckWitness, verdict.MsgNotReached)
		return nil, nil
	}
	return cp, a.WitnessCheck(v, cp)
}

// documentCheckpoint is the signed checkpoint a freeze receipt or a
// certificate carries (its "checkpoint" member), "" if none.
func documentCheckpoint(file []byte) string {
	var probe struct {
		Checkpoint string `json:"checkpoint"`
	}
	json.Unmarshal(file, &probe)
	return probe.Checkpoint
}

// beaconOrder records the witnessed-before-beacon check of the freeze f,
// which announces a drand round, included in cp (the earliest checkpoint
// the document holds that includes it), whose valid cosignatures by the
// quorum are sigs (WitnessCheck). Nothing is recorded for a freeze that
// announces no round of a pinned chain (beacon-signature says why).
//
//   - No witness given: skipped, saying that the order rests on the
//     appliance's clock.
//   - witness-cosignatures did not pass: not reached.
//   - The quorum's cosignatures are all earlier than the round's
//     publication (beacon.Chain.RoundTime): passed, with the latest of
//     them. The freeze record was in the log, and seen by the witnesses,
//     before anyone could know the beacon.
//   - Otherwise the order is not shown (which proves nothing against the
//     appliance: a witness may cosign late): failed — but for a
//     certificate (certificate true), whose only checkpoint includes the
//     draw and so follows the round, skipped, naming the freeze receipt.
func (a *Anchors) beaconOrder(v *verdict.Verdict, f *record.PromoFreeze, cp *checkpoint.Checkpoint, sigs []checkpoint.Cosignature, certificate bool) {
	if f == nil || !beacon.IsRef(f.Beacon) {
		return
	}
	ref, err := beacon.ParseRef(f.Beacon)
	if err != nil {
		return
	}
	chain := beacon.Pinned(hex.EncodeToString(ref.Chain[:]))
	if chain == nil {
		return
	}
	rt := chain.RoundTime(ref.Round)
	var ws []*checkpoint.Witness
	q := 0
	if cp != nil {
		ws, q = a.rule(cp.Origin)
	}
	switch {
	case !a.anyWitness() || cp != nil && len(ws) == 0:
		v.Skip(verdict.CheckWitnessedBeforeBeacon, verdict.MsgBeaconOrderClock, formatUTC(f.Time), chain.String(), ref.Round, formatUTC(rt))
		return
	case cp == nil || len(sigs) == 0:
		v.Skip(verdict.CheckWitnessedBeforeBeacon, verdict.MsgNotReached)
		return
	}
	// The time by which the quorum had cosigned: the q-th earliest.
	times := make([]time.Time, 0, len(sigs))
	for _, s := range sigs {
		times = append(times, s.Time)
	}
	slices.SortFunc(times, time.Time.Compare)
	at := times[min(q, len(times))-1]
	switch {
	case at.Before(rt):
		v.Pass(verdict.CheckWitnessedBeforeBeacon, verdict.MsgBeaconOrderWitnessed, formatUTC(at), chain.String(), ref.Round, formatUTC(rt))
	case certificate:
		v.Skip(verdict.CheckWitnessedBeforeBeacon, verdict.MsgBeaconOrderCertificate, cp.Size, formatUTC(at), chain.String(), ref.Round, formatUTC(rt))
	default:
		v.Fail(verdict.CheckWitnessedBeforeBeacon, verdict.MsgBeaconOrderNotShown, formatUTC(at), chain.String(), ref.Round, formatUTC(rt))
	}
}

// formatUTC is t in RFC 3339, UTC, to the second.
func formatUTC(t time.Time) string { return t.UTC().Truncate(time.Second).Format(time.RFC3339) }
