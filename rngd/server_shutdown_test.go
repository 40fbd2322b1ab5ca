package rngd

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"
)

// adminSocketConn is a client of the admin socket.
func adminSocketConn(t *testing.T, td *testDaemon) *grpc.ClientConn {
	t.Helper()
	cc, err := grpc.NewClient("unix:"+td.d.Addrs().Admin, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return cc
}

// Health Watch streams (a load balancer's, a probe's) end when the
// shutdown begins, NOT_SERVING then UNAVAILABLE: they do not hold the
// drain until its timeout, which would stop every call still in flight.
func TestShutdownEndsHealthWatch(t *testing.T) {
	saved := drainTimeout
	drainTimeout = 10 * time.Second
	t.Cleanup(func() { drainTimeout = saved })
	td := newTestDaemon(t)
	type watch struct {
		name     string
		statuses []healthpb.HealthCheckResponse_ServingStatus
		err      error
	}
	ended := make(chan watch, 3)
	for name, cc := range map[string]*grpc.ClientConn{"game": td.conn("server-a"), "audit": auditConn(t, td), "admin": adminSocketConn(t, td)} {
		w, err := healthpb.NewHealthClient(cc).Watch(context.Background(), &healthpb.HealthCheckRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if r, err := w.Recv(); err != nil || r.Status != healthpb.HealthCheckResponse_SERVING {
			t.Fatalf("%s: watch: %v %v", name, r, err)
		}
		go func() {
			wt := watch{name: name}
			for {
				r, err := w.Recv()
				if err != nil {
					wt.err = err
					ended <- wt
					return
				}
				wt.statuses = append(wt.statuses, r.Status)
			}
		}()
	}
	td.stop()
	if bytes.Contains(td.logs(), []byte("drain timed out")) {
		t.Error("health Watch streams made the drain time out: the calls still in flight were stopped")
	}
	for range 3 {
		select {
		case w := <-ended:
			if len(w.statuses) == 0 || w.statuses[len(w.statuses)-1] != healthpb.HealthCheckResponse_NOT_SERVING {
				t.Errorf("%s: the Watch was sent %v before it ended, want NOT_SERVING last", w.name, w.statuses)
			}
			if status.Code(w.err) != codes.Unavailable || !strings.Contains(w.err.Error(), "shutting down") {
				t.Errorf("%s: the Watch ended with %v, want UNAVAILABLE, shutting down", w.name, w.err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a health Watch did not end")
		}
	}
}

// A reflection stream (grpcurl's, an API browser's, left open) ends when
// the shutdown begins, UNAVAILABLE: the reflection service reads requests
// until the client ends the stream, and held the drain until its timeout,
// when every call still in flight was stopped.
func TestShutdownEndsReflection(t *testing.T) {
	saved := drainTimeout
	drainTimeout = 10 * time.Second
	t.Cleanup(func() { drainTimeout = saved })
	td := newTestDaemon(t)
	ended := make(chan error, 3)
	for name, cc := range map[string]*grpc.ClientConn{"game": td.conn("server-a"), "audit": auditConn(t, td), "admin": adminSocketConn(t, td)} {
		s, err := reflectionpb.NewServerReflectionClient(cc).ServerReflectionInfo(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}); err != nil {
			t.Fatal(err)
		}
		if r, err := s.Recv(); err != nil || len(r.GetListServicesResponse().GetService()) == 0 {
			t.Fatalf("%s: reflection: %v %v", name, r, err)
		}
		go func() {
			_, err := s.Recv()
			ended <- err
		}()
	}
	td.stop()
	if bytes.Contains(td.logs(), []byte("drain timed out")) {
		t.Error("reflection streams made the drain time out: the calls still in flight were stopped")
	}
	for range 3 {
		select {
		case err := <-ended:
			if status.Code(err) != codes.Unavailable || !strings.Contains(err.Error(), "shutting down") {
				t.Errorf("a reflection stream ended with %v, want UNAVAILABLE, shutting down", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a reflection stream did not end")
		}
	}
}
