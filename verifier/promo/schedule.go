package promo

import (
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"tirage.fr/tirage/verifier/beacon"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// The dates of a draw (Bonus Crescendo art. 2.1 and 2.4). Dates are
// calendar days in the rules' zone; a day ends at 24:00 there.
//
//   - The entrant list is frozen once the participation period is over:
//     not before midnight ending its last day (Sunday 19 June 2016, 23:59,
//     Paris time), so that every stake of the period is in. A draw
//     scheduled while the period still runs (possible in other operations)
//     waits for the end of the last day feeding it instead.
//   - The ceremony is held on the draw's date ("le mardi 21 juin 2016") or,
//     if that date cannot be kept, at the latest on latest_date, a calendar
//     day included ("dans un délai de 30 jours": 30 days after 21 June, the
//     day of the date itself not counted, is 21 July, which ends at 24:00).
//     Without latest_date, only the date itself.
//
// The instants checked are those of the records, sealed in the log: the
// promo_freeze record's time and the promo_draw record's time.

// FreezeFrom is the earliest instant draw j's entrant list may be frozen:
// the end of the participation period, or for a draw scheduled before the
// period ends, the end of the last day feeding it. A day ends where the
// next date starts in the rules' zone (calendar.DayStart).
func (r *Rules) FreezeFrom(j int) time.Time {
	return r.startAfter(r.FreezeAfter(j), 1)
}

// FreezeAfter is the date (YYYY-MM-DD) of the last participation day of
// draw j, at whose end FreezeFrom(j) is.
func (r *Rules) FreezeAfter(j int) string {
	if start, ok := r.parseDate(r.Draws[j].Date); ok && start.Before(r.end) {
		return r.Days[r.drawDays[j][len(r.drawDays[j])-1]].Date // days are in calendar order
	}
	return r.Days[len(r.Days)-1].Date
}

// LatestDate is the last day draw j may be held: latest_date, or its date
// when there is none.
func (r *Rules) LatestDate(j int) string {
	if d := r.Draws[j].LatestDate; d != "" {
		return d
	}
	return r.Draws[j].Date
}

// DrawWindow is when draw j's ceremony may be held: from midnight starting
// its date up to (excluded) midnight ending LatestDate, in the rules' zone
// (a day's start and end as calendar.DayStart gives them).
func (r *Rules) DrawWindow(j int) (from, until time.Time) {
	from, _ = r.parseDate(r.Draws[j].Date)
	return from, r.startAfter(r.LatestDate(j), 1)
}

// CheckFreezeTime returns an error (of verdict's catalog, naming the dates)
// when an entrant list of draw j frozen at t could miss stakes of the
// participation period.
func (r *Rules) CheckFreezeTime(j int, t time.Time) error {
	from := r.FreezeFrom(j)
	if !t.Before(from) {
		return nil
	}
	lastDay := r.FreezeAfter(j)
	return verdict.Errorf(verdict.MsgPromoFrozenEarly, r.FullDrawID(j), FormatTime(t), lastDay, r.Timezone, FormatTime(from))
}

// CheckDrawTime returns an error (of verdict's catalog, naming the dates)
// when a ceremony of draw j at t falls outside the dates the rules allow.
func (r *Rules) CheckDrawTime(j int, t time.Time) error {
	from, until := r.DrawWindow(j)
	if !t.Before(from) && t.Before(until) {
		return nil
	}
	return verdict.Errorf(verdict.MsgPromoDrawnOutside, r.FullDrawID(j), FormatTime(t), t.In(r.loc).Format("2006-01-02"), r.Timezone,
		r.Draws[j].Date, r.LatestDate(j))
}

// RulesOfFreeze parses rulesFile, checks that it is the file the freeze
// record binds and returns it with the index of the frozen draw in Draws.
func RulesOfFreeze(rulesFile []byte, f *record.PromoFreeze) (*Rules, int, error) {
	_, hash, err := FreezeRules(f)
	if err != nil {
		return nil, -1, err
	}
	if h := RulesHash(rulesFile); fmt.Sprintf("%x", h) != hash {
		return nil, -1, verdict.Errorf(verdict.MsgPromoRulesFile, h, hash)
	}
	r, err := ParseRules(rulesFile)
	if err != nil {
		return nil, -1, fmt.Errorf("the frozen rules file: %w", err)
	}
	j, err := r.FrozenDraw(f)
	if err != nil {
		return nil, -1, err
	}
	return r, j, nil
}

// FrozenDraw returns the index in Draws of the draw freeze f names, or
// MsgPromoRulesNoDraw when the rules have no such draw.
func (r *Rules) FrozenDraw(f *record.PromoFreeze) (int, error) {
	op, id, _ := strings.Cut(f.Draw, "/")
	j := r.DrawIndex(id)
	if op != r.Operation || j < 0 {
		return -1, verdict.Errorf(verdict.MsgPromoRulesNoDraw, f.Draw)
	}
	return j, nil
}

// RulesContradiction reports whether id, the reason RulesOfFreeze,
// Rules.CheckFreeze or Verify gave with the rules file (Anchors.Rules),
// says that the freeze or its draw contradicts the rules the freeze commits
// to by their hash: a draw they do not have, frozen or drawn outside its
// dates, another beacon round, another ranking than one winner and the
// rules' reserves. Once the freeze is proven the appliance's, that is
// proof of misbehaviour (rngverify audit --rules, certificate --rules);
// any other reason (a rules beacon this verifier cannot read) proves
// nothing.
func RulesContradiction(id verdict.MsgID) bool {
	switch id {
	case verdict.MsgPromoRulesNoDraw, verdict.MsgPromoFrozenEarly, verdict.MsgPromoDrawnOutside,
		verdict.MsgPromoBeaconRules, verdict.MsgPromoWinnersRules, verdict.MsgPromoReserves:
		return true
	}
	return false
}

// CheckFreeze returns an error when a freeze f of draw j contradicts the
// rules, which it binds by their hash: frozen outside the draw's dates, or
// drawn (unless zero: not drawn yet) outside them (CheckSchedule); another
// beacon round than the rules announce (CheckFreezeBeacon); another
// ranking than one winner and the rules' reserves (CheckFreezeRanking).
// The appliance checks it before a freeze is re-sent or drawn.
func (r *Rules) CheckFreeze(j int, f *record.PromoFreeze, drawn time.Time) error {
	if err := r.CheckSchedule(j, f.Time, drawn); err != nil {
		return err
	}
	if err := r.CheckFreezeBeacon(j, f.Beacon); err != nil {
		return err
	}
	return r.CheckFreezeRanking(j, f)
}

// CheckSchedule checks a freeze record's time, and a ceremony's time if
// drawn is not zero, against the dates of draw j.
func (r *Rules) CheckSchedule(j int, frozen, drawn time.Time) error {
	if err := r.CheckFreezeTime(j, frozen); err != nil {
		return err
	}
	if drawn.IsZero() {
		return nil
	}
	return r.CheckDrawTime(j, drawn)
}

// FreezeBeacon is the beacon draw j's freeze must announce: the round the
// rules announce for it, in the form the freeze logs
// ("drand:<chain hash>:<round>", beacon.Ref), or "" when they announce
// none (rngd builds the freeze's beacon so).
func (r *Rules) FreezeBeacon(j int) (string, error) {
	b := r.Draws[j].Beacon
	if b == nil {
		return "", nil
	}
	ref, _, err := b.Ref()
	if err != nil {
		return "", fmt.Errorf("draws[%d].beacon: %w", j, err)
	}
	return ref.String(), nil
}

// CheckFreezeBeacon returns an error (of verdict's catalog, naming both
// beacons) when a freeze of draw j announced a beacon other than the one
// the rules announce (FreezeBeacon): a freeze that drops the promised
// round would draw without outside randomness, and its certificate would
// otherwise pass with nothing to check. The freeze commits to the rules
// by their hash: a freeze that contradicts them is the appliance's own
// contradiction.
func (r *Rules) CheckFreezeBeacon(j int, announced string) error {
	want, err := r.FreezeBeacon(j)
	if err != nil {
		return err
	}
	if announced == want {
		return nil
	}
	return verdict.Errorf(verdict.MsgPromoBeaconRules, beaconMsg(announced), beaconMsg(want), r.FullDrawID(j))
}

// beaconMsg names a freeze's beacon for people: none, a round of a pinned
// chain (with the logged reference), or the text as it is.
func beaconMsg(s string) verdict.Msg {
	if s == "" {
		return verdict.M(verdict.MsgPromoBeaconNone)
	}
	if ref, err := beacon.ParseRef(s); err == nil {
		if c := beacon.Pinned(hex.EncodeToString(ref.Chain[:])); c != nil {
			return verdict.M(verdict.MsgPromoBeaconRound, c.String(), ref.Round, s)
		}
	}
	return verdict.M(verdict.MsgPromoBeaconText, s)
}
