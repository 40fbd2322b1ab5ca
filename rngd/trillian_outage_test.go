package rngd

import (
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/rngd/loadtest"
)

// cutProxy forwards TCP connections to a server until it is cut: then it
// drops those it carries and closes every new one at once, as a network
// outage between rngd and its log server does, until it is mended.
type cutProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	cut    bool
	conns  map[net.Conn]struct{}
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	t.Cleanup(func() { ln.Close(); p.setCut(true) })
	go p.serve()
	return p
}

func (p *cutProxy) addr() string { return p.ln.Addr().String() }

func (p *cutProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.cut {
			p.mu.Unlock()
			c.Close()
			continue
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			p.mu.Unlock()
			c.Close()
			continue
		}
		p.conns[c], p.conns[s] = struct{}{}, struct{}{}
		p.mu.Unlock()
		go func() { io.Copy(s, c); s.Close() }()
		go func() { io.Copy(c, s); c.Close() }()
	}
}

// setCut cuts (dropping every connection carried) or mends the link.
func (p *cutProxy) setCut(cut bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = cut
	if cut {
		for c := range p.conns {
			c.Close()
		}
		clear(p.conns)
	}
}

// outageDaemon is a test daemon on a new Trillian tree, reached through a
// proxy the test can cut, with an append timeout of 3 s.
func outageDaemon(t *testing.T) (*testDaemon, *cutProxy) {
	t.Helper()
	addr, tree := trillianTree(t)
	px := newCutProxy(t, addr)
	td := newTestDaemon(t, func(c *Config) {
		c.Log = LogConfig{Backend: "trillian", TrillianAddress: px.addr(), TrillianTreeID: tree, TrillianPlaintext: true,
			TrillianAppendTimeout: Duration{3 * time.Second}}
	})
	return td, px
}

// An outage of the Trillian log server longer than its append timeout
// fails the log closed: the draw is refused, and so is every draw while it
// lasts. Before, only a restart of rngd ended it. Now, once the server
// answers again, the log integrates every leaf it recorded — the refused
// draw's included, which may have reached Trillian — rngd catches up with
// the log, and draws resume without a restart. The refused pick's retry
// (same request id) gets the pick as the log has it, and the game's chain
// verifies: no record was drawn twice on stale state.
func TestTrillianOutageRecovers(t *testing.T) {
	td, px := outageDaemon(t)
	ctx := context.Background()
	codes1 := td.emission("OUT", "2026-12-31", 4)
	a := td.client("server-a")
	g := start(t, a, codes1[1]).Game

	px.setCut(true)
	pick := &qodv1.PickRequest{RequestId: "outage-pick", GameId: g.GameId, Number: loadtest.NextNumber(g)}
	_, err := a.Pick(ctx, pick)
	if reasonOf(err) != reasonLogUnavailable || !strings.Contains(status.Convert(err).Message(), "which it does by itself") {
		t.Fatalf("pick during the outage: %v, want %s saying the log recovers by itself", err, reasonLogUnavailable)
	}
	// Every draw is refused while it lasts, at once.
	t0 := time.Now()
	if _, err := a.StartGame(ctx, &qodv1.StartGameRequest{RequestId: "outage-start", Code: codes1[2]}); reasonOf(err) != reasonLogUnavailable {
		t.Fatalf("start during the outage: %v, want %s", err, reasonLogUnavailable)
	}
	if d := time.Since(t0); d > 2*time.Second {
		t.Errorf("a start during the outage was refused after %v, not at once", d)
	}
	if m := scrape(t, td); !strings.Contains(m, "\ntirage_log_up 0\n") {
		t.Errorf("during the outage: %s", grepLines(m, "tirage_log_up"))
	}
	if st, err := td.admin().Status(ctx, &adminv1.StatusRequest{}); err != nil || !strings.Contains(st.LogFailure, "unavailable") {
		t.Errorf("Status during the outage: %v, log failure %q", err, st.GetLogFailure())
	}

	px.setCut(false)
	r, err := retryPick(a, pick)
	if err != nil {
		t.Fatalf("the refused pick's retry after the outage: %v", err)
	}
	if r.Game.GoodCount+boolToUint32(r.Game.Status == qodv1.Status_STATUS_LOST) != 1 || r.Receipt == nil {
		t.Fatalf("retry after the outage: %+v, want the one pick", r.Game)
	}
	if m := scrape(t, td); !strings.Contains(m, "\ntirage_log_up 1\n") {
		t.Errorf("after the outage: %s", grepLines(m, "tirage_log_up"))
	}
	if st, err := td.admin().Status(ctx, &adminv1.StatusRequest{}); err != nil || st.LogFailure != "" {
		t.Errorf("Status after the outage: %v, log failure %q", err, st.GetLogFailure())
	}
	// Draws go on, and the chain verifies: the refused pick's record, in
	// the log since the recovery, and those after it.
	g2 := start(t, a, codes1[2]).Game
	for _, gm := range []*qodv1.Game{r.Game, g2} {
		gm = playUntil(t, a, gm, func(*qodv1.Game) bool { return false })
		verifyGame(t, td, a, gm)
	}
}

// retryPick retries a pick refused during an outage (same request id),
// each try bounded by 5 s, until it is no longer refused UNAVAILABLE (or
// held past its deadline) or 90 s have passed, and returns the last answer.
func retryPick(a qodv1.QuitteOuDoubleClient, pick *qodv1.PickRequest) (*qodv1.GameReply, error) {
	deadline := time.Now().Add(90 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		r, err := a.Pick(ctx, pick)
		cancel()
		if c := status.Code(err); (c != codes.Unavailable && c != codes.DeadlineExceeded) || time.Now().After(deadline) {
			return r, err
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func boolToUint32(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// An operator's manifest import still uploading when an outage ends does
// not hold the catch-up (the import enters the engine only once its upload
// is over): the refused pick's retry gets through as without it.
func TestTrillianOutageRecoversWithImportOpen(t *testing.T) {
	td, px := outageDaemon(t)
	ctx := context.Background()
	codes1 := td.emission("GATE", "2026-12-31", 4)
	a := td.client("server-a")
	g := start(t, a, codes1[1]).Game
	sctx, scancel := context.WithCancel(ctx)
	defer scancel()
	hs, err := td.admin().ImportManifest(sctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := hs.Send(&adminv1.ImportManifestRequest{Part: &adminv1.ImportManifestRequest_Header{Header: &adminv1.ManifestHeader{
		RequestId: "slow-import", EmissionId: "GATE", Count: 1}}}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // its handler waits for tickets

	px.setCut(true)
	pick := &qodv1.PickRequest{RequestId: "gate-pick", GameId: g.GameId, Number: loadtest.NextNumber(g)}
	if _, err := a.Pick(ctx, pick); reasonOf(err) != reasonLogUnavailable {
		t.Fatalf("pick during the outage: %v", err)
	}
	px.setCut(false)
	if _, err := retryPick(a, pick); err != nil {
		t.Fatalf("after the outage, with an operator's import stream open, the refused pick's retry: %v", err)
	}
}

// While the catch-up after an outage waits for the calls in flight (or
// runs), a new call is refused at once, LOG_UNAVAILABLE, not held, and the
// sweeper skips its tick; a shutdown (SIGTERM) is not held by it either.
func TestResyncRefusesAndDoesNotHoldShutdown(t *testing.T) {
	td := newTestDaemon(t, func(c *Config) { c.Game.SweepInterval = Duration{20 * time.Millisecond} })
	codes1 := td.emission("SHUT", "2026-12-31", 2)
	a := td.client("server-a")
	e := td.d.engine
	release, err := e.enter() // a call in flight
	if err != nil {
		t.Fatal(err)
	}
	resynced := make(chan error, 1)
	go func() { resynced <- e.resync(context.Background()) }() // the log's recovery, its outage over
	for e.gate.TryRLock() {                                    // until resync waits for the gate
		e.gate.RUnlock()
		time.Sleep(time.Millisecond)
	}
	t0 := time.Now()
	_, err = a.StartGame(context.Background(), &qodv1.StartGameRequest{RequestId: "during-resync", Code: codes1[1]})
	if reasonOf(err) != reasonLogUnavailable || !strings.Contains(status.Convert(err).Message(), "catching up with the log") || time.Since(t0) > 5*time.Second {
		t.Fatalf("a start while rngd catches up with the log: %v after %v, want %s at once", err, time.Since(t0), reasonLogUnavailable)
	}
	if _, err := td.admin().Status(context.Background(), &adminv1.StatusRequest{}); err != nil {
		t.Errorf("Status while rngd catches up with the log: %v, want an answer", err)
	}
	time.Sleep(100 * time.Millisecond) // sweeper ticks, skipped
	td.cancel()                        // SIGTERM
	select {
	case <-td.done:
		td.cancel = nil
	case <-time.After(20 * time.Second):
		release()
		t.Fatal("rngd did not shut down within 20 s while a catch-up waited for the gate")
	}
	release()
	<-resynced // it ran once the call left, on a daemon stopped meanwhile
}
