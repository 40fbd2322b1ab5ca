package audit_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"

	"tirage.fr/tirage/verifier/audit"
	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/qod"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

type files map[string][]byte

func (f files) Fetch(_ context.Context, path string) ([]byte, error) {
	b, ok := f[path]
	if !ok {
		return nil, fmt.Errorf("%s: %w", path, fs.ErrNotExist)
	}
	return b, nil
}

func logWith(t testing.TB, games int, cheat func(i int) receipttest.Cheat) *receipttest.Appliance {
	t.Helper()
	a, err := receipttest.New(9)
	if err != nil {
		t.Fatal(err)
	}
	for i := range games {
		p := receipttest.Play{Game: fmt.Sprintf("g-%03d", i), StopAt: i % 5}
		if i%7 == 3 {
			p.Unfinished = 2
		}
		if cheat != nil {
			p.Cheat = cheat(i)
		}
		if _, err := a.PlayGame(p); err != nil {
			t.Fatal(err)
		}
	}
	return a
}

func run(t *testing.T, a *receipttest.Appliance, f files, last *checkpoint.Checkpoint) *audit.Result {
	t.Helper()
	keys, err := checkpoint.ParseKeys(string(a.LogKeyFile()))
	if err != nil {
		t.Fatal(err)
	}
	var calls int
	res, err := audit.Run(context.Background(), audit.Config{Fetch: f, LogKeys: keys, Last: last, Workers: 2, Location: a.Location,
		VRFPins: []string{a.VRFFingerprint()}, Progress: func(done, total int64) { calls++ }, Now: clock(a)})
	if err != nil {
		t.Fatal(err)
	}
	if calls == 0 {
		t.Error("no progress reported")
	}
	return res
}

// clock is the audit's clock for a log of appliance a: its own, which the
// records it times follow (the tests move it, some into the future).
func clock(a *receipttest.Appliance) func() time.Time { return func() time.Time { return a.Now } }

func TestAuditHonest(t *testing.T) {
	a := logWith(t, 60, nil)
	if a.Size() < 256 {
		t.Fatalf("log of %d entries does not span two bundles", a.Size())
	}
	res := run(t, a, a.Tiles(), nil)
	v := res.Verdict
	if v.Status() != verdict.StatusPass {
		t.Fatalf("honest log:\n%s", v.Text("en"))
	}
	if res.Games != 60 || res.Records != a.Size() || res.Proofs == 0 {
		t.Errorf("games %d records %d proofs %d", res.Games, res.Records, res.Proofs)
	}
	if n := res.Stats.Picks[30].Trials; n != 60 {
		t.Errorf("first picks counted %d, want 60", n)
	}
}

func TestAuditCheating(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cheat receipttest.Cheat
	}{
		{"forged proof", receipttest.Cheat{ForgeProof: 1}},
		{"swapped outcome", receipttest.Cheat{SwapOutcome: 2}},
		{"wrong r", receipttest.Cheat{WrongSecret: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := logWith(t, 10, func(i int) receipttest.Cheat {
				if i == 6 {
					return tc.cheat
				}
				return receipttest.Cheat{}
			})
			v := run(t, a, a.Tiles(), nil).Verdict
			if c := v.Find(verdict.CheckGames); v.Status() != verdict.StatusMisbehaviour || c.Status != verdict.StatusMisbehaviour {
				t.Fatalf("cheat not caught as misbehaviour:\n%s", v.Text("en"))
			}
		})
	}
}

// TestAuditTamperedEntry: an entry bundle or a hash tile that does not
// match the signed checkpoint fails the entries check, naming the entry
// and the bundle (the tiles), and proves nothing: bundles and tiles are
// not signed, so anyone between the log and the auditor (a mirror, the
// transport) can serve such bytes. Before, it was MISBEHAVIOUR PROVEN.
func TestAuditTamperedEntry(t *testing.T) {
	a := logWith(t, 60, nil) // two bundles: the second one is tampered
	if a.Size() < 257 {
		t.Fatalf("log of %d entries does not span two bundles", a.Size())
	}
	for _, tc := range []struct {
		name, prefix string
		en, fr       string
	}{
		{"bundle", "tile/entries/001", "entry 256 (entry bundle tile/entries/001.p/", "entrée 256 (paquet d'entrées tile/entries/001.p/"},
		// The level-0 tiles authenticate one another (through the tiles
		// above): the first bundle's hashes cannot be read.
		{"tile", "tile/0/001", "entries 0..255: the hash tiles served (tile/0/000, with the tiles authenticating it) do not match the signed tree", "entrées 0..255 : les tuiles d'empreintes servies (tile/0/000, avec les tuiles qui l'authentifient) ne correspondent pas à l'arbre signé"},
	} {
		f := a.Tiles()
		for p, b := range f {
			if strings.HasPrefix(p, tc.prefix) {
				b[10] ^= 1
			}
		}
		keys, err := checkpoint.ParseKeys(string(a.LogKeyFile()))
		if err != nil {
			t.Fatal(err)
		}
		res, err := audit.Run(context.Background(), audit.Config{Fetch: files(f), LogKeys: keys, Workers: 2, Location: a.Location,
			VRFPins: []string{a.VRFFingerprint()}, Now: clock(a)})
		if err != nil {
			t.Fatal(err)
		}
		v := res.Verdict
		c := v.Find(verdict.CheckEntries)
		if c == nil || c.Status != verdict.StatusFail {
			t.Fatalf("%s tampered: want a failure, not proof:\n%s", tc.name, v.Text("en"))
		}
		if v.Status() == verdict.StatusMisbehaviour {
			t.Errorf("%s tampered: the verdict claims misbehaviour:\n%s", tc.name, v.Text("en"))
		}
		want := "the data the log served does not match its signed checkpoint (entry bundles and hash tiles are not signed: a corrupt mirror, the transport or the log's server may have changed them): not proof of misbehaviour: " + tc.en
		if !strings.Contains(c.Detail, want) {
			t.Errorf("%s tampered: reason, want %q:\n%s", tc.name, want, c.Detail)
		}
		if fr := c.Reason("fr"); !strings.Contains(fr, "ce n'est pas une preuve de manquement : "+tc.fr) {
			t.Errorf("%s tampered: French reason:\n%s", tc.name, fr)
		}
	}
}

func TestAuditFork(t *testing.T) {
	a := logWith(t, 5, nil)
	keys, _ := checkpoint.ParseKeys(string(a.LogKeyFile()))
	n := a.Size()
	b := a.Fork(n - 3)
	for b.Size() < n {
		b.Append([]byte("not a record"))
	}
	forked, err := checkpoint.Open(b.CheckpointAt(n-1), keys)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.PlayGame(receipttest.Play{Game: "later", StopAt: 1}); err != nil {
		t.Fatal(err)
	}
	v := run(t, a, a.Tiles(), forked).Verdict
	if c := v.Find(verdict.CheckConsistent); c == nil || c.Status != verdict.StatusMisbehaviour {
		t.Fatalf("fork not caught:\n%s", v.Text("en"))
	}
	// And the honest earlier checkpoint is consistent.
	honest, _ := checkpoint.Open(a.CheckpointAt(n-1), keys)
	v = run(t, a, a.Tiles(), honest).Verdict
	if c := v.Find(verdict.CheckConsistent); c == nil || c.Status != verdict.StatusPass {
		t.Fatalf("honest growth:\n%s", v.Text("en"))
	}
}

func TestAuditPromotions(t *testing.T) {
	a := logWith(t, 3, nil)
	if err := a.PromoDraw("d1", 50, false); err != nil {
		t.Fatal(err)
	}
	res := run(t, a, a.Tiles(), nil)
	if c := res.Verdict.Find(verdict.CheckPromotions); c == nil || c.Status != verdict.StatusPass || c.Detail != "1 draw(s)" {
		t.Fatalf("honest draw:\n%s", res.Verdict.Text("en"))
	}
	if err := a.PromoDraw("d2", 50, true); err != nil {
		t.Fatal(err)
	}
	res = run(t, a, a.Tiles(), nil)
	if c := res.Verdict.Find(verdict.CheckPromotions); c == nil || c.Status != verdict.StatusMisbehaviour {
		t.Fatalf("steered draw:\n%s", res.Verdict.Text("en"))
	}
}

// TestAuditUnknownRecords: a record of a newer version is not misbehaviour;
// a malformed one is.
func TestAuditUnknownRecords(t *testing.T) {
	a := logWith(t, 2, nil)
	a.Append([]byte(`{"kind":"pick","v":2}`))
	v := run(t, a, a.Tiles(), nil).Verdict
	if c := v.Find(verdict.CheckRecord); c.Status != verdict.StatusFail || v.Status() != verdict.StatusFail {
		t.Errorf("newer record: %s\n%s", c.Status, v.Text("en"))
	}
	a.Append([]byte(`{"kind":"pick", "v":1}`))
	v = run(t, a, a.Tiles(), nil).Verdict
	if c := v.Find(verdict.CheckRecord); c.Status != verdict.StatusMisbehaviour {
		t.Errorf("malformed record: %s\n%s", c.Status, v.Text("en"))
	}
}

// live serves an appliance's current tiles.
type live struct{ a *receipttest.Appliance }

func (l live) Fetch(ctx context.Context, path string) ([]byte, error) {
	return files(l.a.Tiles()).Fetch(ctx, path)
}

// TestAuditFollow: the auditor keeps up with a growing log (time injected:
// each wait plays a game), verifies the games that span checkpoints, and
// catches a log that forks while it follows.
func TestAuditFollow(t *testing.T) {
	a := logWith(t, 3, nil)
	keys, _ := checkpoint.ParseKeys(string(a.LogKeyFile()))
	first, _ := checkpoint.Open(a.Checkpoint(), keys)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rounds := 0
	res, err := audit.Run(ctx, audit.Config{Fetch: live{a}, LogKeys: keys, Last: first, Follow: time.Hour, Location: a.Location,
		Wait: func(ctx context.Context, _ time.Duration) error {
			rounds++
			switch rounds {
			case 1: // a game split across two checkpoints
				if _, err := a.PlayGame(receipttest.Play{Game: "span", Unfinished: 2}); err != nil {
					t.Fatal(err)
				}
			case 2:
				// The emission registered again (its first append not
				// acknowledged), as rngd does: the same closure and
				// deadline, timed now. Harmless.
				r, err := record.Parse(a.Leaf(1))
				if err != nil {
					t.Fatal(err)
				}
				e := *r.(*record.Emission)
				e.Time = a.Now
				a.Append(mustFormat(t, &e))
			case 3: // nothing new
			default:
				cancel()
				return ctx.Err()
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict.Status() != verdict.StatusPass || res.Followed != 2 || res.Records != a.Size() || res.Checkpoint.Size != a.Size() {
		t.Fatalf("followed %d, records %d of %d:\n%s", res.Followed, res.Records, a.Size(), res.Verdict.Text("en"))
	}
	if err := checkpoint.Consistent(first, res.Checkpoint, res.Proof); err != nil {
		t.Errorf("proof for the trust state: %v", err)
	}

	// A fork while following.
	b := logWith(t, 2, nil)
	var served *receipttest.Appliance = b
	fork := b.Fork(b.Size() - 1)
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	rounds = 0
	res, err = audit.Run(ctx2, audit.Config{Fetch: liveFunc(func() *receipttest.Appliance { return served }), LogKeys: keys, Follow: time.Hour, Location: a.Location,
		Wait: func(ctx context.Context, _ time.Duration) error {
			rounds++
			if rounds > 1 {
				cancel2()
				return ctx.Err()
			}
			for fork.Size() <= b.Size() {
				fork.Append([]byte("rewritten history"))
			}
			served = fork
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Verdict.First(); res.Verdict.Status() != verdict.StatusMisbehaviour || c.Name != verdict.CheckConsistent {
		t.Fatalf("fork while following:\n%s", res.Verdict.Text("en"))
	}
}

type liveFunc func() *receipttest.Appliance

func (l liveFunc) Fetch(ctx context.Context, path string) ([]byte, error) {
	return files(l().Tiles()).Fetch(ctx, path)
}

func must(t *testing.T, b []byte) []byte {
	t.Helper()
	return append([]byte(nil), b...)
}

// TestAuditTicketPlayedTwice: a ticket code starts one game only.
func TestAuditTicketPlayedTwice(t *testing.T) {
	a := logWith(t, 2, nil)
	g, err := a.PlayGame(receipttest.Play{Game: "first", StopAt: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.PlayGame(receipttest.Play{Game: "replayed", StopAt: 1, Ticket: g.Ticket}); err != nil {
		t.Fatal(err)
	}
	v := run(t, a, a.Tiles(), nil).Verdict
	if c := v.Find(verdict.CheckGames); c.Status != verdict.StatusMisbehaviour || !strings.Contains(c.Detail, "already played game first") {
		t.Fatalf("ticket played twice:\n%s", v.Text("en"))
	}
}

// An emission whose start deadline is not the rules' (closure + 29 days,
// art. 2.2.4) is the appliance's misbehaviour, even with no game in it.
func TestAuditEmissionDeadline(t *testing.T) {
	a := logWith(t, 2, nil)
	wrong := time.Date(2027, 12, 29, 23, 0, 0, 0, time.UTC)
	leaf, err := record.Format(&record.Emission{Time: a.Now.Add(time.Minute), Emission: "E2", Closure: "2026-11-30", StartDeadline: wrong})
	if err != nil {
		t.Fatal(err)
	}
	a.Append(leaf)
	v := run(t, a, a.Tiles(), nil).Verdict
	c := v.Find(verdict.CheckGames)
	if c.Status != verdict.StatusMisbehaviour || !strings.Contains(c.Detail, "emission E2: start_deadline 2027-12-29T23:00:00Z, closure 2026-11-30 gives 2026-12-29T23:00:00Z") {
		t.Fatalf("emission with a deadline a year late:\n%s", v.Text("en"))
	}
}

// wantMisbehaviour audits a: check must be misbehaviour, its detail
// mentioning want.
func wantMisbehaviour(t *testing.T, a *receipttest.Appliance, check, want string) {
	t.Helper()
	v := run(t, a, a.Tiles(), nil).Verdict
	if c := v.Find(check); c == nil || c.Status != verdict.StatusMisbehaviour || !strings.Contains(c.Detail, want) {
		t.Fatalf("want %s misbehaviour %q:\n%s", check, want, v.Text("en"))
	}
}

// TestAuditGameIDReused: a game id is started once, even after its game
// ended; the second game is still audited as a game of its own.
func TestAuditGameIDReused(t *testing.T) {
	t.Run("ended", func(t *testing.T) {
		a := logWith(t, 2, nil)
		g1, err := a.PlayGame(receipttest.Play{Game: "reused", StopAt: 1})
		if err != nil {
			t.Fatal(err)
		}
		g2, err := a.PlayGame(receipttest.Play{Game: "reused", StopAt: 2})
		if err != nil {
			t.Fatal(err)
		}
		wantMisbehaviour(t, a, verdict.CheckGames,
			fmt.Sprintf("game reused started again at entry %d (first started at entry %d)", g2.Indices[0], g1.Indices[0]))
		if res := run(t, a, a.Tiles(), nil); res.Games != 4 {
			t.Errorf("%d games audited, want 4 (the reused id's second game too)", res.Games)
		}
	})
	t.Run("in play", func(t *testing.T) {
		a := logWith(t, 2, nil)
		g1, err := a.PlayGame(receipttest.Play{Game: "reused", Unfinished: 1})
		if err != nil {
			t.Fatal(err)
		}
		g2, err := a.PlayGame(receipttest.Play{Game: "reused", StopAt: 1})
		if err != nil {
			t.Fatal(err)
		}
		wantMisbehaviour(t, a, verdict.CheckGames,
			fmt.Sprintf("game reused started again at entry %d (first started at entry %d)", g2.Indices[0], g1.Indices[0]))
	})
}

// TestAuditEmissionAgain: an emission registered again with another closure
// cannot move its start deadline; the same registration again is harmless.
func TestAuditEmissionAgain(t *testing.T) {
	later := func(a *receipttest.Appliance, closure string) uint64 {
		d, err := qod.StartDeadline(closure, a.Location)
		if err != nil {
			t.Fatal(err)
		}
		a.Now = a.Now.Add(time.Minute)
		return a.Append(must(t, mustFormat(t, &record.Emission{Time: a.Now, Emission: "E1", Closure: closure, StartDeadline: d})))
	}
	t.Run("same", func(t *testing.T) {
		a := logWith(t, 2, nil)
		later(a, "2026-11-30")
		if _, err := a.PlayGame(receipttest.Play{Game: "after", StopAt: 1}); err != nil {
			t.Fatal(err)
		}
		if v := run(t, a, a.Tiles(), nil).Verdict; v.Status() != verdict.StatusPass {
			t.Fatalf("the same registration again:\n%s", v.Text("en"))
		}
	})
	t.Run("later closure", func(t *testing.T) {
		a := logWith(t, 2, nil)
		i := later(a, "2026-12-31")
		// A game started after the first deadline (2026-12-29 23:00 UTC),
		// before the second one's.
		a.Now = time.Date(2027, 1, 10, 10, 0, 0, 0, time.UTC)
		if _, err := a.PlayGame(receipttest.Play{Game: "late", StopAt: 1}); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("emission E1 registered again at entry %d with closure 2026-12-31 and start deadline 2027-01-29T23:00:00Z (first registered at entry 1 with closure 2026-11-30 and start deadline 2026-12-29T23:00:00Z)", i)
		wantMisbehaviour(t, a, verdict.CheckGames, want)
		wantMisbehaviour(t, a, verdict.CheckGames, "game late: ")
	})
}

// TestAuditPromoAgain: a draw is frozen once and drawn once.
func TestAuditPromoAgain(t *testing.T) {
	a := logWith(t, 2, nil)
	n := uint64(a.Size())
	if err := a.PromoDraw("d1", 50, false); err != nil {
		t.Fatal(err)
	}
	// The appliance froze and drew d1 again: a re-roll.
	if err := a.PromoDraw("d1", 50, false); err != nil {
		t.Fatal(err)
	}
	v := run(t, a, a.Tiles(), nil).Verdict
	c := v.Find(verdict.CheckPromotions)
	for _, want := range []string{
		fmt.Sprintf("draw bonus/d1 frozen again at entry %d (first frozen at entry %d)", n+2, n),
		fmt.Sprintf("draw bonus/d1 drawn again at entry %d (first drawn at entry %d)", n+3, n+1),
	} {
		if c == nil || c.Status != verdict.StatusMisbehaviour || !strings.Contains(c.Detail, want) {
			t.Fatalf("re-roll, want %q:\n%s", want, v.Text("en"))
		}
	}

	// Frozen twice, then drawn on the second freeze.
	b := a.Fork(int64(n))
	b.Append(a.Leaf(n))
	b.Append(a.Leaf(n + 2))
	b.Append(a.Leaf(n + 3))
	wantMisbehaviour(t, b, verdict.CheckPromotions, fmt.Sprintf("draw bonus/d1 frozen again at entry %d (first frozen at entry %d)", n+1, n))

	// The same freeze and draw records again, byte for byte (an older
	// rngd/promo re-sent records whose append was not acknowledged): they
	// change nothing, and pass.
	b = a.Fork(int64(n + 1))
	b.Append(a.Leaf(n))
	b.Append(a.Leaf(n + 1))
	b.Append(a.Leaf(n + 1))
	if v := run(t, b, b.Tiles(), nil).Verdict; v.Status() != verdict.StatusPass {
		t.Fatalf("the same freeze and draw records twice:\n%s", v.Text("en"))
	}
}

func mustFormat(t testing.TB, r record.Record) []byte {
	t.Helper()
	b, err := record.Format(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A freeze of an older rngd announced a free-text beacon: its draw cannot be
// verified (whoever entered the value could choose it), a failure of the
// promotions check; but nothing contradicts anything: not misbehaviour.
func TestAuditFreeTextBeacon(t *testing.T) {
	a := logWith(t, 1, nil)
	if _, err := a.PromoDrawWith("d1", 20, receipttest.PromoCheat{FreeTextBeacon: "drand quicknet round 1234"}); err != nil {
		t.Fatal(err)
	}
	v := run(t, a, a.Tiles(), nil).Verdict
	c := v.Find(verdict.CheckPromotions)
	if c == nil || c.Status != verdict.StatusFail || !strings.Contains(c.Detail, "a free text, not a drand round") {
		t.Fatalf("free-text beacon:\n%s", v.Text("en"))
	}
}

// Games ended (refund, expiry) after the appliance lost their secret are
// counted in a fact: their draws cannot be checked, and nothing contradicts
// anything, so the log still passes.
func TestAuditSecretLost(t *testing.T) {
	a := logWith(t, 3, nil)
	for i := range 2 {
		g, err := a.PlayGame(receipttest.Play{Game: fmt.Sprintf("lost-%d", i), Unfinished: 1, Refund: true, SecretLost: true})
		if err != nil {
			t.Fatal(err)
		}
		if g.Final.Phase != qod.Refunded {
			t.Fatalf("game lost-%d not refunded but %s (the seeded first pick lost): pick other game ids", i, g.Final.Phase)
		}
	}
	res := run(t, a, a.Tiles(), nil)
	if v := res.Verdict; v.Status() != verdict.StatusPass || res.SecretLost != 2 || !strings.Contains(v.Text("en"), "2 games ended (refund or expiry) without revealing r") {
		t.Fatalf("secret lost in 2 games (counted %d):\n%s", res.SecretLost, v.Text("en"))
	}
}

// TestStatisticsCountSecretLostGames: the statistics count every game whose
// draws show no contradiction, including a game refunded (or expired) after
// the appliance lost its secret r. Such a game ended without a losing
// pick, so leaving it out (as a game whose verdict is not a pass) kept
// only good picks out of the cells: the losing frequencies were biased
// upwards, towards a false alarm. Its picks count as those of a game still
// open do (its proofs unchecked too): the cells are the same whether the
// refunded games lost r or not.
func TestStatisticsCountSecretLostGames(t *testing.T) {
	var stats [2]*audit.Stats
	for i, lost := range []bool{false, true} {
		a := logWith(t, 3, nil)
		for j := range 2 {
			g, err := a.PlayGame(receipttest.Play{Game: fmt.Sprintf("lost-%d", j), Unfinished: 1, Refund: true, SecretLost: lost})
			if err != nil {
				t.Fatal(err)
			}
			if g.Final.Phase != qod.Refunded {
				t.Fatalf("game lost-%d not refunded but %s: pick other game ids", j, g.Final.Phase)
			}
		}
		stats[i] = run(t, a, a.Tiles(), nil).Stats
	}
	counts := func(s *audit.Stats) (c [][2]int64) {
		for _, x := range s.Cells() {
			c = append(c, [2]int64{x.Trials, x.Events})
		}
		return c
	}
	if fmt.Sprint(counts(stats[0])) != fmt.Sprint(counts(stats[1])) {
		t.Errorf("cells differ when the refunded games lost r:\n%s\n%s", stats[0].Table("en"), stats[1].Table("en"))
	}
}

// stale serves a's tiles with the checkpoint note cp.
type stale struct {
	a  *receipttest.Appliance
	cp func() []byte
}

func (s stale) Fetch(ctx context.Context, path string) ([]byte, error) {
	if path == "checkpoint" {
		return s.cp(), nil
	}
	return files(s.a.Tiles()).Fetch(ctx, path)
}

// TestAuditFollowSmaller: while following, a checkpoint smaller than the
// one audited that the log's tree extends (a stale read: a cache, another
// front end) proves nothing against the log — the log failed to show its
// latest checkpoint, an ordinary failure as in the first pass; a smaller
// one the tree does not extend is a fork, misbehaviour. A smaller one of
// another log (another origin, its key trusted too) proves nothing against
// this one: a failure, as in the first pass (it was misbehaviour).
func TestAuditFollowSmaller(t *testing.T) {
	a := logWith(t, 3, nil)
	keys, _ := checkpoint.ParseKeys(string(a.LogKeyFile()))
	fork := a.Fork(a.Size() - 2)
	fork.Append([]byte("rewritten history"))
	// Another log, whose key the auditor also trusts.
	skey, vkey, err := note.GenerateKey(rand.Reader, "other.test/log")
	if err != nil {
		t.Fatal(err)
	}
	other, err := checkpoint.ParseKey(vkey)
	if err != nil {
		t.Fatal(err)
	}
	keys = append(keys, other)
	signer, err := note.NewSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	root := a.Root(a.Size() - 1)
	otherLog, err := note.Sign(&note.Note{Text: fmt.Sprintf("other.test/log\n%d\n%s\n", a.Size()-1, base64.StdEncoding.EncodeToString(root[:]))}, signer)
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		note []byte
		want verdict.Status
	}{
		"stale":       {a.CheckpointAt(a.Size() - 1), verdict.StatusFail},
		"forked":      {fork.Checkpoint(), verdict.StatusMisbehaviour},
		"another log": {otherLog, verdict.StatusFail},
	} {
		rounds := 0
		ctx, cancel := context.WithCancel(context.Background())
		res, err := audit.Run(ctx, audit.Config{Fetch: stale{a, func() []byte {
			if rounds == 0 {
				return a.Checkpoint()
			}
			return c.note
		}}, LogKeys: keys, Follow: time.Hour, Location: a.Location,
			Wait: func(ctx context.Context, _ time.Duration) error {
				rounds++
				if rounds > 1 {
					cancel()
					return ctx.Err()
				}
				return nil
			}})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		v := res.Verdict
		got := v.Find(verdict.CheckConsistent)
		if got == nil || v.Status() != got.Status {
			t.Fatalf("%s: the verdict is not log-consistency's:\n%s", name, v.Text("en"))
		}
		if got.Status != c.want {
			t.Errorf("%s: log-consistency %s, want %s:\n%s", name, got.Status, c.want, v.Text("en"))
		}
	}
}

// TestAuditKeyAnnouncedLate: a game's draws count only under keys announced
// before the game started, and a promotion draw's under keys announced
// before its freeze (as a transcript's and a certificate's verification
// require): a key announced mid-game could have been made for one pick (a
// fresh key per pick until it loses, announced before the end), which the
// audit passed when it took the keys announced by the end of the game.
func TestAuditKeyAnnouncedLate(t *testing.T) {
	other, err := receipttest.New(77) // another key, same emission E1
	if err != nil {
		t.Fatal(err)
	}
	g, err := other.PlayGame(receipttest.Play{Game: "g-late", StopAt: 2})
	if err != nil {
		t.Fatal(err)
	}
	p, err := other.PromoDrawWith("late", 30, receipttest.PromoCheat{})
	if err != nil {
		t.Fatal(err)
	}
	pub := other.VRF.Public().Bytes()
	announcement := must(t, mustFormat(t, &record.KeyAnnouncement{Time: other.Now, Keys: []record.Key{
		{ID: other.VRFID, Use: "vrf", Suite: string(other.VRF.Public().Suite()), PublicKey: pub, Fingerprint: record.Fingerprint(pub)}}}))
	for name, c := range map[string]struct {
		leaves  []uint64
		after   int // the announcement goes after this many leaves
		check   string
		wantMsg string
	}{
		"game":  {g.Indices, 1, verdict.CheckGames, other.VRFID},
		"promo": {[]uint64{p.Freeze, p.Draw}, 1, verdict.CheckPromotions, other.VRFID},
	} {
		for _, late := range []bool{false, true} {
			a := logWith(t, 1, nil)
			if !late {
				a.Append(announcement)
			}
			for i, idx := range c.leaves {
				if late && i == c.after {
					a.Append(announcement)
				}
				a.Append(must(t, other.Leaf(idx)))
			}
			keys, _ := checkpoint.ParseKeys(string(a.LogKeyFile()))
			res, err := audit.Run(context.Background(), audit.Config{Fetch: files(a.Tiles()), LogKeys: keys, Workers: 2, Location: a.Location,
				VRFPins: []string{a.VRFFingerprint(), other.VRFFingerprint()}})
			if err != nil {
				t.Fatal(err)
			}
			v := res.Verdict
			ch := v.Find(c.check)
			switch {
			case !late && v.Status() != verdict.StatusPass:
				t.Errorf("%s: key announced first: %s", name, v.Text("en"))
			case late && (ch == nil || ch.Status == verdict.StatusPass || !strings.Contains(ch.Detail, c.wantMsg)):
				t.Errorf("%s: key announced after the start or freeze passes:\n%s", name, v.Text("en"))
			}
		}
	}
}

// TestAuditSuitePins: a suite pin accepts its key under its suite only; a
// bare pin, under the suite the log announces (as receipt.VRFTrusted with
// a transcript's announcement). The audit once compared fingerprints only.
func TestAuditSuitePins(t *testing.T) {
	a := logWith(t, 3, nil) // an ECVRF-P256-SHA256-SSWU key
	keys, err := checkpoint.ParseKeys(string(a.LogKeyFile()))
	if err != nil {
		t.Fatal(err)
	}
	tai := "ECVRF-P256-SHA256-TAI:" + a.VRFFingerprint()
	for _, c := range []struct {
		name string
		pins []string
		want verdict.Status
		msg  string
	}{
		{"suite pin", []string{a.VRFPin()}, verdict.StatusPass, "all pinned"},
		{"bare pin", []string{a.VRFFingerprint()}, verdict.StatusPass, "all pinned"},
		{"bare pin upper case", []string{strings.ToUpper(a.VRFFingerprint())}, verdict.StatusPass, "all pinned"},
		{"both suites pinned", []string{tai, a.VRFPin()}, verdict.StatusPass, "all pinned"},
		{"no pin", nil, verdict.StatusPass, "not pinned"},
		{"other suite", []string{tai}, verdict.StatusFail, "pinned under ECVRF-P256-SHA256-TAI"},
		{"other suite beside a bare pin", []string{a.VRFFingerprint(), tai}, verdict.StatusFail, "pinned under ECVRF-P256-SHA256-TAI"},
	} {
		res, err := audit.Run(context.Background(), audit.Config{Fetch: files(a.Tiles()), LogKeys: keys, Workers: 2, Location: a.Location, VRFPins: c.pins})
		if err != nil {
			t.Fatal(err)
		}
		ch := res.Verdict.Find(verdict.CheckVRFKey)
		if ch == nil || ch.Status != c.want || !strings.Contains(ch.Detail, c.msg) {
			t.Errorf("%s: vrf-key want %s with %q:\n%s", c.name, c.want, c.msg, res.Verdict.Text("en"))
		}
		if c.want == verdict.StatusPass && res.Verdict.Status() != verdict.StatusPass {
			t.Errorf("%s: %s", c.name, res.Verdict.Text("en"))
		}
	}
}

// TestAuditKeyTwoSuites: the log announcing one P-256 key's bytes under
// both ECVRF suites (two ids) gives the appliance two outputs for each α.
// The log alone shows it: misbehaviour, whatever the pins; the first
// announcement counts.
func TestAuditKeyTwoSuites(t *testing.T) {
	keys := func(a *receipttest.Appliance) []*checkpoint.Key {
		k, err := checkpoint.ParseKeys(string(a.LogKeyFile()))
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	for _, pins := range [][]string{nil, {"bare"}, {"suite"}} {
		a := logWith(t, 2, nil)
		pub := a.VRF.Public().Bytes()
		a.Append(mustFormat(t, &record.KeyAnnouncement{Time: a.Now, Keys: []record.Key{
			{ID: a.VRFID + "-tai", Use: "vrf", Suite: "ECVRF-P256-SHA256-TAI", PublicKey: pub, Fingerprint: record.Fingerprint(pub)}}}))
		if _, err := a.PlayGame(receipttest.Play{Game: "g-after", StopAt: 1}); err != nil {
			t.Fatal(err)
		}
		var cfgPins []string
		switch {
		case len(pins) == 0:
		case pins[0] == "bare":
			cfgPins = []string{a.VRFFingerprint()}
		default:
			cfgPins = []string{a.VRFPin()}
		}
		res, err := audit.Run(context.Background(), audit.Config{Fetch: files(a.Tiles()), LogKeys: keys(a), Workers: 2, Location: a.Location, VRFPins: cfgPins})
		if err != nil {
			t.Fatal(err)
		}
		v := res.Verdict
		ch := v.Find(verdict.CheckVRFKey)
		if ch == nil || ch.Status != verdict.StatusMisbehaviour || v.Status() != verdict.StatusMisbehaviour ||
			!strings.Contains(ch.Detail, a.VRFID+"-tai") || !strings.Contains(ch.Detail, "two outputs") {
			t.Errorf("pins %v: the same key under two suites not caught:\n%s", pins, v.Text("en"))
		}
		if g := v.Find(verdict.CheckGames); g == nil || g.Status != verdict.StatusPass {
			t.Errorf("pins %v: the games under the first announcement:\n%s", pins, v.Text("en"))
		}
		if fr := v.Text("fr"); !strings.Contains(fr, "deux sorties") {
			t.Errorf("pins %v: French text:\n%s", pins, fr)
		}
	}
}
