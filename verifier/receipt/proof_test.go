package receipt_test

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/vrf"
)

// noProof fails unless v is a failure with no check claiming misbehaviour.
func noProof(t *testing.T, what string, v *verdict.Verdict) {
	t.Helper()
	if v.Status() != verdict.StatusFail {
		t.Errorf("%s: verdict %s, want fail:\n%s", what, v.Status(), v.Text("en"))
		return
	}
	for _, c := range v.Checks {
		if c.Status == verdict.StatusMisbehaviour {
			t.Errorf("%s: check %s claims misbehaviour:\n%s", what, c.Name, v.Text("en"))
		}
	}
}

// notProof fails unless check name failed as a contradiction that is no proof.
func notProof(t *testing.T, what string, v *verdict.Verdict, name string) {
	t.Helper()
	if !hasCheck(v, name, verdict.StatusFail, verdict.MsgNotProof) {
		t.Errorf("%s: check %s is not a contradiction that proves nothing:\n%s", what, name, v.Text("en"))
	}
}

// flipBeta changes one character of the β of a record (JSON text).
func flipBeta(t *testing.T, rec string) string {
	t.Helper()
	i := strings.Index(rec, `"beta":"`)
	if i < 0 {
		t.Fatalf("no β in %s", rec)
	}
	i += len(`"beta":"`)
	c := byte('0')
	if rec[i] == '0' {
		c = '1'
	}
	return rec[:i] + string(c) + rec[i+1:]
}

// transcriptOf decodes a transcript file, for editing.
func transcriptOf(t *testing.T, file []byte) *receipt.Transcript {
	t.Helper()
	var tr receipt.Transcript
	if err := json.Unmarshal(file, &tr); err != nil {
		t.Fatal(err)
	}
	return &tr
}

// lastPick is the position in the transcript of its game's last pick.
func lastPick(t *testing.T, tr *receipt.Transcript) int {
	t.Helper()
	for i := len(tr.Records) - 1; i >= 0; i-- {
		if r, err := record.Parse([]byte(tr.Records[i].Record)); err == nil && r.Kind() == record.KindPick {
			return i
		}
	}
	t.Fatal("no pick")
	return 0
}

// TestEditedTranscriptIsNoProof: a transcript anyone edited — one character
// of a β changed, a record deleted or moved, an outcome flipped — is not
// proof of misbehaviour, with or without trust anchors: the edited record
// is not in the appliance's log, a deleted one may just be missing.
func TestEditedTranscriptIsNoProof(t *testing.T) {
	a := appliance(t, 60)
	g := play(t, a, receipttest.Play{Game: "g-edit"})
	honest := a.Transcript(g, receipttest.TranscriptOptions{})
	tr := transcriptOf(t, honest)
	k := lastPick(t, tr)
	tr.Records[k].Record = flipBeta(t, tr.Records[k].Record)
	beta := receipt.Marshal(tr)
	tr = transcriptOf(t, honest)
	pick := lastPick(t, tr)
	tr.Records[pick].Record = strings.Replace(strings.Replace(strings.Replace(tr.Records[pick].Record,
		`"outcome":"good"`, `"outcome":"X"`, 1), `"outcome":"losing"`, `"outcome":"good"`, 1), `"outcome":"X"`, `"outcome":"losing"`, 1)
	outcome := receipt.Marshal(tr)
	for _, anchors := range []struct {
		name string
		a    receipt.Anchors
	}{{"pinned", pinned(t, a)}, {"keyed", keyed(t, a)}, {"no anchor", receipt.Anchors{Location: a.Location}}} {
		for _, doc := range []struct {
			name string
			file []byte
		}{
			{"β edited", beta},
			{"outcome edited", outcome},
			{"record deleted", a.Transcript(g, receipttest.TranscriptOptions{Drop: 3})},
			{"records swapped", a.Transcript(g, receipttest.TranscriptOptions{Swap: 2})},
			{"end deleted", a.Transcript(g, receipttest.TranscriptOptions{Drop: len(g.Indices)})},
		} {
			what := doc.name + ", " + anchors.name
			v := receipt.VerifyTranscript(doc.file, anchors.a)
			if doc.name == "end deleted" {
				// A game over with no end, as far as anyone can tell: r not
				// revealed, no proof checked, not verifiable — and no proof
				// of anything either.
				if anchors.name != "no anchor" {
					expect(t, v, verdict.StatusFail, verdict.CheckVRFProof)
					if !hasCheck(v, verdict.CheckVRFProof, verdict.StatusFail, verdict.MsgTranscriptNoEnd) {
						t.Errorf("%s:\n%s", what, v.Text("en"))
					}
				}
				continue
			}
			noProof(t, what, v)
			if anchors.name == "keyed" {
				switch doc.name {
				case "β edited":
					notProof(t, what, v, verdict.CheckVRFProof)
				case "outcome edited":
					notProof(t, what, v, verdict.CheckOutcome)
				default:
					notProof(t, what, v, verdict.CheckChain)
					notProof(t, what, v, verdict.CheckRules)
				}
			}
		}
	}
}

// TestPartialTrust: a contradiction among records proven in the log is
// proof even when another record of the transcript was edited.
func TestPartialTrust(t *testing.T) {
	a := appliance(t, 61)
	g := play(t, a, receipttest.Play{Game: "g-partial", Cheat: receipttest.Cheat{ForgeProof: 1}})
	tr := transcriptOf(t, a.Transcript(g, receipttest.TranscriptOptions{}))
	k := lastPick(t, tr)
	if k <= 1 {
		t.Fatalf("the game has one pick only")
	}
	tr.Records[k].Record = flipBeta(t, tr.Records[k].Record)
	v := receipt.VerifyTranscript(receipt.Marshal(tr), keyed(t, a))
	// The forged proof of pick 1 rests on the start, pick 1 and the end, all proven.
	expect(t, v, verdict.StatusMisbehaviour, verdict.CheckVRFProof)
	// The edited pick proves nothing (its link, its outcome, the replay).
	status(t, v, verdict.CheckInclusion, verdict.StatusFail)
	if c := v.Find(verdict.CheckOutcome); c.Status == verdict.StatusMisbehaviour {
		t.Errorf("outcome of an edited pick: %+v", c)
	}
	notProof(t, "edited pick", v, verdict.CheckRules)
}

// TestUntrustedVRFKeyIsNoProof: proofs that fail under a key that is not
// the appliance's — another key under the same id, or the appliance's key
// bytes (pinned by fingerprint) under another suite — prove nothing.
func TestUntrustedVRFKeyIsNoProof(t *testing.T) {
	a := appliance(t, 62)
	g := play(t, a, receipttest.Play{Game: "g-key", StopAt: 2})
	other := appliance(t, 63)
	tr := transcriptOf(t, a.Transcript(g, receipttest.TranscriptOptions{}))
	var k receipt.Transcript
	json.Unmarshal(other.Transcript(play(t, other, receipttest.Play{Game: "g-o", StopAt: 1}), receipttest.TranscriptOptions{}), &k)
	tr.VRFKeys[0].PublicKey = k.VRFKeys[0].PublicKey
	v := receipt.VerifyTranscript(receipt.Marshal(tr), pinned(t, a))
	noProof(t, "another key", v)
	notProof(t, "another key", v, verdict.CheckVRFProof)

	// The appliance's key pinned by a bare fingerprint (its bytes only),
	// named with another suite.
	tr = transcriptOf(t, a.Transcript(g, receipttest.TranscriptOptions{NoKeys: true}))
	tr.VRFKeys[0].Suite = string(vrf.SuiteP256TAI)
	v = receipt.VerifyTranscript(receipt.Marshal(tr), bare(t, a))
	noProof(t, "another suite", v)
	if !hasCheck(v, verdict.CheckVRFProof, verdict.StatusFail, verdict.MsgNotProof) || !strings.Contains(v.Find(verdict.CheckVRFProof).Detail, "suite ECVRF-P256-SHA256-SSWU") {
		t.Errorf("another suite:\n%s", v.Text("en"))
	}
	// The same for a receipt.
	var rc receipt.Receipt
	json.Unmarshal(a.ReceiptWith(g, 1, receipttest.ReceiptOptions{Alpha: true}), &rc)
	rc.VRFKey.Suite = string(vrf.SuiteP256TAI)
	v = receipt.VerifyReceipt(receipt.Marshal(&rc), bare(t, a))
	noProof(t, "receipt, another suite", v)
	notProof(t, "receipt, another suite", v, verdict.CheckVRFProof)
}

// TestEditedReceiptIsNoProof: a receipt's record, α or vrf_key edited is
// not proof of misbehaviour, with or without anchors.
func TestEditedReceiptIsNoProof(t *testing.T) {
	a := appliance(t, 64)
	g := play(t, a, receipttest.Play{Game: "g-rc", StopAt: 1})
	edit := func(o receipttest.ReceiptOptions, f func(rc *receipt.Receipt)) []byte {
		var rc receipt.Receipt
		json.Unmarshal(a.ReceiptWith(g, 1, o), &rc)
		f(&rc)
		return receipt.Marshal(&rc)
	}
	flipR := func(rc *receipt.Receipt) { // a byte of r, α's fourth field (game, emission, ticket, r, …)
		b, _ := hex.DecodeString(rc.Alpha)
		at := len(record.AlphaDomain)
		at += 2 + int(binary.BigEndian.Uint16(b[at:]))
		for range 3 {
			at += 4 + int(binary.BigEndian.Uint32(b[at:]))
		}
		b[at+4] ^= 1
		rc.Alpha = hex.EncodeToString(b)
	}
	withAlpha := receipttest.ReceiptOptions{Alpha: true}
	for _, doc := range []struct {
		name, check string
		file        []byte
	}{
		{"outcome edited", verdict.CheckOutcome, edit(withAlpha, func(rc *receipt.Receipt) {
			r := rc.Record
			rc.Record = strings.Replace(strings.Replace(strings.Replace(r, `"outcome":"good"`, `"outcome":"X"`, 1), `"outcome":"losing"`, `"outcome":"good"`, 1), `"outcome":"X"`, `"outcome":"losing"`, 1)
		})},
		{"β edited", verdict.CheckVRFProof, edit(withAlpha, func(rc *receipt.Receipt) { rc.Record = flipBeta(t, rc.Record) })},
		{"r of α edited", verdict.CheckCommitment, edit(withAlpha, flipR)},
		{"r of α edited, no start", verdict.CheckVRFProof, edit(receipttest.ReceiptOptions{Alpha: true, NoStart: true}, flipR)},
		{"vrf_key id edited", verdict.CheckVRFKey, edit(withAlpha, func(rc *receipt.Receipt) { rc.VRFKey.ID = "vrf-other" })},
	} {
		for _, anchors := range []struct {
			name string
			a    receipt.Anchors
		}{{"keyed", keyed(t, a)}, {"no anchor", receipt.Anchors{Location: a.Location}}} {
			what := doc.name + ", " + anchors.name
			v := receipt.VerifyReceipt(doc.file, anchors.a)
			noProof(t, what, v)
			if anchors.name == "keyed" && doc.name != "β edited" {
				notProof(t, what, v, doc.check)
			}
		}
	}
}

// TestCertificateNeedsTrustedLog: a certificate whose draw contradicts β
// is proof only under a trusted log key; with the certificate's own keys
// (no anchor) it proves nothing. The certificate's own picks prove nothing
// either.
func TestCertificateNeedsTrustedLog(t *testing.T) {
	a := appliance(t, 65)
	p, err := a.PromoDrawWith("steer", 40, receipttest.PromoCheat{SwapWinner: true})
	if err != nil {
		t.Fatal(err)
	}
	n := a.Size()
	fr, _ := record.Parse(a.Leaf(p.Freeze))
	f := fr.(*record.PromoFreeze)
	dr, _ := record.Parse(a.Leaf(p.Draw))
	d := dr.(*record.PromoDraw)
	_, rh, err := promo.FreezeRules(f)
	if err != nil {
		t.Fatal(err)
	}
	c := promo.Certificate{V: 1, Draw: f.Draw, RulesHash: rh,
		Freeze:     promo.LoggedRecord{Index: p.Freeze, Record: string(a.Leaf(p.Freeze)), Proof: a.Inclusion(p.Freeze, n)},
		DrawRecord: promo.LoggedRecord{Index: p.Draw, Record: string(a.Leaf(p.Draw)), Proof: a.Inclusion(p.Draw, n)},
		Checkpoint: string(a.Checkpoint()), LogKeys: a.LogKeys, VRFKeyID: a.VRFID, VRFSuite: string(vrf.SuiteP256SSWU),
		VRFPublicKey: hex.EncodeToString(a.VRF.Public().Bytes()),
		Picks:        make([]promo.PickProof, len(d.Ranking))}
	file := promo.CertificateJSON(&c)
	v := receipt.VerifyCertificate(file, nil, keyed(t, a))
	expect(t, v, verdict.StatusMisbehaviour, promo.CheckPicks)
	v = receipt.VerifyCertificate(file, nil, receipt.Anchors{})
	noProof(t, "certificate without anchor", v)
	notProof(t, "certificate without anchor", v, promo.CheckPicks)
}

// TestSecretLost: a game refunded after the appliance lost its secret r
// ends with an all-zero r. Its draws cannot be verified — a failure, not a
// broken commitment — and its outcomes and rules are still checked. A zero
// r at the end of a game that was played out is a broken commitment.
func TestSecretLost(t *testing.T) {
	a := appliance(t, 66)
	g := play(t, a, receipttest.Play{Game: "g-lost", Unfinished: 2, Refund: true, SecretLost: true})
	for _, v := range []*verdict.Verdict{
		receipt.VerifyTranscript(a.Transcript(g, receipttest.TranscriptOptions{}), keyed(t, a)),
		receipt.VerifyReceipt(a.Receipt(g, len(g.Indices)-1, false), keyed(t, a)),
	} {
		expect(t, v, verdict.StatusFail, verdict.CheckCommitment)
		if !hasCheck(v, verdict.CheckCommitment, verdict.StatusFail, verdict.MsgSecretLost) {
			t.Errorf("commitment:\n%s", v.Text("en"))
		}
		en, fr := v.Find(verdict.CheckCommitment).Reason("en"), v.Find(verdict.CheckCommitment).Reason("fr")
		if en != "the appliance did not reveal r: it lost it (game refunded); this game's draws cannot be verified" ||
			fr != "l'appareil n'a pas révélé le secret r : il l'a perdu (partie remboursée) ; les tirages de cette partie ne peuvent pas être vérifiés" {
			t.Errorf("reasons %q / %q", en, fr)
		}
		if v.Kind == receipt.DocTranscript {
			if !hasCheck(v, verdict.CheckVRFProof, verdict.StatusSkip, verdict.MsgSecretLost) {
				t.Errorf("vrf-proof:\n%s", v.Text("en"))
			}
			status(t, v, verdict.CheckOutcome, verdict.StatusPass)
			status(t, v, verdict.CheckRules, verdict.StatusPass)
		}
	}
	// Honest refund, r revealed: passes.
	ok := play(t, a, receipttest.Play{Game: "g-refunded", Unfinished: 2, Refund: true, RefundReason: "panne : 30 jours non honorés"})
	v := receipt.VerifyTranscript(a.Transcript(ok, receipttest.TranscriptOptions{}), keyed(t, a))
	expect(t, v, verdict.StatusPass, "")
	// The operator's reason, sealed in the end, is shown as it reads.
	if strings.Count(v.Text("fr"), `motif du remboursement : "panne : 30 jours non honorés"`) != 1 {
		t.Errorf("the refund's reason is not shown once:\n%s", v.Text("fr"))
	}
	// A game played out to its end may not lose r.
	bad := play(t, a, receipttest.Play{Game: "g-zero", StopAt: 1, SecretLost: true})
	expect(t, receipt.VerifyTranscript(a.Transcript(bad, receipttest.TranscriptOptions{}), keyed(t, a)), verdict.StatusMisbehaviour, verdict.CheckCommitment)
}
