// Package qod holds the rules of Quitte ou Double, stage 2: the paytable with
// exact rationals, the game's state machine and the replay of a game's
// records. Source: /work/shared/spec/quitte-ou-double.md and the operator's
// rules (règlement, art. 2.2.3–2.2.11); where they differ, the rules win.
//
// # API
//
//	g, err := qod.NewGame(qod.Start{...})        // "CONTINUER": multipliers from the start's β
//	err = g.CheckPick(number, now)               // validate before proving (nothing drawn yet)
//	g, losing, err = g.Pick(number, beta, now)   // β = VRF output over record.PickAlpha
//	g, err = g.Continue(now) / g.Stop(now)       // at tier 1..3
//	g, err = g.Expire(now) / g.Refund(now)       // 30-day expiry; operator refund (art. 2.2.11)
//	res, err := qod.Replay(leaves, qod.ReplayConfig{Verify: ...})  // re-check a game's records
//	err = qod.CheckEmission(emissionRecord, paris)                  // its start deadline
//
// Errors are sentinels wrapped with detail (ErrNumberPicked, ErrNotAtTier,
// ErrExpired, …): the event is refused and nothing changes. ErrTranscript,
// from Replay, is evidence of misbehaviour.
// Game is a value: every method returns the next state and leaves the
// receiver unchanged, so a refused event changes nothing.
//
// # Draws
//
//   - Multipliers: one VRF output β per game, over record.StartAlpha; m_t = 3
//     when Bernoulli(q_t) on draw.NewStream(β, "tier<t>") (t = 1..4) is true.
//     q = 3/506, 86/969, 59/455, 3/44. When S = 50,000 € every m_t = 2 and no
//     draw is made: the start record carries no proof.
//   - Picks: one VRF output per pick, over record.PickAlpha(…, index, number);
//     the number is losing when Bernoulli(3, n) on draw.NewStream(β, "pick")
//     is true, n = 30 − index being the numbers still hidden.
//   - Key: every proof of one game is under one VRF key, the start's (the
//     first pick's when S = 50,000 €): DrawKey, checked by Replay.
//
// # Records of a game
//
// In log order, each linked to the previous one by record.LeafHash:
//
//  1. game_start: S, multipliers, amounts, H(r), expires, and the proof
//     over record.StartAlpha (none for S = 50,000 €);
//  2. one pick per number picked, index = picks before it;
//  3. at each tier 1..3 reached, a decision (continue or stop);
//  4. once the game is over, or to expire or refund it, one game_end
//     revealing r: result Game.Result(), tier Game.Tier, win Game.Win,
//     refund Game.RefundAmount.
//
// # QUITTER
//
// Art. 2.2.3: once the code is entered the player either clicks CONTINUER
// (the start, irrevocable) or QUITTER, which renounces stage 2: the player
// keeps the stage-1 gain S, payable as any gain (art. 3.1). QUITTER draws
// nothing; the daemon seals it as a ticket_quit record (record.TicketQuit),
// after which the ticket never starts a game (ErrTicketQuit), as a ticket
// started is never quit (ErrTicketStarted). The rules set no deadline on
// QUITTER: art. 2.2.4's 29 days after the closure bound "cliquer sur le
// bouton CONTINUER et ainsi commencer le jeu digital" only, and art. 5's 90
// days bound the payment of S, not the choice.
//
// # Time rules
//
// Times are instants; the calendar rules are read in the operator's legal
// time zone (Europe/Paris), passed in as a *time.Location (nil means UTC).
//
//   - Start (art. 2.2.4): "au plus tard dans un délai de vingt-neuf jours
//     suivant la date de clôture". The closure day D does not count; the 29
//     days are D+1 … D+29 and the last one ends at 24:00. StartDeadline returns
//     00:00 on D+30: a start at or after it is refused.
//   - Play window (art. 2.2.5, 2.2.10): "trente jours, à compter du moment où
//     il a cliqué sur CONTINUER" — from the instant of the start, 30 calendar
//     days at the same wall-clock time, and never less than 30 × 24 hours
//     (PlayDeadline: across the change to summer time the calendar reading
//     would give 719 hours); where that wall-clock time occurs twice (the
//     clock set back), the later one (721 hours). At or after it a pick,
//     continue or stop is refused (ErrExpired) and the game can be expired
//     (Expire): it is over, with no gain and no refund.
//   - Refund (art. 2.2.11): the operator may refund (3 €) any unfinished
//     game, within its play window or after it. The case the article is
//     for — the operator could not honour the 30 days, e.g. an outage ate
//     the end of the player's window — is typically known only once the
//     window is over, so a game past its deadline but not yet expired can
//     still be refunded. A game over (won, lost, expired, refunded) cannot:
//     once expired it stays expired (art. 2.2.10). How long an unfinished
//     game past its deadline waits for a refund before it is expired is the
//     caller's policy (rngd: game.refund_grace).
package qod

import (
	"errors"
	"fmt"
	"time"

	"tirage.fr/tirage/verifier/calendar"
	"tirage.fr/tirage/verifier/draw"
	"tirage.fr/tirage/verifier/record"
)

// Errors of the state machine. The event is refused and the game unchanged.
var (
	ErrStake        = errors.New("stake out of range")                       // S must be a gain of the prize table (Stakes)
	ErrBeta         = errors.New("vrf output missing or not expected")       // β absent where a draw is needed, or present for S = 50,000 €
	ErrStartClosed  = errors.New("start refused: emission closed +29 days")  // art. 2.2.4
	ErrNumberRange  = errors.New("number out of range 1..30")                // pick of a number outside the grid
	ErrNumberPicked = errors.New("number already picked")                    // pick of a number already selected
	ErrGameOver     = errors.New("game over")                                // any event after won, lost, expired or refunded
	ErrAtTier       = errors.New("tier reached: continue or stop first")     // pick while a decision is due
	ErrNotAtTier    = errors.New("not at a tier")                            // continue or stop while playing
	ErrExpired      = errors.New("30-day play window over: expire the game") // art. 2.2.5: the caller should Expire
	ErrNotExpired   = errors.New("play window not over yet")                 // Expire before the deadline
	ErrRefundClosed = errors.New("refund window over: expire the game")      // art. 2.2.10: refund after play deadline + MaxRefundGrace
	ErrTimeOrder    = errors.New("event time before the game's last event")  // the clock went backwards
	ErrTicketPlayed = errors.New("ticket code already played")               // a code starts one game only (the daemon checks)
	// A ticket's two choices exclude each other (art. 2.2.3): CONTINUER is
	// irrevocable, and QUITTER renounces stage 2 (the daemon and the
	// audit check both; record.TicketQuit).
	ErrTicketQuit    = errors.New("ticket quit: the player renounced stage 2 and kept S (QUITTER)")
	ErrTicketStarted = errors.New("ticket already started stage 2 (CONTINUER is irrevocable)")
)

// Phase is where a game stands.
type Phase uint8

// The phases. Won, Lost, Expired and Refunded are final.
const (
	Playing  Phase = iota + 1 // picking towards the next tier
	AtTier                    // tier 1..3 reached: continue or stop
	Won                       // stopped at a tier, or tier 4 reached
	Lost                      // a losing number was picked
	Expired                   // not finished within 30 days
	Refunded                  // refunded by the operator
)

var phaseNames = [...]string{"", "playing", "at-tier", "won", "lost", "expired", "refunded"}

func (p Phase) String() string {
	if int(p) < len(phaseNames) && p != 0 {
		return phaseNames[p]
	}
	return fmt.Sprintf("phase(%d)", uint8(p))
}

// Over reports whether p is final.
func (p Phase) Over() bool { return p >= Won }

// Start is what starting a game needs.
type Start struct {
	Game     string   // game id
	Emission string   // emission id
	Ticket   [32]byte // record.TicketHash of the code
	Stake    int64    // S in cents, from the manifest
	// Beta is the VRF output over record.StartAlpha; nil when Stake = MaxStake.
	Beta []byte
	// Now is the instant of "CONTINUER"; StartDeadline comes from the
	// emission's record (see StartDeadline).
	Now, StartDeadline time.Time
	// Location is the operator's legal time zone (Europe/Paris); nil = UTC.
	Location *time.Location
}

// Game is the state of one stage-2 game. It is a value (no pointers,
// slices or maps): copying it copies the state.
type Game struct {
	ID          string
	Emission    string
	Ticket      [32]byte
	Stake       int64        // S, cents
	Multipliers [Tiers]int   // m_1..m_4
	Amounts     [Tiers]int64 // A_1..A_4, cents
	Started     time.Time    // the start instant
	Expires     time.Time    // PlayDeadline(Started)
	Last        time.Time    // time of the last event

	Phase        Phase
	Tier         int          // tiers reached, 0..4
	Picks        int          // numbers picked so far (good ones, plus the losing one if Lost)
	Order        [Numbers]int // numbers in pick order; Order[:Picks]
	Picked       uint32       // bit n set when number n (1..30) has been picked
	Win          int64        // cents, when Won
	RefundAmount int64        // cents, when Refunded
}

// StartDeadline is the first instant at which stage 2 can no longer start
// for an emission whose closure notice gives the date closure ("YYYY-MM-DD"):
// 00:00 on closure + 30 days in loc, the end of the 29th day after closure.
// Where the clock skips midnight on that date (daylight saving time
// starting at 00:00), the day starts at the change of clock instead
// (calendar.DayStart).
func StartDeadline(closure string, loc *time.Location) (time.Time, error) {
	d, err := calendar.ParseDate(closure)
	if err != nil {
		return time.Time{}, fmt.Errorf("closure date %q: %w", closure, err)
	}
	return calendar.DayStart(d.Year(), d.Month(), d.Day()+30, loc).UTC(), nil
}

// PlayDeadline is the end of the 30-day play window of a game started at
// started: the same wall-clock time 30 calendar days later in loc, or 30
// × 24 hours after started if that is later (a window across the change to
// summer time would otherwise last 719 hours). Across the change to winter
// time the calendar reading is the later one (721 hours); where its
// wall-clock time occurs twice (started in the hour before the clock is set
// back, 30 days earlier), it is the second (latestWallClock; pinned by
// TestPlayDeadlineRepeatedWallClock), 721 hours too.
func PlayDeadline(started time.Time, loc *time.Location) time.Time {
	if loc == nil {
		loc = time.UTC
	}
	calendar := latestWallClock(started.In(loc).AddDate(0, 0, 30))
	if elapsed := started.Add(30 * 24 * time.Hour).UTC(); elapsed.After(calendar) {
		return elapsed
	}
	return calendar
}

// latestWallClock is the latest instant, in UTC, whose wall-clock reading
// in t's location is t's: t itself but where that reading occurs twice
// (the clock set back), then the second. It does not rely on time.Date's
// choice in an overlap, which Go leaves unspecified. The candidates are
// the reading under each offset in force 12 hours around t.
func latestWallClock(t time.Time) time.Time {
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	wall := time.Date(y, mo, d, h, mi, s, t.Nanosecond(), time.UTC)
	latest := t.UTC()
	for _, around := range []time.Duration{-12 * time.Hour, 12 * time.Hour} {
		_, offset := t.Add(around).Zone()
		c := wall.Add(-time.Duration(offset) * time.Second)
		cy, cmo, cd := c.In(t.Location()).Date()
		ch, cmi, cs := c.In(t.Location()).Clock()
		if cy == y && cmo == mo && cd == d && ch == h && cmi == mi && cs == s && c.After(latest) {
			latest = c
		}
	}
	return latest
}

// PlayDeadlineFloorFrom is when PlayDeadline's floor of 30 × 24 hours
// took effect: rngd before it sealed the calendar reading alone, 719 hours
// across the change to summer time. A game started before it may carry
// either deadline (SealedPlayDeadline); no window that starts between the
// change (2 December 2026) and this instant crosses a change of clock, the
// next being on 28 March 2027, so both readings agree for every start in
// between.
var PlayDeadlineFloorFrom = time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)

// MaxRefundGrace is the longest time after its play deadline that an
// unfinished game may still be refunded (article 2.2.11) before its expiry
// is sealed (article 2.2.10: an expired game is not refunded); Refund
// refuses a refund at or after it. It is 30 × 24 hours, so that every
// refund comes within the 90 days after the emission's closure that
// article 5 gives, whatever the changes of clock: the last start is before
// 00:00 on closure + 30 days, its play deadline (PlayDeadline) before 01:00
// on closure + 60 (00:59:59 across the change to summer time, which the
// 30 × 24 h floor gives), and 30 × 24 hours later is before 02:00 on
// closure + 90, the 90 days ending at 00:00 on closure + 91 (only one of the
// two windows can cross the change to summer time). rngd's
// game.refund_grace is at most this; the audit fails a game the log leaves
// unsealed past it.
const MaxRefundGrace = 30 * 24 * time.Hour

// legacyRefundGrace is the longest refund grace rngd accepted before
// MaxRefundGrace became 30 days: 31 days. Games started before
// PlayDeadlineFloorFrom may have been refunded, or swept, that late by an
// honest rngd; the windows of those it can have played (started from
// December 2026 to the end of that year, grace over by 3 March 2027) cross
// no change of clock, so 31 days keeps them within article 5 too.
const legacyRefundGrace = 31 * 24 * time.Hour

// RefundGrace is the longest time after its play deadline that a game
// started at started may be refunded: MaxRefundGrace, or for a game started
// before PlayDeadlineFloorFrom the 31 days rngd then allowed (so that an
// honest log of that time still verifies).
func RefundGrace(started time.Time) time.Duration {
	if started.Before(PlayDeadlineFloorFrom) {
		return legacyRefundGrace
	}
	return MaxRefundGrace
}

// SealedPlayDeadline reports whether expires is the play deadline a game
// started at started has by the rules (PlayDeadline), or, started before
// PlayDeadlineFloorFrom, the one rngd sealed then: the same wall-clock
// time 30 calendar days later in loc.
func SealedPlayDeadline(started, expires time.Time, loc *time.Location) bool {
	if expires.Equal(PlayDeadline(started, loc)) {
		return true
	}
	if loc == nil {
		loc = time.UTC
	}
	return started.Before(PlayDeadlineFloorFrom) && expires.Equal(started.In(loc).AddDate(0, 0, 30))
}

// NewGame starts a game ("CONTINUER"): it checks the start deadline and the
// stake and draws the four multipliers from s.Beta.
func NewGame(s Start) (Game, error) {
	if !s.StartDeadline.IsZero() && !s.Now.Before(s.StartDeadline) {
		return Game{}, fmt.Errorf("start at %s, deadline %s: %w",
			s.Now.UTC().Format(time.RFC3339), s.StartDeadline.UTC().Format(time.RFC3339), ErrStartClosed)
	}
	if err := CheckStake(s.Stake); err != nil {
		return Game{}, err
	}
	m, err := Multipliers(s.Stake, s.Beta)
	if err != nil {
		return Game{}, err
	}
	return Game{
		ID:          s.Game,
		Emission:    s.Emission,
		Ticket:      s.Ticket,
		Stake:       s.Stake,
		Multipliers: m,
		Amounts:     Amounts(s.Stake, m),
		Started:     s.Now,
		Expires:     PlayDeadline(s.Now, s.Location),
		Last:        s.Now,
		Phase:       Playing,
	}, nil
}

// Hidden is n, the numbers not yet picked.
func (g Game) Hidden() int { return Numbers - g.Picks }

// Good is the number of good numbers found.
func (g Game) Good() int {
	if g.Phase == Lost {
		return g.Picks - 1
	}
	return g.Picks
}

// IsPicked reports whether number has been picked.
func (g Game) IsPicked(number int) bool {
	return number >= 1 && number <= Numbers && g.Picked&(1<<number) != 0
}

// PickedNumbers returns the numbers picked, in order.
func (g Game) PickedNumbers() []int { return append([]int(nil), g.Order[:g.Picks]...) }

// Amount is the amount of the tier reached (A_Tier), or S before tier 1.
func (g Game) Amount() int64 {
	if g.Tier == 0 {
		return g.Stake
	}
	return g.Amounts[g.Tier-1]
}

// open validates an event's time against the game: it must not be over,
// and the event must not come before its last one.
func (g Game) open(now time.Time) error {
	if g.Phase.Over() {
		return fmt.Errorf("game %s is %s: %w", g.ID, g.Phase, ErrGameOver)
	}
	if now.Before(g.Last) {
		return fmt.Errorf("event at %s: %w", now.UTC().Format(time.RFC3339), ErrTimeOrder)
	}
	return nil
}

// check is open, and the event must come within the play window: the
// player's events (pick, continue, stop).
func (g Game) check(now time.Time) error {
	if err := g.open(now); err != nil {
		return err
	}
	if !now.Before(g.Expires) {
		return fmt.Errorf("game %s expired at %s: %w", g.ID, g.Expires.UTC().Format(time.RFC3339), ErrExpired)
	}
	return nil
}

// CheckPick validates a pick before anything is drawn.
func (g Game) CheckPick(number int, now time.Time) error {
	if err := g.check(now); err != nil {
		return err
	}
	if g.Phase == AtTier {
		return fmt.Errorf("tier %d reached: %w", g.Tier, ErrAtTier)
	}
	if number < 1 || number > Numbers {
		return fmt.Errorf("number %d: %w", number, ErrNumberRange)
	}
	if g.IsPicked(number) {
		return fmt.Errorf("number %d: %w", number, ErrNumberPicked)
	}
	return nil
}

// Pick applies the pick of number decided by β (the VRF output over
// record.PickAlpha with index g.Picks): it returns the next state and
// whether the number is losing.
func (g Game) Pick(number int, beta []byte, now time.Time) (Game, bool, error) {
	if len(beta) == 0 {
		return g, false, fmt.Errorf("pick: %w", ErrBeta)
	}
	return g.pick(number, draw.NewStream(beta, labelPick), now)
}

// pick is Pick with the stream given: the exhaustive tests drive it with
// chosen bytes.
func (g Game) pick(number int, s *draw.Stream, now time.Time) (Game, bool, error) {
	if err := g.CheckPick(number, now); err != nil {
		return g, false, err
	}
	losing, err := pickLosing(s, g.Hidden())
	if err != nil {
		return g, false, err
	}
	g.Order[g.Picks] = number
	g.Picks++
	g.Picked |= 1 << number
	g.Last = now
	if losing {
		g.Phase = Lost
		return g, true, nil
	}
	if g.Tier < Tiers && g.Picks == GoodAt[g.Tier] {
		g.Tier++
		g.Phase = AtTier
		if g.Tier == Tiers {
			g.Phase = Won
			g.Win = g.Amounts[Tiers-1]
		}
	}
	return g, false, nil
}

// Continue gives up A_t to aim for the next tier (irrevocable).
func (g Game) Continue(now time.Time) (Game, error) {
	if err := g.decide(now); err != nil {
		return g, err
	}
	g.Phase = Playing
	g.Last = now
	return g, nil
}

// Stop ends the game at tier t, winning A_t ("Arrêter la partie").
func (g Game) Stop(now time.Time) (Game, error) {
	if err := g.decide(now); err != nil {
		return g, err
	}
	g.Phase = Won
	g.Win = g.Amounts[g.Tier-1]
	g.Last = now
	return g, nil
}

func (g Game) decide(now time.Time) error {
	if err := g.check(now); err != nil {
		return err
	}
	if g.Phase != AtTier {
		return fmt.Errorf("%d good numbers, tier %d: %w", g.Good(), g.Tier, ErrNotAtTier)
	}
	return nil
}

// Expire ends an unfinished game whose 30-day window is over: no gain, no refund.
func (g Game) Expire(now time.Time) (Game, error) {
	if g.Phase.Over() {
		return g, fmt.Errorf("game %s is %s: %w", g.ID, g.Phase, ErrGameOver)
	}
	if now.Before(g.Expires) {
		return g, fmt.Errorf("game %s expires at %s: %w", g.ID, g.Expires.UTC().Format(time.RFC3339), ErrNotExpired)
	}
	g.Phase = Expired
	g.Last = now
	return g, nil
}

// Refund ends an unfinished game with the refund of the ticket (art.
// 2.2.11): no gain. It may come after the play window (the operator learns
// only then that it could not honour the 30 days), as long as the game has
// not been expired (a game over is ErrGameOver) and RefundGrace (30 days)
// has not passed since its play deadline (ErrRefundClosed: the game is to expire,
// with no refund, art. 2.2.10).
func (g Game) Refund(now time.Time) (Game, error) {
	if err := g.open(now); err != nil {
		return g, err
	}
	if ends := g.Expires.Add(RefundGrace(g.Started)); !now.Before(ends) {
		return g, fmt.Errorf("game %s: refund at %s, its play window ended %s and refunds ended %s: %w", g.ID,
			now.UTC().Format(time.RFC3339), g.Expires.UTC().Format(time.RFC3339), ends.UTC().Format(time.RFC3339), ErrRefundClosed)
	}
	g.Phase = Refunded
	g.RefundAmount = TicketPrice
	g.Last = now
	return g, nil
}

// Result is the game_end result string of a final phase (record.Result*),
// or "" while the game goes on.
func (g Game) Result() string {
	switch g.Phase {
	case Won:
		return record.ResultWon
	case Lost:
		return record.ResultLost
	case Expired:
		return record.ResultExpired
	case Refunded:
		return record.ResultRefunded
	}
	return ""
}
