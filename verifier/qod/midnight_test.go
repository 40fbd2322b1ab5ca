package qod

import (
	"testing"
	"time"
)

// With a game.time_zone where daylight saving time starts at midnight, the
// day after the 29 days may have no 00:00: it starts at the change of
// clock (01:00 -02 in São Paulo on 16 October 2016), not an hour earlier
// on the 29th day. A closure dated that day counts from that date, not
// from the day before where time.Date puts its missing midnight.
func TestStartDeadlineMidnightless(t *testing.T) {
	for _, c := range []struct {
		zone, closure, want string
	}{
		{"America/Sao_Paulo", "2016-09-16", "2016-10-16T01:00:00-02:00"},
		{"America/Sao_Paulo", "2016-10-16", "2016-11-15T00:00:00-02:00"},
		{"America/Santiago", "2016-07-15", "2016-08-14T01:00:00-03:00"},
		{"America/Havana", "2016-02-12", "2016-03-13T01:00:00-04:00"},
		{"America/Havana", "2016-03-13", "2016-04-12T00:00:00-04:00"},
		{"Europe/Paris", "2026-02-27", "2026-03-29T00:00:00+01:00"},
	} {
		loc, err := time.LoadLocation(c.zone)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := time.Parse(time.RFC3339, c.want)
		got, err := StartDeadline(c.closure, loc)
		if err != nil || !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("%s: StartDeadline(%s) = %s, %v; want %s", c.zone, c.closure, got, err, c.want)
		}
		// The last second of the 29th day may start the game.
		if _, err := NewGame(Start{Game: "g", Emission: "E", Stake: MaxStake, Now: want.Add(-time.Second), StartDeadline: got, Location: loc}); err != nil {
			t.Errorf("%s: start at %s: %v", c.zone, want.Add(-time.Second).In(loc), err)
		}
	}
}
