package rngd

import (
	"cmp"
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
)

// Play serves a game server's calls on one stream (qod.proto, Play). Each
// call is its unary twin's: the same method, run through the listener's
// unary interceptors (observe, revocation, held) under the unary method's
// name, so its identity, ownership, replay, metrics and refusals are the
// unary call's. The stream saves the HTTP/2 stream, headers and trailers a
// unary call costs.
//
// Calls run concurrently, on the stream's workers, and their results are
// sent as they end. A connection's Play streams hold at most
// maxInFlight calls together (playSlots): the stream reads no further call
// until one ends, and HTTP/2 flow control holds the client's back.
//
// At shutdown (stopping) the stream takes no further call, sends the
// results of the calls in flight, and ends with UNAVAILABLE. A call read
// but not taken gets no result: it was not run, and its client retries it.
func (s *qodService) Play(ss qodv1.QuitteOuDouble_PlayServer) error {
	ctx := ss.Context()
	conn := s.slots.open(ctx)
	defer s.slots.close(conn)

	var (
		mu      sync.Mutex // closing, and wg.Add against Wait
		closing bool
		calls   sync.WaitGroup
		send    sync.Mutex // one Send at a time
	)
	// take reports whether the stream still takes a call; the caller
	// then runs it and calls calls.Done when its result is sent.
	take := func() bool {
		mu.Lock()
		defer mu.Unlock()
		if closing {
			return false
		}
		calls.Add(1)
		return true
	}
	// Workers run the calls, one after another, and keep the stack a call
	// grew (as the listener's stream workers do for unary calls): a call
	// that finds none idle starts one. They end with the stream, or when
	// playIdleWorkers others are idle already: a burst of calls leaves no
	// more behind for the stream's life.
	work := make(chan *qodv1.PlayCall)
	var idle atomic.Int32
	maxIdle := cmp.Or(s.idleWorkers, playIdleWorkers)
	run := func(call *qodv1.PlayCall) {
		defer calls.Done()
		res := s.playCall(ctx, call)
		send.Lock()
		// A failed Send is the stream's end (its context is cancelled):
		// the reader sees it too.
		_ = ss.Send(res)
		send.Unlock()
		<-conn.slots
	}
	worker := func(call *qodv1.PlayCall) {
		for {
			run(call)
			if idle.Add(1) > maxIdle {
				idle.Add(-1)
				return
			}
			var ok bool
			call, ok = <-work
			idle.Add(-1)
			if !ok {
				return
			}
		}
	}
	read := make(chan error, 1)
	go func() {
		for {
			call := new(qodv1.PlayCall)
			if err := ss.RecvMsg(call); err != nil {
				read <- err
				return
			}
			select {
			case conn.slots <- struct{}{}:
			case <-ctx.Done():
				read <- ctx.Err()
				return
			case <-s.stopping.Done():
				read <- nil
				return
			}
			if !take() {
				<-conn.slots
				read <- nil
				return
			}
			select {
			case work <- call:
			default:
				go worker(call)
			}
		}
	}()

	var err error
	select {
	case err = <-read:
	case <-s.stopping.Done():
	}
	mu.Lock()
	closing = true
	mu.Unlock()
	calls.Wait()
	// The reader sends no more work: it sends only calls taken before
	// closing, which calls.Wait waited for.
	close(work)
	switch {
	case s.stopping.Err() != nil:
		return status.Error(codes.Unavailable, "rngd is shutting down: a call sent without a result was not taken; retry it on a new stream")
	case err == nil, errors.Is(err, io.EOF):
		return nil // the client closed its side: every call it sent has its result
	default:
		return statusOf(err).Err()
	}
}

// statusOf is err's status as gRPC's server makes it for a handler's
// error: its own status (wrapped or not), a context's, or UNKNOWN.
func statusOf(err error) *status.Status {
	if st, ok := status.FromError(err); ok {
		return st
	}
	return status.FromContextError(err)
}

// playIdleWorkers is how many idle workers a Play stream keeps
// (qodService.idleWorkers, when set).
const playIdleWorkers = 64

// playCall runs one call of a Play stream through the unary interceptors,
// under its unary twin's method name, and makes its result.
func (s *qodService) playCall(ctx context.Context, c *qodv1.PlayCall) *qodv1.PlayResult {
	t := &s.twins
	var (
		req any
		h   grpc.UnaryHandler
	)
	switch x := c.Call.(type) {
	case *qodv1.PlayCall_StartGame:
		req, h = x.StartGame, t.startGame
	case *qodv1.PlayCall_Pick:
		req, h = x.Pick, t.pick
	case *qodv1.PlayCall_Decide:
		req, h = x.Decide, t.decide
	case *qodv1.PlayCall_GetGame:
		req, h = x.GetGame, t.getGame
	case *qodv1.PlayCall_Quit:
		req, h = x.Quit, t.quit
	default:
		// Counted and logged as a refusal of Play itself.
		req, h = c, t.missing
	}
	resp, err := h(ctx, req)
	r := &qodv1.PlayResult{Tag: c.Tag}
	if err != nil {
		st := statusOf(err).Proto()
		r.Result = &qodv1.PlayResult_Refusal{Refusal: &qodv1.Refusal{Code: st.Code, Message: st.Message, Details: st.Details}}
		return r
	}
	switch v := resp.(type) {
	case *qodv1.GameReply:
		r.Result = &qodv1.PlayResult_GameReply{GameReply: v}
	case *qodv1.Game:
		r.Result = &qodv1.PlayResult_Game{Game: v}
	case *qodv1.QuitResponse:
		r.Result = &qodv1.PlayResult_Quit{Quit: v}
	}
	return r
}

// playTwins are the handlers of the calls a Play stream carries: each its
// unary twin through the interceptors, chained once for all its calls.
type playTwins struct {
	startGame, pick, decide, getGame, quit, missing grpc.UnaryHandler
}

func newPlayTwins(s *qodService, interceptors []grpc.UnaryServerInterceptor) playTwins {
	// twin is the unary method fn, named method, through the interceptors.
	twin := func(method string, fn grpc.UnaryHandler) grpc.UnaryHandler {
		return chainHandler(interceptors, &grpc.UnaryServerInfo{Server: s, FullMethod: method}, fn)
	}
	return playTwins{
		startGame: twin(qodv1.QuitteOuDouble_StartGame_FullMethodName, handlerOf(s.StartGame)),
		pick:      twin(qodv1.QuitteOuDouble_Pick_FullMethodName, handlerOf(s.Pick)),
		decide:    twin(qodv1.QuitteOuDouble_Decide_FullMethodName, handlerOf(s.Decide)),
		getGame:   twin(qodv1.QuitteOuDouble_GetGame_FullMethodName, handlerOf(s.GetGame)),
		quit:      twin(qodv1.QuitteOuDouble_Quit_FullMethodName, handlerOf(s.Quit)),
		missing: twin(qodv1.QuitteOuDouble_Play_FullMethodName, func(context.Context, any) (any, error) {
			return nil, refuse(reasonCallMissing, "call: a PlayCall holds one of start_game, pick, decide, get_game, quit")
		}),
	}
}

// handlerOf is the typed method fn as a gRPC handler.
func handlerOf[Req, Resp any](fn func(context.Context, Req) (Resp, error)) grpc.UnaryHandler {
	return func(ctx context.Context, req any) (any, error) { return fn(ctx, req.(Req)) }
}

// chainHandler is handler behind interceptors as gRPC runs a server's
// chain (the first outermost, the handler last), for calls of info's
// method: built once, run for each.
func chainHandler(interceptors []grpc.UnaryServerInterceptor, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) grpc.UnaryHandler {
	next := handler
	for i := len(interceptors) - 1; i >= 0; i-- {
		in, h := interceptors[i], next
		next = func(ctx context.Context, req any) (any, error) { return in(ctx, req, info, h) }
	}
	return next
}

// playSlots bounds the calls in flight on a connection's Play streams
// together: each connection (told apart by its addresses) has maxInFlight
// slots while it has a Play stream open.
type playSlots struct {
	maxInFlight int
	mu          sync.Mutex
	conns       map[string]*playConn
}

// playConn is a connection's slots, shared by its Play streams.
type playConn struct {
	key     string
	streams int // open Play streams; the entry goes with the last
	slots   chan struct{}
}

// open is the slots of the connection ctx's stream came on.
func (p *playSlots) open(ctx context.Context) *playConn {
	key := ""
	if pr, ok := peer.FromContext(ctx); ok {
		if pr.Addr != nil {
			key = pr.Addr.String()
		}
		if pr.LocalAddr != nil {
			key += " " + pr.LocalAddr.String()
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conns == nil {
		p.conns = map[string]*playConn{}
	}
	c := p.conns[key]
	if c == nil {
		c = &playConn{key: key, slots: make(chan struct{}, p.maxInFlight)}
		p.conns[key] = c
	}
	c.streams++
	return c
}

// close is a Play stream's end.
func (p *playSlots) close(c *playConn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c.streams--; c.streams == 0 {
		delete(p.conns, c.key)
	}
}
