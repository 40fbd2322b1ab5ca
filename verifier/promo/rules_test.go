package promo

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func loadExample(t testing.TB) (*Rules, []byte) {
	t.Helper()
	data, err := os.ReadFile("../../examples/bonus-crescendo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r, err := ParseRules(data)
	if err != nil {
		t.Fatalf("example rules: %v", err)
	}
	return r, data
}

func TestExampleRules(t *testing.T) {
	r, _ := loadExample(t)
	if len(r.Days) != 7 || len(r.Draws) != 4 {
		t.Fatalf("got %d days, %d draws; want 7, 4", len(r.Days), len(r.Draws))
	}
	for j, want := range []string{"2016-06-16", "2016-06-17", "2016-06-18", "2016-06-19"} {
		dd := r.DrawDays(j)
		if len(dd) != 1 || r.Days[dd[0]].Date != want {
			t.Errorf("draw %d fed by %v, want %s", j+1, dd, want)
		}
	}
	if got := r.PaymentDeadline(0); got != "2016-06-20" {
		t.Errorf("payment deadline of 13 June = %s, want 2016-06-20", got)
	}
	if got := r.ValidityEnd(0); got != "2016-06-27" {
		t.Errorf("validity end = %s, want 2016-06-27", got)
	}
	if r.FullDrawID(0) != "bonus-crescendo/1" {
		t.Errorf("draw id %q", r.FullDrawID(0))
	}
}

// Every invalid rules file gets errors naming the line and the field.
func TestRulesErrors(t *testing.T) {
	_, base := loadExample(t)
	src := string(base)
	cases := []struct {
		name, old, new string
		line           int
		field, msg     string
	}{
		{"bad zone", "timezone: Europe/Paris", "timezone: Europe/Pariss", 7, "timezone", "unknown time zone"},
		{"negative minimum", "minimum_cents: 1200, e_credit_cents: 600, draw: \"1\"", "minimum_cents: -5, e_credit_cents: 600, draw: \"1\"", 37, "days[3].minimum_cents", "between 1"},
		{"unknown range", "range: euromillions-my-million,", "range: euromillion,", 36, "days[2].range", "unknown range"},
		{"unknown draw", "draw: \"4\"}", "draw: \"9\"}", 40, "days[6].draw", "unknown draw"},
		{"bad date", "date: 2016-06-14,", "date: 2016-06-31,", 35, "days[1].date", "YYYY-MM-DD"},
		{"unknown field", "    reserves: 3\n  - id: \"2\"", "    reservez: 3\n  - id: \"2\"", 57, "reservez", "unknown field"},
		{"subscription policy", "subscription: subscribed-same-day", "subscription: sometimes", 25, "subscriptions.subscription", "must be"},
		{"subscription game in no range", "euromillions-my-million]\n  subscription:", "euromillion]\n  subscription:", 24, "subscriptions.games[4]", "in no range"},
		{"wrong type", "validity_days: 7", "validity_days: seven", 31, "e_credit.validity_days", "decimal integer"},
		{"wrong type elsewhere", "title: \"Opération « Bonus Crescendo »\"", "title: [a, b]", 6, "(value)", "cannot unmarshal"},
		{"draw before its day", "    date: 2016-06-21\n    latest_date: 2016-07-21\n    reserves: 3\n  - id: \"4\"", "    date: 2016-06-18\n    latest_date: 2016-07-21\n    reserves: 3\n  - id: \"4\"", 69, "draws[2].date", "on or before"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(src, c.old) {
				t.Fatalf("fixture text %q not in the example", c.old)
			}
			_, err := ParseRules([]byte(strings.Replace(src, c.old, c.new, 1)))
			if err == nil {
				t.Fatal("accepted")
			}
			errs := RulesErrors(err)
			if len(errs) == 0 {
				t.Fatalf("no RulesError in %v", err)
			}
			for _, e := range errs {
				if e.Field == c.field && e.Line == c.line && strings.Contains(e.Msg, c.msg) {
					return
				}
			}
			t.Errorf("want line %d field %s (%q); got %v", c.line, c.field, c.msg, err)
		})
	}
}

func TestRulesSyntaxError(t *testing.T) {
	_, err := ParseRules([]byte("version: 1\noperation: [x\n"))
	errs := RulesErrors(err)
	if len(errs) != 1 || errs[0].Line == 0 {
		t.Fatalf("want one located error, got %v", err)
	}
	if _, err := ParseRules(nil); err == nil {
		t.Fatal("empty file accepted")
	}
}

func FuzzParseRules(f *testing.F) {
	data, err := os.ReadFile("../../examples/bonus-crescendo.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(bytes.Replace(data, []byte("    reserves: 3\n"), []byte("    reserves: 3\n    beacon: {chain: quicknet, round: 123}\n"), 1))
	f.Add(bytes.Replace(data, []byte("    reserves: 3\n"), []byte("    reserves: 3\n    beacon: {source: drand, round: 0}\n"), 1))
	f.Add(bytes.Replace(data, []byte("minimum_cents: 1200,"), []byte("minimum_cents: 01200,"), 1))
	f.Add(bytes.Replace(data, []byte("  - {date: 2016-06-13,"), []byte("  - &d {date: 2016-06-13,"), 1))
	f.Add(append(bytes.Clone(data), "---\nversion: 1\n"...))
	f.Add([]byte("version: 1\n"))
	f.Add([]byte("days: [{date: 2016-03-27}]\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseRules(b)
		if err != nil {
			for _, e := range RulesErrors(err) {
				if e.Field == "" {
					t.Fatalf("error without a field: %v", e)
				}
			}
			return
		}
		// A valid file gives a usable plan.
		for i := range r.Days {
			if r.DayIndex(r.DayStart(i)) != i {
				t.Fatalf("day %d does not contain its own midnight", i)
			}
		}
	})
}
