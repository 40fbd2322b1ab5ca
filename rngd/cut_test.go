package rngd

import (
	"context"
	"sync/atomic"
	"testing"

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
	var fail atomic.Bool
	tl := e.tlog
	e.tlog = endFailingLog{tl, &fail}
	fail.Store(true)
	cut := cutLosingPick(t, a, codes1)
	fail.Store(false)
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
	e.tlog = tl
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
	var fail atomic.Bool
	tl := e.tlog
	e.tlog = endFailingLog{tl, &fail}
	fail.Store(true)
	cut := cutLosingPick(t, a, codes1)
	fail.Store(false)
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
	e.tlog = tl
	verifyGame(t, td, a, r.Game)
}
