package calendar

import (
	"testing"
	"time"
)

// FuzzParseDate: ParseDate accepts exactly what a reference reading of
// YYYY-MM-DD accepts (four, two and two digits, a month of the year, a
// day of that month, leap years by the Gregorian rule), as 00:00 UTC on
// that date; and in a zone the date starts at DayStart: its local date is
// the date, and the second before it is not.
func FuzzParseDate(f *testing.F) {
	for _, s := range []string{"2026-12-31", "2024-02-29", "2100-02-29", "2000-02-29", "0000-01-01", "9999-12-31",
		"2026-13-01", "2026-04-31", "2026-1-01", "+026-01-01", "2026-01-01T00:00:00Z", "2016-10-16", "2017-02-18"} {
		f.Add(s)
	}
	zones := make([]*time.Location, 0, 4)
	for _, name := range []string{"UTC", "Europe/Paris", "America/Sao_Paulo", "America/Havana"} {
		loc, err := time.LoadLocation(name)
		if err != nil {
			f.Fatal(err)
		}
		zones = append(zones, loc)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDate(s)
		y, m, day, ok := referenceDate(s)
		if (err == nil) != ok {
			t.Fatalf("ParseDate(%q): %v, %v; reference: %v", s, d, err, ok)
		}
		if !ok {
			return
		}
		if d.Year() != y || int(d.Month()) != m || d.Day() != day || d.Location() != time.UTC || d.Hour()+d.Minute()+d.Second()+d.Nanosecond() != 0 {
			t.Fatalf("ParseDate(%q) = %v", s, d)
		}
		if y < 1900 {
			return // before the zones' history: local mean time
		}
		for _, loc := range zones {
			start := DayStart(y, time.Month(m), day, loc).In(loc)
			if start.Format(Layout) != s || start.Add(-time.Second).Format(Layout) == s {
				t.Fatalf("DayStart(%s) in %s: %v", s, loc, start)
			}
		}
	})
}

// referenceDate reads YYYY-MM-DD digit by digit.
func referenceDate(s string) (y, m, d int, ok bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return 0, 0, 0, false
	}
	num := func(p string) (int, bool) {
		n := 0
		for i := 0; i < len(p); i++ {
			if p[i] < '0' || p[i] > '9' {
				return 0, false
			}
			n = n*10 + int(p[i]-'0')
		}
		return n, true
	}
	y, ok1 := num(s[:4])
	m, ok2 := num(s[5:7])
	d, ok3 := num(s[8:])
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 {
		return 0, 0, 0, false
	}
	days := []int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m-1]
	if m == 2 && y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		days = 29
	}
	return y, m, d, d <= days
}
