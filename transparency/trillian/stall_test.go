package trillian_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	tpb "github.com/google/trillian"
	"github.com/google/trillian/types"
	"golang.org/x/mod/sumdb/tlog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/trillian"
)

// stalledConn is a Trillian whose signer has stopped: QueueLeaf succeeds,
// the root stays empty for ever.
type stalledConn struct{ queued *atomic.Int32 }

func (c stalledConn) Invoke(ctx context.Context, method string, args, reply any, opts ...grpc.CallOption) error {
	switch method {
	case tpb.TrillianLog_GetLatestSignedLogRoot_FullMethodName:
		root, err := (&types.LogRootV1{TreeSize: 0, RootHash: make([]byte, tlog.HashSize)}).MarshalBinary()
		if err != nil {
			return err
		}
		reply.(*tpb.GetLatestSignedLogRootResponse).SignedLogRoot = &tpb.SignedLogRoot{LogRoot: root}
		return nil
	case tpb.TrillianLog_QueueLeaf_FullMethodName:
		c.queued.Add(1)
		leaf := args.(*tpb.QueueLeafRequest).GetLeaf()
		h := tlog.RecordHash(leaf.GetLeafValue())
		reply.(*tpb.QueueLeafResponse).QueuedLeaf = &tpb.QueuedLogLeaf{Leaf: &tpb.LogLeaf{LeafValue: leaf.GetLeafValue(), MerkleLeafHash: h[:]}}
		return nil
	case tpb.TrillianAdmin_GetTree_FullMethodName:
		t := reply.(*tpb.Tree)
		t.TreeId, t.TreeType, t.TreeState = args.(*tpb.GetTreeRequest).GetTreeId(), tpb.TreeType_LOG, tpb.TreeState_ACTIVE
		return nil
	}
	return status.Error(codes.Unimplemented, method)
}

func (stalledConn) NewStream(context.Context, *grpc.StreamDesc, string, ...grpc.CallOption) (grpc.ClientStream, error) {
	return nil, status.Error(codes.Unimplemented, "stream")
}

// The daemon appends with a context that has no deadline (a record on its
// way to the log is not cancelled with its caller). With the signer
// stopped, Append must still give up, after Config.AppendTimeout, with
// ErrUnavailable — a refused draw, counted as a failure (the alarm) —
// instead of holding the draw (and its game) for ever.
func TestAppendSignerStalled(t *testing.T) {
	var queued atomic.Int32
	l, err := trillian.Open(t.Context(), trillian.Config{Conn: stalledConn{&queued}, TreeID: 1, Origin: "tirage.fr/log/stalled",
		Signers: signers(t), AppendTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	done := make(chan error, 1)
	go func() {
		_, err := l.Append(context.Background(), []byte("never integrated"))
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, transparency.ErrUnavailable) {
			t.Fatalf("Append with the signer stalled: err = %v, want ErrUnavailable", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Append with the signer stalled still waits after 10 s (AppendTimeout 200 ms)")
	}
	if s := l.Stats(); s.Failures != 1 || s.InFlight != 0 {
		t.Fatalf("Stats = %+v, want one failure, none in flight", s)
	}
	// The queued leaf may yet be integrated: nothing may follow it until
	// the log is reopened.
	if _, err := l.Append(context.Background(), []byte("after the stall")); !errors.Is(err, transparency.ErrUnavailable) || queued.Load() != 1 {
		t.Fatalf("Append after a timed-out append: err = %v, %d leaves queued, want refused before queueing", err, queued.Load())
	}
	if err := l.Health(); !errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("Health after a timed-out append = %v, want the log failed closed", err)
	}
}
