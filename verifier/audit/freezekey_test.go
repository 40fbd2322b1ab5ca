package audit_test

import (
	"context"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/audit"
	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// keyedLog is a log with two VRF keys announced (a rotation) before one
// promotion draw, drawn as cheat says; both keys are pinned. The same seed
// gives the same freeze, r and share in every call: only the key differs.
func keyedLog(t *testing.T, cheat receipttest.PromoCheat) (*audit.Result, *receipttest.Appliance, *receipttest.Promo) {
	t.Helper()
	a := logWith(t, 2, nil)
	sk, err := a.AnnounceVRF()
	if err != nil {
		t.Fatal(err)
	}
	p, err := a.PromoDrawWith("d1", 50, cheat)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := checkpoint.ParseKeys(string(a.LogKeyFile()))
	if err != nil {
		t.Fatal(err)
	}
	res, err := audit.Run(context.Background(), audit.Config{Fetch: files(a.Tiles()), LogKeys: keys, Workers: 2, Location: a.Location,
		VRFPins: []string{a.VRFFingerprint(), record.Hex(record.Fingerprint(sk.Public().Bytes()))}, Now: clock(a)})
	if err != nil {
		t.Fatal(err)
	}
	return res, a, p
}

// TestAuditFreezeKey is the reviewer's scenario: after a rotation, the
// operator who knows the bailiff's share proves α under each announced key
// and keeps the ranking it prefers. The freeze names the key before the
// share exists: of the same freeze, r and share drawn once under each key,
// the draw under the freeze's key passes and the other is misbehaviour
// naming both keys — though its proof, β and ranking are valid under its
// own key. (The audit once accepted both: any key announced before the
// freeze.)
func TestAuditFreezeKey(t *testing.T) {
	good, a, pg := keyedLog(t, receipttest.PromoCheat{})
	if v := good.Verdict; v.Status() != verdict.StatusPass {
		t.Fatalf("the draw under the freeze's key:\n%s", v.Text("en"))
	}
	bad, b, pb := keyedLog(t, receipttest.PromoCheat{OtherKey: true})
	if string(a.Leaf(pg.Freeze)) != string(b.Leaf(pb.Freeze)) {
		t.Fatal("test bug: the two logs' freezes differ")
	}
	dg, _ := record.Parse(a.Leaf(pg.Draw))
	db, _ := record.Parse(b.Leaf(pb.Draw))
	g, o := dg.(*record.PromoDraw), db.(*record.PromoDraw)
	if string(g.Share) != string(o.Share) || g.Secret != o.Secret || g.Key == o.Key || string(g.Beta) == string(o.Beta) {
		t.Fatal("test bug: the two draws are not the same α under two keys")
	}
	c := bad.Verdict.Find(verdict.CheckPromotions)
	want := `the draw is proven under VRF key "` + o.Key + `", not "` + g.Key + `", the key its freeze names`
	if c == nil || c.Status != verdict.StatusMisbehaviour || !strings.Contains(c.Detail, want) {
		t.Fatalf("the draw under the other key, want misbehaviour %q:\n%s", want, bad.Verdict.Text("en"))
	}
	if fr := bad.Verdict.Text("fr"); !strings.Contains(fr, "celle que désigne son gel") {
		t.Errorf("French:\n%s", fr)
	}
}

// TestAuditLegacyFreezeKey: a freeze logged before freezes named their key
// binds none. With a single VRF key announced before it, that key is the
// only one its draw can be under (a draw under a key announced later is
// not counted): it passes. With several, nothing shows the key was not
// chosen once the share was known: the draw fails the promotions check
// (not misbehaviour: an older rngd drew with the key it ran on), naming
// the keys, whichever key it is under.
func TestAuditLegacyFreezeKey(t *testing.T) {
	a := logWith(t, 2, nil)
	if _, err := a.PromoDrawWith("d1", 50, receipttest.PromoCheat{Legacy: true}); err != nil {
		t.Fatal(err)
	}
	if v := run(t, a, a.Tiles(), nil).Verdict; v.Status() != verdict.StatusPass {
		t.Fatalf("legacy freeze, one key:\n%s", v.Text("en"))
	}
	for _, other := range []bool{false, true} {
		res, _, _ := keyedLog(t, receipttest.PromoCheat{Legacy: true, OtherKey: other})
		c := res.Verdict.Find(verdict.CheckPromotions)
		if c == nil || c.Status != verdict.StatusFail || !strings.Contains(c.Detail, "its freeze names no VRF key") ||
			!strings.Contains(c.Detail, "2 VRF keys were announced before it") {
			t.Fatalf("legacy freeze, two keys, other key %v:\n%s", other, res.Verdict.Text("en"))
		}
	}
}
