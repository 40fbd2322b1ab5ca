package web_test

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"tirage.fr/tirage/verifier/announce"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/web"
)

// TestRelabelledKeyOnPage: after a rotation, a receipt whose vrf_key gives
// the other trusted key's bytes under the id its record names fails —
// nothing proves the receipt's pairing — with both keys pinned, and fails
// vrf-key (the receipt is wrong) with the appliance's key announcements
// trusted; a forged proof under an honest pairing is misbehaviour only with
// the announcements trusted. The page's verdicts are rngverify receipt's
// --json, byte for byte, the announcements given with --vrf-key or
// --log-key.
func TestRelabelledKeyOnPage(t *testing.T) {
	a, err := receipttest.New(90)
	if err != nil {
		t.Fatal(err)
	}
	sk2, err := a.AnnounceVRF()
	if err != nil {
		t.Fatal(err)
	}
	g, err := a.PlayGame(receipttest.Play{Game: "g-relabel", StopAt: 1})
	if err != nil {
		t.Fatal(err)
	}
	f, err := a.PlayGame(receipttest.Play{Game: "g-forged", StopAt: 1, Cheat: receipttest.Cheat{ForgeProof: 1}})
	if err != nil {
		t.Fatal(err)
	}
	// The appliance's two key announcements, sealed as rngd seals them
	// (receipttest logs them unsigned; its log key is not in announce's
	// form, so only the VRF keys).
	var anns [][]byte
	for i := range uint64(a.Size()) {
		r, err := record.Parse(a.Leaf(i))
		ka, ok := r.(*record.KeyAnnouncement)
		if err != nil || !ok {
			continue
		}
		ka.Keys = ka.Keys[:1]
		sk := a.VRF
		if ka.Keys[0].ID != a.VRFID {
			sk = sk2
		}
		b, err := announce.Seal(ka, func(_ int, m []byte) ([]byte, error) { return sk.Prove(m) })
		if err != nil {
			t.Fatal(err)
		}
		anns = append(anns, b)
	}
	if len(anns) != 2 {
		t.Fatalf("%d key announcements, want 2", len(anns))
	}
	var rc receipt.Receipt
	if err := json.Unmarshal(a.Receipt(g, 1, true), &rc); err != nil {
		t.Fatal(err)
	}
	rc.VRFKey.PublicKey = hex.EncodeToString(sk2.Public().Bytes())
	relabelled, forged := receipt.Marshal(&rc), a.Receipt(f, 1, true)

	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	vkey := web.File{Name: "log.vkey", Data: a.LogKeyFile()}
	ann1, ann2 := web.File{Name: "keys-1.json", Data: anns[0]}, web.File{Name: "keys-2.json", Data: anns[1]}
	vkeyPath, ann1Path, ann2Path := write(vkey.Name, vkey.Data), write(ann1.Name, ann1.Data), write(ann2.Name, ann2.Data)
	pins := a.VRFPin() + " " + receipt.VRFPin(sk2.Public())
	pinArgs := []string{"--log-key", vkeyPath, "--pin", a.VRFPin(), "--pin", receipt.VRFPin(sk2.Public())}
	annArgs := []string{"--log-key", vkeyPath, "--vrf-key", ann1Path, "--vrf-key", ann2Path}
	annLogArgs := []string{"--log-key", vkeyPath, "--log-key", ann1Path, "--log-key", ann2Path}

	for _, c := range []struct {
		pageCase
		reason verdict.MsgID // the reason id of check (the why of a contradiction that is no proof)
	}{
		{pageCase{name: "relabelled, both keys pinned", docs: []web.File{{Name: "r.json", Data: relabelled}}, anchors: []web.File{vkey}, pins: pins, doc: "r.json",
			args: append([]string{"receipt", write("relabelled.json", relabelled)}, pinArgs...), status: verdict.StatusFail, check: verdict.CheckVRFProof, checkIs: "fail"},
			verdict.MsgWhyKeyPairing},
		{pageCase{name: "relabelled, announcements trusted", docs: []web.File{{Name: "r.json", Data: relabelled}}, anchors: []web.File{vkey, ann1, ann2}, doc: "r.json",
			args: append([]string{"receipt", write("relabelled.json", relabelled)}, annArgs...), status: verdict.StatusFail, check: verdict.CheckVRFKey, checkIs: "fail"},
			verdict.MsgVRFKeyIDMismatch},
		{pageCase{name: "relabelled, announcements trusted (--log-key)", docs: []web.File{{Name: "r.json", Data: relabelled}}, anchors: []web.File{vkey, ann1, ann2}, doc: "r.json",
			args: append([]string{"receipt", write("relabelled.json", relabelled)}, annLogArgs...), status: verdict.StatusFail, check: verdict.CheckVRFKey, checkIs: "fail"},
			verdict.MsgVRFKeyIDMismatch},
		{pageCase{name: "forged, both keys pinned", docs: []web.File{{Name: "r.json", Data: forged}}, anchors: []web.File{vkey}, pins: pins, doc: "r.json",
			args: append([]string{"receipt", write("forged.json", forged)}, pinArgs...), status: verdict.StatusFail, check: verdict.CheckVRFProof, checkIs: "fail"},
			verdict.MsgWhyKeyPairing},
		{pageCase{name: "forged, announcements trusted", docs: []web.File{{Name: "r.json", Data: forged}}, anchors: []web.File{vkey, ann1, ann2}, doc: "r.json",
			args: append([]string{"receipt", write("forged.json", forged)}, annArgs...), status: verdict.StatusMisbehaviour, check: verdict.CheckVRFProof, checkIs: "misbehaviour"},
			verdict.MsgProofInvalid},
		{pageCase{name: "forged, announcements trusted (--log-key)", docs: []web.File{{Name: "r.json", Data: forged}}, anchors: []web.File{vkey, ann1, ann2}, doc: "r.json",
			args: append([]string{"receipt", write("forged.json", forged)}, annLogArgs...), status: verdict.StatusMisbehaviour, check: verdict.CheckVRFProof, checkIs: "misbehaviour"},
			verdict.MsgProofInvalid},
	} {
		v := c.run(t).Verdict
		ch := v.Find(c.check)
		if ch == nil || ch.Message == nil {
			continue // run said so
		}
		got := ch.Message.ID
		if m := ch.Message; (m.ID == verdict.MsgNotProof || m.ID == verdict.MsgSame) && len(m.Args) > 0 {
			if w, ok := m.Args[0].(verdict.Msg); ok {
				got = w.ID
			}
		}
		if got != c.reason {
			t.Errorf("%s: %s reason %s, want %s\n%s", c.name, c.check, got, c.reason, v.Text("en"))
		}
	}
}
