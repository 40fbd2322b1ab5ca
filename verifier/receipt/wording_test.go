package receipt_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/verdict"
)

// TestStartAlphaWording: a start's α binds the start's game, emission,
// ticket and stake and the secret r (record.StartAlpha) — no pick or
// number, which a pick's α binds. Before, a start's receipt said it bound
// "the record's game, pick and number".
func TestStartAlphaWording(t *testing.T) {
	a := appliance(t, 93)
	g := play(t, a, receipttest.Play{Game: "g-alpha", StopAt: 1})
	start := receipt.VerifyReceipt(a.Receipt(g, 0, true), keyed(t, a))
	expect(t, start, verdict.StatusPass, "")
	c := start.Find(verdict.CheckAlpha)
	if !hasCheck(start, verdict.CheckAlpha, verdict.StatusPass, verdict.MsgAlphaBindsStart) || strings.Contains(c.Detail, "pick") ||
		!strings.Contains(c.Detail, "emission, ticket and stake") || !strings.Contains(c.Reason("fr"), "l'émission, le ticket et la mise") {
		t.Errorf("a start's α:\n%s", start.Text("en"))
	}
	pick := receipt.VerifyReceipt(a.Receipt(g, 1, true), keyed(t, a))
	if !hasCheck(pick, verdict.CheckAlpha, verdict.StatusPass, verdict.MsgAlphaBinds) {
		t.Errorf("a pick's α:\n%s", pick.Text("en"))
	}
}

// TestNoCheckpointWording: a receipt without a checkpoint is of a record
// the appliance sealed before replying; only no signed checkpoint covered
// it yet. Before, the verdict said the record "may not be sealed yet".
func TestNoCheckpointWording(t *testing.T) {
	a := appliance(t, 94)
	g := play(t, a, receipttest.Play{Game: "g-nocp", StopAt: 1})
	var rc receipt.Receipt
	if err := json.Unmarshal(a.Receipt(g, 1, true), &rc); err != nil {
		t.Fatal(err)
	}
	rc.Checkpoint = ""
	v := receipt.VerifyReceipt(receipt.Marshal(&rc), keyed(t, a))
	expect(t, v, verdict.StatusFail, verdict.CheckSignature)
	c := v.Find(verdict.CheckSignature)
	if strings.Contains(c.Detail, "may not be sealed") || !strings.Contains(c.Detail, "seals (durably appends) a record before it replies, but no signed checkpoint covered it yet") ||
		!strings.Contains(c.Reason("fr"), "aucun point de contrôle signé ne le couvrait encore") {
		t.Errorf("no checkpoint:\n%s\n%s", c.Detail, c.Reason("fr"))
	}
}

// TestCountsSayWhatTheyCount: a transcript's subject counts the game's
// records; the record and inclusion checks, which also count its emission
// record and key announcement, say so. Before, "game g (8 records)" stood
// beside "10 canonical records" and "10 record(s) in the tree".
func TestCountsSayWhatTheyCount(t *testing.T) {
	a := appliance(t, 95)
	g := play(t, a, receipttest.Play{Game: "g-count", StopAt: 2})
	n := len(g.Indices)
	v := receipt.VerifyTranscript(a.Transcript(g, receipttest.TranscriptOptions{}), keyed(t, a))
	expect(t, v, verdict.StatusPass, "")
	all := "(the game's " + itoa(n) + ", the emission record, the key announcement)"
	if !strings.Contains(v.Subject, "("+itoa(n)+" records)") ||
		v.Find(verdict.CheckRecord).Detail != itoa(n+2)+" canonical records "+all ||
		!strings.HasPrefix(v.Find(verdict.CheckInclusion).Detail, itoa(n+2)+" records "+all+" in the tree of size ") {
		t.Errorf("counts:\n%s", v.Text("en"))
	}
	if fr := v.Find(verdict.CheckInclusion).Reason("fr"); !strings.HasPrefix(fr, itoa(n+2)+" enregistrements (les "+itoa(n)+" de la partie, l'enregistrement d'émission, l'annonce de clés) dans l'arbre") {
		t.Errorf("French: %s", fr)
	}
	// The game's records alone: one count, the subject's.
	v = receipt.VerifyTranscript(a.Transcript(g, receipttest.TranscriptOptions{NoEmission: true, NoKeys: true}), keyed(t, a))
	if v.Find(verdict.CheckRecord).Detail != itoa(n)+" canonical records" || !strings.HasPrefix(v.Find(verdict.CheckInclusion).Detail, itoa(n)+" record(s) in the tree") {
		t.Errorf("the game's records alone:\n%s", v.Text("en"))
	}
	// A receipt with its game's start: both named.
	v = receipt.VerifyReceipt(a.Receipt(g, 1, true), keyed(t, a))
	if !strings.HasPrefix(v.Find(verdict.CheckInclusion).Detail, "2 records (the record, the game's start record) in the tree") {
		t.Errorf("receipt with its start:\n%s", v.Text("en"))
	}
}

// TestCertificateNoBeacon: a certificate whose freeze announced no beacon
// round has no beacon to check: beacon-signature is skipped, saying so, in
// text, French and JSON, and saying that only the draw's rules show
// whether one was promised (--rules). Before, it passed with no detail.
func TestCertificateNoBeacon(t *testing.T) {
	cert, a := pinnedCertificate(t)
	v := receipt.VerifyCertificate(cert, nil, a)
	expect(t, v, verdict.StatusPass, "")
	b := v.Find(promo.CheckBeacon)
	if b == nil || b.Status != verdict.StatusSkip || b.Detail != "the freeze announced no beacon round; only the draw's rules show whether one was promised (rngverify certificate --rules FILE checks it)" ||
		b.Reason("fr") != "le gel n'a annoncé aucune ronde de balise ; seul le règlement du tirage montre si une ronde était promise (rngverify certificate --rules FICHIER le vérifie)" || !strings.Contains(v.Text("en"), "[skip] beacon-signature") {
		t.Fatalf("beacon-signature: %+v\n%s", b, v.Text("en"))
	}
	var j struct {
		Checks []struct{ Check, Status, Detail string }
	}
	if err := json.Unmarshal(v.JSON(), &j); err != nil {
		t.Fatal(err)
	}
	for _, c := range j.Checks {
		if c.Check == promo.CheckBeacon && (c.Status != "skip" || c.Detail == "") {
			t.Errorf("JSON: %+v", c)
		}
	}
}

// TestCertificateFactsNeedTrustedKey: under no trusted log key a
// certificate's winners are only what the file says: the verdict shows no
// draw or winner facts (its fingerprint, a fact about the file, stays);
// pinned, it shows them.
func TestCertificateFactsNeedTrustedKey(t *testing.T) {
	cert, pinned := pinnedCertificate(t)
	for name, a := range map[string]receipt.Anchors{"no anchor": {}, "another log's pin": {Pins: []string{strings.Repeat("ab", 32)}}} {
		v := receipt.VerifyCertificate(cert, nil, a)
		if v.Status() == verdict.StatusPass {
			t.Fatalf("%s: verified", name)
		}
		for _, f := range v.Facts {
			if f.Name != "certificate fingerprint" {
				t.Errorf("%s: fact %q = %q from an unauthenticated certificate", name, f.Name, f.Value)
			}
		}
	}
	v := receipt.VerifyCertificate(cert, nil, pinned)
	if v.Status() != verdict.StatusPass || !strings.Contains(v.Text("en"), "draw: ") {
		t.Errorf("pinned:\n%s", v.Text("en"))
	}
}

// pinnedCertificate is the CLI's test certificate (no beacon) and anchors
// pinning its log keys.
func pinnedCertificate(t *testing.T) ([]byte, receipt.Anchors) {
	t.Helper()
	cert, err := os.ReadFile("../cli/testdata/promo-certificate.json")
	if err != nil {
		t.Fatal(err)
	}
	var c promo.Certificate
	if err := json.Unmarshal(cert, &c); err != nil {
		t.Fatal(err)
	}
	var a receipt.Anchors
	for _, lk := range c.LogKeys {
		k, err := checkpoint.ParseKey(lk)
		if err != nil {
			t.Fatal(err)
		}
		a.Pins = append(a.Pins, k.Fingerprint())
	}
	return cert, a
}
