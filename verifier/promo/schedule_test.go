package promo

import (
	"errors"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/record"
)

func freezeOf(t *testing.T, leaf string) *record.PromoFreeze {
	t.Helper()
	r, err := record.Parse([]byte(leaf))
	f, ok := r.(*record.PromoFreeze)
	if err != nil || !ok {
		t.Fatalf("not a freeze record: %v", err)
	}
	return f
}

// Art. 2.1: the participation period runs "du lundi 13 juin 2016 (à 00 h 00)
// au dimanche 19 juin 2016 (à 23 h 59)"; art. 2.4: the draws are held "le
// mardi 21 juin 2016" or, if that date cannot be kept, "dans un délai de 30
// jours" — by 21 July included. Dates are Paris time ("heures
// métropolitaines"): the window's edges are 22:00 UTC the day before.
func TestBonusCrescendoSchedule(t *testing.T) {
	r, _ := loadExample(t)
	utc := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for j := range r.Draws {
		if got := r.FreezeFrom(j); !got.Equal(utc("2016-06-19T22:00:00Z")) {
			t.Errorf("draw %d: freeze from %s, want 2016-06-19T22:00:00Z (20 June 00:00 Paris)", j, FormatTime(got))
		}
		from, until := r.DrawWindow(j)
		if !from.Equal(utc("2016-06-20T22:00:00Z")) || !until.Equal(utc("2016-07-21T22:00:00Z")) {
			t.Errorf("draw %d: window %s to %s", j, FormatTime(from), FormatTime(until))
		}
	}
	for _, c := range []struct {
		at   string
		want string // "" or a part of the error
	}{
		{"2016-06-19T10:00:00Z", "draw bonus-crescendo/4 was frozen at 2016-06-19T10:00:00Z, before its participation period ended (2016-06-19 at 24:00, Europe/Paris time, i.e. 2016-06-19T22:00:00Z)"}, // 12:00 Paris: that afternoon's players left out
		{"2016-06-19T23:59:59+02:00", "before its participation period ended"},
		{"2016-06-20T00:00:00+02:00", ""},
		{"2016-06-19T22:00:00Z", ""}, // the same instant
		{"2016-08-30T10:00:00+02:00", ""},
	} {
		err := r.CheckFreezeTime(3, utc(c.at))
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("freeze at %s: %v, want %q", c.at, err, c.want)
		}
	}
	for _, c := range []struct {
		at   string
		want string
	}{
		{"2016-06-20T23:59:59+02:00", "draw bonus-crescendo/1 was held at 2016-06-20T21:59:59Z (2016-06-20, Europe/Paris time), outside the dates the rules allow (2016-06-21 to 2016-07-21)"},
		{"2016-06-21T00:00:00+02:00", ""},
		{"2016-06-21T10:30:00+02:00", ""},
		{"2016-07-21T23:59:59+02:00", ""},                           // the 30th day, to its end
		{"2016-07-21T22:00:00Z", "(2016-07-22, Europe/Paris time)"}, // 22 July 00:00 Paris, still 21 July in UTC
		{"2016-08-30T10:00:00+02:00", "held at 2016-08-30T08:00:00Z (2016-08-30, Europe/Paris time), outside the dates the rules allow (2016-06-21 to 2016-07-21)"},
	} {
		err := r.CheckDrawTime(0, utc(c.at))
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("ceremony at %s: %v, want %q", c.at, err, c.want)
		}
	}
}

// Without latest_date a draw is held on its date only; a draw scheduled
// while the participation period still runs is frozen after its own days.
func TestScheduleOtherShapes(t *testing.T) {
	r := dstRules(t) // spring draw 1 April, fed by 27 March; period to 31 October
	if got := r.FreezeFrom(0); got.Format(time.RFC3339) != "2016-03-28T00:00:00+02:00" {
		t.Errorf("spring draw frozen from %s, want the end of 27 March", got.Format(time.RFC3339))
	}
	if got := r.FreezeFrom(1); got.Format(time.RFC3339) != "2016-11-01T00:00:00+01:00" {
		t.Errorf("autumn draw frozen from %s, want the end of the period", got.Format(time.RFC3339))
	}
	from, until := r.DrawWindow(1)
	if from.Format(time.RFC3339) != "2016-11-02T00:00:00+01:00" || until.Format(time.RFC3339) != "2016-11-03T00:00:00+01:00" {
		t.Errorf("autumn window %s to %s, want 2 November only", from.Format(time.RFC3339), until.Format(time.RFC3339))
	}
	if err := r.CheckDrawTime(1, until); err == nil || !strings.Contains(err.Error(), "(2016-11-02 to 2016-11-02)") {
		t.Errorf("autumn draw on 3 November: %v", err)
	}
}

// A certificate verified with the rules file fails draw-dates when the list
// was frozen before the participation period ended or the ceremony was held
// outside [date, latest_date], in English and French; the public checks
// (without the rules) cannot know the dates. The ceremony itself, given the
// rules file, refuses to run.
func TestCertificateDates(t *testing.T) {
	paris, _ := time.LoadLocation("Europe/Paris")
	at := func(m time.Month, d, h, min int) time.Time { return time.Date(2016, m, d, h, min, 0, 0, paris) }
	for _, c := range []struct {
		name          string
		frozen, drawn time.Time
		en, fr        string
	}{
		{"in time", at(6, 20, 9, 0), at(6, 21, 10, 30), "", ""},
		{"postponed, last day", at(6, 20, 9, 0), at(7, 21, 23, 59), "", ""},
		{"frozen on 19 June at noon", at(6, 19, 12, 0), at(6, 21, 10, 30),
			"draw bonus-crescendo/1 was frozen at 2016-06-19T10:00:00Z, before its participation period ended (2016-06-19 at 24:00, Europe/Paris time, i.e. 2016-06-19T22:00:00Z)",
			"le tirage bonus-crescendo/1 a été gelé le 2016-06-19T10:00:00Z, avant la fin de sa période de participation (le 2016-06-19 à 24 h, heure de Europe/Paris, soit 2016-06-19T22:00:00Z)"},
		{"held on 30 August", at(6, 20, 9, 0), at(8, 30, 10, 0),
			"draw bonus-crescendo/1 was held at 2016-08-30T08:00:00Z (2016-08-30, Europe/Paris time), outside the dates the rules allow (2016-06-21 to 2016-07-21)",
			"le tirage bonus-crescendo/1 a eu lieu le 2016-08-30T08:00:00Z (le 2016-08-30, heure de Europe/Paris), hors des dates que permet le règlement (du 2016-06-21 au 2016-07-21)"},
		{"held on 22 July at midnight", at(6, 20, 9, 0), at(7, 22, 0, 0), "outside the dates the rules allow", ""},
		{"held the day before", at(6, 20, 9, 0), at(6, 20, 23, 0), "outside the dates the rules allow", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := runFlowAt(t, accounts(20), "text:huissier Maître Dupont", 3, "", nil, c.frozen, c.drawn)
			if _, err := Verify(f.cert, f.list, Anchors{Reserves: 3}); err != nil {
				t.Fatalf("without the rules: %v", err)
			}
			_, err := Verify(f.cert, f.list, Anchors{Rules: f.rules, Reserves: 3})
			if c.en == "" {
				if err != nil {
					t.Fatalf("with the rules: %v", err)
				}
				return
			}
			var ce *CheckError
			if !errors.As(err, &ce) || ce.Check != CheckDates || !strings.Contains(ce.Error(), c.en) || !strings.Contains(ce.Msg.Text("en"), c.en) {
				t.Fatalf("got %v, want %s failing with %q", err, CheckDates, c.en)
			}
			if c.fr != "" && ce.Msg.Text("fr") != c.fr {
				t.Errorf("French: %q, want %q", ce.Msg.Text("fr"), c.fr)
			}
			// The same ceremony, given the rules file, is refused.
			list := f.list
			tree, _ := list.Tree()
			var r [32]byte
			(&detReader{ctr: 9}).Read(r[:])
			var cert Certificate
			mustUnmarshal(t, f.cert, &cert)
			fr := freezeOf(t, cert.Freeze.Record)
			cer := &Ceremony{Freeze: fr, Tree: tree, R: r, Share: "text:huissier Maître Dupont", KeyID: "vrf-test", Prover: f.prover, Now: c.drawn, RulesFile: f.rules}
			if _, err := cer.Run(); err == nil || !strings.Contains(err.Error(), c.en) {
				t.Fatalf("ceremony with the rules file: %v, want %q", err, c.en)
			}
			cer.RulesFile = nil
			if _, err := cer.Run(); err != nil {
				t.Fatalf("ceremony without the rules file: %v", err)
			}
		})
	}
}

// The ceremony refuses a rules file that is not the frozen one.
func TestCeremonyOtherRules(t *testing.T) {
	f := runFlow(t, accounts(5), "text:12345678", 0)
	var cert Certificate
	mustUnmarshal(t, f.cert, &cert)
	fr := freezeOf(t, cert.Freeze.Record)
	tree, _ := f.list.Tree()
	var r [32]byte
	(&detReader{ctr: 9}).Read(r[:])
	other := append([]byte("# another file\n"), f.rules...)
	c := &Ceremony{Freeze: fr, Tree: tree, R: r, Share: "text:12345678", KeyID: "vrf-test", Prover: f.prover, Now: fr.Time.Add(40 * time.Hour), RulesFile: other}
	if _, err := c.Run(); err == nil || !strings.Contains(err.Error(), "the rules file hashes to") {
		t.Fatalf("other rules file: %v", err)
	}
}
