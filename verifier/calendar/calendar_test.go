package calendar

import (
	"testing"
	"time"
)

func load(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func TestDayStart(t *testing.T) {
	for _, c := range []struct {
		zone, date string
		start      string // RFC 3339, in the zone
		hours      int    // the day's length
	}{
		// Daylight saving time starts at midnight: no 00:00 on the date.
		{"America/Sao_Paulo", "2016-10-15", "2016-10-15T00:00:00-03:00", 24},
		{"America/Sao_Paulo", "2016-10-16", "2016-10-16T01:00:00-02:00", 23},
		{"America/Santiago", "2016-08-14", "2016-08-14T01:00:00-03:00", 23},
		{"America/Havana", "2016-03-13", "2016-03-13T01:00:00-04:00", 23},
		// Back from 00:00 -02 to 23:00 -03: the 18th lasts 25 hours.
		{"America/Sao_Paulo", "2017-02-18", "2017-02-18T00:00:00-02:00", 25},
		{"America/Sao_Paulo", "2017-02-19", "2017-02-19T00:00:00-03:00", 24},
		// Back from 01:00 +03 to 00:00 +02: 00:00 happens twice, the day
		// starts at the first.
		{"Asia/Amman", "2016-10-28", "2016-10-28T00:00:00+03:00", 25},
		// Paris changes at 02:00/03:00: 23 and 25 hours, midnight always there.
		{"Europe/Paris", "2016-03-27", "2016-03-27T00:00:00+01:00", 23},
		{"Europe/Paris", "2016-10-30", "2016-10-30T00:00:00+02:00", 25},
		{"Europe/Paris", "2016-06-19", "2016-06-19T00:00:00+02:00", 24},
		{"UTC", "2016-10-16", "2016-10-16T00:00:00Z", 24},
		// 30 December 2011 did not happen in Samoa: it starts (and ends)
		// where the 31st starts.
		{"Pacific/Apia", "2011-12-29", "2011-12-29T00:00:00-10:00", 24},
		{"Pacific/Apia", "2011-12-30", "2011-12-31T00:00:00+14:00", 0},
	} {
		loc := load(t, c.zone)
		d, err := ParseDate(c.date)
		if err != nil {
			t.Fatal(err)
		}
		got := DayStart(d.Year(), d.Month(), d.Day(), loc)
		if got.Format(time.RFC3339) != c.start || got.Location() != loc {
			t.Errorf("%s: DayStart(%s) = %s, want %s", c.zone, c.date, got.Format(time.RFC3339), c.start)
		}
		next := DayStart(d.Year(), d.Month(), d.Day()+1, loc)
		if h := next.Sub(got); h != time.Duration(c.hours)*time.Hour {
			t.Errorf("%s: %s lasts %s, want %dh", c.zone, c.date, h, c.hours)
		}
		// The first instant of the date: the one before is on an earlier date.
		if c.hours > 0 {
			if y, m, dd := got.Date(); y != d.Year() || m != d.Month() || dd != d.Day() {
				t.Errorf("%s: %s starts on %s", c.zone, c.date, got)
			}
			if before := got.Add(-time.Second).Format(Layout); before >= c.date {
				t.Errorf("%s: one second before %s's start is %s", c.zone, c.date, before)
			}
		}
	}
}

// Wherever local midnight exists once, DayStart is time.Date's midnight.
func TestDayStartIsMidnight(t *testing.T) {
	for _, zone := range []string{"Europe/Paris", "UTC", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata"} {
		loc := load(t, zone)
		for d := 0; d < 3*366; d++ {
			want := time.Date(2015, 1, 1+d, 0, 0, 0, 0, loc)
			if got := DayStart(2015, 1, 1+d, loc); got != want {
				t.Fatalf("%s: DayStart(2015-01-01 + %d) = %s, want %s", zone, d, got, want)
			}
		}
	}
	if got, want := DayStart(2016, 1, 32, nil), time.Date(2016, 2, 1, 0, 0, 0, 0, time.UTC); got != want {
		t.Errorf("nil location, normalised date: %s, want %s", got, want)
	}
}

func TestParseDate(t *testing.T) {
	if d, err := ParseDate("2016-10-16"); err != nil || d != time.Date(2016, 10, 16, 0, 0, 0, 0, time.UTC) {
		t.Errorf("ParseDate(2016-10-16) = %s, %v", d, err)
	}
	for _, bad := range []string{"", "2016-10-32", "2016-02-30", "2016-1-05", "16-10-16", "2016-10-16T00:00", " 2016-10-16", "31/12/2026"} {
		if d, err := ParseDate(bad); err == nil {
			t.Errorf("ParseDate(%q) = %s, want an error", bad, d)
		}
	}
}
