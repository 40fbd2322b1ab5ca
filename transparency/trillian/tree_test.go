package trillian_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tpb "github.com/google/trillian"
	"github.com/google/trillian/types"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/fieldmaskpb"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/checkpoint"
	"tirage.fr/tirage/transparency/logtest"
	"tirage.fr/tirage/transparency/trillian"
)

// newPreorderedTree creates a PREORDERED_LOG tree holding leaves, integrated
// (a mirror of a log), deleted when the test ends.
func newPreorderedTree(t *testing.T, conn *grpc.ClientConn, leaves [][]byte) int64 {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	id, err := trillian.CreateTreeOfType(ctx, conn, "tirage-pre-"+strconv.Itoa(os.Getpid()), tpb.TreeType_PREORDERED_LOG)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		tpb.NewTrillianAdminClient(conn).DeleteTree(context.Background(), &tpb.DeleteTreeRequest{TreeId: id})
	})
	logc := tpb.NewTrillianLogClient(conn)
	req := &tpb.AddSequencedLeavesRequest{LogId: id}
	for i, lf := range leaves {
		req.Leaves = append(req.Leaves, &tpb.LogLeaf{LeafValue: lf, LeafIndex: int64(i)})
	}
	if _, err := logc.AddSequencedLeaves(ctx, req); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the preordered leaves integrated", func() bool {
		resp, err := logc.GetLatestSignedLogRoot(ctx, &tpb.GetLatestSignedLogRootRequest{LogId: id})
		var root types.LogRootV1
		return err == nil && root.UnmarshalBinary(resp.GetSignedLogRoot().GetLogRoot()) == nil && root.TreeSize == uint64(len(leaves))
	})
	return id
}

// The review's scenario: Config.TreeID pointed by mistake at a
// PREORDERED_LOG tree holding the same leaves as the log (a mirror), whose
// root the saved checkpoint passes (not smaller, consistent), with a leaf
// recorded in the pending file (rngd killed while its append waited).
// Trillian answers InvalidArgument to every QueueLeaf on such a tree, which
// Open took for a leaf never queued: it dropped the record and removed the
// file. Open must refuse the tree before it queues anything, naming it and
// what is wrong, the pending file unchanged byte for byte.
func TestOpenRefusesPreorderedTree(t *testing.T) {
	conn := dial(t)
	ctx := t.Context()
	cfg := trillian.Config{Conn: conn, TreeID: newTree(t, conn), Origin: "tirage.fr/log/preordered", Signers: signers(t),
		StateFile: filepath.Join(t.TempDir(), "trillian-checkpoint")}
	l, err := trillian.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	leaves := [][]byte{[]byte("draw 0"), []byte("draw 1")}
	for _, lf := range leaves {
		if _, err := l.Append(ctx, lf); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.AwaitCheckpoint(ctx, uint64(len(leaves))); err != nil {
		t.Fatal(err)
	}
	l.Close()
	pending := trillian.AppendPendingRecord([]byte(trillian.PendingHeader), []byte("draw 2, in flight at the kill"))
	if err := os.WriteFile(cfg.StateFile+".pending", pending, 0o600); err != nil {
		t.Fatal(err)
	}

	mirror := newPreorderedTree(t, conn, leaves)
	_, err = tpb.NewTrillianLogClient(conn).QueueLeaf(ctx, &tpb.QueueLeafRequest{LogId: mirror, Leaf: &tpb.LogLeaf{LeafValue: []byte("probe")}})
	if status.Code(err) != codes.InvalidArgument {
		t.Fatalf("QueueLeaf on a PREORDERED_LOG tree = %v, want InvalidArgument (the test's premise)", err)
	}
	cfg.TreeID = mirror
	l, err = trillian.Open(ctx, cfg)
	if err == nil {
		l.Close()
	}
	if got, rerr := os.ReadFile(cfg.StateFile + ".pending"); rerr != nil || !bytes.Equal(got, pending) {
		t.Errorf("pending file after Open on a PREORDERED_LOG tree: %q, %v; want it unchanged: %q", got, rerr, pending)
	}
	if err == nil {
		t.Fatal("Open on a PREORDERED_LOG tree succeeded")
	}
	for _, want := range []string{"tree " + strconv.FormatInt(mirror, 10), "PREORDERED_LOG", "needs a LOG tree"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Open on a PREORDERED_LOG tree = %v, want it to say %q", err, want)
		}
	}
}

// A LOG tree that takes no new leaves — DRAINING or FROZEN (QueueLeaf
// answers PermissionDenied) or deleted — is refused at Open too, on the
// real stack: the appliance must append draws.
func TestOpenRefusesInactiveTree(t *testing.T) {
	conn := dial(t)
	admin := tpb.NewTrillianAdminClient(conn)
	for _, tc := range []struct {
		name, want string
		state      tpb.TreeState // UNKNOWN_TREE_STATE: deleted
	}{
		{"draining", "is DRAINING, not ACTIVE", tpb.TreeState_DRAINING},
		{"frozen", "is FROZEN, not ACTIVE", tpb.TreeState_FROZEN},
		{"deleted", "is deleted", tpb.TreeState_UNKNOWN_TREE_STATE},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := newTree(t, conn)
			var err error
			if tc.state == tpb.TreeState_UNKNOWN_TREE_STATE {
				_, err = admin.DeleteTree(t.Context(), &tpb.DeleteTreeRequest{TreeId: id})
			} else {
				_, err = admin.UpdateTree(t.Context(), &tpb.UpdateTreeRequest{Tree: &tpb.Tree{TreeId: id, TreeState: tc.state}, UpdateMask: &fieldmaskpb.FieldMask{Paths: []string{"tree_state"}}})
			}
			if err != nil {
				t.Fatal(err)
			}
			l, err := trillian.Open(t.Context(), trillian.Config{Conn: conn, TreeID: id, Origin: "tirage.fr/log/inactive", Signers: signers(t)})
			if err == nil {
				l.Close()
				t.Fatalf("Open on a %s tree succeeded", tc.name)
			}
			if !strings.Contains(err.Error(), "tree "+strconv.FormatInt(id, 10)+" "+tc.want) {
				t.Fatalf("Open on a %s tree = %v, want it to say %q", tc.name, err, tc.want)
			}
		})
	}
}

// Open reads the tree (GetTree) before it touches the pending file or
// queues anything, and refuses one that is not an ACTIVE LOG tree, or that
// it cannot read: a configuration (plain error, naming the tree), or an
// outage (ErrUnavailable, as a root that cannot be read). No QueueLeaf is
// sent, the pending file is unchanged byte for byte.
func TestOpenChecksTree(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tree   *tpb.Tree
		err    error
		want   string
		outage bool
	}{
		{name: "preordered", tree: &tpb.Tree{TreeId: 1, TreeType: tpb.TreeType_PREORDERED_LOG, TreeState: tpb.TreeState_ACTIVE}, want: "tree 1 is a PREORDERED_LOG tree; rngd needs a LOG tree"},
		{name: "draining", tree: &tpb.Tree{TreeId: 1, TreeType: tpb.TreeType_LOG, TreeState: tpb.TreeState_DRAINING}, want: "tree 1 is DRAINING, not ACTIVE"},
		{name: "frozen", tree: &tpb.Tree{TreeId: 1, TreeType: tpb.TreeType_LOG, TreeState: tpb.TreeState_FROZEN}, want: "tree 1 is FROZEN, not ACTIVE"},
		{name: "deleted", tree: &tpb.Tree{TreeId: 1, TreeType: tpb.TreeType_LOG, TreeState: tpb.TreeState_ACTIVE, Deleted: true}, want: "tree 1 is deleted"},
		{name: "not found", err: status.Error(codes.NotFound, "no such tree"), want: "no tree 1"},
		{name: "permission denied", err: status.Error(codes.PermissionDenied, "no"), want: "allow TrillianAdmin/GetTree"},
		{name: "unauthenticated", err: status.Error(codes.Unauthenticated, "who?"), want: "allow TrillianAdmin/GetTree"},
		{name: "unimplemented", err: status.Error(codes.Unimplemented, "no admin API"), want: "allow TrillianAdmin/GetTree"},
		{name: "unavailable", err: status.Error(codes.Unavailable, "down"), want: "couldn't read tree 1", outage: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPendingFixture(t, 2)
			p.writePendingFile([][]byte{[]byte("recorded before the restart")})
			before := p.pendingFile()
			p.f.mu.Lock()
			p.f.tree, p.f.treeErr = tc.tree, tc.err
			p.f.mu.Unlock()
			l, err := p.open(p.cfg)
			if err == nil {
				l.Close()
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(err.Error(), tc.want) || errors.Is(err, transparency.ErrUnavailable) != tc.outage {
				t.Fatalf("Open = %v, want it to say %q (an outage: %v)", err, tc.want, tc.outage)
			}
			if n := p.queueLeafCalls(); n != 0 {
				t.Fatalf("%d QueueLeaf sent", n)
			}
			if got := p.pendingFile(); !bytes.Equal(got, before) {
				t.Fatalf("pending file changed: %q, want %q", got, before)
			}
		})
	}
}

// During the recovery from an outage, a recorded leaf that Trillian now
// refuses (here as invalid) is not dropped either: the attempt fails and
// is retried, the log stays failed closed (appends refused, Resync not
// called), and the pending file keeps the leaf's record, byte for byte.
// Once Trillian takes it again, a reopened log integrates it.
func TestRecoverKeepsRefusedLeaf(t *testing.T) {
	p := newPendingFixture(t, 1)
	leaf := []byte("timed out in the outage, refused during the recovery")
	var calls atomic.Int32
	var resyncs atomic.Int32
	logs := &logtest.Buffer{}
	cfg := p.cfg
	// The append's QueueLeaf reaches the fake (queued, the signer
	// stalled); the recovery's are refused.
	cfg.Conn = refuseLeafConn{p.conn, leaf, []codes.Code{codes.OK, codes.InvalidArgument}, &calls, nil}
	cfg.Logger = slog.New(slog.NewTextHandler(logs, nil))
	cfg.Resync = func(context.Context, *checkpoint.Checkpoint) error { resyncs.Add(1); return nil }
	l := p.mustOpen(cfg)
	p.stall(true)
	if _, err := l.Append(t.Context(), leaf); !errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("Append with the signer stalled = %v, want ErrUnavailable", err)
	}
	before := p.pendingFile()
	if !bytes.Contains(before, leaf) {
		t.Fatal("the failed append's leaf is not recorded")
	}
	eventually(t, 10*time.Second, "a recovery attempt failing on the refusal", func() bool {
		return strings.Contains(logs.String(), "outage goes on") && strings.Contains(logs.String(), "refused by Trillian (InvalidArgument)")
	})
	if err := l.Health(); !errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("Health with a recorded leaf refused = %v, want ErrUnavailable", err)
	}
	if _, err := l.Append(t.Context(), []byte("a retry")); !errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("Append with a recorded leaf refused = %v, want ErrUnavailable", err)
	}
	if n := resyncs.Load(); n != 0 {
		t.Fatalf("Config.Resync called %d times", n)
	}
	if got := p.pendingFile(); !bytes.Equal(got, before) {
		t.Fatalf("pending file during the refused recovery: %q, want %q", got, before)
	}
	l.Close()
	p.stall(false)
	p.f.integrate(t)
	cfg = p.cfg
	cfg.AppendTimeout = 10 * time.Second
	p.mustOpen(cfg)
	if c := p.count(leaf); c != 1 {
		t.Fatalf("the recorded leaf %d times in the tree, want once", c)
	}
	p.noRecords("after reopening")
}

// frozenConn plays a tree frozen (then made ACTIVE again) under a running
// log: while frozen, every QueueLeaf is refused FailedPrecondition, as
// Trillian refuses leaves for a FROZEN tree, and GetTree says FROZEN.
type frozenConn struct {
	grpc.ClientConnInterface
	frozen *atomic.Bool
}

func (c frozenConn) Invoke(ctx context.Context, method string, args, reply any, opts ...grpc.CallOption) error {
	if c.frozen.Load() {
		switch method {
		case tpb.TrillianLog_QueueLeaf_FullMethodName:
			return status.Error(codes.FailedPrecondition, "tree is frozen")
		case tpb.TrillianAdmin_GetTree_FullMethodName:
			*reply.(*tpb.Tree) = tpb.Tree{TreeId: args.(*tpb.GetTreeRequest).GetTreeId(), TreeType: tpb.TreeType_LOG, TreeState: tpb.TreeState_FROZEN}
			return nil
		}
	}
	return c.ClientConnInterface.Invoke(ctx, method, args, reply, opts...)
}

// A tree frozen (or deleted, or no longer open to rngd) under a running log
// refuses every leaf: the append that meets it is NotAppended, and the log
// fails closed as for an outage, so Health says so (rngd's readiness, its
// alarm) instead of every draw being refused while all looks well. The
// recovery ends only once GetTree shows an ACTIVE tree again; then appends
// are taken again.
func TestFrozenTreeFailsClosed(t *testing.T) {
	p := newPendingFixture(t, 2)
	var frozen atomic.Bool
	var resyncs atomic.Int32
	logs := &logtest.Buffer{}
	cfg := p.cfg
	cfg.AppendTimeout = 5 * time.Second
	cfg.Conn = frozenConn{p.conn, &frozen}
	cfg.Logger = slog.New(slog.NewTextHandler(logs, nil))
	cfg.Resync = func(context.Context, *checkpoint.Checkpoint) error { resyncs.Add(1); return nil }
	l := p.mustOpen(cfg)
	if _, err := l.Append(t.Context(), []byte("before the freeze")); err != nil {
		t.Fatal(err)
	}
	frozen.Store(true)
	if _, err := l.Append(t.Context(), []byte("refused")); !errors.Is(err, transparency.ErrNotAppended) {
		t.Fatalf("Append on a frozen tree = %v, want ErrNotAppended", err)
	}
	p.noRecords("after a leaf the frozen tree refused")
	if err := l.Health(); !errors.Is(err, transparency.ErrUnavailable) || !strings.Contains(err.Error(), "refuses leaves") {
		t.Fatalf("Health with the tree frozen = %v, want ErrUnavailable (the tree refuses leaves)", err)
	}
	eventually(t, 10*time.Second, "a recovery attempt finding the tree frozen", func() bool {
		return strings.Contains(logs.String(), "outage goes on") && strings.Contains(logs.String(), "is FROZEN, not ACTIVE")
	})
	if n := resyncs.Load(); n != 0 {
		t.Fatalf("Config.Resync called %d times while the tree is frozen", n)
	}
	frozen.Store(false)
	eventually(t, 40*time.Second, "the recovery once the tree is ACTIVE", func() bool { return l.Health() == nil })
	if _, err := l.Append(t.Context(), []byte("after the thaw")); err != nil {
		t.Fatalf("Append once the tree is ACTIVE again: %v", err)
	}
}
