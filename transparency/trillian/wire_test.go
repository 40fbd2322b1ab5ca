package trillian_test

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	tpb "github.com/google/trillian"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/trillian"
)

// wireLog and wireAdmin serve a fakeTrillian over a real gRPC connection
// (in memory): the client's message limits apply, as they do against
// trillian_log_server, which fakeConn alone bypasses.
type wireLog struct {
	tpb.UnimplementedTrillianLogServer
	c fakeConn
}

type wireAdmin struct {
	tpb.UnimplementedTrillianAdminServer
	c fakeConn
}

func wire[Req, Resp any](ctx context.Context, c fakeConn, method string, req *Req) (*Resp, error) {
	resp := new(Resp)
	if err := c.Invoke(ctx, method, req, resp); err != nil {
		return nil, err
	}
	return resp, nil
}

func (s wireAdmin) GetTree(ctx context.Context, req *tpb.GetTreeRequest) (*tpb.Tree, error) {
	return wire[tpb.GetTreeRequest, tpb.Tree](ctx, s.c, tpb.TrillianAdmin_GetTree_FullMethodName, req)
}

func (s wireLog) QueueLeaf(ctx context.Context, req *tpb.QueueLeafRequest) (*tpb.QueueLeafResponse, error) {
	return wire[tpb.QueueLeafRequest, tpb.QueueLeafResponse](ctx, s.c, tpb.TrillianLog_QueueLeaf_FullMethodName, req)
}

func (s wireLog) GetLatestSignedLogRoot(ctx context.Context, req *tpb.GetLatestSignedLogRootRequest) (*tpb.GetLatestSignedLogRootResponse, error) {
	return wire[tpb.GetLatestSignedLogRootRequest, tpb.GetLatestSignedLogRootResponse](ctx, s.c, tpb.TrillianLog_GetLatestSignedLogRoot_FullMethodName, req)
}

func (s wireLog) GetEntryAndProof(ctx context.Context, req *tpb.GetEntryAndProofRequest) (*tpb.GetEntryAndProofResponse, error) {
	return wire[tpb.GetEntryAndProofRequest, tpb.GetEntryAndProofResponse](ctx, s.c, tpb.TrillianLog_GetEntryAndProof_FullMethodName, req)
}

func (s wireLog) GetInclusionProof(ctx context.Context, req *tpb.GetInclusionProofRequest) (*tpb.GetInclusionProofResponse, error) {
	return wire[tpb.GetInclusionProofRequest, tpb.GetInclusionProofResponse](ctx, s.c, tpb.TrillianLog_GetInclusionProof_FullMethodName, req)
}

func (s wireLog) GetInclusionProofByHash(ctx context.Context, req *tpb.GetInclusionProofByHashRequest) (*tpb.GetInclusionProofByHashResponse, error) {
	return wire[tpb.GetInclusionProofByHashRequest, tpb.GetInclusionProofByHashResponse](ctx, s.c, tpb.TrillianLog_GetInclusionProofByHash_FullMethodName, req)
}

func (s wireLog) GetConsistencyProof(ctx context.Context, req *tpb.GetConsistencyProofRequest) (*tpb.GetConsistencyProofResponse, error) {
	return wire[tpb.GetConsistencyProofRequest, tpb.GetConsistencyProofResponse](ctx, s.c, tpb.TrillianLog_GetConsistencyProof_FullMethodName, req)
}

func (s wireLog) GetLeavesByRange(ctx context.Context, req *tpb.GetLeavesByRangeRequest) (*tpb.GetLeavesByRangeResponse, error) {
	return wire[tpb.GetLeavesByRangeRequest, tpb.GetLeavesByRangeResponse](ctx, s.c, tpb.TrillianLog_GetLeavesByRange_FullMethodName, req)
}

// wireConn serves f over gRPC, in memory, and returns a client connection
// to it, with grpc's default limits (those rngd dials Trillian with).
func wireConn(t *testing.T, f *fakeTrillian) *grpc.ClientConn {
	t.Helper()
	lis := bufconn.Listen(1 << 20)
	srv := grpc.NewServer()
	c := fakeConn{t, f}
	tpb.RegisterTrillianLogServer(srv, wireLog{c: c})
	tpb.RegisterTrillianAdminServer(srv, wireAdmin{c: c})
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("passthrough:///fake-trillian",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// bigLeaf is a leaf near transparency.MaxLeafSize (an attestation record
// embeds an envelope of up to 30 KiB; any leaf may be that large).
func bigLeaf(i int) []byte {
	b := make([]byte, transparency.MaxLeafSize-100)
	copy(b, fmt.Sprintf("big leaf %d", i))
	return b
}

// A range of leaves whose answer exceeds grpc's default 4 MiB message
// limit is still read: Entries (rngd's catch-up and rebuild read
// transparency.MaxEntries at a time) must not fail with ErrUnavailable for
// ever because the log holds large leaves.
func TestEntriesOfLargeLeaves(t *testing.T) {
	const n = 80 // 80 leaves of ~64 KiB: ~5 MiB
	f := &fakeTrillian{}
	for i := range n {
		f.add(t, bigLeaf(i))
	}
	l, err := trillian.Open(t.Context(), trillian.Config{Conn: wireConn(t, f), TreeID: 1, Origin: "tirage.fr/log/fake", Signers: signers(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for start := uint64(0); start < n; {
		es, err := l.Entries(t.Context(), start, n, n)
		if err != nil {
			t.Fatalf("Entries(%d, %d, %d): %v", start, n, n, err)
		}
		start += uint64(len(es))
	}
}

// Leaves integrated together whose range exceeds grpc's default message
// limit are still handed to their appends: the follower's read of them
// must not fail at every poll (every append then times out, and the log
// fails closed with no way back).
func TestAppendLargeLeavesBatch(t *testing.T) {
	const n = 80
	f := &fakeTrillian{hold: true}
	l, err := trillian.Open(t.Context(), trillian.Config{Conn: wireConn(t, f), TreeID: 1, Origin: "tirage.fr/log/fake",
		Signers: signers(t), AppendTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { _, errs[i] = l.Append(t.Context(), bigLeaf(i)) })
	}
	for {
		f.mu.Lock()
		queued := len(f.pending)
		f.mu.Unlock()
		if queued == n {
			break
		}
		time.Sleep(time.Millisecond)
	}
	f.integrate(t) // one batch, as the signer sequences a backlog
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Append(leaf %d): %v", i, err)
		}
	}
}
