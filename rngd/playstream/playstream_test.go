package playstream

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
)

// server is a Play peer over real gRPC on loopback: it holds the calls of
// each stream until it has batch of them, then answers them in reverse
// order (a game id for GetGame, Quit's reply for the game "wrong", a
// refusal for Pick); a call for the game "end" ends the stream UNAVAILABLE
// without an answer.
type server struct {
	qodv1.UnimplementedQuitteOuDoubleServer
	batch   int
	streams atomic.Int32
}

func (s *server) Play(ps qodv1.QuitteOuDouble_PlayServer) error {
	s.streams.Add(1)
	var held []*qodv1.PlayCall
	for {
		c, err := ps.Recv()
		if err != nil {
			return nil
		}
		if c.GetGetGame().GetGameId() == "end" {
			return status.Error(codes.Unavailable, "rngd is shutting down")
		}
		if held = append(held, c); len(held) < s.batch {
			continue
		}
		for i := len(held) - 1; i >= 0; i-- {
			r := &qodv1.PlayResult{Tag: held[i].Tag}
			switch x := held[i].Call.(type) {
			case *qodv1.PlayCall_GetGame:
				r.Result = &qodv1.PlayResult_Game{Game: &qodv1.Game{GameId: x.GetGame.GameId}}
				if x.GetGame.GameId == "wrong" {
					r.Result = &qodv1.PlayResult_Quit{Quit: &qodv1.QuitResponse{}}
				}
			default:
				st, _ := status.New(codes.FailedPrecondition, "number: already picked").WithDetails(&errdetails.ErrorInfo{Reason: "NUMBER_PICKED", Domain: "tirage.fr"})
				p := st.Proto()
				r.Result = &qodv1.PlayResult_Refusal{Refusal: &qodv1.Refusal{Code: p.Code, Message: p.Message, Details: p.Details}}
			}
			if err := ps.Send(r); err != nil {
				return err
			}
		}
		held = held[:0]
	}
}

func serve(t *testing.T, batch int) (*Client, *server) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	srv := &server{batch: batch}
	qodv1.RegisterQuitteOuDoubleServer(gs, srv)
	go gs.Serve(l)
	t.Cleanup(gs.Stop)
	cc, err := grpc.NewClient(l.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return New(cc), srv
}

// Results that come in another order than their calls reach their own
// callers; a refusal is the unary call's error, details included.
func TestResultsByTag(t *testing.T) {
	c, srv := serve(t, 4)
	ctx := context.Background()
	var wg sync.WaitGroup
	for _, id := range []string{"g1", "g2", "g3"} {
		wg.Go(func() {
			g, err := c.GetGame(ctx, &qodv1.GetGameRequest{GameId: id})
			if err != nil || g.GameId != id {
				t.Errorf("GetGame %s: %v %v", id, g, err)
			}
		})
	}
	wg.Go(func() {
		_, err := c.Pick(ctx, &qodv1.PickRequest{GameId: "g4"})
		st := status.Convert(err)
		if st.Code() != codes.FailedPrecondition || st.Message() != "number: already picked" || len(st.Details()) != 1 {
			t.Errorf("Pick: %v, want the refusal with its ErrorInfo", err)
			return
		}
		if info, ok := st.Details()[0].(*errdetails.ErrorInfo); !ok || info.Reason != "NUMBER_PICKED" {
			t.Errorf("Pick's detail: %v", st.Details()[0])
		}
	})
	wg.Wait()
	if n := srv.streams.Load(); n != 1 {
		t.Errorf("%d streams opened for four calls, want 1", n)
	}
	// A result that holds another call's reply is refused, not returned.
	c2, _ := serve(t, 1)
	if g, err := c2.GetGame(ctx, &qodv1.GetGameRequest{GameId: "wrong"}); status.Code(err) != codes.Internal || g != nil {
		t.Errorf("GetGame answered with Quit's reply: %v %v, want INTERNAL", g, err)
	}
	if err := c.Close(ctx); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := c.GetGame(ctx, &qodv1.GetGameRequest{GameId: "g5"}); status.Code(err) != codes.Canceled {
		t.Errorf("a call after Close: %v, want CANCELLED", err)
	}
}

// A call whose context ends stops waiting; its late result is dropped
// without holding the stream back.
func TestCallContext(t *testing.T) {
	c, _ := serve(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := c.GetGame(ctx, &qodv1.GetGameRequest{GameId: "late"}); status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("a call past its deadline: %v, want DEADLINE_EXCEEDED", err)
	}
	// The second call completes the server's batch: both are answered,
	// the first to no one.
	g, err := c.GetGame(context.Background(), &qodv1.GetGameRequest{GameId: "next"})
	if err != nil || g.GameId != "next" {
		t.Fatalf("the call after: %v %v", g, err)
	}
}

// When the stream ends, the calls waiting on it get its error, and the
// next call opens a new stream.
func TestStreamEnd(t *testing.T) {
	c, srv := serve(t, 2)
	ctx := context.Background()
	waiting := make(chan error, 1)
	go func() {
		_, err := c.GetGame(ctx, &qodv1.GetGameRequest{GameId: "held"})
		waiting <- err
	}()
	for deadline := time.Now().Add(5 * time.Second); srv.streams.Load() == 0 && time.Now().Before(deadline); time.Sleep(time.Millisecond) {
	}
	time.Sleep(20 * time.Millisecond) // the held call is sent
	_, err := c.GetGame(ctx, &qodv1.GetGameRequest{GameId: "end"})
	if status.Code(err) != codes.Unavailable {
		t.Fatalf("the call the stream ended on: %v, want UNAVAILABLE", err)
	}
	if err := <-waiting; status.Code(err) != codes.Unavailable {
		t.Fatalf("the call waiting when the stream ended: %v, want UNAVAILABLE", err)
	}
	done := make(chan error, 2)
	for _, id := range []string{"a", "b"} {
		go func() {
			_, err := c.GetGame(ctx, &qodv1.GetGameRequest{GameId: id})
			done <- err
		}()
	}
	for range 2 {
		if err := <-done; err != nil {
			t.Fatalf("a call on the next stream: %v", err)
		}
	}
	if n := srv.streams.Load(); n != 2 {
		t.Fatalf("%d streams, want 2", n)
	}
}
