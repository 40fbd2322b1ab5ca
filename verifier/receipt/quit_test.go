package receipt_test

import (
	"encoding/json"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// TestQuitReceipt: the receipt of a ticket_quit (the player's QUITTER)
// verifies as any record's — the record, its inclusion in a checkpoint
// signed by the trusted log key — draws nothing, and passes its outcome
// check, S kept being a gain of the prize table. One whose S is not a gain
// is the appliance's misbehaviour once the log proves the record its own;
// an edited record is not in the log.
func TestQuitReceipt(t *testing.T) {
	a := appliance(t, 12)
	play(t, a, receipttest.Play{Game: "g-before", StopAt: 1})
	_, at := a.Quit([32]byte{}, 5000)
	play(t, a, receipttest.Play{Game: "g-after", StopAt: 1})
	doc := a.RecordReceipt(at)

	v := receipt.VerifyReceipt(doc, keyed(t, a))
	expect(t, v, verdict.StatusPass, "")
	for check, want := range map[string]string{
		verdict.CheckRecord:   "ticket_quit",
		verdict.CheckVRFProof: "a ticket_quit record draws nothing",
		verdict.CheckOutcome:  "keeps S = 5000 cents",
	} {
		if c := v.Find(check); c == nil || !strings.Contains(c.Detail, want) {
			t.Errorf("check %s: %+v, want %q:\n%s", check, c, want, v.Text("en"))
		}
	}
	if fr := v.Text("fr"); !strings.Contains(fr, "renonciation à l'étape 2 (QUITTER)") || !strings.Contains(fr, "conserve S = 5000 centimes") {
		t.Errorf("French:\n%s", fr)
	}
	// Without a trusted log key nothing is proven.
	expect(t, receipt.VerifyReceipt(doc, receipt.Anchors{Location: a.Location}), verdict.StatusFail, verdict.CheckLogKey)

	// A receipt with its S edited is no record of the log.
	var rc receipt.Receipt
	if err := json.Unmarshal(doc, &rc); err != nil {
		t.Fatal(err)
	}
	rc.Record = strings.Replace(rc.Record, `"stake":5000`, `"stake":10000`, 1)
	expect(t, receipt.VerifyReceipt(receipt.Marshal(&rc), keyed(t, a)), verdict.StatusFail, verdict.CheckInclusion)

	// An appliance that logs a quit keeping an S no ticket has.
	c := appliance(t, 12)
	_, cheat := c.Quit([32]byte{}, 1234)
	v = receipt.VerifyReceipt(c.RecordReceipt(cheat), keyed(t, c))
	expect(t, v, verdict.StatusMisbehaviour, verdict.CheckOutcome)
	if o := v.Find(verdict.CheckOutcome); !strings.Contains(o.Detail, "ticket_quit: stake 1234 cents is not a gain of the prize table") {
		t.Errorf("outcome: %q", o.Detail)
	}

	// A quit has no game: a start given with it is refused.
	g := play(t, a, receipttest.Play{Game: "g-start", StopAt: 1})
	var start receipt.Receipt
	if err := json.Unmarshal(a.Receipt(g, 1, false), &start); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(a.RecordReceipt(at), &rc); err != nil {
		t.Fatal(err)
	}
	rc.Start = start.Start
	expect(t, receipt.VerifyReceipt(receipt.Marshal(&rc), keyed(t, a)), verdict.StatusFail, verdict.CheckRecord)
	if r, err := record.Parse([]byte(rc.Record)); err != nil || r.Kind() != record.KindTicketQuit {
		t.Fatalf("test bug: a %T, %v", r, err)
	}
}
