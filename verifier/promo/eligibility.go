package promo

import (
	"slices"
	"strings"
	"time"
)

// Closed is the closed-accounts input: account → closing instant (the zero
// time when the date is unknown, which counts as closed before everything).
type Closed map[string]time.Time

// ECredit is one e-credit owed (art. 3.2).
type ECredit struct {
	Account     string
	Day         int    // index in Rules.Days
	Date        string // the participation day
	AmountCents int64
	// PaymentDeadline is the last day it may be paid; ValidityEnd the last
	// day it is valid when paid on the deadline (dates in the rules' zone).
	PaymentDeadline, ValidityEnd string
}

// Eligibility is the outcome of a tally: who earned what, who was withheld.
//
// Participation on day i: the account's counted stakes that day total at
// least Days[i].MinimumCents. The account must be valid — not closed — on
// the e-credit's payment date and on the draw date (art. 2.3):
//
//   - A participant whose account closed at or before the day's payment
//     deadline (on the deadline day included) gets no e-credit: the rules
//     fix no other payment date (art. 3.2.2: paid within 7 days), and a
//     closure by then may precede the payment.
//   - A participant whose account closed at or before the draw's date (on
//     that day included) is not entered in the draw. An account closed after
//     the draw date keeps its entry: closing between the draw and the prize's
//     delivery forfeits the prize, not the entry (art. 3.3.1, 3.3.3). The
//     closed-accounts input is normally taken at the freeze, before the
//     draw, so every closure it lists withholds the entry; a closure dated
//     later (one taking effect after the draw, or a report re-run after it)
//     does not.
//
// The date of closure unknown counts as before everything. Each account
// earns at most one e-credit per day and enters each draw at most once,
// however many days feed the draw and however much it staked.
type Eligibility struct {
	rules  *Rules
	tally  *Tally
	closed Closed
	order  []uint32 // account ids sorted by account string
	// drawEnds[j] is midnight ending draw j's date: an account closed
	// before it is not valid on the draw date (withheld).
	drawEnds []time.Time

	// Participants[i] is how many accounts reached day i's minimum.
	Participants []int
	// WithheldECredits[i] is how many of them were closed by the payment
	// deadline: the e-credits withheld, 0 on a day that pays none
	// (e_credit_cents 0). Participants[i] is the e-credits paid (ECredits)
	// plus those withheld, on a day that pays one.
	WithheldECredits []int
	// WithheldEntries[j] is how many participants of draw j's days were
	// closed by the draw date.
	WithheldEntries []int
	// Entrants[j] is draw j's canonical entrant list: sorted, no duplicates.
	Entrants [][]string
}

// Eligibility computes participation, e-credits and each draw's entrants.
func (t *Tally) Eligibility(closed Closed) *Eligibility {
	r := t.rules
	n := len(r.Days)
	e := &Eligibility{
		rules: r, tally: t, closed: closed,
		Participants:     make([]int, n),
		WithheldECredits: make([]int, n),
		WithheldEntries:  make([]int, len(r.Draws)),
		Entrants:         make([][]string, len(r.Draws)),
	}
	e.order = make([]uint32, len(t.accounts))
	for i := range e.order {
		e.order[i] = uint32(i)
	}
	slices.SortFunc(e.order, func(a, b uint32) int { return strings.Compare(t.accounts[a], t.accounts[b]) })
	deadlines := make([]time.Time, n)
	for i := range n {
		deadlines[i] = r.startAfter(r.Days[i].Date, r.ECredit.PaymentWithinDays+1)
	}
	// Midnight ending each draw's date: closed before it, not valid on the draw date.
	e.drawEnds = make([]time.Time, len(r.Draws))
	for j := range r.Draws {
		e.drawEnds[j] = r.startAfter(r.Draws[j].Date, 1)
	}
	for _, id := range e.order {
		acct := t.accounts[id]
		closedAt, isClosed := closed[acct]
		for i := range n {
			if t.totals[int(id)*n+i] < r.Days[i].MinimumCents {
				continue
			}
			e.Participants[i]++
			if r.Days[i].ECreditCents > 0 && isClosed && closedAt.Before(deadlines[i]) {
				e.WithheldECredits[i]++
			}
		}
		for j := range r.Draws {
			if !e.participated(id, j) {
				continue
			}
			if e.withheld(acct, j) {
				e.WithheldEntries[j]++
				continue
			}
			e.Entrants[j] = append(e.Entrants[j], acct)
		}
	}
	return e
}

// withheld reports whether account, had it taken part in draw j, is
// withheld from it: closed at or before the draw's date (that day
// included).
func (e *Eligibility) withheld(account string, j int) bool {
	at, closed := e.closed[account]
	return closed && at.Before(e.drawEnds[j])
}

func (e *Eligibility) participated(id uint32, j int) bool {
	n := len(e.rules.Days)
	for _, i := range e.rules.drawDays[j] {
		if e.tally.totals[int(id)*n+i] >= e.rules.Days[i].MinimumCents {
			return true
		}
	}
	return false
}

// ECredits calls fn for every e-credit owed, by day then account. It stops at
// the first error fn returns and returns it.
func (e *Eligibility) ECredits(fn func(ECredit) error) error {
	r, t := e.rules, e.tally
	n := len(r.Days)
	for i := range n {
		if r.Days[i].ECreditCents == 0 {
			continue
		}
		deadline := r.startAfter(r.Days[i].Date, r.ECredit.PaymentWithinDays+1)
		c := ECredit{Day: i, Date: r.Days[i].Date, AmountCents: r.Days[i].ECreditCents,
			PaymentDeadline: r.PaymentDeadline(i), ValidityEnd: r.ValidityEnd(i)}
		for _, id := range e.order {
			if t.totals[int(id)*n+i] < r.Days[i].MinimumCents {
				continue
			}
			acct := t.accounts[id]
			if at, closed := e.closed[acct]; closed && at.Before(deadline) {
				continue
			}
			c.Account = acct
			if err := fn(c); err != nil {
				return err
			}
		}
	}
	return nil
}

// Total returns account's counted total on day i (0 if none).
func (t *Tally) Total(account string, day int) int64 {
	id, ok := t.ids[account]
	if !ok {
		return 0
	}
	return t.totals[int(id)*len(t.rules.Days)+day]
}
