package receipt

import (
	"encoding/hex"

	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/verdict"
)

// accountFacts answers a player who disputes the freeze's draw, for the
// account in.Account, in facts (one line each): whether it is in the
// frozen entrant list — its index and pseudonym, and its leaf's inclusion
// proof verified against the frozen root (promo.FindEntrant) — and, with
// the eligibility recomputed from the input files (in.Eligibility), why:
// its totals on the draw's days against their minimum, its closure, its
// rows that did not count (promo.Eligibility.Standing). An account not in
// the list is a fact, not a failure. Nothing is answered unless every
// check passed: not on a list, or files, that are not the freeze's; and
// why only from files input-files proved the freeze's (a freeze binding
// none: not answered from them).
func accountFacts(v *verdict.Verdict, res *promo.FreezeVerified, list *promo.EntrantList, in *FreezeInputs) {
	name := verdict.M(verdict.MsgAccountFact, in.Account)
	fact := func(id verdict.MsgID, args ...any) { v.FactNamed(name, id, args...) }
	if res == nil || list == nil || v.Status() != verdict.StatusPass {
		fact(verdict.MsgAccountNotAnswered)
		return
	}
	f := res.Freeze
	e, err := promo.FindEntrant(list.ForFreeze(f), f, in.Account)
	if err != nil {
		check, ce := failedCheck(err, promo.CheckEntrantRoot)
		v.Set(check, verdict.StatusFail, verdict.MsgSame, CheckErrorMsg(ce))
		fact(verdict.MsgAccountNotAnswered)
		return
	}
	if e != nil {
		fact(verdict.MsgAccountIn, f.Draw, e.Index+1, f.Count, e.Index, e.Pseudonym())
		fact(verdict.MsgAccountInRoot, hex.EncodeToString(e.Leaf[:]), hex.EncodeToString(f.Root[:]), len(e.Proof))
	} else {
		fact(verdict.MsgAccountOut, f.Draw, f.Count)
	}
	var st *promo.Standing
	if in.Eligibility != nil {
		// Why, from the files, only from files proven the freeze's: a
		// freeze binding none (input-files skipped) gives the same list
		// from files edited for this account (its rows taken out, its
		// closure) — another reason, on the operator's word.
		if c := v.Find(promo.CheckInputFiles); c == nil || c.Status != verdict.StatusPass {
			fact(verdict.MsgAccountFilesUnbound)
			return
		}
		st, _ = in.Eligibility.Standing(f.Draw, in.Account)
	}
	if st == nil {
		if e == nil {
			fact(verdict.MsgAccountAskFiles)
		}
		return
	}
	for _, d := range st.Days {
		id := verdict.MsgAccountDayBelow
		if d.Reached() {
			id = verdict.MsgAccountDayReached
		}
		fact(id, d.Date, d.TotalCents, d.MinimumCents)
	}
	switch {
	case st.Closed && st.ClosedAt.IsZero():
		fact(verdict.MsgAccountClosedUnknown, st.DrawDate)
	case st.Withheld:
		fact(verdict.MsgAccountClosedAt, promo.FormatTime(st.ClosedAt), st.DrawDate)
	case st.Closed:
		fact(verdict.MsgAccountClosedAfter, promo.FormatTime(st.ClosedAt), st.DrawDate)
	}
	if r := st.Rows; r != nil {
		fact(verdict.MsgAccountRowsCounted, r.Counted, int64(len(r.Rows))+r.More)
		for _, row := range r.Rows {
			if row.Rejected != "" {
				fact(verdict.MsgAccountRowRejected, row.File, row.Line, row.Rejected)
			} else {
				fact(verdict.MsgAccountRowExcluded, row.File, row.Line, verdict.Term(row.Excluded.String()))
			}
		}
		if r.More > 0 {
			fact(verdict.MsgAccountRowsMore, r.More)
		}
	}
	switch st.Why() {
	case promo.WhyEntrant:
		fact(verdict.MsgAccountWhyEntrant)
	case promo.WhyNoStake:
		if r := st.Rows; r != nil && r.Counted == 0 && len(r.Rows) == 0 && r.More == 0 {
			// No row names it at all: likely a mistyped id, not a
			// player whose stakes did not count.
			fact(verdict.MsgAccountWhyNoRow)
			break
		}
		fact(verdict.MsgAccountWhyNoStake)
	case promo.WhyBelowMinimum:
		fact(verdict.MsgAccountWhyBelow)
	case promo.WhyClosed:
		fact(verdict.MsgAccountWhyClosed)
	}
}
