package rngd

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"os"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
)

// shortKeepalive makes idle TCP gRPC connections close after idle, for the
// test.
func shortKeepalive(t *testing.T, idle time.Duration) {
	saved := tcpKeepalive
	tcpKeepalive = keepalive.ServerParameters{MaxConnectionIdle: idle, Time: time.Second, Timeout: time.Second}
	t.Cleanup(func() { tcpKeepalive = saved })
}

// auditConn is an anonymous client of the audit listener.
func auditConn(t *testing.T, td *testDaemon) *grpc.ClientConn {
	t.Helper()
	ca, err := os.ReadFile(td.pki.CA())
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	cc, err := grpc.NewClient(td.d.Addrs().Audit, grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: pool, ServerName: "localhost"})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return cc
}

// Idle anonymous connections do not hold the audit listener's
// max_connections slots for ever: with both held by clients that made a
// call and went quiet, a third auditor gets in once they have been idle
// longer than MaxConnectionIdle.
func TestKeepaliveFreesIdleAuditSlots(t *testing.T) {
	shortKeepalive(t, 500*time.Millisecond)
	td := newTestDaemon(t, func(c *Config) { c.Audit.MaxConnections = 2 })
	for range 2 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := healthpb.NewHealthClient(auditConn(t, td)).Check(ctx, &healthpb.HealthCheckRequest{})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := healthpb.NewHealthClient(auditConn(t, td)).Check(ctx, &healthpb.HealthCheckRequest{}); err != nil {
		t.Errorf("a third auditor, with both slots held by idle connections: %v", err)
	}
}

// A long-lived stream is not cut by the keepalive: a connection with a
// health Watch open is not idle, however long the Watch lasts.
func TestKeepaliveKeepsStreams(t *testing.T) {
	shortKeepalive(t, 300*time.Millisecond)
	td := newTestDaemon(t)
	for name, cc := range map[string]*grpc.ClientConn{"game": td.conn("server-a"), "audit": auditConn(t, td)} {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		w, err := healthpb.NewHealthClient(cc).Watch(ctx, &healthpb.HealthCheckRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Recv(); err != nil {
			t.Fatalf("%s: watch: %v", name, err)
		}
		ended := make(chan error, 1)
		go func() {
			_, err := w.Recv()
			ended <- err
		}()
		select {
		case err := <-ended:
			t.Errorf("%s listener: a Watch stream ended while the daemon serves: %v", name, err)
		case <-time.After(1500 * time.Millisecond): // five idle periods
		}
	}
}
