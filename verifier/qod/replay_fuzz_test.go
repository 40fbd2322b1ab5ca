package qod_test

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/qod"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// recordAt finds the record a Replay error names.
var recordAt = regexp.MustCompile(`\brecord (\d+)\b`)

// FuzzReplay: a game's leaves come from the log, which the verifier does
// not trust. The input is the leaves, one a line. Every refusal wraps
// ErrTranscript and names a record of the input; whatever replays, every
// prefix of it replays too (a game in progress), and a game that ended with
// its secret revealed had every VRF proof checked.
func FuzzReplay(f *testing.F) {
	sk := testKey(f)
	pk := sk.Public()
	// The seeds' proofs are checked for real once (vrf.Verify); the fuzzed
	// replays look them up, so that their time goes to Replay, not to
	// coverage-instrumented P-256 (package vrf fuzzes its own Verify). No
	// other proof verifies: nobody forges one by flipping bytes.
	real := verifier(pk)
	verified := map[string][]byte{}
	memo := func(key string, alpha, proof []byte) ([]byte, error) {
		k := key + "\x00" + string(alpha) + "\x00" + string(proof)
		if beta, ok := verified[k]; ok {
			return bytes.Clone(beta), nil
		}
		beta, err := real(key, alpha, proof)
		if err == nil {
			verified[k] = bytes.Clone(beta)
		}
		return beta, err
	}
	cfg := qod.ReplayConfig{Verify: memo, StartDeadline: t0.Add(time.Hour), Location: paris}
	// The games of TestReplayHonestGames, and some that ended otherwise.
	var games []*transcript
	for i, want := range []func(qod.Game) bool{
		func(g qod.Game) bool { return g.Phase == qod.Won && g.Tier == 4 },
		func(g qod.Game) bool { return g.Phase == qod.Won && g.Tier == 2 },
		func(g qod.Game) bool { return g.Phase == qod.Lost && g.Tier >= 1 },
	} {
		stopAt := []int{0, 2, 0}[i]
		for j := 0; ; j++ {
			if j == 400 {
				f.Fatalf("no game %d found", i)
			}
			if tr := play(f, sk, fmt.Sprintf("fz%d-%d", i, j), 2000, stopAt); want(tr.g) {
				games = append(games, tr)
				break
			}
		}
	}
	games = append(games, play(f, sk, "max", qod.MaxStake, 1))
	exp := startGame(f, sk, "exp", 2000)
	exp.pick()
	exp.now = exp.g.Expires
	exp.g, _ = exp.g.Expire(exp.now)
	exp.end()
	ref := startGame(f, sk, "ref", 1000)
	ref.now = t0.Add(time.Hour)
	ref.g, _ = ref.g.Refund(ref.now)
	ref.secret = [32]byte{} // r lost
	ref.end()
	late := startGame(f, sk, "late", 2000) // refunded after its deadline (art. 2.2.11)
	late.pick()
	late.now = late.g.Expires.Add(72 * time.Hour)
	late.g, _ = late.g.Refund(late.now)
	late.end()
	live := startGame(f, sk, "live", 500)
	for live.g.Phase == qod.Playing {
		live.pick()
	}
	if live.g.Phase == qod.AtTier {
		live.decide(false)
		live.pick()
	}
	games = append(games, exp, ref, late, live)

	join := func(leaves [][]byte) []byte { return bytes.Join(leaves, []byte("\n")) }
	for _, tr := range games {
		if _, err := qod.Replay(tr.leaves, cfg); err != nil {
			f.Fatalf("seed game %s: %v", tr.g.ID, err)
		}
		f.Add(join(tr.leaves))
	}
	real = func(key string, _, _ []byte) ([]byte, error) {
		return nil, fmt.Errorf("key %q: not a proof of the seeds", key)
	}
	// Slightly broken: a record dropped, two swapped, one repeated, a leaf
	// cut short, a byte changed in a proof, the end record alone.
	won := games[0].leaves
	n := len(won)
	f.Add(join(append(append([][]byte{}, won[:2]...), won[3:]...)))
	f.Add(join(append(append([][]byte{}, won[0], won[2], won[1]), won[3:]...)))
	f.Add(join(append(append([][]byte{}, won...), won[n-1])))
	f.Add(join(append(append([][]byte{}, won[:n-1]...), won[n-1][:len(won[n-1])-2])))
	f.Add(join([][]byte{won[n-1]}))
	f.Add(join([][]byte{bytes.Replace(won[1], []byte(`"number":1`), []byte(`"number":2`), 1)}))
	f.Add([]byte(""))

	f.Fuzz(func(t *testing.T, b []byte) {
		leaves := bytes.Split(b, []byte("\n"))
		rep, err := qod.Replay(leaves, cfg)
		if err != nil {
			var me *verdict.MsgError
			if !errors.Is(err, qod.ErrTranscript) || !errors.As(err, &me) {
				t.Fatalf("not a transcript violation from the catalog: %v", err)
			}
			m := recordAt.FindStringSubmatch(err.Error())
			if m == nil {
				t.Fatalf("error names no record: %v", err)
			}
			if i, _ := strconv.Atoi(m[1]); i >= len(leaves) {
				t.Fatalf("error names record %d of %d: %v", i, len(leaves), err)
			}
			return
		}
		recs := make([]record.GameRecord, len(leaves))
		picks := 0
		for i, leaf := range leaves {
			r, err := record.Parse(leaf)
			if err != nil {
				t.Fatalf("replayed, but leaf %d does not parse: %v", i, err)
			}
			recs[i] = r.(record.GameRecord)
			if _, ok := r.(*record.Pick); ok {
				picks++
			}
		}
		_, ended := recs[len(recs)-1].(*record.GameEnd)
		start := recs[0].(*record.GameStart)
		switch {
		case rep.Ended != ended || rep.Ended && !rep.Game.Phase.Over():
			t.Fatalf("ended %v, last record %s, phase %v", rep.Ended, recs[len(recs)-1].Kind(), rep.Game.Phase)
		case rep.Game.ID != start.Game || rep.Game.Picks != picks:
			t.Fatalf("game %s with %d picks from %s with %d pick records", rep.Game.ID, rep.Game.Picks, start.Game, picks)
		}
		proofs := picks
		if start.Stake != qod.MaxStake {
			proofs++
		}
		if rep.Ended && !rep.SecretLost && rep.ProofsChecked != proofs {
			t.Fatalf("ended game: %d of %d proofs checked", rep.ProofsChecked, proofs)
		}
		for k := 1; k < len(leaves); k++ {
			p, err := qod.Replay(leaves[:k], cfg)
			if err != nil || p.Ended {
				t.Fatalf("first %d of %d records: %+v, %v", k, len(leaves), p, err)
			}
		}
	})
}
