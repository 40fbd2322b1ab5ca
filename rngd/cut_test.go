package rngd

import (
	"bytes"
	"context"
	"slices"
	"sync/atomic"
	"testing"

	"google.golang.org/protobuf/proto"

	"tirage.fr/tirage/transparency"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
)

// A refund asked for a game already lost, whose end record is not sealed
// yet (its losing pick's end was refused by the log), refunds nothing: it
// is refused as for any game over, and seals nothing — the losing pick's
// retry still gets its reply.
func TestRefundOfCutGame(t *testing.T) {
	td := newTestDaemon(t)
	e := td.d.engine
	ctx := context.Background()
	codes1 := td.emission("RC", "2026-12-31", 40)
	a := td.client("server-a")
	cut, restore := cutEndRefused(t, e, a, codes1)
	unchanged(t, a, cut.GameId, reasonGameOver, "game over", func() error {
		_, err := td.admin().RefundGame(ctx, &adminv1.RefundGameRequest{RequestId: rid(), GameId: cut.GameId, Reason: "outage"})
		return err
	})
	r, err := a.Pick(ctx, cut)
	if err != nil {
		t.Fatalf("retry of the cut pick after the refused refund: %v", err)
	}
	if r.Pick == nil || !r.Pick.Losing || r.Game.Status != qodv1.Status_STATUS_LOST || r.EndReceipt == nil {
		t.Fatalf("retry of the cut pick: %v", r)
	}
	restore()
	verifyGame(t, td, a, r.Game)
}

// The request id of a call cut short (its losing pick sealed, its end
// refused) is taken, as after a restart (whose catch-up stores it from the
// pick's stamp): the same id with other content is refused with
// ALREADY_EXISTS — on its game or another — and nothing is drawn; the
// genuine retry then gets its reply.
func TestCutRequestIDTaken(t *testing.T) {
	td := newTestDaemon(t)
	e := td.d.engine
	ctx := context.Background()
	codes1 := td.emission("RI", "2026-12-31", 60)
	a := td.client("server-a")
	cut, restore := cutEndRefused(t, e, a, codes1)
	other := cut.Number%30 + 1
	unchanged(t, a, cut.GameId, reasonRequestIDReused, "request_id", func() error {
		_, err := a.Pick(ctx, &qodv1.PickRequest{RequestId: cut.RequestId, GameId: cut.GameId, Number: other})
		return err
	})
	g := start(t, a, codes1[len(codes1)-1]).Game
	unchanged(t, a, g.GameId, reasonRequestIDReused, "request_id", func() error {
		_, err := a.Pick(ctx, &qodv1.PickRequest{RequestId: cut.RequestId, GameId: g.GameId, Number: 1})
		return err
	})
	r, err := a.Pick(ctx, cut)
	if err != nil {
		t.Fatalf("retry of the cut pick: %v", err)
	}
	if r.Pick == nil || !r.Pick.Losing || r.Game.Status != qodv1.Status_STATUS_LOST || r.EndReceipt == nil {
		t.Fatalf("retry of the cut pick: %v", r)
	}
	restore()
	verifyGame(t, td, a, r.Game)
}

// endLateLog takes the appends of game_end records but refuses them while
// fail is set: the record reaches the log, the caller is told it did not
// (an append that timed out after the leaf was journaled).
type endLateLog struct {
	transparency.Log
	fail *atomic.Bool
}

func (l endLateLog) Append(ctx context.Context, leaf []byte) (uint64, error) {
	idx, err := l.Log.Append(ctx, leaf)
	if err == nil && l.fail.Load() && bytes.Contains(leaf, []byte(`"kind":"game_end"`)) {
		return 0, transparency.ErrUnavailable
	}
	return idx, err
}

// wantCutReply checks the reply to the retry of the cut pick cut: its
// outcome, the game lost and the end's receipt.
func wantCutReply(t *testing.T, cut *qodv1.PickRequest, r *qodv1.GameReply, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("retry of the cut pick: %v", err)
	}
	if r.Pick == nil || !r.Pick.Losing || uint64(r.Pick.Number) != cut.Number || r.Game.Status != qodv1.Status_STATUS_LOST || r.EndReceipt == nil || r.Receipt == nil || len(r.Game.Secret) != 32 {
		t.Fatalf("retry of the cut pick: %v", r)
	}
	if !bytes.Contains(r.EndReceipt.Record, []byte(`"kind":"game_end"`)) || !bytes.Contains(r.Receipt.Record, []byte(`"kind":"pick"`)) {
		t.Fatalf("retry of the cut pick: receipt %s, end receipt %s", r.Receipt.Record, r.EndReceipt.Record)
	}
}

// A call cut short whose end record reached the log although the call was
// told it had not (its append failed after the record was journaled): the
// restart's catch-up stores the end, and the retry gets the pick's reply
// with that end's receipt — not GAME_OVER — and nothing more is sealed.
func TestCutEndLateRestart(t *testing.T) {
	td := newTestDaemon(t)
	e := td.d.engine
	ctx := context.Background()
	codes1 := td.emission("CE", "2026-12-31", 40)
	a := td.client("server-a")
	var fail atomic.Bool
	e.tlog = endLateLog{e.tlog, &fail}
	fail.Store(true)
	cut := cutLosingPick(t, a, codes1)
	td.restart()
	a = td.client("server-a")
	r, err := a.Pick(ctx, cut)
	wantCutReply(t, cut, r, err)
	wantOneEnd(t, a, cut.GameId)
	again, err := a.Pick(ctx, cut)
	if err != nil || !proto.Equal(again, r) {
		t.Fatalf("second retry: %v %v, first %v", again, err, r)
	}
	verifyGame(t, td, a, r.Game)
}

// The same when the sweeper seals the end of the cut call's game before its
// retry: the retry gets the pick's reply with the sweeper's end.
func TestCutEndBySweeper(t *testing.T) {
	td := newTestDaemon(t)
	e := td.d.engine
	ctx := context.Background()
	codes1 := td.emission("CW", "2026-12-31", 40)
	a := td.client("server-a")
	cut, restore := cutEndRefused(t, e, a, codes1)
	ended, err := e.sweep(ctx)
	if err != nil || !slices.Contains(ended, cut.GameId) {
		t.Fatalf("sweep: %v %v, want %s ended", ended, err, cut.GameId)
	}
	r, err := a.Pick(ctx, cut)
	wantCutReply(t, cut, r, err)
	wantOneEnd(t, a, cut.GameId)
	restore()
	verifyGame(t, td, a, r.Game)
}

// wantOneEnd checks that the game's records hold one end.
func wantOneEnd(t *testing.T, a qodv1.QuitteOuDoubleClient, id string) {
	t.Helper()
	rs, err := a.GetReceipts(context.Background(), &qodv1.GetReceiptsRequest{GameId: id})
	if err != nil {
		t.Fatal(err)
	}
	ends := 0
	for _, x := range rs.Receipts {
		if bytes.Contains(x.Record, []byte(`"kind":"game_end"`)) {
			ends++
		}
	}
	if ends != 1 {
		t.Fatalf("game %s has %d end records", id, ends)
	}
}
