package rngd

import (
	"context"
	"testing"

	"google.golang.org/protobuf/proto"

	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
)

// After a VRF key rotation, the receipts of a game played on the old key —
// GetReceipts, and the reply a retry of its calls gets — name the key its
// records were proven under, as they did before: not the key in use, under
// which the proofs do not verify.
func TestReceiptsAfterRotation(t *testing.T) {
	ctx := context.Background()
	td := newTestDaemon(t)
	codes := td.emission("RR", "2026-12-31", 1)
	a := td.client("server-a")
	g := start(t, a, codes[0]).Game
	pick := &qodv1.PickRequest{RequestId: rid(), GameId: g.GameId, Number: 1}
	reply, err := a.Pick(ctx, pick)
	if err != nil {
		t.Fatal(err)
	}
	playUntil(t, a, reply.Game, func(*qodv1.Game) bool { return false })
	strip := func(rs ...*qodv1.Receipt) {
		for _, r := range rs {
			if r != nil {
				r.Checkpoint, r.InclusionProof, r.StartInclusionProof, r.StartRecord, r.StartLogIndex = nil, nil, nil, nil, 0
			}
		}
	}
	strip(reply.Receipt, reply.EndReceipt)
	before, err := a.GetReceipts(ctx, &qodv1.GetReceiptsRequest{GameId: g.GameId})
	if err != nil {
		t.Fatal(err)
	}
	td.stop()
	generateKeys(t, td.keysDir(), []string{"vrf2"}, nil)
	td.cfg.Keys.VRFLabel = "vrf2"
	td.start()
	a = td.client("server-a")
	after, err := a.GetReceipts(ctx, &qodv1.GetReceiptsRequest{GameId: g.GameId})
	if err != nil {
		t.Fatal(err)
	}
	strip(append(before.Receipts, after.Receipts...)...)
	for i, r := range after.Receipts {
		if !proto.Equal(r, before.Receipts[i]) {
			t.Errorf("receipt %d after the rotation: key %q %x, was %q %x", i, r.VrfKeyId, r.VrfPublicKey, before.Receipts[i].VrfKeyId, before.Receipts[i].VrfPublicKey)
		}
	}
	again, err := a.Pick(ctx, pick)
	if err != nil {
		t.Fatal(err)
	}
	strip(again.Receipt, again.EndReceipt)
	if !proto.Equal(again, reply) {
		t.Errorf("retry after the rotation:\n%v\nwant\n%v", again, reply)
	}
}
