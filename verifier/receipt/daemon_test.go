package receipt_test

import (
	"encoding/hex"
	"encoding/json"
	"strconv"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/verdict"
)

// TestProtoJSONReceipt: the daemon's protobuf Receipt printed by protojson
// (as grpcurl does) verifies like the JSON receipt. (The generated types are
// a test dependency only.)
func TestProtoJSONReceipt(t *testing.T) {
	a := appliance(t, 8)
	g := play(t, a, receipttest.Play{Game: "g-proto", StopAt: 1})
	var rc receipt.Receipt
	if err := json.Unmarshal(a.Receipt(g, 1, true), &rc); err != nil {
		t.Fatal(err)
	}
	pb := protoOf(&rc)
	b, err := protojson.Marshal(pb)
	if err != nil {
		t.Fatal(err)
	}
	if receipt.Detect(b) != receipt.DocReceipt {
		t.Fatalf("protojson receipt not detected: %s", b)
	}
	// Without the game's start, the pick's α is not bound to the game's
	// commitment: its proof is not passed.
	v := receipt.VerifyReceipt(b, keyed(t, a))
	expect(t, v, verdict.StatusFail, verdict.CheckVRFProof)
	// With it (start_record, start_log_index, start_inclusion_proof, which
	// rngd is to add to tirage.qod.v1.Receipt), the receipt verifies.
	withStart := func(b []byte, index string) []byte {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		m["startRecord"] = []byte(rc.Start.Record)
		m["startLogIndex"] = index
		var proof [][]byte
		for _, p := range rc.Start.Proof {
			h, _ := hex.DecodeString(p)
			proof = append(proof, h)
		}
		m["startInclusionProof"] = proof
		out, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	idx := strconv.FormatUint(rc.Start.Index, 10)
	expect(t, receipt.VerifyReceipt(withStart(b, idx), keyed(t, a)), verdict.StatusPass, "")
	expect(t, receipt.VerifyReceipt(withStart(b, "x"), keyed(t, a)), verdict.StatusFail, verdict.CheckFormat)
	// A wrong leaf hash is unreadable input.
	pb.LeafHash = make([]byte, 32)
	b, _ = protojson.Marshal(pb)
	expect(t, receipt.VerifyReceipt(withStart(b, idx), keyed(t, a)), verdict.StatusFail, verdict.CheckFormat)
}
