package audit_test

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/attestations"
	"tirage.fr/tirage/attestations/attestationstest"
	"tirage.fr/tirage/verifier/audit"
	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/qod"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/vrf"
)

// Tests against an appliance that leaves out records it owes the log (a
// game's end, a manifest), times records against log order, or plays a
// ticket under two emissions. The tolerances are written out (not
// audit.EndDelay…) so that the tests also build against the audit before
// these checks.
const (
	endDelay       = time.Hour           // audit.EndDelay
	maxRefundGrace = 31 * 24 * time.Hour // qod.RefundGrace of these games, started in 2026
	maxActiveGap   = 10 * time.Minute    // audit.MaxActiveGap
)

// busy logs d of activity from a.Now on: a record rngd times (a manifest
// of emission E1) every 4 minutes, less than maxActiveGap apart, so that
// all of it is active log time.
func busy(t *testing.T, a *receipttest.Appliance, d time.Duration) {
	t.Helper()
	for end := a.Now.Add(d); a.Now.Before(end); {
		a.Now = a.Now.Add(4 * time.Minute)
		a.Append(mustFormat(t, &record.Manifest{Time: a.Now, Emission: "E1", Root: sha256.Sum256([]byte("busy " + stamp(a.Now))), Count: 1}))
	}
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// handGame is a game logged by hand, record by record, under a's VRF key.
type handGame struct {
	a      *receipttest.Appliance
	id, em string
	ticket [32]byte
	secret [32]byte
	g      qod.Game
	prev   []byte
}

func prove(t *testing.T, a *receipttest.Appliance, alpha []byte) (proof, beta []byte) {
	t.Helper()
	p, err := a.VRF.Prove(alpha)
	if err != nil {
		t.Fatal(err)
	}
	b, err := vrf.ProofToHash(a.VRF.Public().Suite(), p)
	if err != nil {
		t.Fatal(err)
	}
	return p, b
}

// startHand logs the start of game id of emission em, ticket, at at.
func startHand(t *testing.T, a *receipttest.Appliance, id, em string, ticket [32]byte, at time.Time) *handGame {
	t.Helper()
	m := &handGame{a: a, id: id, em: em, ticket: ticket, secret: sha256.Sum256([]byte("secret of " + id))}
	start := &record.GameStart{Time: at, Game: id, Emission: em, Ticket: ticket, Stake: 1000,
		Commit: record.Commit(m.secret), Expires: qod.PlayDeadline(at, a.Location), Key: a.VRFID}
	start.Proof, start.Beta = prove(t, a, start.Alpha(m.secret))
	g, err := qod.NewGame(qod.Start{Game: id, Emission: em, Ticket: ticket, Stake: 1000, Beta: start.Beta, Now: at, Location: a.Location})
	if err != nil {
		t.Fatal(err)
	}
	start.Multipliers, start.Amounts = g.Multipliers, g.Amounts
	m.g, m.prev = g, mustFormat(t, start)
	a.Append(m.prev)
	return m
}

// pick logs the pick of number at at, with beta (and a proof of another
// α) when forged is not nil.
func (m *handGame) pick(t *testing.T, number int, at time.Time, forged []byte) {
	t.Helper()
	p, b := prove(t, m.a, record.PickAlpha(m.id, m.em, m.ticket, m.secret, m.g.Picks, number))
	if forged != nil {
		p, _ = prove(t, m.a, []byte("another α"))
		b = forged
	}
	next, losing, err := m.g.Pick(number, b, at)
	if err != nil {
		t.Fatal(err)
	}
	out := record.OutcomeGood
	if losing {
		out = record.OutcomeLosing
	}
	m.prev = mustFormat(t, &record.Pick{Time: at, Game: m.id, Index: m.g.Picks, Number: number, Outcome: out,
		Key: m.a.VRFID, Proof: p, Beta: b, Prev: record.LeafHash(m.prev)})
	m.a.Append(m.prev)
	m.g = next
}

// end logs the game's end at at: once over, its end; else its refund
// before its deadline, its expiry after.
func (m *handGame) end(t *testing.T, at time.Time) {
	t.Helper()
	var err error
	switch {
	case m.g.Phase.Over():
	case at.Before(m.g.Expires):
		m.g, err = m.g.Refund(at)
	default:
		m.g, err = m.g.Expire(at)
	}
	if err != nil {
		t.Fatal(err)
	}
	m.a.Append(mustFormat(t, &record.GameEnd{Time: at, Game: m.id, Result: m.g.Result(), Tier: m.g.Tier, Win: m.g.Win,
		Refund: m.g.RefundAmount, Secret: m.secret, Prev: record.LeafHash(m.prev)}))
}

// losingBeta is a β that makes pick 1 of number 1 losing.
func losingBeta(t *testing.T) []byte {
	for i := range 1000 {
		b := sha256.Sum256([]byte{byte(i), byte(i >> 8)})
		if l, _ := receipt.PickLosing(0, 1, b[:]); l {
			return b[:]
		}
	}
	t.Fatal("no losing β in 1000")
	return nil
}

// manifest logs emission em (closure) and its manifest of n tickets at a.Now.
func emission(t *testing.T, a *receipttest.Appliance, em, closure string, n uint64) {
	t.Helper()
	d, err := qod.StartDeadline(closure, a.Location)
	if err != nil {
		t.Fatal(err)
	}
	a.Append(mustFormat(t, &record.Emission{Time: a.Now, Emission: em, Closure: closure, StartDeadline: d}))
	if n > 0 {
		a.Append(mustFormat(t, &record.Manifest{Time: a.Now, Emission: em, Root: sha256.Sum256([]byte(em)), Count: n}))
	}
}

// play plays n honest games from a.Now on.
func play(t *testing.T, a *receipttest.Appliance, prefix string, n int) {
	t.Helper()
	for i := range n {
		if _, err := a.PlayGame(receipttest.Play{Game: fmt.Sprintf("%s-%d", prefix, i), StopAt: 1}); err != nil {
			t.Fatal(err)
		}
	}
}

// want audits a: check must have status, its detail mentioning every
// string of details.
func want(t *testing.T, a *receipttest.Appliance, check string, status verdict.Status, details ...string) {
	t.Helper()
	v := run(t, a, a.Tiles(), nil).Verdict
	c := v.Find(check)
	ok := c != nil && c.Status == status
	for _, d := range details {
		ok = ok && strings.Contains(c.Detail, d)
	}
	if !ok {
		t.Fatalf("want %s %s %q:\n%s", check, status, details, v.Text("en"))
	}
	t.Logf("%s: %s", check, c.Detail)
	if status == verdict.StatusPass && v.Status() != verdict.StatusPass {
		t.Fatalf("want the audit to pass:\n%s", v.Text("en"))
	}
}

// TestAuditEndMissing: a game over (lost, or won) whose end never comes
// never reveals r, so its draws are never verified: a losing pick with a
// forged β passes for ever unless the missing end fails the audit once
// the log has gone on without it for audit.EndDelay of activity.
func TestAuditEndMissing(t *testing.T) {
	a := logWith(t, 2, nil)
	m := startHand(t, a, "g-forged", "E1", [32]byte{9}, a.Now.Add(time.Minute))
	m.pick(t, 1, a.Now.Add(2*time.Minute), losingBeta(t))
	a.Now = a.Now.Add(2 * time.Minute)
	if m.g.Phase != qod.Lost {
		t.Fatalf("forged pick: %s", m.g.Phase)
	}
	// At the log's tail, and with the log gone on for less than EndDelay
	// (an append that failed, sealed by the retry or the sweeper): not
	// yet a failure.
	want(t, a, verdict.CheckGames, verdict.StatusPass, "1 unfinished")
	play(t, a, "soon", 1)
	a.Now = a.Now.Add(endDelay - 10*time.Minute)
	play(t, a, "within", 1)
	want(t, a, verdict.CheckGames, verdict.StatusPass, "1 unfinished")

	// Hours of silence (rngd down, or no one playing) count as one
	// audit.MaxActiveGap: not yet a failure.
	a.Now = a.Now.Add(2 * endDelay)
	play(t, a, "later", 2)
	want(t, a, verdict.CheckGames, verdict.StatusPass, "1 unfinished")
	// Business goes on for an hour: the end is missing.
	busy(t, a, endDelay)
	want(t, a, verdict.CheckGames, verdict.StatusFail, "game g-forged is lost since entry",
		"its end, the record revealing r, was not logged within 1 hour of log activity after it", "(a silence counts at most 10 minutes)",
		"stay unverified until it is")

	// The end, at last, reveals r: the forged β is proven false.
	m.end(t, a.Now)
	want(t, a, verdict.CheckGames, verdict.StatusMisbehaviour, "g-forged")

	// A game won (stopped at tier 1) whose end is left out: the same.
	var c *receipttest.Appliance
	for i := 0; c == nil; i++ {
		b := logWith(t, 2, nil)
		g, err := b.PlayGame(receipttest.Play{Game: fmt.Sprintf("g-won-%d", i), StopAt: 1})
		if err != nil {
			t.Fatal(err)
		}
		if g.Final.Phase == qod.Won {
			c = b.Fork(b.Size() - 1) // without its end
		} else if i == 20 {
			t.Fatal("no game won in 20")
		}
	}
	play(t, c, "soon", 1)
	busy(t, c, endDelay)
	play(t, c, "later", 1)
	want(t, c, verdict.CheckGames, verdict.StatusFail, "game g-won-", " is won since entry", "was not logged within 1 hour of log activity")
}

// TestAuditEndMissingOutage: rngd appends a game's end right after the
// pick that lost it; when it stops between the two, with another call's
// record in between, the sweeper seals the end once rngd runs again. The
// hours it was down count as one audit.MaxActiveGap, not as hours of the
// log going on without the end.
func TestAuditEndMissingOutage(t *testing.T) {
	var a *receipttest.Appliance
	var end []byte
	for i := 0; a == nil; i++ {
		b := logWith(t, 2, nil)
		g, err := b.PlayGame(receipttest.Play{Game: fmt.Sprintf("g-over-%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		if g.Final.Phase == qod.Lost {
			a, end = b.Fork(b.Size()-1), b.Leaf(uint64(b.Size()-1)) // without its end
		} else if i == 20 {
			t.Fatal("no game lost in 20")
		}
	}
	// Another call's record, then rngd is down for 3 hours, then one
	// game and activity, less than audit.EndDelay with the outage's gap.
	startHand(t, a, "g-other", "E1", [32]byte{8}, a.Now.Add(time.Minute))
	a.Now = a.Now.Add(3 * time.Hour)
	play(t, a, "after", 1)
	busy(t, a, endDelay-maxActiveGap-20*time.Minute)
	want(t, a, verdict.CheckGames, verdict.StatusPass, "2 unfinished")

	// The sweeper's end, logged now (timed now): the game is sealed.
	sealed := a.Fork(a.Size())
	sealEnd(t, sealed, end)
	want(t, sealed, verdict.CheckGames, verdict.StatusPass, "1 unfinished")

	// Still no end after more than audit.EndDelay of activity: a failure
	// that says the end may still come.
	busy(t, a, 30*time.Minute)
	want(t, a, verdict.CheckGames, verdict.StatusFail, "game g-over-", " is lost since entry",
		"was not logged within 1 hour of log activity after it", "stay unverified until it is")
	sealEnd(t, a, end)
	want(t, a, verdict.CheckGames, verdict.StatusPass, "1 unfinished")
}

// sealEnd logs the end leaf end timed at a.Now, as the sweeper seals it.
func sealEnd(t *testing.T, a *receipttest.Appliance, end []byte) {
	t.Helper()
	r, err := record.Parse(end)
	if err != nil {
		t.Fatal(err)
	}
	e := r.(*record.GameEnd)
	a.Now = a.Now.Add(time.Minute)
	e.Time = a.Now
	a.Append(mustFormat(t, e))
}

// TestAuditNeverSealed: an unfinished game is expired by the sweeper once
// its play deadline and the refund grace (at most 30 days) have passed; a
// log that goes on past them without its end never sealed it.
func TestAuditNeverSealed(t *testing.T) {
	a := logWith(t, 2, nil)
	g, err := a.PlayGame(receipttest.Play{Game: "g-open", Unfinished: 1, Numbers: []int{2}})
	if err != nil {
		t.Fatal(err)
	}
	if g.Final.Phase.Over() {
		t.Fatalf("g-open is %s after one pick: pick another game id or number", g.Final.Phase)
	}
	// Within the longest grace: an operator may still refund it.
	a.Now = g.Final.Expires.Add(maxRefundGrace - time.Hour)
	emission(t, a, "E2", "2027-01-31", 10)
	want(t, a, verdict.CheckGames, verdict.StatusPass, "1 unfinished")
	// Past it, after a silence: the sweeper is not late yet.
	a.Now = g.Final.Expires.Add(maxRefundGrace + 2*endDelay)
	emission(t, a, "E3", "2027-02-28", 10)
	want(t, a, verdict.CheckGames, verdict.StatusPass, "1 unfinished")
	// More than an hour of activity after it: never sealed.
	busy(t, a, endDelay+10*time.Minute)
	want(t, a, verdict.CheckGames, verdict.StatusFail, "game g-open (entry", "due once the longest refund grace (31 days) had passed",
		"was not logged within 1 hour of log activity after that", "was never sealed")
}

// TestAuditNeverSealedOutage: rngd down across a game's deadline plus
// the refund grace plus audit.EndDelay, then restarted, expires it at its
// first sweep: the hours it was down are not log activity.
func TestAuditNeverSealedOutage(t *testing.T) {
	a := logWith(t, 2, nil)
	m := startHand(t, a, "g-open", "E1", [32]byte{6}, a.Now.Add(time.Minute))
	m.pick(t, 1, a.Now.Add(2*time.Minute), nil)
	if m.g.Phase.Over() {
		t.Fatalf("g-open is %s after one pick: pick another ticket", m.g.Phase)
	}
	due := m.g.Expires.Add(maxRefundGrace)
	a.Now = due.Add(-2 * time.Hour)
	busy(t, a, time.Hour)
	// Down from an hour before the sweeper owes the expiry to 3 hours
	// after; activity after, less than audit.EndDelay.
	a.Now = due.Add(3 * time.Hour)
	busy(t, a, endDelay-20*time.Minute)
	want(t, a, verdict.CheckGames, verdict.StatusPass, "1 unfinished")
	// The sweeper's expiry seals it.
	sealed := *m
	sealed.a = a.Fork(a.Size())
	sealed.end(t, sealed.a.Now.Add(time.Minute))
	want(t, sealed.a, verdict.CheckGames, verdict.StatusPass, "0 unfinished")
	// More activity without it: never sealed.
	busy(t, a, 30*time.Minute)
	want(t, a, verdict.CheckGames, verdict.StatusFail, "game g-open (entry", "was not logged within 1 hour of log activity after that", "was never sealed")
}

// TestAuditTimeOrder: records rngd times as it appends them follow log
// order (to within audit.MaxTimeSkew).
func TestAuditTimeOrder(t *testing.T) {
	t.Run("honest", func(t *testing.T) {
		// A game's end is timed with its last pick's clock reading and
		// logged after other calls' records, timed a little later.
		a := logWith(t, 2, nil)
		m := startHand(t, a, "g-slow", "E1", [32]byte{4}, a.Now.Add(time.Minute))
		m.pick(t, 1, a.Now.Add(2*time.Minute), nil)
		at := a.Now.Add(2 * time.Minute)
		a.Now = at.Add(5 * time.Minute)
		emission(t, a, "E2", "2027-01-31", 10) // another call's records
		m.end(t, at)
		// Records made ahead and logged later (an announcement made by
		// rngctl keys init, a freeze sent again) are not compared.
		// (The attestation's key is announced: the audit checks it.)
		att, err := attestationstest.New(3, false)
		if err != nil {
			t.Fatal(err)
		}
		st, err := attestations.NewPaytableStatement()
		if err != nil {
			t.Fatal(err)
		}
		env, err := att.Sign(st)
		if err != nil {
			t.Fatal(err)
		}
		a.Append(att.Announcement)
		a.Append(mustFormat(t, attestations.NewRecord(at.Add(-48*time.Hour), att.KeyID, env, st)))
		a.Now = a.Now.Add(time.Minute)
		play(t, a, "after", 1)
		want(t, a, verdict.CheckRecord, verdict.StatusPass)
	})
	t.Run("premature expiry", func(t *testing.T) {
		// A game expired on its first day, its end dated at its deadline;
		// the records logged after it are timed that first day.
		a := logWith(t, 2, nil)
		m := startHand(t, a, "g-victim", "E1", [32]byte{1}, a.Now.Add(time.Minute))
		m.pick(t, 1, a.Now.Add(2*time.Minute), nil)
		a.Now = a.Now.Add(2 * time.Minute)
		if m.g.Phase.Over() {
			t.Fatal("g-victim's pick lost: pick another ticket")
		}
		m.end(t, m.g.Expires)
		tail := a.Fork(a.Size())
		play(t, a, "after", 3)
		want(t, a, verdict.CheckRecord, verdict.StatusFail, "timed against log order", "(pick) is timed", "(game_end, timed "+m.g.Expires.UTC().Format(time.RFC3339))
		// The same expiry as the last record of the log: no record after
		// it contradicts it, the audit's clock does.
		want(t, tail, verdict.CheckRecord, verdict.StatusFail, "timed against log order or ahead", "(game_end) is timed "+stamp(m.g.Expires),
			"more than 10m0s after this audit read the checkpoint that holds it ("+stamp(tail.Now)+")")
		// Audited once its date has come, it is not ahead of the clock (a
		// later audit of a log that took no more records).
		tail.Now = m.g.Expires.Add(time.Hour)
		want(t, tail, verdict.CheckRecord, verdict.StatusPass)
	})
	t.Run("ahead within the tolerance", func(t *testing.T) {
		// The clocks of rngd and of the auditor differ by 9 minutes.
		a := logWith(t, 2, nil)
		clock := a.Now
		a.Now = clock.Add(9 * time.Minute)
		emission(t, a, "E2", "2027-01-31", 10)
		a.Now = clock
		want(t, a, verdict.CheckRecord, verdict.StatusPass)
	})
	t.Run("backdated start", func(t *testing.T) {
		// A start logged after records timed two days past its
		// emission's start deadline, dated before it.
		a := logWith(t, 2, nil)
		deadline, err := qod.StartDeadline("2026-11-30", a.Location)
		if err != nil {
			t.Fatal(err)
		}
		a.Now = deadline.Add(48 * time.Hour)
		emission(t, a, "E2", "2027-01-31", 10)
		o := startHand(t, a, "g-e2", "E2", [32]byte{2}, a.Now.Add(time.Minute))
		o.pick(t, 1, a.Now.Add(2*time.Minute), nil)
		late := startHand(t, a, "g-late", "E1", [32]byte{3}, deadline.Add(-time.Hour))
		late.pick(t, 1, deadline.Add(-time.Hour+time.Minute), nil)
		want(t, a, verdict.CheckRecord, verdict.StatusFail, "timed against log order", "(game_start) is timed "+deadline.Add(-time.Hour).UTC().Format(time.RFC3339))
	})
}

// TestAuditClock: without Config.Now the audit's clock is the time of day:
// a record dated an hour after it fails, one dated now passes.
func TestAuditClock(t *testing.T) {
	keyed := func(a *receipttest.Appliance) audit.Config {
		keys, err := checkpoint.ParseKeys(string(a.LogKeyFile()))
		if err != nil {
			t.Fatal(err)
		}
		return audit.Config{Fetch: files(a.Tiles()), LogKeys: keys, Workers: 1, Location: a.Location, VRFPins: []string{a.VRFFingerprint()}}
	}
	for name, tc := range map[string]struct {
		ahead time.Duration
		want  verdict.Status
	}{"now": {0, verdict.StatusPass}, "an hour ahead": {time.Hour, verdict.StatusFail}} {
		a := logWith(t, 2, nil)
		a.Now = time.Now().Truncate(time.Second).Add(tc.ahead)
		emission(t, a, "E2", "2099-12-31", 10)
		res, err := audit.Run(t.Context(), keyed(a))
		if err != nil {
			t.Fatal(err)
		}
		if c := res.Verdict.Find(verdict.CheckRecord); c == nil || c.Status != tc.want || (tc.want == verdict.StatusFail && !strings.Contains(c.Detail, "dated ahead")) {
			t.Errorf("%s: want record %s:\n%s", name, tc.want, res.Verdict.Text("en"))
		}
	}
}

// TestAuditTicketTwoEmissions: a ticket is the hash of its code alone, and
// a code belongs to one emission: the same hash started under two emission
// ids is the code played twice.
func TestAuditTicketTwoEmissions(t *testing.T) {
	a := logWith(t, 2, nil)
	emission(t, a, "E1-bis", "2026-11-30", 10)
	ticket := [32]byte{7, 7, 7}
	m := startHand(t, a, "g-one", "E1", ticket, a.Now.Add(time.Minute))
	m.pick(t, 1, a.Now.Add(2*time.Minute), nil)
	m.end(t, m.g.Expires.Add(time.Hour))
	a.Now = m.g.Expires.Add(time.Hour)
	m2 := startHand(t, a, "g-two", "E1-bis", ticket, a.Now.Add(time.Minute))
	m2.pick(t, 1, a.Now.Add(2*time.Minute), nil)
	want(t, a, verdict.CheckGames, verdict.StatusMisbehaviour, `game g-two`, `its ticket already played game g-one under emission "E1"`)
}

// TestAuditManifest: rngd starts only codes of a manifest it imported, and
// logs the manifest first: an emission's starts cannot outnumber the
// tickets of its manifests logged before them.
func TestAuditManifest(t *testing.T) {
	a := logWith(t, 2, nil)
	emission(t, a, "E2", "2027-01-31", 0) // no manifest
	startHand(t, a, "g-nomanifest", "E2", [32]byte{5}, a.Now.Add(time.Minute))
	want(t, a, verdict.CheckGames, verdict.StatusMisbehaviour, `game g-nomanifest (entry`, `start 1 of emission "E2", whose manifests logged before it hold 0 tickets`)

	b := logWith(t, 2, nil)
	emission(t, b, "E2", "2027-01-31", 1)
	startHand(t, b, "g-a", "E2", [32]byte{5}, b.Now.Add(time.Minute))
	want(t, b, verdict.CheckGames, verdict.StatusPass)
	startHand(t, b, "g-b", "E2", [32]byte{6}, b.Now.Add(2*time.Minute))
	want(t, b, verdict.CheckGames, verdict.StatusMisbehaviour, `start 2 of emission "E2", whose manifests logged before it hold 1 tickets`)
}
