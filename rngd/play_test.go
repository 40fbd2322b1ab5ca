package rngd

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
)

// refusalErr is a PlayResult's refusal as the unary call's error.
func refusalErr(r *qodv1.PlayResult) error {
	f := r.GetRefusal()
	if f == nil {
		return nil
	}
	return status.ErrorProto(&spb.Status{Code: f.Code, Message: f.Message, Details: f.Details})
}

// A Play stream as a game server would drive it by hand: results carry
// their call's tag; a refused call (an empty one, an unknown game) is
// refused with the unary call's code, message and reason and the stream
// goes on; a call on the stream is its unary twin (a StartGame retried as
// a unary call with its request_id gets the same reply, and the other
// way); the client's end
// of the stream ends it once every result is sent.
func TestPlayStream(t *testing.T) {
	td := newTestDaemon(t)
	codes1 := td.emission("E1", "2026-12-15", 10)
	cc := td.conn("server-a")
	ps, err := qodv1.NewQuitteOuDoubleClient(cc).Play(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	missing0 := counterValue(td.d.engine.metrics.refusals.WithLabelValues(string(reasonCallMissing), codes.InvalidArgument.String()))
	startReq := &qodv1.StartGameRequest{RequestId: rid(), Code: codes1[1]}
	for _, c := range []*qodv1.PlayCall{
		{Tag: 7},
		{Tag: 8, Call: &qodv1.PlayCall_StartGame{StartGame: startReq}},
		{Tag: 9, Call: &qodv1.PlayCall_GetGame{GetGame: &qodv1.GetGameRequest{GameId: "server-a/nope"}}},
	} {
		if err := ps.Send(c); err != nil {
			t.Fatal(err)
		}
	}
	got := map[uint64]*qodv1.PlayResult{}
	for range 3 {
		r, err := ps.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if got[r.Tag] != nil {
			t.Fatalf("tag %d answered twice", r.Tag)
		}
		got[r.Tag] = r
	}
	wantRefusal(t, refusalErr(got[7]), reasonCallMissing, "call")
	wantRefusal(t, refusalErr(got[9]), reasonUnknownGame, "game_id")
	reply := got[8].GetGameReply()
	if reply == nil || reply.Game.Server != "server-a" || reply.Receipt == nil {
		t.Fatalf("start on the stream: %v", got[8])
	}
	again, err := qodv1.NewQuitteOuDoubleClient(cc).StartGame(context.Background(), startReq)
	if err != nil || !proto.Equal(again, reply) {
		t.Fatalf("the unary retry of the stream's start: %v, %v; want the same reply", again, err)
	}
	// And the other way: a unary start, retried on the stream.
	unaryReq := &qodv1.StartGameRequest{RequestId: rid(), Code: codes1[2]}
	first, err := qodv1.NewQuitteOuDoubleClient(cc).StartGame(context.Background(), unaryReq)
	if err != nil {
		t.Fatal(err)
	}
	if err := ps.Send(&qodv1.PlayCall{Tag: 11, Call: &qodv1.PlayCall_StartGame{StartGame: unaryReq}}); err != nil {
		t.Fatal(err)
	}
	if r, err := ps.Recv(); err != nil || r.Tag != 11 || !proto.Equal(r.GetGameReply(), first) {
		t.Fatalf("the stream's retry of a unary start: %v, %v; want the same reply", r, err)
	}
	if d := counterValue(td.d.engine.metrics.refusals.WithLabelValues(string(reasonCallMissing), codes.InvalidArgument.String())) - missing0; d != 1 {
		t.Errorf("tirage_refusals_total{reason=CALL_MISSING} rose by %v, want 1", d)
	}
	// A call after the refusals is still taken.
	if err := ps.Send(&qodv1.PlayCall{Tag: 10, Call: &qodv1.PlayCall_GetGame{GetGame: &qodv1.GetGameRequest{GameId: reply.Game.GameId}}}); err != nil {
		t.Fatal(err)
	}
	if err := ps.CloseSend(); err != nil {
		t.Fatal(err)
	}
	r, err := ps.Recv()
	if err != nil || r.Tag != 10 || r.GetGame().GetGameId() != reply.Game.GameId {
		t.Fatalf("GetGame on the stream: %v %v", r, err)
	}
	if _, err := ps.Recv(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the client's end: %v, want the stream's end (OK)", err)
	}
}

// A Play stream, idle or not, does not hold the daemon's drain: at the
// shutdown it takes no more calls and ends UNAVAILABLE.
func TestShutdownEndsPlay(t *testing.T) {
	saved := drainTimeout
	drainTimeout = 10 * time.Second
	t.Cleanup(func() { drainTimeout = saved })
	td := newTestDaemon(t)
	codes1 := td.emission("E1", "2026-12-15", 10)
	ps, err := qodv1.NewQuitteOuDoubleClient(td.conn("server-a")).Play(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := ps.Send(&qodv1.PlayCall{Tag: 1, Call: &qodv1.PlayCall_StartGame{StartGame: &qodv1.StartGameRequest{RequestId: rid(), Code: codes1[1]}}}); err != nil {
		t.Fatal(err)
	}
	if r, err := ps.Recv(); err != nil || r.GetGameReply() == nil {
		t.Fatalf("start: %v %v", r, err)
	}
	ended := make(chan error, 1)
	go func() {
		_, err := ps.Recv()
		ended <- err
	}()
	t0 := time.Now()
	td.stop()
	if bytes.Contains(td.logs(), []byte("drain timed out")) || time.Since(t0) > 5*time.Second {
		t.Errorf("an idle Play stream held the drain (%v)", time.Since(t0))
	}
	select {
	case err := <-ended:
		if status.Code(err) != codes.Unavailable || !strings.Contains(err.Error(), "shutting down") {
			t.Errorf("the Play stream ended with %v, want UNAVAILABLE, shutting down", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the Play stream did not end")
	}
}

// playTestStream is a Play stream's server side without a transport: the
// calls come from in, the results go to out.
type playTestStream struct {
	grpc.ServerStream
	ctx context.Context
	in  chan *qodv1.PlayCall
	out chan *qodv1.PlayResult
}

func (s *playTestStream) Context() context.Context { return s.ctx }

func (s *playTestStream) RecvMsg(m any) error {
	select {
	case c, ok := <-s.in:
		if !ok {
			return io.EOF
		}
		proto.Merge(m.(*qodv1.PlayCall), c)
		return nil
	case <-s.ctx.Done():
		return s.ctx.Err()
	}
}

func (s *playTestStream) Recv() (*qodv1.PlayCall, error) {
	c := new(qodv1.PlayCall)
	return c, s.RecvMsg(c)
}

func (s *playTestStream) Send(r *qodv1.PlayResult) error {
	s.out <- r
	return nil
}

func (s *playTestStream) SendMsg(m any) error { return s.Send(m.(*qodv1.PlayResult)) }

// playHarness serves Play with a unary chain that holds each call until
// released, counting the calls in it at once.
type playHarness struct {
	s        *qodService
	stop     context.CancelFunc
	mu       sync.Mutex
	in, most int
	release  chan struct{}
}

func newPlayHarness(maxInFlight int) *playHarness {
	h := &playHarness{release: make(chan struct{})}
	var stopping context.Context
	stopping, h.stop = context.WithCancel(context.Background())
	h.s = newQodService(nil, []grpc.UnaryServerInterceptor{func(ctx context.Context, req any, info *grpc.UnaryServerInfo, _ grpc.UnaryHandler) (any, error) {
		h.mu.Lock()
		h.in++
		h.most = max(h.most, h.in)
		h.mu.Unlock()
		<-h.release
		h.mu.Lock()
		h.in--
		h.mu.Unlock()
		return &qodv1.Game{GameId: info.FullMethod}, nil
	}}, stopping, &playSlots{maxInFlight: maxInFlight})
	return h
}

func (h *playHarness) inFlight() (in, most int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.in, h.most
}

// stream serves one Play stream of the connection from addr.
func (h *playHarness) stream(addr string) (*playTestStream, chan error) {
	p := &peer.Peer{Addr: &net.TCPAddr{IP: net.ParseIP(addr), Port: 50000}, LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7443}}
	ctx, cancel := context.WithCancel(peer.NewContext(context.Background(), p))
	st := &playTestStream{ctx: ctx, in: make(chan *qodv1.PlayCall, 100), out: make(chan *qodv1.PlayResult, 100)}
	done := make(chan error, 1)
	go func() {
		done <- h.s.Play(st)
		cancel() // as gRPC ends the stream's context when its handler returns
	}()
	return st, done
}

// waitInFlight waits until n calls are in the chain at once.
func (h *playHarness) waitInFlight(t *testing.T, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if in, _ := h.inFlight(); in == n {
			return
		}
	}
	in, _ := h.inFlight()
	t.Fatalf("%d calls in flight, want %d", in, n)
}

// The Play streams of a connection hold at most maxInFlight calls
// together; another connection has slots of its own; every call read
// gets its result, with its tag, once released.
func TestPlayInFlightBound(t *testing.T) {
	h := newPlayHarness(3)
	get := func(tag uint64) *qodv1.PlayCall {
		return &qodv1.PlayCall{Tag: tag, Call: &qodv1.PlayCall_GetGame{GetGame: &qodv1.GetGameRequest{GameId: "g"}}}
	}
	s1, done1 := h.stream("127.0.0.1")
	s2, done2 := h.stream("127.0.0.1")
	for i := range uint64(5) {
		s1.in <- get(i)
		s2.in <- get(100 + i)
	}
	h.waitInFlight(t, 3)
	time.Sleep(50 * time.Millisecond) // a fourth would be in by now
	if _, most := h.inFlight(); most != 3 {
		t.Fatalf("one connection's two streams held %d calls at once, want at most 3", most)
	}
	s3, done3 := h.stream("127.0.0.2")
	s3.in <- get(200)
	h.waitInFlight(t, 4) // the other connection's call is not held back
	close(h.release)
	tags := map[uint64]bool{}
	for _, s := range []*playTestStream{s1, s2, s1, s2, s1, s2, s1, s2, s1, s2, s3} {
		r := <-s.out
		if r.GetGame().GetGameId() != qodv1.QuitteOuDouble_GetGame_FullMethodName {
			t.Fatalf("result %v: not GetGame's reply", r)
		}
		tags[r.Tag] = true
	}
	if len(tags) != 11 {
		t.Fatalf("results for tags %v, want 11 distinct", tags)
	}
	for _, s := range []*playTestStream{s1, s2, s3} {
		close(s.in)
	}
	for _, d := range []chan error{done1, done2, done3} {
		if err := <-d; err != nil {
			t.Errorf("a stream the client ended: %v, want OK", err)
		}
	}
	h.s.slots.mu.Lock()
	defer h.s.slots.mu.Unlock()
	if len(h.s.slots.conns) != 0 {
		t.Errorf("%d connections' slots left after their streams ended", len(h.s.slots.conns))
	}
}

// At the shutdown a stream takes no further call, sends the results of
// the calls in flight, and only then ends UNAVAILABLE.
func TestPlayShutdownSendsInFlight(t *testing.T) {
	h := newPlayHarness(2)
	s, done := h.stream("127.0.0.1")
	for i := range uint64(3) {
		s.in <- &qodv1.PlayCall{Tag: i, Call: &qodv1.PlayCall_Pick{Pick: &qodv1.PickRequest{}}}
	}
	h.waitInFlight(t, 2)
	h.stop()
	select {
	case err := <-done:
		t.Fatalf("the stream ended (%v) with calls in flight", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(h.release)
	err := <-done
	if status.Code(err) != codes.Unavailable || !strings.Contains(err.Error(), "shutting down") {
		t.Fatalf("ended with %v, want UNAVAILABLE, shutting down", err)
	}
	if len(s.out) != 2 {
		t.Fatalf("%d results sent before the end, want the 2 calls in flight", len(s.out))
	}
	if _, most := h.inFlight(); most != 2 {
		t.Fatalf("%d calls ran, want the 2 taken before the shutdown", most)
	}
}

// chainHandler runs interceptors as gRPC chains a server's: the first
// outermost, each seeing the call's info, the handler last; built once,
// the chain runs each call afresh.
func TestChainHandler(t *testing.T) {
	var order []string
	mk := func(name string) grpc.UnaryServerInterceptor {
		return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			order = append(order, name+">"+info.FullMethod)
			r, err := h(ctx, req)
			order = append(order, "<"+name)
			return r, err
		}
	}
	h := chainHandler([]grpc.UnaryServerInterceptor{mk("a"), mk("b")}, &grpc.UnaryServerInfo{FullMethod: "/m"},
		func(_ context.Context, req any) (any, error) {
			order = append(order, "handler "+req.(string))
			return "resp " + req.(string), nil
		})
	for _, req := range []string{"x", "y"} {
		order = nil
		resp, err := h(context.Background(), req)
		if want := "a>/m b>/m handler " + req + " <b <a"; strings.Join(order, " ") != want || resp != "resp "+req || err != nil {
			t.Fatalf("%s, %v, %v; want %s", strings.Join(order, " "), resp, err, want)
		}
	}
}

// FuzzPlayCall: any PlayCall a client sends (bytes as they come off the
// stream) gets one result with its tag: its unary twin's, run under that
// method's name with that request, or CALL_MISSING for one that holds no
// call.
func FuzzPlayCall(f *testing.F) {
	for _, c := range []*qodv1.PlayCall{
		{Tag: 1},
		{Tag: 2, Call: &qodv1.PlayCall_Pick{Pick: &qodv1.PickRequest{RequestId: "r", GameId: "g", Number: 3}}},
		{Tag: 3, Call: &qodv1.PlayCall_StartGame{StartGame: &qodv1.StartGameRequest{Code: "ABCDEFGHIJKLMNOPQR"}}},
		{Call: &qodv1.PlayCall_Quit{Quit: &qodv1.QuitRequest{}}},
		{Tag: 1 << 63, Call: &qodv1.PlayCall_Decide{Decide: &qodv1.DecideRequest{Decision: qodv1.Decision_DECISION_STOP}}},
	} {
		b, _ := proto.Marshal(c)
		f.Add(b)
	}
	methods := map[protoreflect.Name]string{
		"start_game": qodv1.QuitteOuDouble_StartGame_FullMethodName,
		"pick":       qodv1.QuitteOuDouble_Pick_FullMethodName,
		"decide":     qodv1.QuitteOuDouble_Decide_FullMethodName,
		"get_game":   qodv1.QuitteOuDouble_GetGame_FullMethodName,
		"quit":       qodv1.QuitteOuDouble_Quit_FullMethodName,
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		c := new(qodv1.PlayCall)
		if proto.Unmarshal(raw, c) != nil {
			return
		}
		var ran string
		var got any
		s := newQodService(nil, []grpc.UnaryServerInterceptor{func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			ran, got = info.FullMethod, req
			if info.FullMethod == qodv1.QuitteOuDouble_Play_FullMethodName {
				return h(ctx, req)
			}
			return nil, refuse(reasonUnknownGame, "game_id: test")
		}}, nil, nil)
		r := s.playCall(context.Background(), c)
		if r.Tag != c.Tag || r.Result == nil {
			t.Fatalf("call %v: result %v", c, r)
		}
		if c.Call == nil {
			if ran != qodv1.QuitteOuDouble_Play_FullMethodName || reasonOf(refusalErr(r)) != reasonCallMissing {
				t.Fatalf("empty call: ran %q, result %v", ran, r)
			}
			return
		}
		m := c.ProtoReflect()
		fd := m.WhichOneof(m.Descriptor().Oneofs().ByName("call"))
		if want := methods[fd.Name()]; ran != want || want == "" {
			t.Fatalf("call %v ran %q", c, ran)
		}
		if req, ok := got.(proto.Message); !ok || req != m.Get(fd).Message().Interface() {
			t.Fatalf("call %v ran with another request %v", c, got)
		}
		if reasonOf(refusalErr(r)) != reasonUnknownGame {
			t.Fatalf("refusal lost: %v", r)
		}
	})
}

// A burst of calls leaves at most its idle workers' bound behind it for
// the stream's life.
func TestPlayIdleWorkers(t *testing.T) {
	h := newPlayHarness(100)
	h.s.idleWorkers = 2
	s, done := h.stream("127.0.0.1")
	time.Sleep(10 * time.Millisecond) // the stream's own goroutines are up
	base := runtime.NumGoroutine()
	for i := range uint64(20) {
		s.in <- &qodv1.PlayCall{Tag: i, Call: &qodv1.PlayCall_GetGame{GetGame: &qodv1.GetGameRequest{}}}
	}
	h.waitInFlight(t, 20)
	if n := runtime.NumGoroutine(); n < base+20 {
		t.Fatalf("%d goroutines running 20 calls, %d before", n, base)
	}
	close(h.release)
	for range 20 {
		<-s.out
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base+2 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > base+2 {
		t.Fatalf("%d goroutines after the burst, %d before: more than 2 idle workers kept", n, base)
	}
	close(s.in)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
