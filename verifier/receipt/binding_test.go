package receipt_test

import (
	"encoding/json"
	"testing"

	"tirage.fr/tirage/verifier/qod"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/verdict"
)

// hasCheck reports whether v has check name with status s and reason id.
func hasCheck(v *verdict.Verdict, name string, s verdict.Status, id verdict.MsgID) bool {
	for _, c := range v.Checks {
		if c.Name == name && c.Status == s && c.Message != nil && c.Message.ID == id {
			return true
		}
	}
	return false
}

func status(t *testing.T, v *verdict.Verdict, name string, want verdict.Status) {
	t.Helper()
	if c := v.Find(name); c == nil || c.Status != want {
		t.Errorf("check %s: %+v, want %s:\n%s", name, c, want, v.Text("en"))
	}
}

// TestPickReceiptBoundToStart: a pick's α must hold the committed r and the
// start's emission and ticket. An appliance that re-rolls a pick with
// another r until it loses logs α, π and β that agree with one another:
// only the game's start record (its H(r)) shows the lie, so without it the
// proof is not passed.
func TestPickReceiptBoundToStart(t *testing.T) {
	a := appliance(t, 50)
	g := play(t, a, receipttest.Play{Game: "g-bound", StopAt: 1})
	// Honest, with the start record: every check passes, the commitment too.
	v := receipt.VerifyReceipt(a.Receipt(g, 1, true), keyed(t, a))
	expect(t, v, verdict.StatusPass, "")
	status(t, v, verdict.CheckCommitment, verdict.StatusPass)
	status(t, v, verdict.CheckVRFProof, verdict.StatusPass)
	// Honest, without it: the proof verifies but proves nothing.
	v = receipt.VerifyReceipt(a.ReceiptWith(g, 1, receipttest.ReceiptOptions{Alpha: true, NoStart: true}), keyed(t, a))
	expect(t, v, verdict.StatusFail, verdict.CheckVRFProof)
	if !hasCheck(v, verdict.CheckVRFProof, verdict.StatusFail, verdict.MsgAlphaUnboundStart) {
		t.Errorf("unbound α:\n%s", v.Text("en"))
	}
	// Without α the proof cannot be checked yet: not a pass.
	v = receipt.VerifyReceipt(a.ReceiptWith(g, 1, receipttest.ReceiptOptions{NoStart: true}), keyed(t, a))
	expect(t, v, verdict.StatusFail, verdict.CheckVRFProof)
	if !hasCheck(v, verdict.CheckVRFProof, verdict.StatusFail, verdict.MsgProofNotYet) {
		t.Errorf("no α:\n%s", v.Text("en"))
	}

	// Pick 1 re-rolled with other secrets until it lost.
	c := appliance(t, 51)
	bad := play(t, c, receipttest.Play{Game: "g-reroll", Cheat: receipttest.Cheat{Reroll: 1}})
	if bad.Final.Phase != qod.Lost || bad.Final.Picks != 1 {
		t.Fatalf("the re-rolled game is %v after %d picks, want lost at the first", bad.Final.Phase, bad.Final.Picks)
	}
	expect(t, receipt.VerifyReceipt(c.Receipt(bad, 1, true), keyed(t, c)), verdict.StatusMisbehaviour, verdict.CheckCommitment)
	v = receipt.VerifyReceipt(c.ReceiptWith(bad, 1, receipttest.ReceiptOptions{Alpha: true, NoStart: true}), keyed(t, c))
	expect(t, v, verdict.StatusFail, verdict.CheckVRFProof)
	// The transcript catches it too.
	expect(t, receipt.VerifyTranscript(c.Transcript(bad, receipttest.TranscriptOptions{}), keyed(t, c)), verdict.StatusMisbehaviour, verdict.CheckVRFProof)

	// Pick 1 re-rolled with other tickets: α is not the start's.
	bad = play(t, c, receipttest.Play{Game: "g-reticket", Cheat: receipttest.Cheat{RerollTicket: 1}})
	expect(t, receipt.VerifyReceipt(c.Receipt(bad, 1, true), keyed(t, c)), verdict.StatusMisbehaviour, verdict.CheckAlpha)
	expect(t, receipt.VerifyReceipt(c.ReceiptWith(bad, 1, receipttest.ReceiptOptions{Alpha: true, NoStart: true}), keyed(t, c)),
		verdict.StatusFail, verdict.CheckVRFProof)
}

// TestReceiptStartMember: the start record must be this game's start,
// logged before the record, and proven in the same checkpoint.
func TestReceiptStartMember(t *testing.T) {
	a := appliance(t, 52)
	g := play(t, a, receipttest.Play{Game: "g-one", StopAt: 1})
	other := play(t, a, receipttest.Play{Game: "g-two", StopAt: 1})
	edit := func(k int, f func(rc, o *receipt.Receipt)) []byte {
		var rc, o receipt.Receipt
		json.Unmarshal(a.Receipt(g, k, true), &rc)
		json.Unmarshal(a.Receipt(other, 1, true), &o)
		f(&rc, &o)
		return receipt.Marshal(&rc)
	}
	// Another game's start: the receipt's choice, which proves nothing
	// against the appliance.
	expect(t, receipt.VerifyReceipt(edit(1, func(rc, o *receipt.Receipt) { rc.Start = o.Start }), keyed(t, a)),
		verdict.StatusFail, verdict.CheckRecord)
	// Not a start at all.
	expect(t, receipt.VerifyReceipt(edit(1, func(rc, o *receipt.Receipt) { rc.Start.Record = rc.Record }), keyed(t, a)),
		verdict.StatusFail, verdict.CheckRecord)
	// Claimed after the pick: not where the log has it.
	expect(t, receipt.VerifyReceipt(edit(1, func(rc, o *receipt.Receipt) { rc.Start.Index = rc.Index + 1 }), keyed(t, a)),
		verdict.StatusFail, verdict.CheckChain)
	// Not proven in the checkpoint.
	expect(t, receipt.VerifyReceipt(edit(1, func(rc, o *receipt.Receipt) { rc.Start.Proof = o.Start.Proof }), keyed(t, a)),
		verdict.StatusFail, verdict.CheckInclusion)
	// A start's receipt takes none.
	expect(t, receipt.VerifyReceipt(edit(0, func(rc, o *receipt.Receipt) { rc.Start = o.Start }), keyed(t, a)),
		verdict.StatusFail, verdict.CheckRecord)
	// A promotion freeze only goes with a promotion draw.
	expect(t, receipt.VerifyReceipt(edit(1, func(rc, o *receipt.Receipt) { rc.Freeze, rc.Start = rc.Start, nil }), keyed(t, a)),
		verdict.StatusFail, verdict.CheckRecord)

	// An end's r opens the start's commitment.
	end := len(g.Indices) - 1
	v := receipt.VerifyReceipt(a.Receipt(g, end, false), keyed(t, a))
	expect(t, v, verdict.StatusPass, "")
	status(t, v, verdict.CheckCommitment, verdict.StatusPass)
	bad := play(t, a, receipttest.Play{Game: "g-wrong-r", StopAt: 1, Cheat: receipttest.Cheat{WrongSecret: true}})
	expect(t, receipt.VerifyReceipt(a.Receipt(bad, len(bad.Indices)-1, false), keyed(t, a)), verdict.StatusMisbehaviour, verdict.CheckCommitment)
}

// TestStartReceiptCommitment: a start's α must open the start's own H(r).
func TestStartReceiptCommitment(t *testing.T) {
	a := appliance(t, 53)
	g := play(t, a, receipttest.Play{Game: "g-start", StopAt: 1})
	v := receipt.VerifyReceipt(a.Receipt(g, 0, true), keyed(t, a))
	expect(t, v, verdict.StatusPass, "")
	status(t, v, verdict.CheckCommitment, verdict.StatusPass)
	// Multipliers drawn with another r than the committed one.
	bad := play(t, a, receipttest.Play{Game: "g-start-r", StopAt: 1, Cheat: receipttest.Cheat{StartSecret: true}})
	v = receipt.VerifyReceipt(a.Receipt(bad, 0, true), keyed(t, a))
	expect(t, v, verdict.StatusMisbehaviour, verdict.CheckCommitment)
	status(t, v, verdict.CheckVRFProof, verdict.StatusSkip)
}

// TestPromoReceiptBoundToFreeze: a promotion draw's r must open the H(r)
// logged at its freeze; without the freeze record its proof is not passed.
func TestPromoReceiptBoundToFreeze(t *testing.T) {
	a := appliance(t, 54)
	p, err := a.PromoDrawWith("d1", 40, receipttest.PromoCheat{})
	if err != nil {
		t.Fatal(err)
	}
	v := receipt.VerifyReceipt(a.PromoReceipt(p, true), keyed(t, a))
	expect(t, v, verdict.StatusPass, "")
	status(t, v, verdict.CheckCommitment, verdict.StatusPass)
	v = receipt.VerifyReceipt(a.PromoReceipt(p, false), keyed(t, a))
	expect(t, v, verdict.StatusFail, verdict.CheckVRFProof)
	if !hasCheck(v, verdict.CheckVRFProof, verdict.StatusFail, verdict.MsgAlphaUnboundFreeze) {
		t.Errorf("unbound promotion draw:\n%s", v.Text("en"))
	}
	// Drawn again with a fresh r, linked to the freeze all the same.
	bad, err := a.PromoDrawWith("d2", 40, receipttest.PromoCheat{Redraw: true})
	if err != nil {
		t.Fatal(err)
	}
	expect(t, receipt.VerifyReceipt(a.PromoReceipt(bad, true), keyed(t, a)), verdict.StatusMisbehaviour, verdict.CheckCommitment)
	expect(t, receipt.VerifyReceipt(a.PromoReceipt(bad, false), keyed(t, a)), verdict.StatusFail, verdict.CheckVRFProof)
	// Another draw's freeze.
	var rc, o receipt.Receipt
	json.Unmarshal(a.PromoReceipt(p, true), &rc)
	json.Unmarshal(a.PromoReceipt(bad, true), &o)
	rc.Freeze = o.Freeze
	expect(t, receipt.VerifyReceipt(receipt.Marshal(&rc), keyed(t, a)), verdict.StatusFail, verdict.CheckChain)
}

// TestStartReceiptWithoutDraw: a start that draws nothing is checked all
// the same — its stake is in the prize table, and only S = 50,000 € goes
// without a draw, with every multiplier 2.
func TestStartReceiptWithoutDraw(t *testing.T) {
	a := appliance(t, 55)
	for _, tc := range []struct {
		stake int64
		m     [qod.Tiers]int
	}{
		{1234, [qod.Tiers]int{3, 3, 3, 3}},         // not a stake of the prize table
		{1000, [qod.Tiers]int{2, 2, 2, 2}},         // a stake that must be drawn
		{1000, [qod.Tiers]int{3, 3, 3, 3}},         // idem, with the best multipliers
		{qod.MaxStake, [qod.Tiers]int{3, 3, 3, 3}}, // 50,000 €: every multiplier is 2
	} {
		g, err := a.ForgeStart("g-undrawn", tc.stake, tc.m)
		if err != nil {
			t.Fatal(err)
		}
		v := receipt.VerifyReceipt(a.Receipt(g, 0, true), keyed(t, a))
		expect(t, v, verdict.StatusMisbehaviour, verdict.CheckOutcome)
	}
	// The honest 50,000 € start draws nothing and passes.
	g, err := a.ForgeStart("g-max", qod.MaxStake, [qod.Tiers]int{2, 2, 2, 2})
	if err != nil {
		t.Fatal(err)
	}
	v := receipt.VerifyReceipt(a.Receipt(g, 0, true), keyed(t, a))
	expect(t, v, verdict.StatusPass, "")
	status(t, v, verdict.CheckOutcome, verdict.StatusPass)
	status(t, v, verdict.CheckVRFProof, verdict.StatusSkip)
	full := play(t, a, receipttest.Play{Game: "g-max-played", Stake: qod.MaxStake, StopAt: 1})
	expect(t, receipt.VerifyReceipt(a.Receipt(full, 0, true), keyed(t, a)), verdict.StatusPass, "")
}

// TestTranscriptWithoutEmission: without its emission record, a game's
// start deadline cannot be checked, and the verdict says so.
func TestTranscriptWithoutEmission(t *testing.T) {
	a := appliance(t, 56)
	g := play(t, a, receipttest.Play{Game: "g-noem", StopAt: 1})
	v := receipt.VerifyTranscript(a.Transcript(g, receipttest.TranscriptOptions{NoEmission: true}), keyed(t, a))
	expect(t, v, verdict.StatusPass, "")
	if !hasCheck(v, verdict.CheckRules, verdict.StatusSkip, verdict.MsgDeadlineNotChecked) {
		t.Errorf("no skipped deadline check:\n%s", v.Text("en"))
	}
	status(t, v, verdict.CheckRules, verdict.StatusPass) // the replay itself
	v = receipt.VerifyTranscript(a.Transcript(g, receipttest.TranscriptOptions{}), keyed(t, a))
	if hasCheck(v, verdict.CheckRules, verdict.StatusSkip, verdict.MsgDeadlineNotChecked) {
		t.Errorf("deadline reported unchecked with the emission:\n%s", v.Text("en"))
	}
}

// TestTrailingData: only white space may follow a document (found by
// FuzzVerify: a receipt followed by '}' verified).
func TestTrailingData(t *testing.T) {
	a := appliance(t, 57)
	g := play(t, a, receipttest.Play{Game: "g-trail", StopAt: 1})
	rc := a.Receipt(g, 1, true)
	expect(t, receipt.VerifyReceipt(append(rc, " \n\t"...), keyed(t, a)), verdict.StatusPass, "")
	for _, tail := range []string{"}", "]", "{}", "x", `"s"`} {
		expect(t, receipt.VerifyReceipt(append(rc, tail...), keyed(t, a)), verdict.StatusFail, verdict.CheckFormat)
		tr := a.Transcript(g, receipttest.TranscriptOptions{})
		expect(t, receipt.VerifyTranscript(append(tr, tail...), keyed(t, a)), verdict.StatusFail, verdict.CheckFormat)
	}
}
