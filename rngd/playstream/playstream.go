// Package playstream is a game server's client of rngd's Play stream
// (tirage.qod.v1.QuitteOuDouble/Play): a qodv1.QuitteOuDoubleClient whose
// StartGame, Quit, Pick, Decide and GetGame go as calls on one long-lived
// stream of its connection instead of a unary call each, and whose other
// methods are the unary calls. A call's result is what the unary call
// returns: the same reply, or the same refusal (code, message, ErrorInfo).
//
// Calls may be made from any number of goroutines; they run concurrently on
// the stream. A call's context bounds its wait; a call given up on (its
// context done) may still run in rngd, as a cancelled unary call may:
// retry it with the same request_id. When the stream ends (rngd shut down,
// the connection broke), the calls waiting on it get its error (UNAVAILABLE:
// retry with the same request_id) and the next call opens a new stream.
// Call options are not used by the streamed calls.
package playstream

import (
	"context"
	"errors"
	"io"
	"sync"

	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
)

// Client is a game server's client of one connection, its game calls on a
// Play stream.
type Client struct {
	qodv1.QuitteOuDoubleClient // the unary calls

	mu     sync.Mutex
	st     *stream // the open stream, nil before the first call and after one ends
	tag    uint64
	closed bool
}

// New is a client of cc's Play streams. No stream is opened before the
// first call.
func New(cc grpc.ClientConnInterface) *Client {
	return &Client{QuitteOuDoubleClient: qodv1.NewQuitteOuDoubleClient(cc)}
}

// errClosed is a call after Close.
var errClosed = status.Error(codes.Canceled, "playstream: the client is closed")

// stream is one Play stream and the calls waiting on it.
type stream struct {
	ps     qodv1.QuitteOuDouble_PlayClient
	cancel context.CancelFunc
	send   sync.Mutex // one Send at a time
	mu     sync.Mutex // pending
	// pending are the calls sent and not answered, by tag.
	pending map[uint64]chan *qodv1.PlayResult
	done    chan struct{} // closed when the stream has ended, err set
	err     error         // how it ended: io.EOF after the last result, else its status
}

// ended is the error of a call the stream ended without a result for.
func (st *stream) ended() error {
	if errors.Is(st.err, io.EOF) {
		return status.Error(codes.Unavailable, "playstream: the stream ended before the call's result")
	}
	return st.err
}

// stream is the open stream, opened if there is none, and a tag for a
// call on it.
func (c *Client) stream() (*stream, uint64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, 0, errClosed
	}
	c.tag++
	if c.st != nil {
		return c.st, c.tag, nil
	}
	// The stream outlives the call that opens it.
	ctx, cancel := context.WithCancel(context.Background())
	ps, err := c.Play(ctx)
	if err != nil {
		cancel()
		return nil, 0, err
	}
	st := &stream{ps: ps, cancel: cancel, pending: map[uint64]chan *qodv1.PlayResult{}, done: make(chan struct{})}
	c.st = st
	go c.receive(st)
	return st, c.tag, nil
}

// receive hands each result to its call until the stream ends, then ends
// the calls still waiting with its error.
func (c *Client) receive(st *stream) {
	for {
		r, err := st.ps.Recv()
		if err != nil {
			c.mu.Lock()
			if c.st == st {
				c.st = nil
			}
			c.mu.Unlock()
			st.err = err // read only once done is closed
			close(st.done)
			st.cancel()
			return
		}
		st.mu.Lock()
		ch := st.pending[r.Tag]
		delete(st.pending, r.Tag)
		st.mu.Unlock()
		if ch != nil {
			ch <- r
		}
	}
}

// call sends one call on the stream and waits for its result.
func (c *Client) call(ctx context.Context, call *qodv1.PlayCall) (*qodv1.PlayResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, status.FromContextError(err).Err()
	}
	st, tag, err := c.stream()
	if err != nil {
		return nil, err
	}
	call.Tag = tag
	ch := make(chan *qodv1.PlayResult, 1)
	st.mu.Lock()
	st.pending[tag] = ch
	st.mu.Unlock()
	forget := func() {
		st.mu.Lock()
		delete(st.pending, tag)
		st.mu.Unlock()
	}
	st.send.Lock()
	err = st.ps.Send(call)
	st.send.Unlock()
	if err != nil {
		// The stream's status comes from its receiving end.
		forget()
		<-st.done
		return nil, st.ended()
	}
	select {
	case r := <-ch:
		if f, ok := r.Result.(*qodv1.PlayResult_Refusal); ok {
			return nil, status.ErrorProto(&spb.Status{Code: f.Refusal.Code, Message: f.Refusal.Message, Details: f.Refusal.Details})
		}
		return r, nil
	case <-st.done:
		return nil, st.ended()
	case <-ctx.Done():
		forget()
		return nil, status.FromContextError(ctx.Err()).Err()
	}
}

// reply sends call and returns its result's reply, which get reads (nil
// when the result holds another).
func reply[T proto.Message](c *Client, ctx context.Context, call *qodv1.PlayCall, get func(*qodv1.PlayResult) T) (T, error) {
	var none T
	r, err := c.call(ctx, call)
	if err != nil {
		return none, err
	}
	if v := get(r); v.ProtoReflect().IsValid() {
		return v, nil
	}
	return none, status.Errorf(codes.Internal, "playstream: result %d holds %T, not the call's reply", r.Tag, r.Result)
}

// StartGame is the unary StartGame's, on the stream.
func (c *Client) StartGame(ctx context.Context, req *qodv1.StartGameRequest, _ ...grpc.CallOption) (*qodv1.GameReply, error) {
	return reply(c, ctx, &qodv1.PlayCall{Call: &qodv1.PlayCall_StartGame{StartGame: req}}, (*qodv1.PlayResult).GetGameReply)
}

// Pick is the unary Pick's, on the stream.
func (c *Client) Pick(ctx context.Context, req *qodv1.PickRequest, _ ...grpc.CallOption) (*qodv1.GameReply, error) {
	return reply(c, ctx, &qodv1.PlayCall{Call: &qodv1.PlayCall_Pick{Pick: req}}, (*qodv1.PlayResult).GetGameReply)
}

// Decide is the unary Decide's, on the stream.
func (c *Client) Decide(ctx context.Context, req *qodv1.DecideRequest, _ ...grpc.CallOption) (*qodv1.GameReply, error) {
	return reply(c, ctx, &qodv1.PlayCall{Call: &qodv1.PlayCall_Decide{Decide: req}}, (*qodv1.PlayResult).GetGameReply)
}

// GetGame is the unary GetGame's, on the stream.
func (c *Client) GetGame(ctx context.Context, req *qodv1.GetGameRequest, _ ...grpc.CallOption) (*qodv1.Game, error) {
	return reply(c, ctx, &qodv1.PlayCall{Call: &qodv1.PlayCall_GetGame{GetGame: req}}, (*qodv1.PlayResult).GetGame)
}

// Quit is the unary Quit's, on the stream.
func (c *Client) Quit(ctx context.Context, req *qodv1.QuitRequest, _ ...grpc.CallOption) (*qodv1.QuitResponse, error) {
	return reply(c, ctx, &qodv1.PlayCall{Call: &qodv1.PlayCall_Quit{Quit: req}}, (*qodv1.PlayResult).GetQuit)
}

// Close ends the client's stream once the calls in flight have their
// results (or ctx is done: they get its error); later calls are refused.
// The connection is the caller's to close.
func (c *Client) Close(ctx context.Context) error {
	c.mu.Lock()
	c.closed = true
	st := c.st
	c.mu.Unlock()
	if st == nil {
		return nil
	}
	st.send.Lock()
	err := st.ps.CloseSend()
	st.send.Unlock()
	select {
	case <-st.done:
	case <-ctx.Done():
		st.cancel()
		<-st.done
		return ctx.Err()
	}
	if err != nil {
		return err
	}
	if errors.Is(st.err, io.EOF) {
		return nil // the stream's normal end, after the last result
	}
	return st.err
}
