package rngd

import (
	"context"
	"io"
	"log/slog"
	"math"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	"tirage.fr/tirage/transparency"
)

// The refused peers' log lines: one per uid per minute, the next one
// counting those suppressed meanwhile.
func TestRefusalLogRateLimit(t *testing.T) {
	var r refusalLog
	t0 := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	for i, tc := range []struct {
		uid        uint32
		at         time.Duration
		ok         bool
		suppressed int
	}{
		{4242, 0, true, 0},
		{4242, time.Second, false, 0},
		{4243, time.Second, true, 0}, // another uid: its own minute
		{4242, 59 * time.Second, false, 0},
		{4242, 61 * time.Second, true, 2},
		{4242, 62 * time.Second, false, 0},
		{4242, 5 * time.Minute, true, 1},
		{4243, 5 * time.Minute, true, 0},
	} {
		ok, n := r.note(tc.uid, t0.Add(tc.at))
		if ok != tc.ok || n != tc.suppressed {
			t.Errorf("%d: uid %d at %v: (%v, %d), want (%v, %d)", i, tc.uid, tc.at, ok, n, tc.ok, tc.suppressed)
		}
	}
	// Many uids: those whose minute is over are forgotten.
	for u := range uint32(2 * refusalLogUIDs) {
		r.note(10_000+u, t0.Add(10*time.Minute+time.Duration(u)*time.Second))
	}
	if len(r.uids) > refusalLogUIDs+1 {
		t.Errorf("%d uids kept, want at most %d", len(r.uids), refusalLogUIDs+1)
	}
}

// A refused peer's connection is served for a bounded time, and only so
// many are open at once: more are closed at accept (still counted).
func TestAdminRefusedConnBounds(t *testing.T) {
	self := os.Getuid()
	sock := filepath.Join(privateDir(t), "admin.sock")
	ln, err := listenAdmin(AdminConfig{Socket: sock, AllowedUIDs: []int{self + 4242}})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	l := ln.(*peerCredListener)
	m := newMetrics(false)
	l.observe(slog.New(slog.DiscardHandler), m.adminRefused)
	l.lifetime, l.maxRefused = 300*time.Millisecond, 1
	accepted := make(chan net.Conn, 4)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c
		}
	}()
	dial := func() net.Conn {
		t.Helper()
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	closed := func(c net.Conn, within time.Duration) bool {
		c.SetReadDeadline(time.Now().Add(within))
		_, err := c.Read(make([]byte, 1))
		return err == io.EOF
	}

	c1 := dial()
	a1 := <-accepted
	if p := a1.(*adminConn).peer; p.allowed || int(p.uid) != self || int(p.pid) != os.Getpid() {
		t.Fatalf("accepted peer %+v, want uid %d pid %d refused", p, self, os.Getpid())
	}
	// A second one while the first is open: closed at once, not accepted.
	c2 := dial()
	if !closed(c2, 2*time.Second) {
		t.Error("a refused connection beyond maxRefused was not closed at once")
	}
	// The first is closed at the end of its lifetime.
	if closed(c1, 100*time.Millisecond) {
		t.Error("a refused connection was closed before its lifetime")
	}
	if !closed(c1, 2*time.Second) {
		t.Error("a refused connection outlived its lifetime")
	}
	a1.Close() // as gRPC does when its transport ends: frees its place
	c3 := dial()
	select {
	case a3 := <-accepted:
		a3.Close()
	case <-time.After(5 * time.Second):
		t.Error("a refused connection was not accepted after the previous one closed")
	}
	c3.Close()
	if got := counterValue(m.adminRefused); got != 3 {
		t.Errorf("tirage_admin_refused_total = %v, want 3", got)
	}
}

// A call without the admin listener's peer credentials (a connection that
// did not come through peerCredListener) is refused, not admitted.
func TestAdminGateNoCredentials(t *testing.T) {
	called := false
	_, err := adminGate(context.Background(), nil, nil, func(context.Context, any) (any, error) { called = true; return nil, nil })
	if status.Code(err) != codes.PermissionDenied || called {
		t.Errorf("no peer: %v, handler ran %v; want PermissionDenied, not run", err, called)
	}
	if _, _, err := (adminCreds{}).ServerHandshake(nil); err == nil {
		t.Error("adminCreds accepted a connection without peer credentials")
	}
}

// adminMaxRecvMsgSize holds ImportTickets' largest message (10,000 tickets)
// at its worst (every stake a 10-byte varint), as its comment reckons, four
// times over.
func TestAdminMaxRecvMsgSizeHoldsABatch(t *testing.T) {
	batch := &adminv1.TicketBatch{}
	for range ticketBatch {
		batch.Tickets = append(batch.Tickets, &adminv1.Ticket{TicketHash: make([]byte, 32), StakeCents: math.MinInt64})
	}
	n := proto.Size(&adminv1.ImportManifestRequest{Part: &adminv1.ImportManifestRequest_Tickets{Tickets: batch}})
	if n != 470_004 || 4*n > adminMaxRecvMsgSize {
		t.Errorf("a batch of %d tickets at worst: %d bytes, want 470,004, at most a quarter of adminMaxRecvMsgSize (%d)", ticketBatch, n, adminMaxRecvMsgSize)
	}
}

// Status tells every count the log keeps of a witness, the requests
// called off (tirage_log_witness_called_off_total) too: rngctl qod status
// shows a witness that no longer replies, all its requests called off, as
// such.
func TestWitnessStatus(t *testing.T) {
	last := time.Date(2026, 12, 3, 16, 40, 5, 0, time.UTC)
	got := witnessStatus(transparency.WitnessStat{Name: "bailiff.example/witness", URL: "http://192.0.2.10:7490/add-checkpoint",
		Cosigned: 12, Conflicts: 1, Failures: 2, CalledOff: 30, LastCosigned: last})
	want := &adminv1.WitnessStatus{Name: "bailiff.example/witness", Url: "http://192.0.2.10:7490/add-checkpoint",
		Cosignatures: 12, Conflicts: 1, Failures: 2, CalledOff: 30, LastCosigned: timestamppb.New(last)}
	if !proto.Equal(got, want) {
		t.Errorf("witnessStatus = %v, want %v", got, want)
	}
	if got := witnessStatus(transparency.WitnessStat{Name: "w"}); got.LastCosigned != nil {
		t.Errorf("a witness that never cosigned: last cosigned %v", got.LastCosigned)
	}
}
