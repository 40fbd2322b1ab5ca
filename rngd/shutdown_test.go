package rngd

import (
	"context"
	"sync"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/transparency"
)

// gatedLog holds appends until released, to catch a call in flight.
type gatedLog struct {
	transparency.Log
	entered chan struct{}
	release chan struct{}
	once    sync.Once
}

func (g *gatedLog) Append(ctx context.Context, leaf []byte) (uint64, error) {
	g.once.Do(func() {
		close(g.entered)
		<-g.release
	})
	return g.Log.Append(ctx, leaf)
}

// A shutdown drains the calls in flight: a pick whose record is being
// appended when the daemon is told to stop completes and is stored; new
// calls are refused; the state survives into the next start.
func TestGracefulShutdown(t *testing.T) {
	td := newTestDaemon(t)
	codes1 := td.emission("SD", "2026-12-31", 10)
	a := td.client("server-a")
	ctx := context.Background()
	g := start(t, a, codes1[1]).Game

	gl := &gatedLog{Log: td.d.engine.tlog, entered: make(chan struct{}), release: make(chan struct{})}
	td.d.engine.tlog = gl
	type result struct {
		r   *qodv1.GameReply
		err error
	}
	inflight := make(chan result)
	go func() {
		r, err := a.Pick(ctx, &qodv1.PickRequest{RequestId: "in-flight", GameId: g.GameId, Number: 9})
		inflight <- result{r, err}
	}()
	<-gl.entered // the pick is proved and its record is on its way to the log
	stopped := make(chan struct{})
	go func() { td.stop(); close(stopped) }()
	// The health service turns NOT_SERVING as the drain begins; the daemon
	// does not stop while the pick is in flight.
	select {
	case <-stopped:
		t.Fatal("the daemon stopped with a call in flight")
	default:
	}
	close(gl.release)
	res := <-inflight
	if res.err != nil || len(res.r.Game.Picks) != 1 {
		t.Fatalf("in-flight pick: %v %v", res.r, res.err)
	}
	<-stopped
	_, err := a.GetGame(ctx, &qodv1.GetGameRequest{GameId: g.GameId})
	if status.Code(err) != codes.Unavailable {
		t.Fatalf("call after shutdown: %v", err)
	}
	td.start()
	got, err := td.client("server-a").GetGame(ctx, &qodv1.GetGameRequest{GameId: g.GameId})
	if err != nil || len(got.Picks) != 1 || got.LastLogIndex != res.r.Game.LastLogIndex {
		t.Fatalf("after restart: %v %v", got, err)
	}
}
