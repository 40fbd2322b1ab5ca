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

// TestWitnessQuorum: the page's witness quorum, as rngverify
// --witness-quorum: blank, every witness given must have cosigned; 1, one
// of two suffices; outside 1 to their number, not a number, or without
// witnesses, refused first with rngverify's words (NoteQuorumRefused, in
// English and French) and every witness required.
func TestWitnessQuorum(t *testing.T) {
	a, doc, w1, w2 := quorumFixture(t, 63)
	docs := []web.File{{Name: "receipt.json", Data: doc}}
	withWitnesses := []web.File{{Name: "log.vkey", Data: a.LogKeyFile()}, {Name: "witnesses.vkey", Data: []byte(w1.VKey + "\n" + w2.VKey + "\n")}}
	noWitness := withWitnesses[:1]
	for _, c := range []struct {
		quorum   string
		anchors  []web.File
		want     verdict.Status
		refused  string // the refusal, in English and French
		refusedF string
	}{
		{"", withWitnesses, verdict.StatusFail, "", ""},
		{" 1 ", withWitnesses, verdict.StatusPass, "", ""},
		{"2", withWitnesses, verdict.StatusFail, "", ""},
		{"3", withWitnesses, verdict.StatusFail, "--witness-quorum 3: want 1 to 2", "--witness-quorum 3 : de 1 à 2 attendu"},
		{"0", withWitnesses, verdict.StatusFail, "--witness-quorum 0: want 1 to 2", "--witness-quorum 0 : de 1 à 2 attendu"},
		{"un", withWitnesses, verdict.StatusFail, `invalid value "un" for flag -witness-quorum: parse error`, "valeur « un » invalide pour l'option -witness-quorum : illisible"},
		{"1", noWitness, verdict.StatusPass, "--witness-quorum 1: no --witness given", "--witness-quorum 1 : aucun --witness fourni"},
	} {
		rs := web.VerifyQuorum(docs, c.anchors, a.VRFPin(), nil, c.quorum)
		last := rs[len(rs)-1]
		if last.File != "receipt.json" || last.Verdict.Status() != c.want {
			t.Errorf("quorum %q: %s is %s, want %s\n%s", c.quorum, last.File, last.Verdict.Status(), c.want, last.Verdict.Text("en"))
		}
		if c.refused == "" {
			if len(rs) != 1 {
				t.Errorf("quorum %q: %d results, want the receipt's only", c.quorum, len(rs))
			}
			continue
		}
		if len(rs) != 2 || rs[0].Note != web.NoteQuorumRefused || !strings.Contains(rs[0].Verdict.Text("en"), c.refused) || !strings.Contains(rs[0].Verdict.Text("fr"), c.refusedF) {
			t.Errorf("quorum %q: %+v, want it refused: %q", c.quorum, rs[0], c.refused)
			for _, r := range rs {
				t.Logf("%s: %s", r.File, r.Verdict.Text("en"))
			}
		}
	}
	if rs := web.Verify(docs, withWitnesses, a.VRFPin(), nil); len(rs) != 1 || rs[0].Verdict.Status() != verdict.StatusFail || !strings.Contains(rs[0].Verdict.Text("en"), "1 valid cosignature(s), 2 required") {
		t.Errorf("Verify requires every witness: %+v", rs)
	}
}

// quorumFixture is a receipt of an appliance made from seed whose
// checkpoint is cosigned by w1 and not by w2.
func quorumFixture(t *testing.T, seed byte) (a *receipttest.Appliance, doc []byte, w1, w2 *receipttest.Witness) {
	t.Helper()
	a, err := receipttest.New(seed)
	if err != nil {
		t.Fatal(err)
	}
	g, err := a.PlayGame(receipttest.Play{Game: "g-q"})
	if err != nil {
		t.Fatal(err)
	}
	w1, w2 = receipttest.NewWitness("bailiff.test", 1), receipttest.NewWitness("auditor.test", 2)
	var m map[string]any
	if err := json.Unmarshal(a.Receipt(g, 0, true), &m); err != nil {
		t.Fatal(err)
	}
	m["checkpoint"] = string(w1.Cosign([]byte(m["checkpoint"].(string)), time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)))
	doc, _ = json.Marshal(m)
	return a, doc, w1, w2
}
