package receipt_test

import (
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// TestReceiptKeyFieldNamed: a receipt's VRF key that cannot be read fails
// vrf-key naming the receipt's field (the daemon's vrfPublicKey, or
// vrf_key.public_key), and says when it is missing. Before, the reason was
// the bare "vrf: public key: point has 0 bytes".
func TestReceiptKeyFieldNamed(t *testing.T) {
	a := appliance(t, 8)
	g := play(t, a, receipttest.Play{Game: "g-key", StopAt: 1})
	doc := a.Receipt(g, 0, true)
	var rc receipt.Receipt
	if err := json.Unmarshal(doc, &rc); err != nil {
		t.Fatal(err)
	}
	daemon := func(pub []byte) []byte {
		pb := protoOf(&rc)
		pb.VrfPublicKey = pub
		b, err := protojson.Marshal(pb)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	file := func(pub, suite string) []byte {
		var m map[string]any
		if err := json.Unmarshal(doc, &m); err != nil {
			t.Fatal(err)
		}
		k := m["vrf_key"].(map[string]any)
		k["public_key"], k["suite"] = pub, suite
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	missing := ` is missing: the receipt names VRF key "` + rc.VRFKey.ID + `" without its public key`
	for _, tc := range []struct {
		name   string
		doc    []byte
		en, fr string
	}{
		{"daemon, missing", daemon(nil), "vrfPublicKey" + missing, "vrfPublicKey est absent : le reçu désigne la clé VRF « " + rc.VRFKey.ID + " » sans sa clé publique"},
		{"daemon, short", daemon([]byte{2, 1}), "vrfPublicKey: vrf: public key: point has 2 bytes", "vrfPublicKey : "},
		{"file, missing", file("", rc.VRFKey.Suite), "vrf_key.public_key" + missing, "vrf_key.public_key est absent"},
		{"file, suite", file(rc.VRFKey.PublicKey, "log"), `vrf_key.suite: `, "vrf_key.suite : "},
	} {
		v := receipt.VerifyReceipt(tc.doc, keyed(t, a))
		c := v.Find(verdict.CheckVRFKey)
		if c == nil || c.Status != verdict.StatusFail || !strings.Contains(c.Detail, tc.en) || !strings.Contains(c.Reason("fr"), tc.fr) {
			t.Errorf("%s: want vrf-key failed with %q / %q:\n%s\n%s", tc.name, tc.en, tc.fr, v.Text("en"), v.Text("fr"))
		}
	}
}

// protoOf is the daemon's protobuf receipt of rc (tirage.qod.v1.Receipt),
// as rngd makes it, without its start fields.
func protoOf(rc *receipt.Receipt) *qodv1.Receipt {
	pb := &qodv1.Receipt{Record: []byte(rc.Record), LogIndex: rc.Index, Checkpoint: []byte(rc.Checkpoint),
		VrfSuite: rc.VRFKey.Suite, VrfKeyId: rc.VRFKey.ID}
	h := record.LeafHash([]byte(rc.Record))
	pb.LeafHash = h[:]
	pb.VrfPublicKey, _ = hex.DecodeString(rc.VRFKey.PublicKey)
	pb.VrfAlpha, _ = hex.DecodeString(rc.Alpha)
	for _, p := range rc.Proof {
		b, _ := hex.DecodeString(p)
		pb.InclusionProof = append(pb.InclusionProof, b)
	}
	return pb
}
