package receipt_test

import (
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/qod"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/vrf"
)

// rotated is an appliance that announced a second VRF key (a rotation),
// and anchors trusting both keys by suite pin.
func rotated(t *testing.T, seed byte) (*receipttest.Appliance, *vrf.PrivateKey, receipt.Anchors) {
	t.Helper()
	a := appliance(t, seed)
	sk, err := a.AnnounceVRF()
	if err != nil {
		t.Fatal(err)
	}
	anchors := keyed(t, a)
	anchors.Pins = append(anchors.Pins, receipt.VRFPin(sk.Public()))
	return a, sk, anchors
}

// ruleKeyBroken: the verdict's first failing check is rules, as
// misbehaviour, naming the game's key and the other one.
func ruleKeyBroken(t *testing.T, what string, v *verdict.Verdict, game, other string) {
	t.Helper()
	c := v.First()
	if v.Status() != verdict.StatusMisbehaviour || c == nil || c.Name != verdict.CheckRules ||
		!strings.Contains(c.Detail, `drawn under VRF key "`+other+`", but the game's draws are under key "`+game+`"`) {
		t.Errorf("%s: want misbehaviour, rules, naming keys %s and %s:\n%s", what, other, game, v.Text("en"))
		return
	}
	if fr := c.Reason("fr"); !strings.Contains(fr, "une même clé") {
		t.Errorf("%s: French reason %q", what, fr)
	}
}

// TestOneKeyPerGame: after a rotation (two VRF keys announced), a pick
// drawn under the other key — its proof, β and outcome valid under that
// key — is a draw whose key, and so whose outcome, the operator chose: the
// audit's reading of the game (CheckGame), its transcript and the pick's
// receipt all refuse it as misbehaviour. An honest game on one key passes.
func TestOneKeyPerGame(t *testing.T) {
	a, sk2, anchors := rotated(t, 61)
	g := play(t, a, receipttest.Play{Game: "g-two-keys", Cheat: receipttest.Cheat{OtherKey: 2}})
	if g.Final.Picks < 2 {
		t.Fatalf("the game ended after %d pick(s): pick 2 was never drawn", g.Final.Picks)
	}
	p, err := record.Parse(a.Leaf(g.Indices[2]))
	if err != nil {
		t.Fatal(err)
	}
	otherID := p.(*record.Pick).Key
	if otherID == a.VRFID {
		t.Fatalf("pick 2 is under the game's key %s", otherID)
	}

	// The audit's reading: every record from the trusted log, both keys
	// announced (Included nil).
	keys := map[string]*vrf.PublicKey{a.VRFID: a.VRF.Public(), otherID: sk2.Public()}
	var leaves [][]byte
	for _, i := range g.Indices {
		leaves = append(leaves, a.Leaf(i))
	}
	v := verdict.New("game", verdict.MsgSame, g.ID)
	receipt.CheckGame(v, receipt.Game{Leaves: leaves, Indices: g.Indices, Location: a.Location,
		Key: func(id string) (*vrf.PublicKey, bool) { pk, ok := keys[id]; return pk, ok }})
	ruleKeyBroken(t, "CheckGame", v, a.VRFID, otherID)
	status(t, v, verdict.CheckVRFProof, verdict.StatusPass) // every proof is valid under the key it names

	// Its transcript, and the receipt of pick 2, with α or without (the
	// key ids are in the records: no need to wait for r).
	ruleKeyBroken(t, "transcript", receipt.VerifyTranscript(a.Transcript(g, receipttest.TranscriptOptions{}), anchors), a.VRFID, otherID)
	ruleKeyBroken(t, "receipt with α", receipt.VerifyReceipt(a.Receipt(g, 2, true), anchors), a.VRFID, otherID)
	v = receipt.VerifyReceipt(a.Receipt(g, 2, false), anchors)
	ruleKeyBroken(t, "receipt without α", v, a.VRFID, otherID)
	// Pick 1, under the game's key, is no evidence of anything.
	expect(t, receipt.VerifyReceipt(a.Receipt(g, 1, true), anchors), verdict.StatusPass, "")

	// Honest after the rotation: a game on one key passes everywhere.
	h := play(t, a, receipttest.Play{Game: "g-one-key"})
	expect(t, receipt.VerifyTranscript(a.Transcript(h, receipttest.TranscriptOptions{}), anchors), verdict.StatusPass, "")
	for k := range h.Indices {
		expect(t, receipt.VerifyReceipt(a.Receipt(h, k, true), anchors), verdict.StatusPass, "")
	}

	// S = 50,000 €: the start draws nothing, the first pick fixes the key;
	// the transcript shows the second pick under another.
	m := play(t, a, receipttest.Play{Game: "g-max-two-keys", Stake: qod.MaxStake, Cheat: receipttest.Cheat{OtherKey: 2}})
	if m.Final.Picks < 2 {
		t.Fatalf("the 50,000 € game ended after %d pick(s)", m.Final.Picks)
	}
	ruleKeyBroken(t, "50,000 € transcript", receipt.VerifyTranscript(a.Transcript(m, receipttest.TranscriptOptions{}), anchors), a.VRFID, otherID)
}

// TestReceiptWithoutAlpha: a losing pick logged with a forged β, its game
// never ended, so r is never revealed: its receipt carries no α and the
// proof cannot be checked. The verdict is not a pass (it was): it fails,
// saying the proof is not yet verifiable and what is missing; so does the
// game's transcript. The honest
// receipt of a losing pick carries α (rngd ends the game in the same call)
// and passes.
func TestReceiptWithoutAlpha(t *testing.T) {
	a := appliance(t, 62)
	g := play(t, a, receipttest.Play{Game: "g-forged", Unfinished: 1})
	if g.Final.Phase != qod.Playing {
		t.Fatalf("game %v after one pick, want playing", g.Final.Phase)
	}
	// The operator logs pick 2 as losing, with a β it chose (a proof of
	// another α) and never logs the end.
	var beta []byte
	for i := 0; ; i++ {
		if i == 200 {
			t.Fatal("no losing β for pick 2 in 200")
		}
		b := record.LeafHash([]byte{byte(i), byte(i >> 8)})
		if losing, _ := receipt.PickLosing(1, 2, b[:]); losing {
			beta = b[:]
			break
		}
	}
	proof, err := a.VRF.Prove([]byte("another α"))
	if err != nil {
		t.Fatal(err)
	}
	last := a.Leaf(g.Indices[len(g.Indices)-1])
	leaf, err := record.Format(&record.Pick{Time: a.Now.Add(time.Minute), Game: g.ID, Index: 1, Number: 2, Outcome: record.OutcomeLosing,
		Key: a.VRFID, Proof: proof, Beta: beta, Prev: record.LeafHash(last)})
	if err != nil {
		t.Fatal(err)
	}
	g.Indices = append(g.Indices, a.Append(leaf))
	g.Alphas = append(g.Alphas, []byte("not given"))

	k := len(g.Indices) - 1
	v := receipt.VerifyReceipt(a.Receipt(g, k, false), keyed(t, a))
	expect(t, v, verdict.StatusFail, verdict.CheckVRFProof)
	if !hasCheck(v, verdict.CheckVRFProof, verdict.StatusFail, verdict.MsgProofNotYet) ||
		!strings.Contains(v.Summary("en"), "not yet verifiable") || !strings.Contains(v.Summary("en"), "game's end record") ||
		!strings.Contains(v.Summary("fr"), "pas encore vérifiable") {
		t.Errorf("forged losing pick, no α:\n%s\n%s", v.Text("en"), v.Summary("fr"))
	}
	// The start's receipt, in play, is not verifiable yet either.
	expect(t, receipt.VerifyReceipt(a.Receipt(g, 0, false), keyed(t, a)), verdict.StatusFail, verdict.CheckVRFProof)
	// Nor is the game's transcript, where the receipt sends the player:
	// the game is lost, but no end has revealed r.
	v = receipt.VerifyTranscript(a.Transcript(g, receipttest.TranscriptOptions{}), keyed(t, a))
	expect(t, v, verdict.StatusFail, verdict.CheckVRFProof)
	if !hasCheck(v, verdict.CheckVRFProof, verdict.StatusFail, verdict.MsgTranscriptNoEnd) || !strings.Contains(v.Summary("en"), "the game is lost, but the transcript holds no end record") {
		t.Errorf("forged losing pick, transcript without end:\n%s", v.Text("en"))
	}

	// Honest: a lost game's receipts carry α, the losing pick's too.
	for i := 0; ; i++ {
		if i == 200 {
			t.Fatal("no game lost in 200")
		}
		l := play(t, a, receipttest.Play{Game: "g-lost-" + string(rune('a'+i))})
		if l.Final.Phase != qod.Lost {
			continue
		}
		for k := range l.Indices {
			expect(t, receipt.VerifyReceipt(a.Receipt(l, k, true), keyed(t, a)), verdict.StatusPass, "")
		}
		expect(t, receipt.VerifyReceipt(receiptsReply(t, a, l), keyed(t, a)), verdict.StatusPass, "")
		break
	}
}

// TestPromoReceiptFreezeKey: after a rotation, a promotion draw's receipt
// with its freeze passes under the key the freeze names, and a draw of the
// same freeze, r and share under the other announced key (its proof valid
// under that key) is misbehaviour naming both keys: the freeze bound the
// key before the bailiff's share existed.
func TestPromoReceiptFreezeKey(t *testing.T) {
	for _, other := range []bool{false, true} {
		a, _, anchors := rotated(t, 63)
		p, err := a.PromoDrawWith("k1", 40, receipttest.PromoCheat{OtherKey: other})
		if err != nil {
			t.Fatal(err)
		}
		v := receipt.VerifyReceipt(a.PromoReceipt(p, true), anchors)
		if !other {
			expect(t, v, verdict.StatusPass, "")
			continue
		}
		d, _ := record.Parse(a.Leaf(p.Draw))
		want := `the draw is proven under VRF key "` + d.(*record.PromoDraw).Key + `", not "` + a.VRFID + `"`
		if c := v.Find(verdict.CheckChain); v.Status() != verdict.StatusMisbehaviour || c == nil ||
			c.Status != verdict.StatusMisbehaviour || !strings.Contains(c.Detail, want) {
			t.Errorf("draw under the other key, want chain misbehaviour %q:\n%s", want, v.Text("en"))
		}
	}
}
