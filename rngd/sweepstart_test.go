package rngd

import (
	"context"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/verifier/record"
)

// storedEnded reports whether the state store holds game id ended, read
// from the engine, not through a call.
func storedEnded(t *testing.T, e *engine, id string) bool {
	t.Helper()
	var sg storedGame
	err := e.store.view(func(tx *bolt.Tx) error {
		_, err := getStoredGame(tx, []byte(id), &sg)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return sg.Ended
}

// pastGrace moves the clock a minute past game g's deadline and
// game.refund_grace: its expiry is due.
func pastGrace(td *testDaemon, g *qodv1.Game) {
	td.clock.Advance(g.ExpiresAt.AsTime().Add(td.cfg.Game.refundGrace()).Sub(td.clock.Now()) + time.Minute)
}

// rngd sweeps once as soon as it serves, after the catch-up with the log
// (not in Start, which a log taking no appends would hold up): a game past
// its deadline and game.refund_grace while rngd was down is sealed expired,
// and a lost game whose end a failure kept from the log is sealed too —
// not a game.sweep_interval (here 10m) later, after new activity (the
// audit fails an end sealed more than an hour of log activity late). The
// cut call's retry then gets its reply with the sweeper's end.
func TestSweepAtStart(t *testing.T) {
	td := newTestDaemon(t)
	e := td.d.engine
	a := td.client("server-a")
	codes := td.emission("SWS", "2026-12-31", 60)
	g, next := inPlay(t, a, codes, 0)
	cut, restore := cutEndRefused(t, e, a, codes[next:])
	restore()
	td.stop()
	pastGrace(td, g)
	td.start()

	e = td.d.engine
	for _, id := range []string{g.GameId, cut.GameId} {
		for deadline := time.Now().Add(15 * time.Second); !storedEnded(t, e, id); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("game %s not ended by the sweep at the start", id)
			}
		}
	}
	if v, ok := gaugeValue(t, td, "tirage_games_in_refund_grace"); !ok || v != 0 {
		t.Errorf("tirage_games_in_refund_grace = %v (registered: %v) after the start's sweep, want 0", v, ok)
	}
	a = td.client("server-a")
	if end := lastEnd(t, a, g.GameId); end.Result != record.ResultExpired || !end.Time.Equal(td.clock.Now()) {
		t.Errorf("the start's sweep sealed %+v, want expired at the start, %s", end, td.clock.Now())
	}
	r, err := a.Pick(context.Background(), cut)
	wantCutReply(t, cut, r, err)
	wantOneEnd(t, a, cut.GameId)
	verifyGame(t, td, a, r.Game)
}

// Once rngd has caught up with the log after an outage (resync), it sweeps
// at once: the expiries that fell due during the outage are sealed as
// appends resume, not a game.sweep_interval later.
func TestSweepAfterResync(t *testing.T) {
	td := newTestDaemon(t)
	a := td.client("server-a")
	g, _ := inPlay(t, a, td.emission("SWR", "2026-12-31", 30), 0)
	pastGrace(td, g)
	e := td.d.engine
	if err := e.resync(context.Background()); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(15 * time.Second); !storedEnded(t, e, g.GameId); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("game %s past its grace not sealed after the resync", g.GameId)
		}
	}
	if end := lastEnd(t, a, g.GameId); end.Result != record.ResultExpired {
		t.Errorf("after the resync: %+v, want expired", end)
	}
}

// tirage_games_expiry_due counts the games past their grace whose expiry
// is not sealed: they build up while the log refuses appends, and the
// count comes down once a sweep seals them.
func TestExpiryDueCounted(t *testing.T) {
	td := newTestDaemon(t)
	e := td.d.engine
	ctx := context.Background()
	a := td.client("server-a")
	codes := td.emission("DUE", "2026-12-31", 40)
	first, next := inPlay(t, a, codes, 0)
	inPlay(t, a, codes, next)
	due := func(want float64) {
		t.Helper()
		if v, ok := gaugeValue(t, td, "tirage_games_expiry_due"); !ok || v != want {
			t.Errorf("tirage_games_expiry_due = %v (registered: %v), want %v", v, ok, want)
		}
	}
	due(0)
	pastGrace(td, first)
	tl := e.tlog
	e.tlog = failingLog{Log: tl}
	if _, err := td.admin().SweepExpired(ctx, &adminv1.SweepExpiredRequest{}); err == nil {
		t.Fatal("a sweep with the log refusing appends succeeded")
	}
	due(2)
	if p, g := gameGauges(t, td); p != 0 || g != 0 {
		t.Errorf("tirage_games_unfinished %d, tirage_games_in_refund_grace %d, want 0, 0", p, g)
	}
	e.tlog = tl
	sw, err := td.admin().SweepExpired(ctx, &adminv1.SweepExpiredRequest{})
	if err != nil || len(sw.ExpiredGameIds) != 2 {
		t.Fatalf("sweep once the log is back: %v %v, want 2 games", sw, err)
	}
	due(0)
	if _, err := a.GetGame(ctx, &qodv1.GetGameRequest{GameId: first.GameId}); err != nil {
		t.Fatal(err)
	}
}
