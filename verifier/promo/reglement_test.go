package promo

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"testing"
	"time"
)

// The operator's published rules (« Bonus Crescendo », additif, articles 2
// and 3), transcribed here independently of examples/bonus-crescendo.yaml:
// art. 2.1 and 3.2.1 (days, games, minimum totals, e-credits), 2.2
// (subscriptions), 2.4 and 3.3 (draws, prizes), 3.2.2 (payment and validity).
// The example must say the same to the cent and to the day.
var reglement = struct {
	days []struct {
		date    string
		weekday time.Weekday
		games   []string
		minimum int64 // cents: « d'un montant minimum total de … euros »
		credit  int64 // cents: « recevront un e-crédit d'un montant de … euros »
		draw    string
	}
	draws []struct {
		id, title     string
		value         int64 // cents: « d'une valeur de 2 000 € TTC », « un lot de 5 000 euros »
		date, latest  string
		weekdayOfDate time.Weekday
	}
}{
	days: []struct {
		date    string
		weekday time.Weekday
		games   []string
		minimum int64
		credit  int64
		draw    string
	}{
		{"2016-06-13", time.Monday, illiko, 10_00, 5_00, ""},
		{"2016-06-14", time.Tuesday, []string{"bingo-live"}, 10_00, 5_00, ""},
		{"2016-06-15", time.Wednesday, []string{"euromillions-my-million"}, 10_00, 5_00, ""},
		{"2016-06-16", time.Thursday, loto, 12_00, 6_00, "1"},
		{"2016-06-17", time.Friday, []string{"bingo-live"}, 12_00, 6_00, "2"},
		{"2016-06-18", time.Saturday, illiko, 15_00, 8_00, "3"},
		{"2016-06-19", time.Sunday, []string{"bingo-live"}, 15_00, 8_00, "4"},
	},
	draws: []struct {
		id, title     string
		value         int64
		date, latest  string
		weekdayOfDate time.Weekday
	}{
		// « le mardi 21 juin 2016 » or « dans un délai de 30 jours »: 21 June + 30 days.
		{"1", "Tirage au sort n° 1", 2000_00, "2016-06-21", "2016-07-21", time.Tuesday},
		{"2", "Tirage au sort n° 2", 2000_00, "2016-06-21", "2016-07-21", time.Tuesday},
		{"3", "Tirage au sort n° 3", 5000_00, "2016-06-21", "2016-07-21", time.Tuesday},
		{"4", "Tirage au sort n° 4", 5000_00, "2016-06-21", "2016-07-21", time.Tuesday},
	},
}

var (
	// « gamme illiko® »: illiko® Grattage, illiko® Express, illiko® Action.
	illiko = []string{"illiko-action", "illiko-express", "illiko-grattage"}
	// « Loto® (avec ou sans Joker+® et avec ou sans Multi Options) »; JOKER+® alone is not Loto®.
	loto = []string{"loto", "loto-joker-plus", "loto-joker-plus-multi-options", "loto-multi-options"}
)

func TestExampleIsTheReglement(t *testing.T) {
	r, _ := loadExample(t)
	if r.Timezone != "Europe/Paris" || r.Currency != "EUR" { // « heures métropolitaines »
		t.Errorf("zone %s, currency %s", r.Timezone, r.Currency)
	}
	if len(r.Days) != len(reglement.days) || len(r.Draws) != len(reglement.draws) {
		t.Fatalf("%d days, %d draws; the rules have %d, %d", len(r.Days), len(r.Draws), len(reglement.days), len(reglement.draws))
	}
	var most int64
	for i, w := range reglement.days {
		d := r.Days[i]
		date, _ := time.Parse(time.DateOnly, d.Date)
		games := slices.Sorted(slices.Values(r.Ranges[d.Range]))
		if d.Date != w.date || date.Weekday() != w.weekday || !slices.Equal(games, w.games) ||
			d.MinimumCents != w.minimum || d.ECreditCents != w.credit || d.Draw != w.draw {
			t.Errorf("day %d: %s (%s) %v ≥ %d → %d, draw %q; the rules: %s (%s) %v ≥ %d → %d, draw %q",
				i, d.Date, date.Weekday(), games, d.MinimumCents, d.ECreditCents, d.Draw, w.date, w.weekday, w.games, w.minimum, w.credit, w.draw)
		}
		most += w.credit
	}
	if most != 43_00 {
		t.Errorf("at most %d cents of e-credits per account, want 4300", most)
	}
	for j, w := range reglement.draws {
		d := r.Draws[j]
		date, _ := time.Parse(time.DateOnly, d.Date)
		if d.ID != w.id || d.Title != w.title || d.ValueCents != w.value || d.Date != w.date || d.LatestDate != w.latest || date.Weekday() != w.weekdayOfDate {
			t.Errorf("draw %d: %+v; the rules: %+v", j, d, w)
		}
	}
	// Art. 3.2.2: paid « dans les 7 jours suivant la date de la prise de jeu »,
	// valid « pendant un délai de 1 semaine suivant la date de son versement ».
	if r.ECredit.PaymentWithinDays != 7 || r.ECredit.ValidityDays != 7 {
		t.Errorf("e-credit delays %+v, want 7 and 7", r.ECredit)
	}
	// Art. 2.1: web sites, mobile and tablet portals, apps; not retail.
	if slices.Contains(r.Channels, "retail") || len(r.Channels) != 4 {
		t.Errorf("channels %v", r.Channels)
	}
	// Art. 2.2: « Pour les jeux de tirage Loto®, JOKER+® et Euro Millions - My Million ».
	sub := slices.Sorted(slices.Values(r.Subscriptions.Games))
	if want := append(slices.Clone(loto), "euromillions-my-million"); !slices.Equal(sub, slices.Sorted(slices.Values(want))) ||
		r.Subscriptions.Subscription != SubscribedSameDay || r.Subscriptions.AboPlus != RecordedDebitedSameDay {
		t.Errorf("subscriptions %+v", r.Subscriptions)
	}
}

// Each day on its own: the minimum total is reached at exactly the minimum,
// on any game of the day's range, by stakes adding up, from 00:00:00 to
// the last instant before 24:00 Paris time; a cent short, another day's
// game, retail, or the next day's first instant is not enough. One
// e-credit of the day's amount, one entry in the day's draw.
func TestReglementEachDay(t *testing.T) {
	r, _ := loadExample(t)
	for i, w := range reglement.days {
		var rows []row
		id := 0
		add := func(acct, at, game string, cents int64, channel string) {
			id++
			rows = append(rows, row{fmt.Sprint(id), acct, at, game, fmt.Sprint(cents), channel})
		}
		day := w.date
		next := dateAfter(day, 1)
		for _, g := range w.games {
			add("exact-"+g, day+"T00:00:00+02:00", g, w.minimum, "web")
		}
		add("split", day+"T08:00:00+02:00", w.games[0], w.minimum-1, "mobile")
		add("split", day+"T23:59:59.999999999+02:00", w.games[len(w.games)-1], 1, "app")
		add("short", day+"T12:00:00+02:00", w.games[0], w.minimum-1, "web")
		add("late", next+"T00:00:00+02:00", w.games[0], w.minimum, "web")
		add("retail", day+"T12:00:00+02:00", w.games[0], w.minimum, "retail")
		other := "joker-plus" // JOKER+® alone is no game of any day
		if !slices.Contains(w.games, "bingo-live") {
			other = "bingo-live"
		}
		add("other", day+"T12:00:00+02:00", other, 1_000_00, "web")
		tl, rej := tally(t, r, rows)
		if len(rej) != 0 {
			t.Fatal(rej)
		}
		el := tl.Eligibility(nil)
		want := []string{"split"}
		for _, g := range w.games {
			want = append(want, "exact-"+g)
		}
		slices.Sort(want)
		var got []string
		el.ECredits(func(c ECredit) error {
			if c.Day == i {
				if c.AmountCents != w.credit || c.PaymentDeadline != dateAfter(day, 7) || c.ValidityEnd != dateAfter(day, 14) {
					t.Errorf("%s: e-credit %+v", day, c)
				}
				got = append(got, c.Account)
			}
			return nil
		})
		if !slices.Equal(got, want) || el.Participants[i] != len(want) {
			t.Errorf("%s: e-credits to %v (%d participants), want %v", day, got, el.Participants[i], want)
		}
		if w.draw != "" {
			j := r.DrawIndex(w.draw)
			if !slices.Equal(el.Entrants[j], want) {
				t.Errorf("%s: draw %s entrants %v, want %v", day, w.draw, el.Entrants[j], want)
			}
		}
	}
}

// The rules name one winner per draw and no reserve: the reserves the
// operator ranks must not change who wins. The winner is the first pick of
// the same stream whatever the number of picks.
func TestWinnerIndependentOfReserves(t *testing.T) {
	for s := range 2000 {
		beta := sha256.Sum256([]byte(fmt.Sprint("beta ", s)))
		n := uint64(1 + s*7919%20000)
		alone, err := Picks(beta[:], 1, n)
		if err != nil {
			t.Fatal(err)
		}
		ranked, err := Picks(beta[:], Ranked(3, n), n)
		if err != nil {
			t.Fatal(err)
		}
		if ranked[0] != alone[0] {
			t.Fatalf("n = %d: winner %d alone, %d with reserves", n, alone[0], ranked[0])
		}
	}
}

// A day without an e-credit (e_credit_cents: 0) withholds none: the count of
// e-credits withheld from closed accounts is of e-credits owed, so that for
// every day participants = e-credits paid + e-credits withheld, or no
// e-credit at all.
func TestWithheldECreditsOnlyWhereOwed(t *testing.T) {
	src := `version: 1
operation: no-credit
title: a day without e-credit
timezone: Europe/Paris
currency: EUR
channels: [web]
ranges: {g: [game]}
subscriptions: {subscription: counted, abo_plus: counted}
e_credit: {payment_within_days: 7, validity_days: 7}
days:
  - {date: 2016-06-13, range: g, minimum_cents: 1000, e_credit_cents: 500}
  - {date: 2016-06-14, range: g, minimum_cents: 1000, e_credit_cents: 0, draw: "1"}
draws:
  - {id: "1", prize: p, date: 2016-06-21}
`
	r, err := ParseRules([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	tl, rej := tally(t, r, []row{
		{"1", "open", "2016-06-13T10:00:00+02:00", "game", "1000", "web"},
		{"2", "open", "2016-06-14T10:00:00+02:00", "game", "1000", "web"},
		{"3", "shut", "2016-06-13T10:00:00+02:00", "game", "1000", "web"},
		{"4", "shut", "2016-06-14T10:00:00+02:00", "game", "1000", "web"},
	})
	if len(rej) != 0 {
		t.Fatal(rej)
	}
	el := tl.Eligibility(Closed{"shut": time.Date(2016, 6, 15, 0, 0, 0, 0, time.UTC)})
	paid := make([]int, len(r.Days))
	el.ECredits(func(c ECredit) error { paid[c.Day]++; return nil })
	for i, d := range r.Days {
		owed := 0
		if d.ECreditCents > 0 {
			owed = el.Participants[i]
		}
		if paid[i]+el.WithheldECredits[i] != owed {
			t.Errorf("%s (e-credit %d cents): %d participants, %d e-credits paid, %d withheld; want paid + withheld = %d",
				d.Date, d.ECreditCents, el.Participants[i], paid[i], el.WithheldECredits[i], owed)
		}
	}
	if el.WithheldEntries[0] != 1 || !slices.Equal(el.Entrants[0], []string{"open"}) {
		t.Errorf("draw: entrants %v, %d withheld", el.Entrants[0], el.WithheldEntries[0])
	}
}
