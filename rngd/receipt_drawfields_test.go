package rngd

import (
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
)

// VerifyReceipts refuses a receipt whose vrf_proof or vrf_output is not
// its record's, as rngverify does (receipt.DrawFieldsOfRecord): the replay
// verifies the records' proofs, so a receipt showing another draw's α, π
// and β (which verify together), or, before the end (no α), any β, used
// to pass with fields nothing checked against the record.
func TestVerifyReceiptsDrawFields(t *testing.T) {
	td := newTestDaemon(t, func(c *Config) { c.Log.ReceiptWait = Duration{5 * time.Second} })
	codes := td.emission("DF", "2026-12-31", 3)
	a := td.client("server-a")
	g := playUntil(t, a, start(t, a, codes[1]).Game, func(*qodv1.Game) bool { return false })
	logKey := td.d.engine.tlog.VerifierKeys()[0]
	var rs *qodv1.GetReceiptsResponse
	for deadline := time.Now().Add(time.Minute); ; {
		var err error
		if rs, err = a.GetReceipts(context.Background(), &qodv1.GetReceiptsRequest{GameId: g.GameId}); err != nil {
			t.Fatal(err)
		}
		v, err := VerifyReceipts(rs.Receipts, logKey, nil, td.d.engine.loc)
		if err != nil {
			t.Fatalf("honest receipts: %v", err)
		}
		if v.Included == len(rs.Receipts) || time.Now().After(deadline) {
			break
		}
	}
	if len(rs.Receipts) < 2 || len(rs.Receipts[0].VrfAlpha) == 0 || len(rs.Receipts[1].VrfProof) == 0 {
		t.Fatalf("want an ended game's start and pick with their draws, got %d receipts", len(rs.Receipts))
	}
	edited := func(edit func(r []*qodv1.Receipt)) []*qodv1.Receipt {
		out := make([]*qodv1.Receipt, len(rs.Receipts))
		for i, r := range rs.Receipts {
			out[i] = proto.Clone(r).(*qodv1.Receipt)
		}
		edit(out)
		return out
	}
	for _, tc := range []struct {
		name  string
		edit  func(r []*qodv1.Receipt)
		field string
	}{
		// The pick's receipt shows the start's draw: α, π and β that
		// verify together, but not the pick's record's.
		{"another draw's", func(r []*qodv1.Receipt) {
			r[1].VrfAlpha, r[1].VrfProof, r[1].VrfOutput = r[0].VrfAlpha, r[0].VrfProof, r[0].VrfOutput
		}, "vrfProof is not the record's proof"},
	} {
		_, err := VerifyReceipts(edited(tc.edit), logKey, nil, td.d.engine.loc)
		if err == nil || !strings.Contains(err.Error(), "receipt 1 (log index ") || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s: error %v, want receipt 1 refused: %q", tc.name, err, tc.field)
		}
	}
	// Before the end a receipt carries no α: its β was checked by nothing.
	playing := start(t, a, codes[2])
	if playing.Receipt == nil || len(playing.Receipt.VrfAlpha) != 0 || len(playing.Receipt.VrfOutput) == 0 {
		t.Fatalf("want a start receipt with β and no α: %v", playing.Receipt)
	}
	one := proto.Clone(playing.Receipt).(*qodv1.Receipt)
	if _, err := VerifyReceipts([]*qodv1.Receipt{one}, logKey, nil, td.d.engine.loc); err != nil {
		t.Fatalf("honest start receipt: %v", err)
	}
	one.VrfOutput[0] ^= 1
	_, err := VerifyReceipts([]*qodv1.Receipt{one}, logKey, nil, td.d.engine.loc)
	if err == nil || !strings.Contains(err.Error(), "receipt 0 (log index ") || !strings.Contains(err.Error(), "vrfOutput is not the record's beta") {
		t.Errorf("β edited before the end: error %v, want the start receipt refused", err)
	}
}
