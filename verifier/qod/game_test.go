package qod

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/big"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/draw"
)

var (
	t0    = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	paris = mustLoad("Europe/Paris")
)

func mustLoad(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

func beta(s string) []byte { b := sha256.Sum256([]byte(s)); return b[:] }

func newTestGame(t *testing.T, stake int64) Game {
	t.Helper()
	var b []byte
	if stake != MaxStake {
		b = beta("start")
	}
	g, err := NewGame(Start{Game: "g", Emission: "E", Stake: stake, Beta: b, Now: t0, StartDeadline: t0.Add(time.Hour), Location: paris})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// goodBeta finds a VRF output for which the pick is good (or losing).
func pickBeta(t *testing.T, g Game, losing bool) []byte {
	t.Helper()
	for i := 0; ; i++ {
		b := beta(fmt.Sprint("pick", g.Picks, i))
		l, err := pickLosing(draw.NewStream(b, labelPick), g.Hidden())
		if err != nil {
			t.Fatal(err)
		}
		if l == losing {
			return b
		}
	}
}

// play picks the next free numbers with good outcomes until the game
// reaches a tier (or ends).
func playToTier(t *testing.T, g Game, now time.Time) Game {
	t.Helper()
	for g.Phase == Playing {
		n := 1
		for g.IsPicked(n) {
			n++
		}
		var err error
		var losing bool
		g, losing, err = g.Pick(n, pickBeta(t, g, false), now)
		if err != nil || losing {
			t.Fatalf("pick %d: %v %v", n, losing, err)
		}
	}
	return g
}

func TestGameToTier4(t *testing.T) {
	g := newTestGame(t, 2000)
	if g.Phase != Playing || g.Hidden() != 30 || g.Amount() != 2000 || !g.Expires.Equal(time.Date(2026, 12, 30, 9, 0, 0, 0, time.UTC)) {
		t.Fatalf("fresh game: %+v", g)
	}
	for tier := 1; tier <= 3; tier++ {
		g = playToTier(t, g, t0)
		if g.Phase != AtTier || g.Tier != tier || g.Good() != GoodAt[tier-1] || g.Amount() != g.Amounts[tier-1] {
			t.Fatalf("tier %d: %v tier %d good %d", tier, g.Phase, g.Tier, g.Good())
		}
		var err error
		if g, err = g.Continue(t0); err != nil {
			t.Fatal(err)
		}
	}
	g = playToTier(t, g, t0)
	if g.Phase != Won || g.Tier != 4 || g.Win != g.Amounts[3] || g.Good() != 18 || g.Result() != "won" {
		t.Fatalf("tier 4 must end the game with A_4: %+v", g)
	}
	if got := len(g.PickedNumbers()); got != 18 {
		t.Errorf("%d numbers picked", got)
	}
	if _, _, err := g.Pick(30, beta("x"), t0); !errors.Is(err, ErrGameOver) {
		t.Errorf("pick after the end: %v", err)
	}
}

func TestStopAndLoss(t *testing.T) {
	g := playToTier(t, newTestGame(t, 1000), t0)
	won, err := g.Stop(t0.Add(time.Minute))
	if err != nil || won.Phase != Won || won.Win != g.Amounts[0] || won.Result() != "won" {
		t.Fatalf("stop at tier 1: %+v %v", won, err)
	}
	if g.Phase != AtTier {
		t.Fatal("Stop changed its receiver")
	}
	// A losing pick loses everything, S included.
	g, _ = g.Continue(t0)
	lost, losing, err := g.Pick(29, pickBeta(t, g, true), t0)
	if err != nil || !losing || lost.Phase != Lost || lost.Win != 0 || lost.Good() != 6 || lost.Result() != "lost" {
		t.Fatalf("losing pick: %+v %v %v", lost, losing, err)
	}
	for name, ev := range map[string]func(Game) error{
		"pick":     func(g Game) error { _, _, err := g.Pick(30, beta("x"), t0); return err },
		"continue": func(g Game) error { _, err := g.Continue(t0); return err },
		"stop":     func(g Game) error { _, err := g.Stop(t0); return err },
		"expire":   func(g Game) error { _, err := g.Expire(t0.AddDate(1, 0, 0)); return err },
		"refund":   func(g Game) error { _, err := g.Refund(t0); return err },
	} {
		for _, over := range []Game{lost, won} {
			if err := ev(over); !errors.Is(err, ErrGameOver) {
				t.Errorf("%s after %s: %v", name, over.Phase, err)
			}
		}
	}
}

func TestRefusals(t *testing.T) {
	g := newTestGame(t, 2000)
	g1, _, err := g.Pick(7, pickBeta(t, g, false), t0)
	if err != nil {
		t.Fatal(err)
	}
	at := playToTier(t, g1, t0)
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"number 0", g.CheckPick(0, t0), ErrNumberRange},
		{"number 31", g.CheckPick(31, t0), ErrNumberRange},
		{"number -1", g.CheckPick(-1, t0), ErrNumberRange},
		{"number picked twice", g1.CheckPick(7, t0), ErrNumberPicked},
		{"pick at a tier", at.CheckPick(30, t0), ErrAtTier},
		{"continue while playing", func() error { _, err := g1.Continue(t0); return err }(), ErrNotAtTier},
		{"stop while playing", func() error { _, err := g1.Stop(t0); return err }(), ErrNotAtTier},
		{"pick at the deadline", g1.CheckPick(8, g.Expires), ErrExpired},
		{"stop after the deadline", func() error { _, err := at.Stop(g.Expires.Add(time.Second)); return err }(), ErrExpired},
		{"expire too early", func() error { _, err := g1.Expire(g.Expires.Add(-time.Second)); return err }(), ErrNotExpired},
		{"clock backwards", g1.CheckPick(8, t0.Add(-time.Second)), ErrTimeOrder},
		{"pick without β", func() error { _, _, err := g1.Pick(8, nil, t0); return err }(), ErrBeta},
	}
	for _, c := range cases {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, c.err, c.want)
		}
	}
	// A refused pick changes nothing (Game is a value).
	before := g1
	if _, _, err := g1.Pick(7, beta("x"), t0); err == nil || g1 != before {
		t.Error("a refused pick changed the game")
	}
	if got := fmt.Sprint(ErrNumberPicked); got != "number already picked" {
		t.Errorf("message %q", got)
	}
}

func TestStartRules(t *testing.T) {
	ok := Start{Game: "g", Emission: "E", Stake: 2000, Beta: beta("s"), Now: t0, StartDeadline: t0.Add(time.Second)}
	for _, c := range []struct {
		name string
		mut  func(*Start)
		want error
	}{
		{"at the deadline", func(s *Start) { s.Now = s.StartDeadline }, ErrStartClosed},
		{"zero stake", func(s *Start) { s.Stake = 0 }, ErrStake},
		{"negative stake", func(s *Start) { s.Stake = -500 }, ErrStake},
		{"above 50,000 €", func(s *Start) { s.Stake = MaxStake + 1 }, ErrStake},
		{"not a gain of the prize table", func(s *Start) { s.Stake = 2500 }, ErrStake},
		{"1 cent", func(s *Start) { s.Stake = 1 }, ErrStake},
		{"no β", func(s *Start) { s.Beta = nil }, ErrBeta},
		{"β at 50,000 €", func(s *Start) { s.Stake = MaxStake }, ErrBeta},
	} {
		s := ok
		c.mut(&s)
		if _, err := NewGame(s); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	s := ok
	s.Stake, s.Beta = MaxStake, nil
	g, err := NewGame(s)
	if err != nil || g.Multipliers != [4]int{2, 2, 2, 2} || g.Amounts[3] != 80_000_000 {
		t.Errorf("50,000 €: %+v, %v", g, err)
	}
}

// TestTimeRules pins down the reading of "vingt-neuf jours suivant la date
// de clôture" and "trente jours à compter du moment".
func TestTimeRules(t *testing.T) {
	for _, c := range []struct {
		closure string
		want    time.Time // first refused instant
	}{
		// Closure 31 Dec 2026: the 29 days are 1..29 Jan 2027; starts
		// refused from 30 Jan 00:00 Paris (CET, UTC+1) = 29 Jan 23:00 UTC.
		{"2026-12-31", time.Date(2027, 1, 29, 23, 0, 0, 0, time.UTC)},
		// Closure 1 Mar 2026: last day 30 Mar; 31 Mar 00:00 CEST (UTC+2).
		{"2026-03-01", time.Date(2026, 3, 30, 22, 0, 0, 0, time.UTC)},
		// Leap year: closure 31 Jan 2028 → last day 29 Feb 2028.
		{"2028-01-31", time.Date(2028, 2, 29, 23, 0, 0, 0, time.UTC)},
	} {
		got, err := StartDeadline(c.closure, paris)
		if err != nil || !got.Equal(c.want) {
			t.Errorf("StartDeadline(%s) = %s, %v; want %s", c.closure, got, err, c.want)
		}
	}
	if _, err := StartDeadline("31/12/2026", paris); err == nil {
		t.Error("a malformed closure date was accepted")
	}
	// 30 days at the same Paris wall-clock time, across the change to winter time.
	start := time.Date(2026, 10, 10, 8, 30, 0, 0, time.UTC)                                                       // 10:30 CEST
	if got, want := PlayDeadline(start, paris), time.Date(2026, 11, 9, 9, 30, 0, 0, time.UTC); !got.Equal(want) { // 10:30 CET
		t.Errorf("PlayDeadline = %s, want %s", got, want)
	}
	// Across the change to summer time the calendar reading (10:00 CEST on
	// 14 April, 719 hours) is shorter than 30 × 24 hours: 11:00 CEST.
	spring := time.Date(2026, 3, 15, 9, 0, 0, 0, time.UTC) // 10:00 CET
	if got, want := PlayDeadline(spring, paris), time.Date(2026, 4, 14, 9, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("PlayDeadline across the change to summer time = %s, want %s (720 hours)", got, want)
	}
	if got := PlayDeadline(start, nil); !got.Equal(start.Add(30 * 24 * time.Hour)) {
		t.Errorf("PlayDeadline in UTC = %s", got)
	}
	// Expire at the exact deadline; refund an unfinished game at any time.
	g := newTestGame(t, 2000)
	expired, err := g.Expire(g.Expires)
	if err != nil || expired.Phase != Expired || expired.Result() != "expired" || expired.Win != 0 || expired.RefundAmount != 0 {
		t.Errorf("Expire at the deadline: %+v %v", expired, err)
	}
	// Within the window, and past it (art. 2.2.11: the operator learns
	// only after the deadline that an outage ate the end of the window):
	// the ticket's price, no gain.
	g1, _, err := g.Pick(7, pickBeta(t, g, false), t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []time.Time{t0.Add(time.Hour), g.Expires.Add(-time.Second), g.Expires, g.Expires.Add(72 * time.Hour), g.Expires.Add(RefundGrace(g.Started) - time.Second)} {
		r, err := g1.Refund(at)
		if err != nil || r.Phase != Refunded || r.RefundAmount != TicketPrice || r.Win != 0 || r.Result() != "refunded" || !r.Last.Equal(at) || r.Picks != 1 {
			t.Errorf("Refund at %s: %+v %v", at, r, err)
		}
	}
	// Once RefundGrace has passed since the deadline, the game is to
	// expire (art. 2.2.10: no refund), however late the refund.
	for _, at := range []time.Time{g.Expires.Add(RefundGrace(g.Started)), g.Expires.AddDate(1, 0, 0)} {
		if r, err := g1.Refund(at); !errors.Is(err, ErrRefundClosed) || r != g1 {
			t.Errorf("Refund at %s: %+v %v, want ErrRefundClosed and no change", at, r.Phase, err)
		}
	}
	// Past the window the player's events are still refused, and an
	// expired game stays expired: no refund (art. 2.2.10).
	at := playToTier(t, g1, t0.Add(time.Minute))
	late := g.Expires.Add(72 * time.Hour)
	for name, err := range map[string]error{
		"pick at the deadline":        g1.CheckPick(8, g.Expires),
		"pick after the deadline":     func() error { _, _, err := g1.Pick(8, pickBeta(t, g1, false), late); return err }(),
		"stop after the deadline":     func() error { _, err := at.Stop(late); return err }(),
		"continue after the deadline": func() error { _, err := at.Continue(late); return err }(),
	} {
		if !errors.Is(err, ErrExpired) {
			t.Errorf("%s: %v, want ErrExpired", name, err)
		}
	}
	for _, when := range []time.Time{g.Expires, late} {
		if r, err := expired.Refund(when); !errors.Is(err, ErrGameOver) || r != expired {
			t.Errorf("Refund of an expired game at %s: %+v %v, want ErrGameOver", when, r.Phase, err)
		}
	}
	refunded, _ := g1.Refund(late)
	if r, err := refunded.Refund(late.Add(time.Hour)); !errors.Is(err, ErrGameOver) || r != refunded {
		t.Errorf("second refund: %+v %v, want ErrGameOver", r.Phase, err)
	}
	if _, err := refunded.Expire(late.Add(time.Hour)); !errors.Is(err, ErrGameOver) {
		t.Errorf("expiry of a refunded game: %v, want ErrGameOver", err)
	}
	// Nor may a refund come before the game's last event.
	if _, err := g1.Refund(t0); !errors.Is(err, ErrTimeOrder) {
		t.Errorf("Refund before the last pick: %v, want ErrTimeOrder", err)
	}
}

// TestMultipliersExact enumerates every two-byte stream (all that a
// Bernoulli with q < 65536 reads per attempt) through the multiplier draw of
// each tier: exactly q_t of the accepted streams give ×3.
func TestMultipliersExact(t *testing.T) {
	for tier := 1; tier <= Tiers; tier++ {
		var x2, x3, rejected int64
		for v := range 1 << 16 {
			m, err := multiplier(draw.FromReader(bytes.NewReader([]byte{byte(v >> 8), byte(v)})), tier)
			switch {
			case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
				rejected++
			case err != nil:
				t.Fatal(err)
			case m == 3:
				x3++
			default:
				x2++
			}
		}
		if got := big.NewRat(x3, x2+x3); got.Cmp(Triple[tier-1].Rat()) != 0 {
			t.Errorf("tier %d: P(×3) = %s, want %s", tier, got, Triple[tier-1])
		}
		// Two bytes are one attempt for q > 256, two attempts for q ≤ 256.
		q := int64(Triple[tier-1].Q)
		if want := (1 << 16) % q; q <= 256 {
			want = (256 % q) * (256 % q)
			if rejected != want {
				t.Errorf("tier %d: %d rejected, want %d", tier, rejected, want)
			}
		} else if rejected != want {
			t.Errorf("tier %d: %d rejected", tier, rejected)
		}
	}
	// Multipliers reads tier t from the stream labelled "tier<t>".
	b := beta("labels")
	m, _ := Multipliers(2000, b)
	for tier := 1; tier <= Tiers; tier++ {
		want, _ := multiplier(draw.NewStream(b, fmt.Sprint("tier", tier)), tier)
		if m[tier-1] != want {
			t.Errorf("tier %d: not drawn from its own stream", tier)
		}
	}
}

// pickDistribution runs the pick of number in state g for every first
// stream byte: the exact probability that it is losing, given that a byte
// is accepted (a rejected byte is followed by fresh ones: same law).
func pickDistribution(t *testing.T, g Game, number int) *big.Rat {
	t.Helper()
	var losing, good int64
	for b := range 256 {
		next, l, err := g.pick(number, draw.FromReader(bytes.NewReader([]byte{byte(b)})), t0)
		switch {
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			continue
		case err != nil:
			t.Fatal(err)
		}
		if next.Picks != g.Picks+1 || !next.IsPicked(number) {
			t.Fatal("pick not recorded")
		}
		if l {
			losing++
			if next.Phase != Lost {
				t.Fatal("losing pick did not lose")
			}
		} else {
			good++
		}
	}
	return big.NewRat(losing, losing+good)
}

// TestGameDistributionExact drives the state machine itself with every
// stream byte at every pick, and derives by dynamic programming the exact
// law of the game played to the end: P(losing) = 3/n at each pick, tier t
// reached with probability P_t from tier t−1, tier 4 with 11/203, and the
// tiers where a decision is due exactly at G_t good numbers.
func TestGameDistributionExact(t *testing.T) {
	g := newTestGame(t, 2000)
	reach := big.NewRat(1, 1) // P(reaching the current state by good picks)
	fromTier := big.NewRat(1, 1)
	for tier := 1; tier <= Tiers; tier++ {
		for g.Phase == Playing {
			n := g.Hidden()
			// The law does not depend on which number is picked.
			first := 1
			for g.IsPicked(first) {
				first++
			}
			last := 30
			for g.IsPicked(last) {
				last--
			}
			pl := pickDistribution(t, g, first)
			if pl.Cmp(big.NewRat(3, int64(n))) != 0 || pickDistribution(t, g, last).Cmp(pl) != 0 {
				t.Fatalf("pick %d (n = %d): P(losing) = %s, want 3/%d", g.Picks, n, pl, n)
			}
			pg := new(big.Rat).Sub(big.NewRat(1, 1), pl)
			reach.Mul(reach, pg)
			fromTier.Mul(fromTier, pg)
			// Advance along the good branch with an accepted good byte.
			for b := 0; ; b++ {
				next, l, err := g.pick(first, draw.FromReader(bytes.NewReader([]byte{byte(b)})), t0)
				if err == nil && !l {
					g = next
					break
				}
			}
		}
		if g.Tier != tier || g.Good() != GoodAt[tier-1] {
			t.Fatalf("tier %d reached with %d good numbers (tier %d)", tier, g.Good(), g.Tier)
		}
		if fromTier.Cmp(Reach(tier)) != 0 {
			t.Errorf("P(reach tier %d | tier %d) = %s, want P_%d = %s", tier, tier-1, fromTier, tier, Reach(tier))
		}
		fromTier = big.NewRat(1, 1)
		if tier < Tiers {
			if g.Phase != AtTier {
				t.Fatalf("tier %d: phase %s", tier, g.Phase)
			}
			g, _ = g.Continue(t0)
		}
	}
	if g.Phase != Won || reach.Cmp(big.NewRat(11, 203)) != 0 {
		t.Errorf("tier 4: phase %s, probability %s, want won with 11/203", g.Phase, reach)
	}
}
