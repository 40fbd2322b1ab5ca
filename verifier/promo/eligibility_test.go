package promo

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// row is a stake in StakeColumns order: id, account, time, game, amount, channel, kind, subscribed_at, debited_at.
type row [9]string

func tally(t *testing.T, r *Rules, rows []row) (*Tally, []string) {
	t.Helper()
	tl := NewTally(r)
	var rejected []string
	for i, f := range rows {
		s, err := ParseStake(f)
		if err == nil {
			_, err = tl.Add(i+1, &s)
		}
		if err != nil {
			rejected = append(rejected, fmt.Sprintf("%d %v", i+1, err))
		}
	}
	return tl, rejected
}

// The Bonus Crescendo worked example on a small synthetic data set with the
// edge cases of the rules.
func TestBonusCrescendoWorkedExample(t *testing.T) {
	r, _ := loadExample(t)
	rows := []row{
		// Thursday 16 (Loto ≥ 12 €, draw 1): 23:59:59 Paris counts on Thursday…
		{"t1", "alice", "2016-06-16T23:59:59+02:00", "loto", "1200", "web"},
		// …and the same instant written in UTC too.
		{"t2", "bob", "2016-06-16T21:59:59Z", "loto-joker-plus", "1500", "app"},
		// 00:00:00 Paris on Friday is Friday (bingo day), not Thursday.
		{"t3", "carol", "2016-06-17T00:00:00+02:00", "loto", "5000", "web"},
		{"t4", "carol", "2016-06-16T22:00:00Z", "bingo-live", "1200", "web"}, // = Fri 00:00 Paris
		// Small stakes adding up to exactly the minimum (4 × 3 €).
		{"t5", "dave", "2016-06-16T08:00:00+02:00", "loto", "300", "mobile"},
		{"t6", "dave", "2016-06-16T09:00:00+02:00", "loto", "300", "mobile"},
		{"t7", "dave", "2016-06-16T10:00:00+02:00", "loto-multi-options", "300", "tablet"},
		{"t8", "dave", "2016-06-16T11:00:00+02:00", "loto", "300", "mobile"},
		// One cent short.
		{"t9", "erin", "2016-06-16T12:00:00+02:00", "loto", "1199", "web"},
		// Retail and other games don't count.
		{"t10", "frank", "2016-06-16T12:00:00+02:00", "loto", "5000", "retail"},
		{"t11", "frank", "2016-06-16T12:00:00+02:00", "euromillions-my-million", "5000", "web"},
		// Subscription taken that day counts; one taken before does not.
		{"t12", "gina", "2016-06-16T20:00:00+02:00", "loto", "1200", "web", "subscription", "2016-06-16T19:00:00+02:00"},
		{"t13", "hugo", "2016-06-16T20:00:00+02:00", "loto", "1200", "web", "subscription", "2016-06-01T19:00:00+02:00"},
		// Abo+ recorded and debited the same day counts; debited the next day does not.
		{"t14", "ivan", "2016-06-16T20:00:00+02:00", "loto", "1200", "web", "abo+", "", "2016-06-16T23:00:00+02:00"},
		{"t15", "judy", "2016-06-16T23:30:00+02:00", "loto", "1200", "web", "abo+", "", "2016-06-17T00:30:00+02:00"},
		// Closed account: no e-credit, no entry.
		{"t16", "karl", "2016-06-16T12:00:00+02:00", "loto", "9900", "web"},
		// Duplicate id: rejected, not counted twice.
		{"t17", "lena", "2016-06-16T12:00:00+02:00", "loto", "600", "web"},
		{"t17", "lena", "2016-06-16T12:00:00+02:00", "loto", "600", "web"},
		// Malformed rows.
		{"t18", "mia", "2016-06-16 12:00:00", "loto", "1200", "web"},
		{"t19", "mia", "2016-06-16T12:00:00+02:00", "loto", "12.00", "web"},
		{"t20", "mia", "2016-06-16T12:00:00+02:00", "loto", "1200", "web", "weekly"},
		{"t21", "", "2016-06-16T12:00:00+02:00", "loto", "1200", "web"},
		{"t22", "nils", "2016-06-16T12:00:00+02:00", "loto", "1200", "web", "subscription"},
		// Before and after the period.
		{"t23", "olga", "2016-06-12T23:59:59+02:00", "illiko-grattage", "5000", "web"},
		{"t24", "olga", "2016-06-20T00:00:00+02:00", "bingo-live", "5000", "web"},
		// Monday: an e-credit but no draw; several days for one account.
		{"t25", "alice", "2016-06-13T00:00:00+02:00", "illiko-express", "1000", "web"},
		{"t26", "alice", "2016-06-17T10:00:00+02:00", "bingo-live", "1200", "web"},
		{"t27", "alice", "2016-06-17T11:00:00+02:00", "bingo-live", "1200", "web"},
	}
	tl, rejected := tally(t, r, rows)
	wantRejected := []string{
		"18 id: duplicate stake id (first seen on line 17)",
		"19 time: must be RFC 3339",
		"20 amount_cents: must be an integer",
		"21 kind: must be single, subscription or abo+",
		"22 account: must match",
		"23 subscribed_at: required",
	}
	if len(rejected) != len(wantRejected) {
		t.Fatalf("rejected %d rows, want %d:\n%s", len(rejected), len(wantRejected), strings.Join(rejected, "\n"))
	}
	for i, w := range wantRejected {
		if !strings.HasPrefix(rejected[i], w) {
			t.Errorf("rejection %d = %q, want prefix %q", i, rejected[i], w)
		}
	}
	if got := tl.Excluded; got[ChannelNotCounted] != 1 || got[GameNotInRange] != 2 || got[SubscriptionOtherDay] != 1 || got[AboPlusOtherDay] != 1 || got[OutsidePeriod] != 2 {
		t.Errorf("exclusions %v", got)
	}
	if got := tl.Total("dave", 3); got != 1200 {
		t.Errorf("dave's Thursday total %d, want 1200", got)
	}
	if got := tl.Total("carol", 4); got != 1200 {
		t.Errorf("carol's Friday total %d, want 1200 (bingo at 00:00:00)", got)
	}

	el := tl.Eligibility(Closed{"karl": {}})
	want1 := []string{"alice", "bob", "dave", "gina", "ivan"}
	if !slices.Equal(el.Entrants[0], want1) {
		t.Errorf("draw 1 entrants %v, want %v", el.Entrants[0], want1)
	}
	if want2 := []string{"alice", "carol"}; !slices.Equal(el.Entrants[1], want2) {
		t.Errorf("draw 2 entrants %v, want %v", el.Entrants[1], want2)
	}
	if el.Participants[3] != 6 || el.WithheldECredits[3] != 1 || el.WithheldEntries[0] != 1 {
		t.Errorf("Thursday: %d participants, %d e-credits withheld, %d entries withheld; want 6, 1, 1",
			el.Participants[3], el.WithheldECredits[3], el.WithheldEntries[0])
	}
	var credits []string
	if err := el.ECredits(func(c ECredit) error {
		credits = append(credits, fmt.Sprintf("%s %s %d %s %s", c.Account, c.Date, c.AmountCents, c.PaymentDeadline, c.ValidityEnd))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	wantCredits := []string{
		"alice 2016-06-13 500 2016-06-20 2016-06-27",
		"alice 2016-06-16 600 2016-06-23 2016-06-30",
		"bob 2016-06-16 600 2016-06-23 2016-06-30",
		"dave 2016-06-16 600 2016-06-23 2016-06-30",
		"gina 2016-06-16 600 2016-06-23 2016-06-30",
		"ivan 2016-06-16 600 2016-06-23 2016-06-30",
		"alice 2016-06-17 600 2016-06-24 2016-07-01", // one e-credit although she staked twice the minimum
		"carol 2016-06-17 600 2016-06-24 2016-07-01",
	}
	if !slices.Equal(credits, wantCredits) {
		t.Errorf("e-credits:\n%s\nwant:\n%s", strings.Join(credits, "\n"), strings.Join(wantCredits, "\n"))
	}
}

// The account must be valid on the e-credit's payment date and on the draw
// date: "le joueur doit avoir un compte FDJ® en cours de validité (c'est-à-dire
// non clôturé …) à la date de versement du e-crédit … et ou à la date définie
// au sous-article 3.1" (art. 2.3; 3.1: the draws of art. 2.4, on 21 June). An
// account closed after the draw date keeps its entry: "Les gagnants dont le
// compte FDJ® viendrait à être clôturé entre la date du tirage au sort et la
// mise à disposition des dotations … ne pourront prétendre à aucun gain"
// (art. 3.3.1): such a closure forfeits the prize, not the entry. (This test
// once wanted no entry for an account closed on 24 June.)
func TestClosedAfterPayment(t *testing.T) {
	r, _ := loadExample(t)
	tl, _ := tally(t, r, []row{{"1", "paul", "2016-06-16T10:00:00+02:00", "loto", "1200", "web"}})
	paris := r.Location()
	for _, c := range []struct {
		name     string
		closedAt time.Time
		credits  int
		entered  bool
	}{
		// After the payment deadline (23 June) and after the draw date (21 June).
		{"24 June", time.Date(2016, 6, 24, 10, 0, 0, 0, paris), 1, true},
		// On the deadline day: the e-credit may not have been paid yet.
		{"on the deadline day", time.Date(2016, 6, 23, 10, 0, 0, 0, paris), 0, true},
		// The first second after the draw date, Paris time (still 21 June in UTC).
		{"22 June 00:00 Paris", time.Date(2016, 6, 21, 22, 0, 0, 0, time.UTC), 0, true},
		// On the draw date: not valid on the draw date.
		{"21 June 23:59:59 Paris", time.Date(2016, 6, 21, 21, 59, 59, 0, time.UTC), 0, false},
		{"20 June", time.Date(2016, 6, 20, 9, 0, 0, 0, paris), 0, false},
		{"date unknown", time.Time{}, 0, false},
	} {
		el := tl.Eligibility(Closed{"paul": c.closedAt})
		n := 0
		el.ECredits(func(ECredit) error { n++; return nil })
		entered := slices.Equal(el.Entrants[0], []string{"paul"})
		if n != c.credits || entered != c.entered || el.WithheldEntries[0] != map[bool]int{true: 0, false: 1}[c.entered] {
			t.Errorf("closed %s: %d e-credits, entered %v (%d withheld); want %d, %v", c.name, n, entered, el.WithheldEntries[0], c.credits, c.entered)
		}
	}
}

// dstRules spans the last Sundays of March and October 2016 (27 March: 23 h;
// 30 October: 25 h in Europe/Paris).
func dstRules(t *testing.T) *Rules {
	t.Helper()
	src := `version: 1
operation: dst-test
title: DST
timezone: Europe/Paris
currency: EUR
channels: [web]
ranges: {g: [game]}
subscriptions: {subscription: counted, abo_plus: counted}
e_credit: {payment_within_days: 7, validity_days: 7}
days:
  - {date: 2016-03-26, range: g, minimum_cents: 100, e_credit_cents: 1}
  - {date: 2016-03-27, range: g, minimum_cents: 100, e_credit_cents: 1, draw: spring}
  - {date: 2016-03-28, range: g, minimum_cents: 100, e_credit_cents: 1}
  - {date: 2016-10-30, range: g, minimum_cents: 100, e_credit_cents: 1, draw: autumn}
  - {date: 2016-10-31, range: g, minimum_cents: 100, e_credit_cents: 1}
draws:
  - {id: spring, prize: p, date: 2016-04-01}
  - {id: autumn, prize: p, date: 2016-11-02}
`
	r, err := ParseRules([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestDSTDays(t *testing.T) {
	r := dstRules(t)
	for _, c := range []struct {
		at   string
		want string // participation day, or "" for none
	}{
		{"2016-03-26T22:59:59Z", "2016-03-26"}, // 23:59:59 CET
		{"2016-03-26T23:00:00Z", "2016-03-27"}, // 00:00:00 CET
		{"2016-03-27T01:59:59+01:00", "2016-03-27"},
		{"2016-03-27T03:00:00+02:00", "2016-03-27"}, // one second later: clocks jumped
		{"2016-03-27T21:59:59Z", "2016-03-27"},      // 23:59:59 CEST: the day lasted 23 hours
		{"2016-03-27T22:00:00Z", "2016-03-28"},
		{"2016-10-29T22:00:00Z", "2016-10-30"}, // 00:00 CEST
		{"2016-10-30T00:30:00Z", "2016-10-30"}, // 02:30 CEST
		{"2016-10-30T01:30:00Z", "2016-10-30"}, // 02:30 CET, the repeated hour
		{"2016-10-30T22:59:59Z", "2016-10-30"}, // 23:59:59 CET: the day lasted 25 hours
		{"2016-10-30T23:00:00Z", "2016-10-31"},
		{"2016-10-31T23:00:00Z", ""}, // after the last day
		{"2016-03-28T22:00:00Z", ""}, // 29 March: not a participation day
	} {
		at, err := time.Parse(time.RFC3339, c.at)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if i := r.DayIndex(at); i >= 0 {
			got = r.Days[i].Date
		}
		if got != c.want {
			t.Errorf("%s: day %q, want %q", c.at, got, c.want)
		}
	}
	// End to end through the tally: one stake in the repeated hour and one in the last second of 30 October.
	tl, rej := tally(t, r, []row{
		{"a", "x", "2016-10-30T02:30:00+01:00", "game", "50", "web"},
		{"b", "x", "2016-10-30T23:59:59+01:00", "game", "50", "web"},
		{"c", "y", "2016-10-30T23:00:00Z", "game", "100", "web"},
	})
	if len(rej) != 0 {
		t.Fatal(rej)
	}
	el := tl.Eligibility(nil)
	if !slices.Equal(el.Entrants[1], []string{"x"}) {
		t.Errorf("autumn entrants %v, want [x]", el.Entrants[1])
	}
}

func TestParseStakeFields(t *testing.T) {
	good := row{"1", "acc", "2016-06-16T10:00:00+02:00", "loto", "1", "web"}
	if _, err := ParseStake(good); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		field int
		value string
		name  string
	}{
		{0, "", "id"}, {1, "a b", "account"}, {2, "2016-06-16T10:00:00", "time"}, {3, "Loto", "game"},
		{4, "0", "amount_cents"}, {4, "-5", "amount_cents"}, {4, "100000000001", "amount_cents"}, {5, "", "channel"}, {6, "x", "kind"},
	} {
		f := good
		f[c.field] = c.value
		_, err := ParseStake(f)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != c.name {
			t.Errorf("field %d = %q: got %v, want an error on %s", c.field, c.value, err, c.name)
		}
	}
}

// Stake ids of any length are told apart exactly (short ones) or by 120
// bits of SHA-256 (long ones); a repeat is caught either way.
func TestDuplicateIDs(t *testing.T) {
	r, _ := loadExample(t)
	long := strings.Repeat("x", 40)
	ids := []string{"a", "a\x00", long, long + "y", strings.Repeat("z", 15), strings.Repeat("z", 16)}
	tl := NewTally(r)
	tl.Grow(100)
	for i, id := range ids {
		s, err := ParseStake(row{id, "acc", "2016-06-16T10:00:00+02:00", "loto", "100", "web"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tl.Add(i+1, &s); err != nil {
			t.Fatalf("id %q: %v", id, err)
		}
	}
	for i, id := range ids {
		s, _ := ParseStake(row{id, "acc", "2016-06-16T10:00:00+02:00", "loto", "100", "web"})
		_, err := tl.Add(100+i, &s)
		var de *DuplicateError
		if !errors.As(err, &de) || de.FirstLine != i+1 {
			t.Fatalf("repeat of %q: %v", id, err)
		}
	}
	if tl.Total("acc", 3) != 600 {
		t.Fatalf("total %d, want 600", tl.Total("acc", 3))
	}
}

// Art. 2.2 sets the subscription and Abo+ conditions "Pour les jeux de tirage
// Loto®, JOKER+® et Euro Millions - My Million" only: on the other games of
// the operation (Bingo Live!®, the illiko® range) a subscription or Abo+
// stake counts like any other stake. A rules file without
// subscriptions.games applies the policies to every game, as before.
func TestSubscriptionGames(t *testing.T) {
	r, src := loadExample(t)
	rows := []row{
		// Friday 17 (Bingo Live ≥ 12 €): subscribed on Wednesday, debited the next day.
		{"b1", "bea", "2016-06-17T20:00:00+02:00", "bingo-live", "1200", "web", "subscription", "2016-06-15T19:00:00+02:00"},
		{"b2", "ben", "2016-06-17T23:30:00+02:00", "bingo-live", "1200", "web", "abo+", "", "2016-06-18T00:30:00+02:00"},
		// Saturday 18 (illiko ≥ 15 €).
		{"i1", "ida", "2016-06-18T12:00:00+02:00", "illiko-action", "1500", "web", "subscription", "2016-06-01T12:00:00+02:00"},
		// Thursday 16 (Loto) and Wednesday 15 (Euro Millions): the conditions apply.
		{"l1", "leo", "2016-06-16T20:00:00+02:00", "loto-joker-plus", "1200", "web", "subscription", "2016-06-15T19:00:00+02:00"},
		{"l2", "lou", "2016-06-16T23:30:00+02:00", "loto", "1200", "web", "abo+", "", "2016-06-17T00:30:00+02:00"},
		{"e1", "eve", "2016-06-15T20:00:00+02:00", "euromillions-my-million", "1000", "web", "subscription", "2016-06-14T19:00:00+02:00"},
		{"e2", "eli", "2016-06-15T20:00:00+02:00", "euromillions-my-million", "1000", "web", "abo+", "", "2016-06-15T21:00:00+02:00"},
	}
	tl, rej := tally(t, r, rows)
	if len(rej) != 0 {
		t.Fatal(rej)
	}
	el := tl.Eligibility(nil)
	if !slices.Equal(el.Entrants[1], []string{"bea", "ben"}) || !slices.Equal(el.Entrants[2], []string{"ida"}) || len(el.Entrants[0]) != 0 {
		t.Errorf("entrants: draw 1 %v, draw 2 %v, draw 3 %v; want none, [bea ben], [ida]", el.Entrants[0], el.Entrants[1], el.Entrants[2])
	}
	if el.Participants[2] != 1 || tl.Total("eli", 2) != 1000 || tl.Total("eve", 2) != 0 {
		t.Errorf("Wednesday: %d participants (eli %d, eve %d), want 1 (eli)", el.Participants[2], tl.Total("eli", 2), tl.Total("eve", 2))
	}
	if got := tl.Excluded; got[SubscriptionOtherDay] != 2 || got[AboPlusOtherDay] != 1 {
		t.Errorf("exclusions %v, want 2 subscriptions and 1 Abo+ stake of another day", got)
	}

	// Without the list: every game, as before the list existed.
	all, err := ParseRules([]byte(strings.Replace(string(src), "  games: [loto, loto-joker-plus, loto-multi-options, loto-joker-plus-multi-options, euromillions-my-million]\n", "", 1)))
	if err != nil {
		t.Fatal(err)
	}
	tl, _ = tally(t, all, rows)
	el = tl.Eligibility(nil)
	if len(el.Entrants[1])+len(el.Entrants[2]) != 0 || tl.Excluded[SubscriptionOtherDay] != 4 || tl.Excluded[AboPlusOtherDay] != 2 {
		t.Errorf("policies on every game: entrants %v %v, exclusions %v", el.Entrants[1], el.Entrants[2], tl.Excluded)
	}
}
