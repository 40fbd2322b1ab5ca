package rngd

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/rngd/loadtest"
	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/verifier/record"
)

// sentCall is a mutating call a game server made, replayable with the same
// request id against whatever daemon runs now.
type sentCall struct {
	game string
	do   func(td *testDaemon) (*qodv1.GameReply, error)
}

// retryAll retries every call and returns the replies.
func retryAll(t *testing.T, td *testDaemon, calls []sentCall) []*qodv1.GameReply {
	t.Helper()
	out := make([]*qodv1.GameReply, len(calls))
	for i, c := range calls {
		r, err := c.do(td)
		if err != nil {
			t.Fatalf("retry of call %d (game %s): %v", i, c.game, err)
		}
		out[i] = r
	}
	return out
}

// Nothing acknowledged is ever lost: after a crash between the log append
// and the store's commit, and after losing the store altogether, a retried
// request gets its original reply (same record, proof and log index),
// rebuilt from the request identity the records carry; the same id with
// other content is still refused.
func TestRetryAfterRebuild(t *testing.T) {
	td := newTestDaemon(t)
	ctx := context.Background()
	tickets := td.emission("RT", "2026-12-31", 10)
	var calls []sentCall
	var replies []*qodv1.GameReply // as first answered
	send := func(game string, do func(td *testDaemon) (*qodv1.GameReply, error)) *qodv1.GameReply {
		t.Helper()
		r, err := do(td)
		if err != nil {
			t.Fatalf("call %d: %v", len(calls), err)
		}
		calls = append(calls, sentCall{game: r.Game.GameId, do: do})
		replies = append(replies, r)
		return r
	}
	startCall := func(code string) func(td *testDaemon) (*qodv1.GameReply, error) {
		req := &qodv1.StartGameRequest{RequestId: rid(), Code: code}
		return func(td *testDaemon) (*qodv1.GameReply, error) { return td.client("server-a").StartGame(ctx, req) }
	}
	pickCall := func(g *qodv1.Game) (*qodv1.PickRequest, func(td *testDaemon) (*qodv1.GameReply, error)) {
		req := &qodv1.PickRequest{RequestId: rid(), GameId: g.GameId, Number: loadtest.NextNumber(g)}
		return req, func(td *testDaemon) (*qodv1.GameReply, error) { return td.client("server-a").Pick(ctx, req) }
	}
	// Game 1 is played to its end (continuing at every tier); game 2 is
	// left in play after one pick.
	g1 := send("", startCall(tickets[0])).Game
	for g1.Status == qodv1.Status_STATUS_PLAYING || g1.Status == qodv1.Status_STATUS_AT_TIER {
		if g1.Status == qodv1.Status_STATUS_AT_TIER {
			req := &qodv1.DecideRequest{RequestId: rid(), GameId: g1.GameId, Decision: qodv1.Decision_DECISION_CONTINUE}
			g1 = send("", func(td *testDaemon) (*qodv1.GameReply, error) { return td.client("server-a").Decide(ctx, req) }).Game
			continue
		}
		_, do := pickCall(g1)
		g1 = send("", do).Game
	}
	g2 := send("", startCall(tickets[1])).Game
	_, do := pickCall(g2)
	g2 = send("", do).Game
	if g2.Status != qodv1.Status_STATUS_PLAYING {
		// One game in ten loses its first pick: play a third ticket.
		g2 = send("", startCall(tickets[2])).Game
	}
	// Once committed, a game call's reply is kept as the records it
	// sealed: made again from them, it is the reply first given.
	if err := td.d.engine.store.sync(); err != nil {
		t.Fatal(err)
	}
	want := retryAll(t, td, calls)
	for i, r := range want {
		if !proto.Equal(r, replies[i]) {
			t.Fatalf("retry of call %d from the committed store:\n%v\nwant the first reply\n%v", i, r, replies[i])
		}
	}

	// A crash after the append, before the commit: the store is put back
	// as it was before the call, behind the log.
	state, before := td.snapshotState()
	td.start()
	lost, do := pickCall(g2)
	first, err := do(td)
	if err != nil {
		t.Fatal(err)
	}
	calls = append(calls, sentCall{game: g2.GameId, do: do})
	want = append(want, retryAll(t, td, calls[len(calls)-1:])...)
	td.stop()
	if err := os.WriteFile(state, before, 0o600); err != nil {
		t.Fatal(err)
	}
	td.start()
	for i, r := range retryAll(t, td, calls) {
		if !proto.Equal(r, want[i]) {
			t.Fatalf("after the crash, call %d answered\n%v\nwant\n%v", i, r, want[i])
		}
	}
	if last := want[len(want)-1].Receipt; last.LogIndex != first.Receipt.LogIndex || string(last.Record) != string(first.Receipt.Record) {
		t.Fatalf("the lost call's reply changed:\n%v\nwas\n%v", last, first.Receipt)
	}
	other := proto.Clone(lost).(*qodv1.PickRequest)
	other.Number = loadtest.NextNumber(want[len(want)-1].Game)
	_, err = td.client("server-a").Pick(ctx, other)
	wantRefusal(t, err, reasonRequestIDReused, "already used")

	// The operator refunds the game in play — g2, or a fresh one when the
	// pick above lost g2 (P = 3/n) — so that every game has ended (and
	// revealed its secret); then the store is lost altogether: every call
	// gets its reply back whole.
	n := len(calls)
	inPlay := want[len(want)-1].Game
	if inPlay.Status != qodv1.Status_STATUS_PLAYING {
		inPlay = send("", startCall(tickets[3])).Game
	}
	refund := &adminv1.RefundGameRequest{RequestId: rid(), GameId: inPlay.GameId, Reason: "test"}
	send("", func(td *testDaemon) (*qodv1.GameReply, error) { return td.admin().RefundGame(ctx, refund) })
	want = append(want, retryAll(t, td, calls[n:])...)
	td.stop()
	if err := os.Remove(state); err != nil {
		t.Fatal(err)
	}
	td.start()
	for i, r := range retryAll(t, td, calls) {
		if !proto.Equal(r, want[i]) {
			t.Fatalf("after losing the store, call %d answered\n%v\nwant\n%v", i, r, want[i])
		}
	}
	_, err = td.client("server-a").Pick(ctx, other)
	wantRefusal(t, err, reasonRequestIDReused, "already used")

	// Past game.reply_retention a rebuild no longer restores the replies
	// (the sweeper would prune them): a retry is a new call. (The
	// retention is the default, 100 days.)
	td.clock.Advance(101 * 24 * time.Hour)
	td.stop()
	if err := os.Remove(state); err != nil {
		t.Fatal(err)
	}
	td.start()
	_, err = calls[1].do(td)
	if status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("retry past the retention: %v, want FAILED_PRECONDITION (a new call on an ended game)", err)
	}
}

// Two calls with one request id and different content, at the same time: one
// draws, the other is refused as a reuse of the id, and the log holds one
// start (the stored-reply check and the draw are one step per request id).
func TestSameRequestIDConcurrent(t *testing.T) {
	td := newTestDaemon(t)
	a := td.client("server-a")
	ctx := context.Background()
	codes1 := td.emission("RQ", "2026-12-31", 41)
	for round := range 10 {
		id := fmt.Sprintf("same-%d", round)
		errs := make([]error, 2)
		replies := make([]*qodv1.GameReply, 2)
		var wg sync.WaitGroup
		for i := range 2 {
			wg.Go(func() {
				replies[i], errs[i] = a.StartGame(ctx, &qodv1.StartGameRequest{RequestId: id, Code: codes1[1+2*round+i]})
			})
		}
		wg.Wait()
		ok := 0
		for i, err := range errs {
			if err == nil {
				ok++
				continue
			}
			if status.Code(err) != codes.AlreadyExists {
				t.Fatalf("round %d call %d: %v", round, i, err)
			}
		}
		if ok != 1 {
			t.Fatalf("round %d: %d of 2 calls with one request id drew (%v)", round, ok, errs)
		}
	}
	tl := td.d.engine.tlog
	cp, err := tl.AwaitCheckpoint(ctx, tl.(transparency.Sequencer).Sequenced())
	if err != nil {
		t.Fatal(err)
	}
	leaves, err := tl.Entries(ctx, 0, cp.Size, cp.Size)
	if err != nil {
		t.Fatal(err)
	}
	starts := 0
	for _, leaf := range leaves {
		if r, err := record.Parse(leaf); err == nil && r.Kind() == record.KindGameStart {
			starts++
		}
	}
	if starts != 10 {
		t.Fatalf("%d starts in the log for 10 request ids", starts)
	}
}

// rebuildWithRetention stops the daemon, removes its state store and starts
// it again with game.reply_retention d: the store is rebuilt from the log.
func (td *testDaemon) rebuildWithRetention(d time.Duration) {
	td.t.Helper()
	state, _ := td.snapshotState()
	if err := os.Remove(state); err != nil {
		td.t.Fatal(err)
	}
	td.cfg.Game.ReplyRetention = Duration{d}
	td.start()
}

// A request id is free again once its reply is pruned (game.reply_retention):
// a game server that then uses it again makes a new call, whose retry gets
// its own reply — also after the state store is lost and rebuilt from a log
// that holds both calls under the id, with a retention long enough to cover
// them both (raised since, or a clock set back): the later call's reply is
// restored, not the earlier one's, which would refuse the retry as a reuse
// of the id (REQUEST_ID_REUSED). Both kinds of stored reply: a Quit's
// (whole, restored by adminReply) and a StartGame's (its records,
// storeReplies).
func TestRequestIDReusedAfterPrune(t *testing.T) {
	td := newTestDaemon(t)
	ctx := context.Background()
	codes := td.emission("RP", "2027-06-30", 4)
	a := td.client("server-a")
	if _, err := quitCode(a, "quit-id", codes[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := a.StartGame(ctx, &qodv1.StartGameRequest{RequestId: "start-id", Code: codes[1]}); err != nil {
		t.Fatal(err)
	}
	// Past the retention: the first game expires (sealed by the sweeper)
	// and both replies are pruned.
	td.clock.Advance(101 * 24 * time.Hour)
	e := td.d.engine
	if _, err := e.sweep(ctx); err != nil {
		t.Fatal(err)
	}
	e.prune(ctx)
	quit, err := quitCode(a, "quit-id", codes[2])
	if err != nil {
		t.Fatalf("quit under a pruned request id: %v", err)
	}
	startReq := &qodv1.StartGameRequest{RequestId: "start-id", Code: codes[3]}
	started, err := a.StartGame(ctx, startReq)
	if err != nil {
		t.Fatalf("start under a pruned request id: %v", err)
	}
	td.rebuildWithRetention(200 * 24 * time.Hour)
	a = td.client("server-a")
	if again, err := quitCode(a, "quit-id", codes[2]); err != nil || !proto.Equal(again, quit) {
		t.Fatalf("quit retried after the rebuild: %v, %v\nwant its reply\n%v", again, err, quit)
	}
	if again, err := a.StartGame(ctx, startReq); err != nil || !proto.Equal(again, started) {
		t.Fatalf("start retried after the rebuild: %v, %v\nwant its reply\n%v", again, err, started)
	}
}

// A rebuild restores every reply the sweeper would keep, to the second:
// the sweeper prunes the replies stored in a second before the cutoff's
// (pruneRequests), so a reply of the cutoff's own second is restored too,
// and kept by the next prune. Here a quit whose commit was lost (a crash)
// is caught up from the log half a second short of game.reply_retention
// after it.
func TestRebuildCutoffIsPrunes(t *testing.T) {
	td := newTestDaemon(t)
	ctx := context.Background()
	codes := td.emission("RC", "2026-12-31", 2)
	state, before := td.snapshotState()
	td.start()
	reqID := rid()
	first, err := quitCode(td.client("server-a"), reqID, codes[0])
	if err != nil {
		t.Fatal(err)
	}
	td.stop()
	if err := os.WriteFile(state, before, 0o600); err != nil {
		t.Fatal(err)
	}
	td.clock.Advance(100*24*time.Hour + 500*time.Millisecond) // the default retention
	td.start()
	a := td.client("server-a")
	if again, err := quitCode(a, reqID, codes[0]); err != nil || !proto.Equal(again, first) {
		t.Fatalf("retry after the catch-up: %v, %v\nwant its reply\n%v", again, err, first)
	}
	td.d.engine.prune(ctx)
	if again, err := quitCode(a, reqID, codes[0]); err != nil || !proto.Equal(again, first) {
		t.Fatalf("retry after the prune: %v, %v\nwant its reply\n%v", again, err, first)
	}
}

// A rebuild's transaction sees the replies it stored itself: a request id
// taken again after its first call's reply was pruned, whose second call's
// game ended in the log before the first call's game (expired later by
// the sweeper), is restored with the second call's reply, though the first
// call's game is stored after it in the same transaction. The request log's
// index learns of a reply only when its transaction commits: keepsReply,
// not seeing the second call's reply, let the first call's replace it, and
// the second call's retry was refused REQUEST_ID_REUSED.
func TestRebuildSeesItsOwnReplies(t *testing.T) {
	td := newTestDaemon(t)
	ctx := context.Background()
	codes := td.emission("RO", "2027-06-30", 2)
	a := td.client("server-a")
	if _, err := a.StartGame(ctx, &qodv1.StartGameRequest{RequestId: "start-id", Code: codes[0]}); err != nil {
		t.Fatal(err)
	}
	// Past the retention, the first game not yet swept: its reply is
	// pruned, and a second game is started under the same id and ended.
	td.clock.Advance(101 * 24 * time.Hour)
	e := td.d.engine
	if err := e.store.sync(); err != nil {
		t.Fatal(err)
	}
	e.prune(ctx)
	startReq := &qodv1.StartGameRequest{RequestId: "start-id", Code: codes[1]}
	started, err := a.StartGame(ctx, startReq)
	if err != nil {
		t.Fatalf("start under a pruned request id: %v", err)
	}
	for g := started.Game; g.Status == qodv1.Status_STATUS_PLAYING || g.Status == qodv1.Status_STATUS_AT_TIER; {
		var r *qodv1.GameReply
		if g.Status == qodv1.Status_STATUS_AT_TIER {
			r, err = a.Decide(ctx, &qodv1.DecideRequest{RequestId: rid(), GameId: g.GameId, Decision: qodv1.Decision_DECISION_STOP})
		} else {
			r, err = a.Pick(ctx, &qodv1.PickRequest{RequestId: rid(), GameId: g.GameId, Number: loadtest.NextNumber(g)})
		}
		if err != nil {
			t.Fatal(err)
		}
		g = r.Game
	}
	// The first game's end is sealed after the second's.
	if _, err := e.sweep(ctx); err != nil {
		t.Fatal(err)
	}
	td.rebuildWithRetention(200 * 24 * time.Hour)
	a = td.client("server-a")
	if again, err := a.StartGame(ctx, startReq); err != nil || !proto.Equal(again, started) {
		t.Fatalf("start retried after the rebuild: %v, %v\nwant its reply\n%v", again, err, started)
	}
}
