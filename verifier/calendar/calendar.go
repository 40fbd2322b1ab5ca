// Package calendar reads calendar dates in a time zone: the instant a date
// starts there. Rules give days as dates ("de 00 h 00 à 23 h 59", local
// time); a day runs from its start to the next day's start, so it may last
// 23 or 25 hours around a change of clock.
//
// time.Date(y, m, d, 0, 0, 0, 0, loc) is not that start everywhere: where
// daylight saving time starts at midnight (America/Sao_Paulo on 2016-10-16,
// America/Santiago on 2016-08-14, America/Havana on 2016-03-13), 00:00 does
// not exist on that date and time.Date normalises it to 23:00 the day
// before; where the clock goes back from 01:00 to 00:00, 00:00 happens twice
// and time.Date may give the second. DayStart gives the first instant whose
// local date is the date. It does no I/O.
package calendar

import (
	"fmt"
	"regexp"
	"time"
)

// zoneRE is the shape of IANA zone names (Europe/Paris,
// America/Port-au-Prince, Etc/GMT-2, EST5EDT, UTC): every part starts with
// a capital.
var zoneRE = regexp.MustCompile(`^[A-Z][A-Za-z0-9_+-]*(/[A-Z][A-Za-z0-9_+-]*)*$`)

// ZoneName reports whether name is shaped as a zone of the IANA database,
// the same on every machine. time.LoadLocation also takes "Local" (the
// zone of whichever machine reads it) and files of the system's zoneinfo
// directory that are no zone of the database, or not on every machine
// ("localtime", "posixrules", "right/…", "posix/…"): the days of rules or of
// a configuration naming them would depend on the machine.
func ZoneName(name string) bool { return name != "Local" && zoneRE.MatchString(name) }

// Layout is the layout of a date: YYYY-MM-DD.
const Layout = time.DateOnly

// maxOffset bounds the offset from UTC of any zone, historical ones
// included (tzdata's extremes are within ±16 hours).
const maxOffset = 26 * 60 * 60

// DayStart is the first instant whose date in loc (nil means UTC) is
// year-month-day, normalised as time.Date normalises it (day 32 of January
// is 1 February): local midnight, or where midnight does not exist on that
// date, the change of clock that skips it (01:00 -02 on 16 October 2016 in
// São Paulo). A date skipped entirely (Pacific/Apia, 30 December 2011)
// starts where the next one does. The result is in loc.
func DayStart(year int, month time.Month, day int, loc *time.Location) time.Time {
	if loc == nil {
		loc = time.UTC
	}
	// 00:00 of the date on the local wall clock, in seconds as if it were UTC.
	midnight := time.Date(year, month, day, 0, 0, 0, 0, time.UTC).Unix()
	// Walk forward through loc's zone periods from an instant surely on an
	// earlier local date. Within a period the local clock is UTC plus a fixed
	// offset, so the first instant at or after local midnight there is either
	// the period's start (the clock jumped past midnight) or midnight at that
	// offset.
	t := time.Unix(midnight-maxOffset, 0).In(loc)
	for {
		_, off := t.Zone()
		if t.Unix()+int64(off) >= midnight {
			return t
		}
		at := midnight - int64(off)
		_, end := t.ZoneBounds()
		if end.IsZero() || at < end.Unix() {
			return time.Unix(at, 0).In(loc)
		}
		t = end.In(loc)
	}
}

// ParseDate parses a date written YYYY-MM-DD (a calendar date, exactly so
// written) and returns it as 00:00 UTC on that date: its Year, Month and Day
// are the date's, for DayStart.
func ParseDate(s string) (time.Time, error) {
	d, err := time.Parse(Layout, s)
	if err != nil {
		return time.Time{}, err
	}
	if d.Format(Layout) != s {
		return time.Time{}, fmt.Errorf("date %q is not written YYYY-MM-DD", s)
	}
	return d, nil
}
