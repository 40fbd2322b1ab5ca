package promo

import (
	"slices"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// One account's answer, for a player who disputes a draw ("I played that
// day: was I in it, and if not, why?"): FindEntrant says whether the
// account is in the frozen entrant list, on the frozen root's word;
// Eligibility.Standing says why, from the very eligibility the freeze
// computed, over the rows a Tally watched for it (Tally.Watch) as it read
// the stake files — once, with everyone else's.

// Entry is an account's place in a frozen entrant list (FindEntrant).
type Entry struct {
	Index int64     // its index in the list, from 0
	Count uint64    // the frozen count
	Leaf  tlog.Hash // its leaf
	// Proof is its leaf's inclusion proof in the frozen root, computed
	// from the list and verified against the freeze's root and count.
	Proof tlog.RecordProof
}

// Pseudonym is the entrant's public id (Pseudonym of its leaf).
func (e *Entry) Pseudonym() string { return Pseudonym(e.Leaf) }

// FindEntrant says whether account is in list, the bailiff's entrant list
// of the freeze f: its Entry, or nil when it is not in. Neither answer
// rests on the list alone. An account in it must have a leaf whose
// inclusion proof, computed from the list, verifies against f's root and
// count (a list with the account added, the root unchanged, gives none);
// an account not in it is not when the list hashes to f's root and count
// (a list with the account taken out does not). Otherwise a *CheckError of
// CheckEntrantList (another draw's list, or not canonical) or
// CheckEntrantRoot.
func FindEntrant(list *EntrantList, f *record.PromoFreeze, account string) (*Entry, error) {
	if list.Draw != f.Draw {
		return nil, fail(CheckEntrantList, verdict.MsgPromoListDraw, list.Draw, f.Draw)
	}
	t, err := list.Tree()
	if err != nil {
		return nil, fail(CheckEntrantList, verdict.MsgPromoErr, err)
	}
	i, in := slices.BinarySearch(list.Accounts, account)
	if !in {
		switch {
		case uint64(t.Size()) != f.Count:
			return nil, fail(CheckEntrantRoot, verdict.MsgPromoListSize, t.Size(), f.Count)
		case t.Root() != f.Root:
			return nil, fail(CheckEntrantRoot, verdict.MsgPromoListRoot)
		}
		return nil, nil
	}
	e := &Entry{Index: int64(i), Count: f.Count, Leaf: t.Leaf(int64(i))}
	if e.Proof, err = t.Prove(e.Index); err != nil {
		return nil, fail(CheckEntrantRoot, verdict.MsgPromoErr, err)
	}
	if uint64(e.Index) >= f.Count || f.Count > 1<<62 || tlog.CheckRecord(e.Proof, int64(f.Count), f.Root, e.Index, e.Leaf) != nil {
		return nil, fail(CheckEntrantRoot, verdict.MsgAccountProof, e.Index, Pseudonym(e.Leaf))
	}
	return e, nil
}

// AccountRows are the stake rows of one account a Tally read that did not
// count (Tally.Watch): excluded by the rules, or rejected, with where they
// were read and why. The first MaxAccountRows are kept; More counts the
// others.
type AccountRows struct {
	Account string
	Counted int64 // rows that counted towards a participation day
	Rows    []AccountRow
	More    int64
}

// MaxAccountRows bounds AccountRows.Rows: an account may have millions.
const MaxAccountRows = 20

// AccountRow is one row of a watched account that did not count.
type AccountRow struct {
	File string // the stake file (Tally.StartFile), "" when unnamed
	Line int
	// Excluded is why a valid row does not count (not Counts), when
	// Rejected is "".
	Excluded Exclusion
	// Rejected is why the row was rejected (malformed or duplicate), as
	// rejected.txt gives it.
	Rejected string
}

// Watch makes t note account's rows that do not count, as it reads them
// (Add, Reject): the rows of one account, read with everyone's, so that
// the files are read once. It returns where they are noted.
func (t *Tally) Watch(account string) *AccountRows {
	t.watch = &AccountRows{Account: account}
	return t.watch
}

// Reject notes a row the reader rejected, read from line: s is what could
// be parsed of it (its account, when the row got that far), err why. It
// changes nothing but a watched account's rows (Watch).
func (t *Tally) Reject(line int, s *Stake, err error) {
	if t.watch != nil && s.Account == t.watch.Account {
		t.watch.note(AccountRow{File: t.fileName(), Line: line, Rejected: err.Error()})
	}
}

// noteAdded notes, for a watched account, a stake Add took.
func (t *Tally) noteAdded(line int, s *Stake, why Exclusion) {
	switch {
	case s.Account != t.watch.Account:
	case why == Counts:
		t.watch.Counted++
	default:
		t.watch.note(AccountRow{File: t.fileName(), Line: line, Excluded: why})
	}
}

func (w *AccountRows) note(r AccountRow) {
	if len(w.Rows) < MaxAccountRows {
		w.Rows = append(w.Rows, r)
	} else {
		w.More++
	}
}

func (t *Tally) fileName() string {
	if len(t.files) == 0 {
		return ""
	}
	return t.files[len(t.files)-1].name
}

// Standing is what the eligibility says of one account in one draw.
type Standing struct {
	Account  string
	Draw     string     // full draw id
	DrawDate string     // the draw's date
	Days     []DayTotal // the days feeding the draw, in order
	// Closed: the account is in the closed accounts, closed at ClosedAt
	// (zero: date unknown, before everything); Withheld: at or before
	// the draw's date (that day included), so its entry is withheld.
	Closed, Withheld bool
	ClosedAt         time.Time
	// Entrant: the eligibility enters it in the draw (Eligibility.Entrants).
	Entrant bool
	// Rows are its rows that did not count, when the tally watched it
	// (Tally.Watch); nil otherwise.
	Rows *AccountRows
}

// DayTotal is an account's counted total on a participation day.
type DayTotal struct {
	Date                     string
	TotalCents, MinimumCents int64
}

// Reached reports whether the total reached the day's minimum.
func (d DayTotal) Reached() bool { return d.TotalCents >= d.MinimumCents }

// Why not an entrant (Standing.Why).
type Why uint8

// Reasons, in the order the eligibility decides.
const (
	WhyEntrant      Why = iota // an entrant
	WhyNoStake                 // no counted stake on any day feeding the draw
	WhyBelowMinimum            // counted stakes, below the minimum on every such day
	WhyClosed                  // took part, but closed by the draw's date: withheld
)

// Why is why the account is, or is not, an entrant.
func (s *Standing) Why() Why {
	if s.Entrant {
		return WhyEntrant
	}
	took, staked := false, false
	for _, d := range s.Days {
		took = took || d.Reached()
		staked = staked || d.TotalCents > 0
	}
	switch {
	case took && s.Withheld:
		return WhyClosed
	case staked:
		return WhyBelowMinimum
	}
	return WhyNoStake
}

// Standing is account's standing in the draw whose full id is draw, by
// the very rules Eligibility entered the accounts by (participated,
// withheld); false when the rules hold no such draw.
func (e *Eligibility) Standing(draw, account string) (*Standing, bool) {
	r := e.rules
	j := slices.IndexFunc(r.Draws, func(d Draw) bool { return r.Operation+"/"+d.ID == draw })
	if j < 0 {
		return nil, false
	}
	s := &Standing{Account: account, Draw: draw, DrawDate: r.Draws[j].Date}
	for _, i := range r.drawDays[j] {
		s.Days = append(s.Days, DayTotal{Date: r.Days[i].Date, TotalCents: e.tally.Total(account, i), MinimumCents: r.Days[i].MinimumCents})
	}
	s.ClosedAt, s.Closed = e.closed[account]
	s.Withheld = e.withheld(account, j)
	if id, ok := e.tally.ids[account]; ok {
		s.Entrant = e.participated(id, j) && !s.Withheld
	}
	if w := e.tally.watch; w != nil && w.Account == account {
		s.Rows = w
	}
	return s, true
}
