package promo

import (
	"strings"
	"testing"
	"time"
)

// Where daylight saving time starts at midnight, local midnight does not
// exist on that date: on 16 October 2016 São Paulo went from 23:59:59 -03
// on the 15th to 01:00 -02 on the 16th. "De 00 h 00 à 23 h 59" then means
// that the 15th lasts until 01:00 -02 (03:00 UTC) and the 16th starts
// there, not at 23:00 -03 on the 15th, where time.Date puts the missing
// midnight.
func saoPauloRules(t *testing.T, day, draw string) *Rules {
	t.Helper()
	src := `version: 1
operation: midnight-test
title: DST at midnight
timezone: America/Sao_Paulo
currency: BRL
channels: [web]
ranges: {g: [g]}
subscriptions: {subscription: counted, abo_plus: counted}
e_credit: {payment_within_days: 7, validity_days: 7}
days:
  - {date: ` + day + `, range: g, minimum_cents: 1000, e_credit_cents: 0, draw: "1"}
draws:
  - {id: "1", prize: p, date: ` + draw + `}
`
	r, err := ParseRules([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The reviewer's reproduction: the last participation day is followed by a
// day without midnight.
func TestDayEndBeforeMidnightlessDay(t *testing.T) {
	r := saoPauloRules(t, "2016-10-15", "2016-10-18")
	s, err := ParseStake([9]string{"s1", "alice", "2016-10-15T23:30:00-03:00", "g", "1000", "web"})
	if err != nil {
		t.Fatal(err)
	}
	if day, why := r.Classify(&s); day != 0 {
		t.Errorf("stake at 23:30 -03 on the last day: day %d (%v), want 0", day, why)
	}
	for _, c := range []struct {
		at   string
		want int
	}{
		{"2016-10-15T00:00:00-03:00", 0},
		{"2016-10-15T23:00:00-03:00", 0},
		{"2016-10-15T23:59:59-03:00", 0},
		{"2016-10-16T01:00:00-02:00", -1}, // 16 October starts here
		{"2016-10-14T23:59:59-03:00", -1},
	} {
		if got := r.DayIndex(mustTime(t, c.at)); got != c.want {
			t.Errorf("DayIndex(%s) = %d, want %d", c.at, got, c.want)
		}
	}
	want := mustTime(t, "2016-10-16T03:00:00Z")
	if got := r.FreezeFrom(0); !got.Equal(want) {
		t.Errorf("FreezeFrom = %s, want %s", FormatTime(got), FormatTime(want))
	}
	err = r.CheckFreezeTime(0, mustTime(t, "2016-10-16T02:30:00Z"))
	if err == nil || !strings.Contains(err.Error(), "(2016-10-15 at 24:00, America/Sao_Paulo time, i.e. 2016-10-16T03:00:00Z)") {
		t.Errorf("frozen at 23:30 -03 on the last day: %v", err)
	}
	if err := r.CheckFreezeTime(0, want); err != nil {
		t.Errorf("frozen at 01:00 -02 on 16 October: %v", err)
	}
}

// A date on which midnight does not exist is a date: parseDate accepts it
// (it refused it, "must be a date YYYY-MM-DD") and gives its first instant.
func TestParseDateMidnightless(t *testing.T) {
	for _, c := range []struct{ zone, date, start string }{
		{"America/Sao_Paulo", "2016-10-16", "2016-10-16T01:00:00-02:00"},
		{"America/Santiago", "2016-08-14", "2016-08-14T01:00:00-03:00"},
		{"America/Havana", "2016-03-13", "2016-03-13T01:00:00-04:00"},
		{"Europe/Paris", "2016-03-27", "2016-03-27T00:00:00+01:00"},
	} {
		loc, err := time.LoadLocation(c.zone)
		if err != nil {
			t.Fatal(err)
		}
		r := &Rules{loc: loc}
		got, ok := r.parseDate(c.date)
		if !ok || got.Format(time.RFC3339) != c.start {
			t.Errorf("%s: parseDate(%s) = %s, %v; want %s", c.zone, c.date, got.Format(time.RFC3339), ok, c.start)
		}
	}
	r := saoPauloRules(t, "2016-10-16", "2016-10-17")
	for _, bad := range []string{"2016-10-32", "2016-02-30", "16-10-16", "2016-10-16T00:00", ""} {
		if _, ok := r.parseDate(bad); ok {
			t.Errorf("parseDate(%q) accepted", bad)
		}
	}
}

func TestMidnightlessDayStart(t *testing.T) {
	r := saoPauloRules(t, "2016-10-16", "2016-10-17")
	start := mustTime(t, "2016-10-16T01:00:00-02:00")
	if got := r.DayStart(0); !got.Equal(start) || got.Format(time.RFC3339) != "2016-10-16T01:00:00-02:00" {
		t.Errorf("DayStart = %s, want 2016-10-16T01:00:00-02:00", got.Format(time.RFC3339))
	}
	for _, c := range []struct {
		at   string
		want int
	}{
		{"2016-10-15T23:59:59-03:00", -1},
		{"2016-10-16T01:00:00-02:00", 0},
		{"2016-10-16T23:59:59-02:00", 0},
		{"2016-10-17T00:00:00-02:00", -1},
	} {
		if got := r.DayIndex(mustTime(t, c.at)); got != c.want {
			t.Errorf("DayIndex(%s) = %d, want %d", c.at, got, c.want)
		}
	}
	if got := r.FreezeFrom(0); !got.Equal(mustTime(t, "2016-10-17T00:00:00-02:00")) {
		t.Errorf("FreezeFrom = %s", FormatTime(got))
	}
	if from, until := r.DrawWindow(0); !from.Equal(mustTime(t, "2016-10-17T00:00:00-02:00")) || !until.Equal(mustTime(t, "2016-10-18T00:00:00-02:00")) {
		t.Errorf("DrawWindow = %s, %s", FormatTime(from), FormatTime(until))
	}
	if r.PaymentDeadline(0) != "2016-10-23" || r.ValidityEnd(0) != "2016-10-30" {
		t.Errorf("payment deadline %s, validity end %s", r.PaymentDeadline(0), r.ValidityEnd(0))
	}
}

// A draw whose window ends, or starts, at a missing midnight: Santiago
// (14 August 2016) and Havana (13 March 2016).
func TestDrawWindowMidnightless(t *testing.T) {
	for _, c := range []struct {
		zone, day, draw, latest string
		from, until             string
	}{
		{"America/Santiago", "2016-08-10", "2016-08-13", "2016-08-13", "2016-08-13T00:00:00-04:00", "2016-08-14T01:00:00-03:00"},
		{"America/Santiago", "2016-08-10", "2016-08-14", "2016-08-15", "2016-08-14T01:00:00-03:00", "2016-08-16T00:00:00-03:00"},
		{"America/Havana", "2016-03-10", "2016-03-12", "2016-03-12", "2016-03-12T00:00:00-05:00", "2016-03-13T01:00:00-04:00"},
	} {
		src := `version: 1
operation: midnight-test
title: DST at midnight
timezone: ` + c.zone + `
currency: USD
channels: [web]
ranges: {g: [g]}
subscriptions: {subscription: counted, abo_plus: counted}
e_credit: {payment_within_days: 7, validity_days: 7}
days:
  - {date: ` + c.day + `, range: g, minimum_cents: 1000, e_credit_cents: 0, draw: "1"}
draws:
  - {id: "1", prize: p, date: ` + c.draw + `, latest_date: ` + c.latest + `}
`
		r, err := ParseRules([]byte(src))
		if err != nil {
			t.Errorf("%s: %v", c.zone, err)
			continue
		}
		from, until := r.DrawWindow(0)
		if !from.Equal(mustTime(t, c.from)) || !until.Equal(mustTime(t, c.until)) {
			t.Errorf("%s %s..%s: window %s to %s, want %s to %s", c.zone, c.draw, c.latest, FormatTime(from), FormatTime(until), c.from, c.until)
		}
		if err := r.CheckDrawTime(0, until.Add(-time.Second)); err != nil {
			t.Errorf("%s: drawn one second before the window ends: %v", c.zone, err)
		}
	}
}
