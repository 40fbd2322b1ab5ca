package receipt_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/verdict"
)

// freezeReceipt is a real freeze receipt (verifier/promo's fixture) and
// the fingerprint of its log key.
func freezeReceipt(t *testing.T) (file []byte, pin string) {
	t.Helper()
	file, err := os.ReadFile("../promo/testdata/freeze-receipt.json")
	if err != nil {
		t.Fatal(err)
	}
	var rc promo.FreezeReceipt
	if err := json.Unmarshal(file, &rc); err != nil || len(rc.LogKeys) != 1 {
		t.Fatalf("fixture: %v", err)
	}
	k, err := checkpoint.ParseKey(rc.LogKeys[0])
	if err != nil {
		t.Fatal(err)
	}
	return file, k.Fingerprint()
}

// TestVerifyFreezeFactsNeedTrustedKey: without a trusted log key the
// receipt's other checks still run (under its own keys), but what it says
// — the draw, the index, the leaf hash — is not shown as facts under the
// failed verdict; with the key pinned, it is.
func TestVerifyFreezeFactsNeedTrustedKey(t *testing.T) {
	file, pin := freezeReceipt(t)
	for _, a := range []receipt.Anchors{{}, {Pins: []string{strings.Repeat("ab", 32)}}} {
		v := receipt.VerifyFreeze(file, nil, a)
		if c := v.Find(verdict.CheckLogKey); c == nil || c.Status != verdict.StatusFail || v.Status() != verdict.StatusFail {
			t.Fatalf("pins %q: log-key %+v, verdict %s", a.Pins, c, v.Status())
		}
		if c := v.Find(promo.CheckReceiptFields); c == nil || c.Status != verdict.StatusPass {
			t.Errorf("pins %q: the receipt's checks did not run: %+v", a.Pins, c)
		}
		if len(v.Facts) != 0 {
			t.Errorf("pins %q: facts from an unauthenticated receipt: %+v", a.Pins, v.Facts)
		}
	}
	v := receipt.VerifyFreeze(file, nil, receipt.Anchors{Pins: []string{pin}})
	if v.Status() != verdict.StatusPass || !strings.Contains(v.Text("en"), "leaf hash: ") || !strings.Contains(v.Text("en"), "draw: bonus-crescendo/1, 5 entrants") {
		t.Errorf("pinned:\n%s", v.Text("en"))
	}
}

// TestVerifyFreezeListRefused: a list that is not one fails entrant-list
// after the receipt's own checks, which still run and are shown; the
// list's other checks are not reached.
func TestVerifyFreezeListRefused(t *testing.T) {
	file, pin := freezeReceipt(t)
	why := verdict.M(verdict.MsgColon, "list.txt", verdict.M(verdict.MsgPublicOnly))
	v := receipt.VerifyFreezeListRefused(file, why, receipt.Anchors{Pins: []string{pin}})
	var got []string
	for _, c := range v.Checks {
		got = append(got, c.Name+" "+string(c.Status))
	}
	want := []string{"log-key pass", "format pass", "checkpoint-signature pass", "freeze-record pass", "freeze-inclusion pass",
		"rules-hash pass", "share-commitment pass", "receipt-fields pass", "freeze-inputs skip", "entrant-list fail", "entrant-root skip", "entrants-sha256 skip"}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("checks %q, want %q", got, want)
	}
	if f := v.First(); f == nil || f.Name != promo.CheckEntrantList || !strings.Contains(f.Reason("en"), "list.txt: ") {
		t.Errorf("first failure: %+v", f)
	}
	if !strings.HasPrefix(v.Text("en"), "checked: freeze of promotion draw bonus-crescendo/1\n") || len(v.Facts) == 0 {
		t.Errorf("no subject or facts:\n%s", v.Text("en"))
	}
}
