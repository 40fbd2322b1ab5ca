package qod_test

import (
	"crypto/sha256"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/qod"
	"tirage.fr/tirage/verifier/record"
)

// A game started across the change to summer time before the 720-hour
// floor (PlayDeadlineFloorFrom) was sealed (game_start.expires) with the
// calendar deadline, 719 hours after its start, as rngd then did. The
// replay of that honest record — rngverify audit, and rngd's own state
// rebuild / catch-up — still accepts it (it reported MsgRuleExpires); a
// start after the floor took effect with the calendar reading is refused.
func TestReplayPlayDeadlineSealedBeforeTheFloor(t *testing.T) {
	replay := func(started, expires time.Time) error {
		secret := sha256.Sum256([]byte("r of an old game"))
		ticket, _ := record.TicketHash("000000000000000042")
		g, err := qod.NewGame(qod.Start{Game: "old", Emission: "QOD-1", Ticket: ticket, Stake: qod.MaxStake,
			Now: started, StartDeadline: started.Add(time.Hour), Location: paris})
		if err != nil {
			t.Fatal(err)
		}
		rec := &record.GameStart{Time: started, Game: "old", Emission: "QOD-1", Ticket: ticket, Stake: qod.MaxStake,
			Commit: record.Commit(secret), Multipliers: g.Multipliers, Amounts: g.Amounts, Expires: expires}
		leaf, err := record.Format(rec)
		if err != nil {
			t.Fatal(err)
		}
		_, err = qod.Replay([][]byte{leaf}, qod.ReplayConfig{StartDeadline: started.Add(time.Hour), Location: paris})
		return err
	}
	for _, c := range []struct {
		started time.Time
		ok      bool
	}{
		{time.Date(2026, 3, 15, 9, 0, 0, 0, time.UTC), true},  // 10:00 CET, before the floor
		{time.Date(2027, 3, 14, 9, 0, 0, 0, time.UTC), false}, // 10:00 CET, after it
	} {
		calendar := c.started.In(paris).AddDate(0, 0, 30).UTC() // 10:00 CEST a month later: 719 h
		if calendar.Sub(c.started) != 719*time.Hour {
			t.Fatalf("setup: %v", calendar.Sub(c.started))
		}
		if err := replay(c.started, calendar); (err == nil) != c.ok {
			t.Errorf("start %s sealed with the calendar deadline (719 h): replay %v, want accepted %v", c.started, err, c.ok)
		}
		if err := replay(c.started, qod.PlayDeadline(c.started, paris)); err != nil {
			t.Errorf("start %s sealed with PlayDeadline (720 h): %v", c.started, err)
		}
		if err := replay(c.started, calendar.Add(-time.Hour)); err == nil {
			t.Errorf("start %s sealed with a 718 h deadline: accepted", c.started)
		}
	}
}

// Every refund a game can get (Refund, up to RefundGrace after its play
// deadline) comes within the 90 days after its emission's closure that
// article 5 gives (they end at 00:00 Paris on closure + 91 days), for every
// closure date of ten years and a game started at the last second it can
// be (just before StartDeadline): windows across either change of clock
// included. Closures from November 2026 on: a game started earlier, when
// no rngd ran (RefundGrace's 31 days for games started before 2027), is
// none of an honest log's. With a grace of 31 days, a closure whose play window crosses
// the change to summer time let a refund come up to 59 minutes late.
func TestRefundWithinArticle5(t *testing.T) {
	ticket, _ := record.TicketHash("000000000000000042")
	for d := time.Date(2026, 11, 1, 0, 0, 0, 0, paris); d.Year() < 2036; d = d.AddDate(0, 0, 1) {
		closure := d.Format(time.DateOnly)
		deadline, err := qod.StartDeadline(closure, paris)
		if err != nil {
			t.Fatal(err)
		}
		end90 := time.Date(d.Year(), d.Month(), d.Day()+91, 0, 0, 0, 0, paris)
		started := deadline.Add(-time.Second)
		g, err := qod.NewGame(qod.Start{Game: "g", Emission: "QOD-1", Ticket: ticket, Stake: qod.MaxStake,
			Now: started, StartDeadline: deadline, Location: paris})
		if err != nil {
			t.Fatal(err)
		}
		last := g.Expires.Add(qod.RefundGrace(g.Started) - time.Second)
		if _, err := g.Refund(last); err != nil {
			t.Fatalf("closure %s: refund at %s refused: %v", closure, last.In(paris).Format(time.RFC3339), err)
		}
		if !last.Before(end90) {
			t.Errorf("closure %s: start %s, play deadline %s, a refund taken until %s, after the 90 days of article 5 (they end %s)",
				closure, started.In(paris).Format(time.RFC3339), g.Expires.In(paris).Format(time.RFC3339),
				last.In(paris).Format(time.RFC3339), end90.Format(time.RFC3339))
		}
	}
}

// A game started before PlayDeadlineFloorFrom keeps the 31-day refund grace
// rngd allowed then (an honest log of that time still verifies); one
// started from then on has MaxRefundGrace, 30 days.
func TestRefundGraceLegacy(t *testing.T) {
	for _, c := range []struct {
		started time.Time
		want    time.Duration
	}{
		{qod.PlayDeadlineFloorFrom.Add(-time.Second), 31 * 24 * time.Hour},
		{qod.PlayDeadlineFloorFrom, qod.MaxRefundGrace},
		{qod.PlayDeadlineFloorFrom.AddDate(1, 0, 0), qod.MaxRefundGrace},
	} {
		if got := qod.RefundGrace(c.started); got != c.want {
			t.Errorf("RefundGrace(%s) = %s, want %s", c.started, got, c.want)
		}
	}
}

// "Trente jours à compter du moment" where the same wall-clock time 30
// days later occurs twice (the clock set back at 03:00 CEST to 02:00 CET on
// the last Sunday of October): the deadline is the later of the two, 721
// hours, as PlayDeadline's other readings keep the one longer for the
// player. Where that wall-clock time does not exist (the clock put forward
// at 02:00 CET to 03:00 CEST), the 720-hour floor gives 03:30 CEST. The
// sealed deadline is recomputed exactly on replay (SealedPlayDeadline), so
// a verifier that took the earlier 02:30 (720 hours; Python's zoneinfo
// with fold=0) would fail honest games: docs/alpha.md §6 states the choice.
func TestPlayDeadlineRepeatedWallClock(t *testing.T) {
	for _, c := range []struct {
		started, want time.Time
		hours         time.Duration
	}{
		// 02:30 CEST on 1 October 2027 → 02:30 CET on 31 October, the second 02:30.
		{time.Date(2027, 10, 1, 0, 30, 0, 0, time.UTC), time.Date(2027, 10, 31, 1, 30, 0, 0, time.UTC), 721},
		// 02:00:00 and 02:59:59 CEST: the first and last second of the repeated hour.
		{time.Date(2027, 10, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 10, 31, 1, 0, 0, 0, time.UTC), 721},
		{time.Date(2027, 10, 1, 0, 59, 59, 0, time.UTC), time.Date(2027, 10, 31, 1, 59, 59, 0, time.UTC), 721},
		// 02:30 CET on 26 February 2027: 02:30 on 28 March does not exist; 03:30 CEST.
		{time.Date(2027, 2, 26, 1, 30, 0, 0, time.UTC), time.Date(2027, 3, 28, 1, 30, 0, 0, time.UTC), 720},
	} {
		got := qod.PlayDeadline(c.started, paris)
		if !got.Equal(c.want) || got.Sub(c.started) != c.hours*time.Hour {
			t.Errorf("PlayDeadline(%s, %s) = %s (%s), want %s (%d h)", c.started.Format(time.RFC3339),
				c.started.In(paris).Format("15:04:05 MST"), got.Format(time.RFC3339), got.In(paris).Format("15:04:05 MST"),
				c.want.Format(time.RFC3339), c.hours)
		}
		if earlier := c.started.Add(720 * time.Hour); c.hours == 721 && qod.SealedPlayDeadline(c.started, earlier, paris) {
			t.Errorf("start %s: the earlier 02:30 (720 h) accepted as its sealed deadline", c.started.Format(time.RFC3339))
		}
	}
}
