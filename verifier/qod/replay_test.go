package qod_test

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/qod"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/vrf"
)

// The transcripts below are produced the way the daemon produces them: real
// RFC 9381 proofs (P-256 SSWU) over record's α, outcomes from package qod.

var (
	t0    = time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)
	paris = func() *time.Location { l, _ := time.LoadLocation("Europe/Paris"); return l }()
)

func testKey(t testing.TB) *vrf.PrivateKey {
	raw := sha256.Sum256([]byte("qod replay test key"))
	sk, err := vrf.NewPrivateKey(vrf.SuiteP256SSWU, raw[:])
	if err != nil {
		t.Fatal(err)
	}
	return sk
}

func verifier(pk *vrf.PublicKey) qod.VerifyFunc {
	return func(key string, alpha, proof []byte) ([]byte, error) {
		if key != "vrf-1" {
			return nil, fmt.Errorf("key %q not announced", key)
		}
		return vrf.Verify(pk, alpha, proof)
	}
}

// transcript plays one game as the daemon would and collects its leaves.
type transcript struct {
	t      testing.TB
	sk     *vrf.PrivateKey
	secret [32]byte
	g      qod.Game
	recs   []record.GameRecord
	leaves [][]byte
	now    time.Time
}

func (tr *transcript) prove(alpha []byte) (proof, beta []byte) {
	proof, err := tr.sk.Prove(alpha)
	if err != nil {
		tr.t.Fatal(err)
	}
	beta, err = vrf.ProofToHash(vrf.SuiteP256SSWU, proof)
	if err != nil {
		tr.t.Fatal(err)
	}
	return proof, beta
}

// add formats r, after setting its prev link, and appends it.
func (tr *transcript) add(r record.GameRecord) {
	if len(tr.leaves) > 0 {
		prev := record.LeafHash(tr.leaves[len(tr.leaves)-1])
		switch r := r.(type) {
		case *record.Pick:
			r.Prev = prev
		case *record.Decision:
			r.Prev = prev
		case *record.GameEnd:
			r.Prev = prev
		}
	}
	leaf, err := record.Format(r)
	if err != nil {
		tr.t.Fatal(err)
	}
	tr.recs = append(tr.recs, r)
	tr.leaves = append(tr.leaves, leaf)
}

func startGame(t testing.TB, sk *vrf.PrivateKey, id string, stake int64) *transcript {
	return startGameUnder(t, "vrf-1", sk, id, stake)
}

// startGameUnder starts a game whose start is proved under key keyID (sk).
func startGameUnder(t testing.TB, keyID string, sk *vrf.PrivateKey, id string, stake int64) *transcript {
	tr := &transcript{t: t, sk: sk, secret: sha256.Sum256([]byte("r of " + id)), now: t0}
	ticket, _ := record.TicketHash(fmt.Sprintf("%018d", len(id)*7919))
	rec := &record.GameStart{Time: t0, Game: id, Emission: "QOD-1", Ticket: ticket, Stake: stake, Commit: record.Commit(tr.secret)}
	if stake != qod.MaxStake {
		rec.Key = keyID
		rec.Proof, rec.Beta = tr.prove(rec.Alpha(tr.secret))
	}
	g, err := qod.NewGame(qod.Start{Game: id, Emission: rec.Emission, Ticket: ticket, Stake: stake, Beta: rec.Beta,
		Now: t0, StartDeadline: t0.Add(time.Hour), Location: paris})
	if err != nil {
		t.Fatal(err)
	}
	rec.Multipliers, rec.Amounts, rec.Expires = g.Multipliers, g.Amounts, g.Expires
	tr.g = g
	tr.add(rec)
	return tr
}

// pick picks the lowest free number.
func (tr *transcript) pick() { tr.pickUnder("vrf-1", tr.sk) }

// pickUnder picks the lowest free number, proved under key id (sk).
func (tr *transcript) pickUnder(id string, sk *vrf.PrivateKey) {
	n := 1
	for tr.g.IsPicked(n) {
		n++
	}
	tr.now = tr.now.Add(time.Minute)
	alpha := record.PickAlpha(tr.g.ID, tr.g.Emission, tr.g.Ticket, tr.secret, tr.g.Picks, n)
	proof, err := sk.Prove(alpha)
	if err != nil {
		tr.t.Fatal(err)
	}
	beta, err := vrf.ProofToHash(sk.Public().Suite(), proof)
	if err != nil {
		tr.t.Fatal(err)
	}
	index := tr.g.Picks
	g, losing, err := tr.g.Pick(n, beta, tr.now)
	if err != nil {
		tr.t.Fatal(err)
	}
	out := record.OutcomeGood
	if losing {
		out = record.OutcomeLosing
	}
	tr.add(&record.Pick{Time: tr.now, Game: g.ID, Index: index, Number: n, Outcome: out, Key: id, Proof: proof, Beta: beta})
	tr.g = g
}

func (tr *transcript) decide(stop bool) {
	tier := tr.g.Tier
	var err error
	choice := record.ChoiceContinue
	if stop {
		choice = record.ChoiceStop
		tr.g, err = tr.g.Stop(tr.now)
	} else {
		tr.g, err = tr.g.Continue(tr.now)
	}
	if err != nil {
		tr.t.Fatal(err)
	}
	tr.add(&record.Decision{Time: tr.now, Game: tr.g.ID, Tier: tier, Choice: choice})
}

func (tr *transcript) end() {
	tr.add(&record.GameEnd{Time: tr.now, Game: tr.g.ID, Result: tr.g.Result(), Tier: tr.g.Tier, Win: tr.g.Win, Refund: tr.g.RefundAmount, Secret: tr.secret})
}

// play runs a game with "stop at tier stopAt" (0: never stop) to its end.
func play(t testing.TB, sk *vrf.PrivateKey, id string, stake int64, stopAt int) *transcript {
	tr := startGame(t, sk, id, stake)
	for !tr.g.Phase.Over() {
		switch tr.g.Phase {
		case qod.Playing:
			tr.pick()
		case qod.AtTier:
			tr.decide(tr.g.Tier == stopAt)
		}
	}
	tr.end()
	return tr
}

// find plays games with ids prefix-0, prefix-1, … until want(game) holds.
func find(t *testing.T, sk *vrf.PrivateKey, prefix string, stake int64, stopAt int, want func(qod.Game) bool) *transcript {
	for i := range 400 {
		tr := play(t, sk, fmt.Sprintf("%s-%d", prefix, i), stake, stopAt)
		if want(tr.g) {
			return tr
		}
	}
	t.Fatalf("no game %s found", prefix)
	return nil
}

func replay(tr *transcript, pk *vrf.PublicKey) (qod.Replayed, error) {
	return qod.Replay(tr.leaves, qod.ReplayConfig{Verify: verifier(pk), StartDeadline: t0.Add(time.Hour), Location: paris})
}

func TestReplayHonestGames(t *testing.T) {
	sk := testKey(t)
	pk := sk.Public()
	games := map[string]*transcript{
		"won at tier 4":  find(t, sk, "t4", 2000, 0, func(g qod.Game) bool { return g.Phase == qod.Won }),
		"stop at tier 2": find(t, sk, "s2", 500, 2, func(g qod.Game) bool { return g.Phase == qod.Won && g.Tier == 2 }),
		"lost":           find(t, sk, "l", 1000, 0, func(g qod.Game) bool { return g.Phase == qod.Lost && g.Tier >= 1 }),
		"50,000 € stop":  find(t, sk, "max", qod.MaxStake, 1, func(g qod.Game) bool { return g.Phase == qod.Won }),
	}
	exp := startGame(t, sk, "exp", 2000)
	exp.pick()
	exp.now = exp.g.Expires
	exp.g, _ = exp.g.Expire(exp.now)
	exp.end()
	games["expired"] = exp
	ref := startGame(t, sk, "ref", 2000)
	ref.g, _ = ref.g.Refund(t0.Add(time.Hour))
	ref.now = t0.Add(time.Hour)
	ref.end()
	games["refunded"] = ref
	// Refunded after its deadline, not expired meanwhile (art. 2.2.11: an
	// outage ate the end of the window, known only once it was over).
	late := startGame(t, sk, "late-ref", 2000)
	late.pick()
	late.now = late.g.Expires.Add(72 * time.Hour)
	late.g, _ = late.g.Refund(late.now)
	late.end()
	games["refunded after the deadline"] = late

	for name, tr := range games {
		got, err := replay(tr, pk)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		proofs := tr.g.Picks + 1
		if tr.g.Stake == qod.MaxStake {
			proofs--
		}
		if !got.Ended || got.ProofsChecked != proofs || got.Game != tr.g {
			t.Errorf("%s: replay %+v, checked %d proofs (want %d)", name, got.Game, got.ProofsChecked, proofs)
		}
	}
	// A game in progress replays too; its proofs wait for r.
	tr := startGame(t, sk, "live", 2000)
	tr.pick()
	if got, err := replay(tr, pk); err != nil || got.Ended || got.ProofsChecked != 0 || got.Game != tr.g {
		t.Errorf("game in progress: %+v, %v", got, err)
	}
}

// TestReplayCatchesCheats: a cheating appliance or a corrupted log. Every
// alteration, even re-chained so that the hash links hold, is caught and
// classed as ErrTranscript.
func TestReplayCatchesCheats(t *testing.T) {
	sk := testKey(t)
	pk := sk.Public()
	other, _ := vrf.NewPrivateKey(vrf.SuiteP256SSWU, func() []byte { b := sha256.Sum256([]byte("another key")); return b[:] }())
	honest := find(t, sk, "c", 2000, 2, func(g qod.Game) bool { return g.Phase == qod.Won && g.Tier == 2 })
	lost := find(t, sk, "cl", 2000, 0, func(g qod.Game) bool { return g.Phase == qod.Lost && g.Picks > 3 })
	// An expired game, and one refunded after a pick, both ended after
	// the deadline.
	expired := startGame(t, sk, "ce", 2000)
	expired.pick()
	expired.now = expired.g.Expires.Add(time.Hour)
	expired.g, _ = expired.g.Expire(expired.now)
	expired.end()
	refunded := startGame(t, sk, "cr", 2000)
	refunded.pick()
	refunded.now = refunded.g.Expires.Add(time.Hour)
	refunded.g, _ = refunded.g.Refund(refunded.now)
	refunded.end()

	// rebuild re-formats the records after mut and re-chains them.
	rebuild := func(base *transcript, mut func(recs []record.GameRecord) []record.GameRecord) [][]byte {
		var recs []record.GameRecord
		for _, leaf := range base.leaves {
			r, err := record.Parse(leaf)
			if err != nil {
				t.Fatal(err)
			}
			recs = append(recs, r.(record.GameRecord))
		}
		tr := &transcript{t: t}
		for _, r := range mut(recs) {
			tr.add(r)
		}
		return tr.leaves
	}
	firstPick := func(recs []record.GameRecord) *record.Pick { return recs[1].(*record.Pick) }
	end := func(recs []record.GameRecord) *record.GameEnd { return recs[len(recs)-1].(*record.GameEnd) }

	cases := []struct {
		name   string
		leaves [][]byte
		says   string
	}{
		{"outcome flipped", rebuild(lost, func(r []record.GameRecord) []record.GameRecord {
			p := r[len(r)-2].(*record.Pick)
			p.Outcome = record.OutcomeGood
			return r[:len(r)-1] // and no end: the loss is hidden
		}), "outcome"},
		{"multiplier raised", rebuild(honest, func(r []record.GameRecord) []record.GameRecord {
			s := r[0].(*record.GameStart)
			s.Multipliers[0] = 5 - s.Multipliers[0]
			s.Amounts = qod.Amounts(s.Stake, s.Multipliers)
			return r
		}), "multipliers"},
		{"amount changed", rebuild(honest, func(r []record.GameRecord) []record.GameRecord {
			r[0].(*record.GameStart).Amounts[3]++
			return r
		}), "amounts"},
		{"win changed", rebuild(honest, func(r []record.GameRecord) []record.GameRecord {
			end(r).Win++
			return r
		}), "win"},
		{"wrong secret", rebuild(honest, func(r []record.GameRecord) []record.GameRecord {
			end(r).Secret[0] ^= 1
			return r
		}), "commitment"},
		{"β swapped", rebuild(honest, func(r []record.GameRecord) []record.GameRecord {
			// Another pick's (good) β, so the outcome still matches: the proof does not.
			firstPick(r).Beta = r[2].(*record.Pick).Beta
			return r
		}), "proof's output"},
		{"proof of another α", rebuild(honest, func(r []record.GameRecord) []record.GameRecord {
			p := firstPick(r)
			p.Proof = r[2].(*record.Pick).Proof
			p.Beta = r[2].(*record.Pick).Beta
			return r
		}), "vrf proof"},
		{"proved with another key", rebuild(honest, func(r []record.GameRecord) []record.GameRecord {
			p := firstPick(r)
			proof, _ := other.Prove(record.PickAlpha(p.Game, "QOD-1", r[0].(*record.GameStart).Ticket, end(r).Secret, 0, p.Number))
			p.Proof = proof
			return r
		}), "vrf proof"},
		{"number changed", rebuild(honest, func(r []record.GameRecord) []record.GameRecord {
			firstPick(r).Number = 30
			return r
		}), "vrf proof"},
		{"pick dropped", rebuild(honest, func(r []record.GameRecord) []record.GameRecord {
			return append(r[:1:1], r[2:]...)
		}), "index"},
		{"stop became continue", rebuild(honest, func(r []record.GameRecord) []record.GameRecord {
			for _, x := range r {
				if d, ok := x.(*record.Decision); ok && d.Choice == record.ChoiceStop {
					d.Choice = record.ChoiceContinue
				}
			}
			return r
		}), "result won"},
		{"decision while playing", rebuild(honest, func(r []record.GameRecord) []record.GameRecord {
			d := &record.Decision{Time: firstPick(r).Time, Game: r[0].GameID(), Tier: 1, Choice: record.ChoiceStop}
			return append(r[:2:2], append([]record.GameRecord{d}, r[2:]...)...)
		}), "not at a tier"},
		{"record after the end", rebuild(honest, func(r []record.GameRecord) []record.GameRecord {
			return append(r, end(r))
		}), "after the game's end"},
		{"expires moved", rebuild(honest, func(r []record.GameRecord) []record.GameRecord {
			r[0].(*record.GameStart).Expires = r[0].(*record.GameStart).Expires.Add(24 * time.Hour)
			return r
		}), "expires"},
		{"pick after the window", rebuild(honest, func(r []record.GameRecord) []record.GameRecord {
			firstPick(r).Time = r[0].(*record.GameStart).Expires
			return r
		}), "expired"},
		{"result lost though won", rebuild(honest, func(r []record.GameRecord) []record.GameRecord {
			e := end(r)
			e.Result, e.Win = record.ResultLost, 0
			return r
		}), "result lost"},
		{"expired too early", rebuild(honest, func(r []record.GameRecord) []record.GameRecord {
			r = r[:len(r)-2] // drop the stop and the end
			return append(r, &record.GameEnd{Time: t0.Add(time.Hour), Game: r[0].GameID(), Result: record.ResultExpired, Tier: 2, Secret: honest.secret})
		}), "not over yet"},
		{"refund after the end", rebuild(lost, func(r []record.GameRecord) []record.GameRecord {
			e := end(r)
			e.Time = r[0].(*record.GameStart).Expires.Add(time.Hour)
			e.Result, e.Refund = record.ResultRefunded, qod.TicketPrice
			return r
		}), "result refunded, the game is lost"},
		{"refund once the refund window is over", rebuild(refunded, func(r []record.GameRecord) []record.GameRecord {
			e := end(r)
			s := r[0].(*record.GameStart)
			e.Time = s.Expires.Add(qod.RefundGrace(s.Time))
			return r
		}), "refund window over"},
		{"refund a year after the deadline", rebuild(refunded, func(r []record.GameRecord) []record.GameRecord {
			e := end(r)
			e.Time = r[0].(*record.GameStart).Expires.AddDate(1, 0, 0)
			return r
		}), "refund window over"},
		{"refund after the expiry", rebuild(expired, func(r []record.GameRecord) []record.GameRecord {
			e := *end(r)
			e.Time = e.Time.Add(time.Hour)
			e.Result, e.Refund = record.ResultRefunded, qod.TicketPrice
			return append(r, &e)
		}), "after the game's end"},
		{"expired instead of refunded, before the deadline", rebuild(refunded, func(r []record.GameRecord) []record.GameRecord {
			e := end(r)
			e.Time, e.Result, e.Refund = t0.Add(time.Hour), record.ResultExpired, 0
			return r
		}), "not over yet"},
		{"refund before the last pick", rebuild(refunded, func(r []record.GameRecord) []record.GameRecord {
			end(r).Time = t0
			return r
		}), "before the game's last event"},
		{"another game's record", rebuild(honest, func(r []record.GameRecord) []record.GameRecord {
			firstPick(r).Game = "other"
			return r
		}), "game \"other\""},
		{"start after the deadline", rebuild(honest, func(r []record.GameRecord) []record.GameRecord {
			for _, x := range r {
				switch x := x.(type) {
				case *record.GameStart:
					x.Time, x.Expires = x.Time.Add(time.Hour), qod.PlayDeadline(x.Time.Add(time.Hour), paris)
				}
			}
			return r
		}), "closed"},
		{"not starting with a start", honest.leaves[1:], "want game_start"},
		{"broken link", func() [][]byte {
			l := append([][]byte(nil), honest.leaves...)
			l[1], l[2] = l[2], l[1]
			return l
		}(), "prev"},
		{"garbage leaf", append(append([][]byte(nil), honest.leaves[:2]...), []byte("{}")), "record 2"},
		{"no records", nil, "no records"},
	}
	for _, c := range cases {
		_, err := qod.Replay(c.leaves, qod.ReplayConfig{Verify: verifier(pk), StartDeadline: t0.Add(time.Hour), Location: paris})
		if !errors.Is(err, qod.ErrTranscript) {
			t.Errorf("%s: %v, want ErrTranscript", c.name, err)
			continue
		}
		if testing.Verbose() {
			t.Logf("%s: %v", c.name, err)
		}
		if !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %q does not say %q", c.name, err, c.says)
		}
	}
	// Without Verify, only the proofs go unchecked.
	if _, err := qod.Replay(cases[5].leaves, qod.ReplayConfig{Location: paris}); err != nil {
		t.Errorf("β swapped, no Verify: %v (a swapped good β keeps the outcome)", err)
	}
}

// BenchmarkReplay: re-checking a whole game of 12 picks with its proofs.
func BenchmarkReplay(b *testing.B) {
	sk := testKey(b)
	tr := play(b, sk, "bench", 2000, 2)
	cfg := qod.ReplayConfig{Verify: verifier(sk.Public()), Location: paris}
	for b.Loop() {
		if _, err := qod.Replay(tr.leaves, cfg); err != nil {
			b.Fatal(err)
		}
	}
}

func TestCheckEmission(t *testing.T) {
	e := &record.Emission{Emission: "QOD-1", Closure: "2026-12-31", StartDeadline: time.Date(2027, 1, 29, 23, 0, 0, 0, time.UTC)}
	if err := qod.CheckEmission(e, paris); err != nil {
		t.Fatal(err)
	}
	e.StartDeadline = e.StartDeadline.Add(time.Hour)
	if err := qod.CheckEmission(e, paris); !errors.Is(err, qod.ErrTranscript) || !strings.Contains(err.Error(), "start_deadline") {
		t.Errorf("a late deadline: %v", err)
	}
}

// A game refunded or expired after the appliance lost its secret ends with a
// zero secret: it replays (the appliance can rebuild its state), no proof is
// checked, and it says so. A zero secret at any other end breaks the
// commitment.
func TestReplaySecretLost(t *testing.T) {
	sk := testKey(t)
	pk := sk.Public()
	for _, c := range []struct {
		name string
		end  func(*transcript) error
		lost bool
	}{
		{"refunded", func(tr *transcript) (err error) { tr.g, err = tr.g.Refund(tr.now); return }, true},
		{"expired", func(tr *transcript) (err error) { tr.g, err = tr.g.Expire(tr.g.Expires); tr.now = tr.g.Expires; return }, true},
	} {
		tr := startGame(t, sk, "lost-"+c.name, 2000)
		if err := c.end(tr); err != nil {
			t.Fatal(err)
		}
		tr.secret = [32]byte{}
		tr.end()
		rep, err := replay(tr, pk)
		if err != nil || !rep.Ended || !rep.SecretLost || rep.ProofsChecked != 0 {
			t.Errorf("%s with the secret lost: %+v %v", c.name, rep, err)
		}
	}
	tr := find(t, sk, "lost-won", 2000, 1, func(g qod.Game) bool { return g.Phase == qod.Won })
	tr.leaves = tr.leaves[:len(tr.leaves)-1]
	tr.secret = [32]byte{}
	tr.end()
	if _, err := replay(tr, pk); !errors.Is(err, qod.ErrTranscript) {
		t.Errorf("a won game ending with a zero secret: %v", err)
	}
}
