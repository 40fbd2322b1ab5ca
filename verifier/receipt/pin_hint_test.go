package receipt_test

import (
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/verdict"
)

// TestPinWithoutDocumentKey: a GetReceipts reply names no log key, so the
// log key's pinned fingerprint (--pin, or the key announcement given to
// --log-key) has nothing to match. The verdict says so and asks for the
// verifier key itself; it said only "the document names no log key", after
// "give --log-key FILE", which the user had done (the upgrade walk-through:
// rngverify receipt --log-key announcement.json). With the key, it passes.
func TestPinWithoutDocumentKey(t *testing.T) {
	a, err := receipttest.New(41)
	if err != nil {
		t.Fatal(err)
	}
	g, err := a.PlayGame(receipttest.Play{Game: "g-pin", StopAt: 1})
	if err != nil {
		t.Fatal(err)
	}
	keys, err := checkpoint.ParseKeys(string(a.LogKeyFile()))
	if err != nil {
		t.Fatal(err)
	}
	reply := receiptsReply(t, a, g)
	pinned := receipt.Anchors{Pins: []string{keys[0].Fingerprint(), a.VRFPin()}, Location: a.Location}
	v := receipt.VerifyReceipt(reply, pinned)
	want := "a pinned fingerprint (--pin, or a key announcement given to --log-key) is matched only with a key the document names"
	if v.Status() == verdict.StatusPass || !strings.Contains(v.Text("en"), want) {
		t.Errorf("pinned log key, keyless reply: want log-key to fail saying %q:\n%s", want, v.Text("en"))
	}
	// Without a pin, the hint is the plain one.
	v = receipt.VerifyReceipt(reply, receipt.Anchors{Pins: []string{a.VRFPin()}, Location: a.Location})
	if txt := v.Text("en"); v.Status() == verdict.StatusPass || strings.Contains(txt, want) || !strings.Contains(txt, "(the document names no log key)") {
		t.Errorf("no log pin: want the plain hint:\n%s", v.Text("en"))
	}
	// The key itself verifies the reply.
	if v := receipt.VerifyReceipt(reply, receipt.Anchors{LogKeys: keys, Pins: []string{a.VRFPin()}, Location: a.Location}); v.Status() != verdict.StatusPass {
		t.Errorf("with the log key: %s", v.Text("en"))
	}
}
