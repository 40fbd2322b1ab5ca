package receipt_test

import (
	"encoding/hex"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/beacon"
	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/vrf"
)

type beaconProver struct{ sk *vrf.PrivateKey }

func (p beaconProver) PublicKey() *vrf.PublicKey { return p.sk.Public() }
func (p beaconProver) Prove(alpha []byte) (proof, beta []byte, err error) {
	return p.sk.ProveHash(alpha)
}

// TestPromoReceiptBeacon: a promotion draw's receipt checks the beacon value
// the draw binds against the round its freeze announced, as the certificate
// and the audit do: the real signature of drand quicknet round 123 passes;
// another value, properly proven and ranked by a dishonest appliance (which
// could try values until the winners suit it), is misbehaviour — the receipt
// passed it when only the VRF proof and the ranking were checked.
// (Signatures: verifier/beacon/testdata/rounds.json.)
func TestPromoReceiptBeacon(t *testing.T) {
	sig123, _ := hex.DecodeString("b75c69d0b72a5d906e854e808ba7e2accb1542ac355ae486d591aa9d43765482e26cd02df835d3546d23c4b13e0dfc92")
	sig657413, _ := hex.DecodeString("b713718a38ae728dfd477991af2822e08d2f305e47718cef9f7848ce4050e7be41076862b98fad56e91a6b85b89cd97b")
	for _, tc := range []struct {
		name      string
		logged    []byte        // the beacon value in the logged draw record
		announced time.Duration // the freeze's time, before round 123's
		want      verdict.Status
	}{
		{"the announced round", sig123, -time.Hour, verdict.StatusPass},
		{"another round's value", sig657413, -time.Hour, verdict.StatusMisbehaviour},
		{"a value known at the freeze", sig123, time.Hour, verdict.StatusMisbehaviour},
	} {
		a := appliance(t, 81)
		l := &promo.EntrantList{Draw: "bonus/b", Accounts: []string{"A1", "A2", "A3", "A4"}}
		tree, _ := l.Tree()
		var r [32]byte
		now := beacon.Quicknet.RoundTime(123).Add(tc.announced)
		ref := beacon.Ref{Chain: beacon.Quicknet.Hash(), Round: 123}
		f, err := promo.NewFreeze(promo.FreezeInput{Operation: "bonus", RulesHash: promo.RulesHash([]byte("rules")), Draw: l.Draw, Tree: tree, Reserves: 1, Beacon: ref.String(), KeyID: a.VRFID, R: r, Now: beacon.Quicknet.RoundTime(123).Add(-time.Hour),
			ShareCommitment: promo.ShareCommitment(l.Draw, "text:bailiff b")})
		if err != nil {
			t.Fatal(err)
		}
		f.Time = now // a dishonest appliance's freeze, logged after the round
		fl, err := record.Format(f)
		if err != nil {
			t.Fatal(err)
		}
		fi := a.Append(fl)
		c := promo.Ceremony{Freeze: f, Tree: tree, R: r, Share: "text:bailiff b", BeaconValue: sig123, KeyID: a.VRFID, Prover: beaconProver{a.VRF}, Now: beacon.Quicknet.RoundTime(123).Add(time.Hour)}
		d, err := c.Run()
		if err != nil {
			t.Fatal(err)
		}
		d.Prev = record.LeafHash(fl)
		d.BeaconValue = tc.logged
		if d.Proof, err = a.VRF.Prove(d.Alpha()); err != nil {
			t.Fatal(err)
		}
		d.Beta, _ = vrf.Verify(a.VRF.Public(), d.Alpha(), d.Proof)
		idx, _ := promo.Picks(d.Beta, d.Winners+d.Reserves, d.Count)
		for i, x := range idx {
			d.Ranking[i] = uint64(x)
		}
		dl, err := record.Format(d)
		if err != nil {
			t.Fatal(err)
		}
		di := a.Append(dl)
		n := a.Size()
		rc := receipt.Receipt{V: 1, Type: receipt.TypeReceipt, Index: di, Record: string(dl), Proof: a.Inclusion(di, n),
			Checkpoint: string(a.Checkpoint()), LogKeys: a.LogKeys,
			VRFKey: &receipt.VRFKey{ID: a.VRFID, Suite: string(a.VRF.Public().Suite()), PublicKey: hex.EncodeToString(a.VRF.Public().Bytes())},
			Freeze: &receipt.Logged{Index: fi, Record: string(fl), Proof: a.Inclusion(fi, n)}}
		v := receipt.VerifyReceipt(receipt.Marshal(&rc), keyed(t, a))
		if v.Status() != tc.want {
			t.Errorf("%s: verdict %s, want %s:\n%s", tc.name, v.Status(), tc.want, v.Text("en"))
		}
		// Without a trusted log key, the same contradiction proves nothing.
		if tc.want == verdict.StatusMisbehaviour {
			noProof(t, tc.name+" without anchor", receipt.VerifyReceipt(receipt.Marshal(&rc), receipt.Anchors{Pins: []string{a.VRFPin()}}))
		}
	}
	_ = receipttest.Origin
}

// TestPromoReceiptNoBeaconNeedsFreeze: a draw record's empty beacon is the
// draw's own claim; only its freeze (which the draw must equal) shows that
// no round was announced. Without the freeze the check is skipped, not
// passed (it passed with "the freeze announced no beacon round"); with it,
// there is no beacon to check: skipped, saying so — and saying that only
// the draw's rules show whether a round was promised (a freeze that drops
// the round its rules announce is caught there: rngverify certificate
// --rules), which it did not say.
func TestPromoReceiptNoBeaconNeedsFreeze(t *testing.T) {
	a := appliance(t, 82)
	p, err := a.PromoDrawWith("nb", 12, receipttest.PromoCheat{})
	if err != nil {
		t.Fatal(err)
	}
	v := receipt.VerifyReceipt(a.PromoReceipt(p, true), keyed(t, a))
	if !hasCheck(v, promo.CheckBeacon, verdict.StatusSkip, verdict.MsgReceiptBeaconNone) {
		t.Errorf("with the freeze:\n%s", v.Text("en"))
	}
	if c := v.Find(promo.CheckBeacon); c == nil ||
		c.Detail != "the freeze announced no beacon round; only the draw's rules show whether one was promised (rngverify certificate --rules FILE checks it)" ||
		c.Reason("fr") != "le gel n'a annoncé aucune ronde de balise ; seul le règlement du tirage montre si une ronde était promise (rngverify certificate --rules FICHIER le vérifie)" {
		t.Errorf("with the freeze, the skip does not send to the rules:\n%s", v.Text("en"))
	}
	v = receipt.VerifyReceipt(a.PromoReceipt(p, false), keyed(t, a))
	if !hasCheck(v, promo.CheckBeacon, verdict.StatusSkip, verdict.MsgReceiptNoBeacon) {
		t.Errorf("without the freeze:\n%s", v.Text("en"))
	}
}
