package rngd

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
)

// A game server's request larger than tcpMaxRecvMsgSize is refused
// RESOURCE_EXHAUSTED before it is decoded or handled (gRPC's default, 4 MiB,
// let a connection's 1024 calls hold 4 MiB each); one under it is handled.
func TestRequestSizeBound(t *testing.T) {
	td := newTestDaemon(t)
	a := td.client("server-a")
	ctx := context.Background()
	_, err := a.GetGame(ctx, &qodv1.GetGameRequest{GameId: strings.Repeat("x", tcpMaxRecvMsgSize)})
	if status.Code(err) != codes.ResourceExhausted {
		t.Errorf("GetGame with a %d-byte game_id: %v, want RESOURCE_EXHAUSTED", tcpMaxRecvMsgSize, err)
	}
	_, err = a.GetGame(ctx, &qodv1.GetGameRequest{GameId: strings.Repeat("x", tcpMaxRecvMsgSize/2)})
	if c := status.Code(err); c == codes.ResourceExhausted || c == codes.OK {
		t.Errorf("GetGame with a %d-byte game_id: %v, want it handled (and refused: no such game)", tcpMaxRecvMsgSize/2, err)
	}
}

// grpc.max_connections bounds the game servers' listener's connections,
// handshakes under way included: with one connection held by a client that
// never starts its TLS handshake, a game server's call waits; once that
// connection closes, the call goes through.
func TestMaxConnections(t *testing.T) {
	td := newTestDaemon(t, func(c *Config) { c.GRPC.MaxConnections = 1 })
	raw, err := net.Dial("tcp", td.d.Addrs().GRPC)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	a := td.client("server-a")
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	_, err = a.ListUnfinishedGames(ctx, &qodv1.ListUnfinishedGamesRequest{})
	cancel()
	if status.Code(err) != codes.DeadlineExceeded {
		t.Errorf("call with the one connection slot held: %v, want it to wait (DEADLINE_EXCEEDED)", err)
	}
	raw.Close()
	ctx, cancel = context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := a.ListUnfinishedGames(ctx, &qodv1.ListUnfinishedGamesRequest{}); err != nil {
		t.Errorf("call once the slot is free: %v", err)
	}
}

// The auditors' listener, which anyone may reach, lets a connection have 4
// calls in flight (SETTINGS_MAX_CONCURRENT_STREAMS, which gRPC's server
// enforces): a call counts until its answer is written to the
// connection, so a client that never reads holds at most 4 answers of at
// most transparency.MaxEntriesBytes a connection, and
// audit.max_connections (default 64: TestConfigDefaults) connections. At 100 calls a
// connection, unread Entries answers of about 1 MiB each grew rngd's heap
// by 855 MiB from 8 connections (review measure).
func TestAuditListenerLimits(t *testing.T) {
	td := newTestDaemon(t)
	tc, err := clientTLSRoots(td.pki.CA())
	if err != nil {
		t.Fatal(err)
	}
	tc.NextProtos = []string{"h2"}
	conn, err := tls.Dial("tcp", td.d.Addrs().Audit, tc)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := io.WriteString(conn, http2.ClientPreface); err != nil {
		t.Fatal(err)
	}
	fr := http2.NewFramer(conn, conn)
	if err := fr.WriteSettings(); err != nil {
		t.Fatal(err)
	}
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatalf("no SETTINGS from the auditors' listener: %v", err)
		}
		if sf, ok := f.(*http2.SettingsFrame); ok && !sf.IsAck() {
			if v, ok := sf.Value(http2.SettingMaxConcurrentStreams); !ok || v != 4 {
				t.Errorf("the auditors' listener allows %d calls a connection (set: %v), want 4", v, ok)
			}
			break
		}
	}
}
