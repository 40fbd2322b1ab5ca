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

// An outage of the Trillian log server longer than its append timeout
// fails the log closed: the draw is refused, and so is every draw while it
// lasts. Before, only a restart of rngd ended it. Now, once the server
// answers again, the log integrates every leaf it recorded — the refused
// draw's included, which may have reached Trillian — rngd catches up with
// the log, and draws resume without a restart. The refused pick's retry
// (same request id) gets the pick as the log has it, and the game's chain
// verifies: no record was drawn twice on stale state.
func TestTrillianOutageRecovers(t *testing.T) {
	addr, tree := trillianTree(t)
	px := newCutProxy(t, addr)
	td := newTestDaemon(t, func(c *Config) {
		c.Log = LogConfig{Backend: "trillian", TrillianAddress: px.addr(), TrillianTreeID: tree, TrillianPlaintext: true,
			TrillianAppendTimeout: Duration{3 * time.Second}}
	})
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

	px.setCut(false)
	deadline := time.Now().Add(90 * time.Second)
	var r *qodv1.GameReply
	for {
		r, err = a.Pick(ctx, pick)
		if status.Code(err) != codes.Unavailable || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("the refused pick's retry after the outage: %v", err)
	}
	if r.Game.GoodCount+boolToUint32(r.Game.Status == qodv1.Status_STATUS_LOST) != 1 || r.Receipt == nil {
		t.Fatalf("retry after the outage: %+v, want the one pick", r.Game)
	}
	if m := scrape(t, td); !strings.Contains(m, "\ntirage_log_up 1\n") {
		t.Errorf("after the outage: %s", grepLines(m, "tirage_log_up"))
	}
	// Draws go on, and the chain verifies: the refused pick's record, in
	// the log since the recovery, and those after it.
	g2 := start(t, a, codes1[2]).Game
	for _, gm := range []*qodv1.Game{r.Game, g2} {
		gm = playUntil(t, a, gm, func(*qodv1.Game) bool { return false })
		verifyGame(t, td, a, gm)
	}
}

func boolToUint32(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}
