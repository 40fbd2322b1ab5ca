package web_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/web"
)

// TestWitnessAnchor: a file of witness keys given as an anchor makes the
// page require their cosignatures, as rngverify --witness FILE: a receipt
// whose checkpoint lacks one fails witness-cosignatures; cosigned, it passes.
func TestWitnessAnchor(t *testing.T) {
	a, err := receipttest.New(61)
	if err != nil {
		t.Fatal(err)
	}
	g, err := a.PlayGame(receipttest.Play{Game: "g-w"})
	if err != nil {
		t.Fatal(err)
	}
	w := receipttest.NewWitness("bailiff.test", 1)
	rcpt := a.Receipt(g, 0, true)
	var m map[string]any
	if err := json.Unmarshal(rcpt, &m); err != nil {
		t.Fatal(err)
	}
	m["checkpoint"] = string(w.Cosign([]byte(m["checkpoint"].(string)), time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)))
	cosigned, _ := json.Marshal(m)
	anchors := []web.File{{Name: "log.vkey", Data: a.LogKeyFile()}, {Name: "witness.vkey", Data: []byte("# bailiff\n" + w.VKey + "\n")}}
	for _, c := range []struct {
		doc  []byte
		want verdict.Status
	}{{rcpt, verdict.StatusFail}, {cosigned, verdict.StatusPass}} {
		rs := web.Verify([]web.File{{Name: "receipt.json", Data: c.doc}}, anchors, a.VRFPin(), nil)
		if len(rs) != 1 || rs[0].Verdict.Status() != c.want || rs[0].Verdict.Find(verdict.CheckWitness) == nil {
			for _, r := range rs {
				t.Logf("%s: %s", r.File, r.Verdict.Text("en"))
			}
			t.Fatalf("%d results, want one %s with a witness check", len(rs), c.want)
		}
		if c.want == verdict.StatusPass && !strings.Contains(rs[0].Verdict.Text("en"), "bailiff.test+") {
			t.Errorf("the witness is not named:\n%s", rs[0].Verdict.Text("en"))
		}
	}
}

// TestWitnessAnchorOneKeyTwoNames: a witness's key given again under
// another name is refused as an anchor (a cosignature does not sign the
// name: anyone could copy the line and count it twice); the first stays.
func TestWitnessAnchorOneKeyTwoNames(t *testing.T) {
	a, err := receipttest.New(62)
	if err != nil {
		t.Fatal(err)
	}
	g, err := a.PlayGame(receipttest.Play{Game: "g-w"})
	if err != nil {
		t.Fatal(err)
	}
	w := receipttest.NewWitness("bailiff.test", 1)
	alias := w.Alias("alias.test")
	var m map[string]any
	if err := json.Unmarshal(a.Receipt(g, 0, true), &m); err != nil {
		t.Fatal(err)
	}
	m["checkpoint"] = string(receipttest.Relabel(w.Cosign([]byte(m["checkpoint"].(string)), time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)), w, alias))
	doc, _ := json.Marshal(m)
	anchors := []web.File{{Name: "log.vkey", Data: a.LogKeyFile()}, {Name: "w1.vkey", Data: []byte(w.VKey + "\n")}, {Name: "w2.vkey", Data: []byte(alias.VKey + "\n")}}
	rs := web.Verify([]web.File{{Name: "receipt.json", Data: doc}}, anchors, a.VRFPin(), nil)
	var refused, receipt *web.Result
	for i := range rs {
		switch rs[i].File {
		case "w2.vkey":
			refused = &rs[i]
		case "receipt.json":
			receipt = &rs[i]
		}
	}
	if refused == nil || refused.Note != web.NoteAnchorRefused || !strings.Contains(refused.Verdict.Text("en"), "one key under two names") {
		t.Fatalf("w2.vkey not refused: %+v", rs)
	}
	if receipt == nil || receipt.Verdict.Status() != verdict.StatusPass || !strings.Contains(receipt.Verdict.Text("en"), "cosigned by 1 of 1 witness(es)") {
		t.Fatalf("receipt: %+v", receipt)
	}
}
