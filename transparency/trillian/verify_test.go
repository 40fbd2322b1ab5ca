package trillian_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	tpb "github.com/google/trillian"
	"github.com/google/trillian/types"
	"golang.org/x/mod/sumdb/tlog"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/trillian"
)

// fakeTrillian is an in-memory Trillian holding a tree of leaves, computed
// with x/mod's tlog (independent of the backend's checks); tamper, if set,
// rewrites its answers: a faulty or tampered database.
// QueueLeaf integrates the leaf at once (deduplicated, as Trillian does),
// Its methods run under mu (the follower calls in from its goroutine).
// With hold set, QueueLeaf only queues: integrate sequences the queue, as
// the signer would, in one batch. calls counts the calls by method.
// GetTree answers tree, or treeErr (both unset: an ACTIVE LOG tree).
type fakeTrillian struct {
	mu      sync.Mutex
	leaves  [][]byte
	stored  []tlog.Hash
	tamper  func(method string, req, reply any)
	hold    bool
	pending [][]byte
	calls   map[string]int
	tree    *tpb.Tree
	treeErr error
}

func newFakeTrillian(t *testing.T, n int) *fakeTrillian {
	f := &fakeTrillian{}
	for i := range n {
		f.add(t, fmt.Appendf(nil, "leaf %d", i))
	}
	return f
}

// add appends leaf to the tree (f.mu held, or f not shared yet).
func (f *fakeTrillian) add(t testing.TB, leaf []byte) {
	hs, err := tlog.StoredHashes(int64(len(f.leaves)), leaf, f.reader())
	if err != nil {
		t.Error(err)
		return
	}
	f.leaves = append(f.leaves, leaf)
	f.stored = append(f.stored, hs...)
}

// integrate sequences the queued leaves.
func (f *fakeTrillian) integrate(t testing.TB) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, lf := range f.pending {
		f.add(t, lf)
	}
	f.pending = nil
}

// setTamper sets (or with nil clears) the answers' rewriting.
func (f *fakeTrillian) setTamper(tamper func(method string, req, reply any)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tamper = tamper
}

func (f *fakeTrillian) reader() tlog.HashReader {
	return tlog.HashReaderFunc(func(idx []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(idx))
		for i, x := range idx {
			out[i] = f.stored[x]
		}
		return out, nil
	})
}

func (f *fakeTrillian) root(t testing.TB, n int64) (*tpb.SignedLogRoot, tlog.Hash) {
	h, err := tlog.TreeHash(n, f.reader())
	if err != nil {
		t.Fatal(err)
	}
	raw, err := (&types.LogRootV1{TreeSize: uint64(n), RootHash: h[:]}).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return &tpb.SignedLogRoot{LogRoot: raw}, h
}

func (f *fakeTrillian) leaf(i int64) *tpb.LogLeaf {
	h := tlog.RecordHash(f.leaves[i])
	return &tpb.LogLeaf{LeafValue: f.leaves[i], MerkleLeafHash: h[:], LeafIndex: i}
}

func hashesOf(p []tlog.Hash) [][]byte {
	out := make([][]byte, len(p))
	for i := range p {
		out[i] = p[i][:]
	}
	return out
}

type fakeConn struct {
	t *testing.T
	f *fakeTrillian
}

func (c fakeConn) Invoke(ctx context.Context, method string, args, reply any, opts ...grpc.CallOption) error {
	f := c.f
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.calls == nil {
		f.calls = map[string]int{}
	}
	f.calls[method]++
	if method == tpb.TrillianLog_QueueLeaf_FullMethodName {
		value := args.(*tpb.QueueLeafRequest).GetLeaf().GetLeafValue()
		h := tlog.RecordHash(value)
		q := &tpb.QueuedLogLeaf{Leaf: &tpb.LogLeaf{LeafValue: value, MerkleLeafHash: h[:]}}
		same := func(lf []byte) bool { return bytes.Equal(lf, value) }
		switch {
		case slices.ContainsFunc(f.leaves, same) || slices.ContainsFunc(f.pending, same):
			q.Status = &spb.Status{Code: int32(codes.AlreadyExists)}
		case f.hold:
			f.pending = append(f.pending, value)
		default:
			f.add(c.t, value)
		}
		reply.(*tpb.QueueLeafResponse).QueuedLeaf = q
		if f.tamper != nil {
			f.tamper(method, args, reply)
		}
		return nil
	}
	n := int64(len(f.leaves))
	slr, _ := f.root(c.t, n)
	switch method {
	case tpb.TrillianAdmin_GetTree_FullMethodName:
		if f.treeErr != nil {
			return f.treeErr
		}
		tree := &tpb.Tree{TreeId: args.(*tpb.GetTreeRequest).GetTreeId(), TreeType: tpb.TreeType_LOG, TreeState: tpb.TreeState_ACTIVE}
		if f.tree != nil {
			tree = f.tree
		}
		proto.Merge(reply.(*tpb.Tree), tree)
	case tpb.TrillianLog_GetLatestSignedLogRoot_FullMethodName:
		reply.(*tpb.GetLatestSignedLogRootResponse).SignedLogRoot = slr
	case tpb.TrillianLog_GetEntryAndProof_FullMethodName:
		req := args.(*tpb.GetEntryAndProofRequest)
		p, err := tlog.ProveRecord(req.TreeSize, req.LeafIndex, f.reader())
		if err != nil {
			return status.Error(codes.InvalidArgument, err.Error())
		}
		r := reply.(*tpb.GetEntryAndProofResponse)
		r.SignedLogRoot, r.Leaf, r.Proof = slr, f.leaf(req.LeafIndex), &tpb.Proof{LeafIndex: req.LeafIndex, Hashes: hashesOf(p)}
	case tpb.TrillianLog_GetInclusionProof_FullMethodName:
		req := args.(*tpb.GetInclusionProofRequest)
		p, err := tlog.ProveRecord(req.TreeSize, req.LeafIndex, f.reader())
		if err != nil {
			return status.Error(codes.InvalidArgument, err.Error())
		}
		r := reply.(*tpb.GetInclusionProofResponse)
		r.SignedLogRoot, r.Proof = slr, &tpb.Proof{LeafIndex: req.LeafIndex, Hashes: hashesOf(p)}
	case tpb.TrillianLog_GetInclusionProofByHash_FullMethodName:
		req := args.(*tpb.GetInclusionProofByHashRequest)
		r := reply.(*tpb.GetInclusionProofByHashResponse)
		r.SignedLogRoot = slr
		for i := range min(req.TreeSize, n) {
			if h := tlog.RecordHash(f.leaves[i]); string(h[:]) == string(req.LeafHash) {
				p, err := tlog.ProveRecord(req.TreeSize, i, f.reader())
				if err != nil {
					return status.Error(codes.InvalidArgument, err.Error())
				}
				r.Proof = []*tpb.Proof{{LeafIndex: i, Hashes: hashesOf(p)}}
				break
			}
		}
	case tpb.TrillianLog_GetConsistencyProof_FullMethodName:
		req := args.(*tpb.GetConsistencyProofRequest)
		p, err := tlog.ProveTree(req.SecondTreeSize, req.FirstTreeSize, f.reader())
		if err != nil {
			return status.Error(codes.InvalidArgument, err.Error())
		}
		r := reply.(*tpb.GetConsistencyProofResponse)
		r.SignedLogRoot, r.Proof = slr, &tpb.Proof{Hashes: hashesOf(p)}
	case tpb.TrillianLog_GetLeavesByRange_FullMethodName:
		req := args.(*tpb.GetLeavesByRangeRequest)
		r := reply.(*tpb.GetLeavesByRangeResponse)
		r.SignedLogRoot = slr
		for i := req.StartIndex; i < min(req.StartIndex+req.Count, n); i++ {
			r.Leaves = append(r.Leaves, f.leaf(i))
		}
	default:
		return status.Error(codes.Unimplemented, method)
	}
	if f.tamper != nil {
		f.tamper(method, args, reply)
	}
	return nil
}

func (fakeConn) NewStream(context.Context, *grpc.StreamDesc, string, ...grpc.CallOption) (grpc.ClientStream, error) {
	return nil, status.Error(codes.Unimplemented, "stream")
}

func openFake(t *testing.T, f *fakeTrillian) *trillian.Log {
	t.Helper()
	l, err := trillian.Open(t.Context(), trillian.Config{Conn: fakeConn{t, f}, TreeID: 1, Origin: "tirage.fr/log/fake", Signers: signers(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// An honest Trillian's answers pass the checks, at every tree size and
// range, and the proofs handed out verify.
func TestVerifiedAnswers(t *testing.T) {
	const n = 13
	f := newFakeTrillian(t, n)
	l := openFake(t, f)
	ctx := t.Context()
	for size := int64(1); size <= n; size++ {
		_, root := f.root(t, size)
		for i := range size {
			p, err := l.InclusionProof(ctx, uint64(i), uint64(size))
			if err != nil {
				t.Fatalf("InclusionProof(%d, %d): %v", i, size, err)
			}
			if err := tlog.CheckRecord(p, size, root, i, tlog.RecordHash(f.leaves[i])); err != nil {
				t.Fatalf("InclusionProof(%d, %d) does not verify: %v", i, size, err)
			}
			idx, p, err := l.InclusionProofByHash(ctx, tlog.RecordHash(f.leaves[i]), uint64(size))
			if err != nil || idx != uint64(i) || tlog.CheckRecord(p, size, root, i, tlog.RecordHash(f.leaves[i])) != nil {
				t.Fatalf("InclusionProofByHash(leaf %d, %d) = %d, %v", i, size, idx, err)
			}
			for end := i + 1; end <= size; end++ {
				es, err := l.Entries(ctx, uint64(i), uint64(end), uint64(size))
				if err != nil || len(es) != int(end-i) {
					t.Fatalf("Entries(%d, %d, %d) = %d entries, %v", i, end, size, len(es), err)
				}
			}
		}
		for old := int64(1); old < size; old++ {
			_, oldRoot := f.root(t, old)
			p, err := l.ConsistencyProof(ctx, uint64(old), uint64(size))
			if err != nil {
				t.Fatalf("ConsistencyProof(%d, %d): %v", old, size, err)
			}
			if err := tlog.CheckTree(p, size, root, old, oldRoot); err != nil {
				t.Fatalf("ConsistencyProof(%d, %d) does not verify: %v", old, size, err)
			}
		}
	}
}

// inclusionProof returns the inclusion proof in a reply, whichever call
// asked for it, and the tree size it is for.
func inclusionProof(req, reply any) (*tpb.Proof, int64) {
	switch r := reply.(type) {
	case *tpb.GetEntryAndProofResponse:
		return r.Proof, req.(*tpb.GetEntryAndProofRequest).TreeSize
	case *tpb.GetInclusionProofResponse:
		return r.Proof, req.(*tpb.GetInclusionProofRequest).TreeSize
	}
	return nil, 0
}

// A Trillian (or database) that answers with a wrong proof or a wrong leaf
// is refused with ErrSecurity before anything reaches a client, and the
// log fails closed (the alarm): appends and checkpoints refused.
func TestCheatingTrillian(t *testing.T) {
	const n = 11
	forged := []byte("forged")
	forgedHash := tlog.RecordHash(forged)
	flip := func(b []byte) { b[0] ^= 1 }
	for _, tc := range []struct {
		name   string
		tamper func(method string, req, reply any)
		call   func(ctx context.Context, l *trillian.Log) error
	}{{
		name: "inclusion proof",
		tamper: func(method string, req, reply any) {
			if p, _ := inclusionProof(req, reply); p != nil {
				flip(p.Hashes[1])
			}
		},
		call: func(ctx context.Context, l *trillian.Log) error { _, err := l.InclusionProof(ctx, 3, n); return err },
	}, {
		name: "inclusion proof in an older tree",
		tamper: func(method string, req, reply any) {
			if p, size := inclusionProof(req, reply); p != nil && size == 7 {
				flip(p.Hashes[0])
			}
		},
		call: func(ctx context.Context, l *trillian.Log) error { _, err := l.InclusionProof(ctx, 2, 7); return err },
	}, {
		name: "inclusion proof one hash short",
		tamper: func(method string, req, reply any) {
			if p, _ := inclusionProof(req, reply); p != nil {
				p.Hashes = p.Hashes[1:]
			}
		},
		call: func(ctx context.Context, l *trillian.Log) error { _, err := l.InclusionProof(ctx, 3, n); return err },
	}, {
		name: "leaf rewritten with its hash, proved",
		tamper: func(method string, req, reply any) {
			if r, ok := reply.(*tpb.GetEntryAndProofResponse); ok && r.Leaf.LeafIndex == 5 {
				r.Leaf.LeafValue, r.Leaf.MerkleLeafHash = forged, forgedHash[:]
			}
		},
		call: func(ctx context.Context, l *trillian.Log) error { _, err := l.InclusionProof(ctx, 5, n); return err },
	}, {
		name: "leaf rewritten with its hash, read",
		tamper: func(method string, req, reply any) {
			if r, ok := reply.(*tpb.GetLeavesByRangeResponse); ok {
				for _, lf := range r.Leaves {
					if lf.LeafIndex == 5 {
						lf.LeafValue, lf.MerkleLeafHash = forged, forgedHash[:]
					}
				}
			}
		},
		call: func(ctx context.Context, l *trillian.Log) error { _, err := l.Entries(ctx, 4, 8, n); return err },
	}, {
		name: "leaf rewritten with its hash, read from the start",
		tamper: func(method string, req, reply any) {
			if r, ok := reply.(*tpb.GetLeavesByRangeResponse); ok {
				r.Leaves[0].LeafValue, r.Leaves[0].MerkleLeafHash = forged, forgedHash[:]
			}
		},
		call: func(ctx context.Context, l *trillian.Log) error { _, err := l.Entries(ctx, 0, n, n); return err },
	}, {
		name: "leaf that does not match its hash",
		tamper: func(method string, req, reply any) {
			if r, ok := reply.(*tpb.GetLeavesByRangeResponse); ok {
				r.Leaves[1].LeafValue = forged
			}
		},
		call: func(ctx context.Context, l *trillian.Log) error { _, err := l.Entries(ctx, 2, 6, n); return err },
	}, {
		name: "left subtrees of a range",
		tamper: func(method string, req, reply any) {
			if r, ok := reply.(*tpb.GetInclusionProofResponse); ok {
				for _, h := range r.Proof.Hashes {
					flip(h)
				}
			}
		},
		call: func(ctx context.Context, l *trillian.Log) error { _, err := l.Entries(ctx, 6, 9, n); return err },
	}, {
		name: "consistency proof",
		tamper: func(method string, req, reply any) {
			if r, ok := reply.(*tpb.GetConsistencyProofResponse); ok && req.(*tpb.GetConsistencyProofRequest).SecondTreeSize == 9 {
				flip(r.Proof.Hashes[0])
			}
		},
		call: func(ctx context.Context, l *trillian.Log) error { _, err := l.ConsistencyProof(ctx, 3, 9); return err },
	}, {
		name: "leaf hash found at another index",
		tamper: func(method string, req, reply any) {
			if r, ok := reply.(*tpb.GetInclusionProofByHashResponse); ok {
				r.Proof[0].LeafIndex++
			}
		},
		call: func(ctx context.Context, l *trillian.Log) error {
			_, _, err := l.InclusionProofByHash(ctx, tlog.RecordHash([]byte("leaf 4")), n)
			return err
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeTrillian(t, n)
			l := openFake(t, f)
			f.setTamper(tc.tamper)
			if err := tc.call(t.Context(), l); !errors.Is(err, transparency.ErrSecurity) {
				t.Fatalf("err = %v, want ErrSecurity", err)
			}
			f.setTamper(nil)
			if _, err := l.Checkpoint(t.Context()); !errors.Is(err, transparency.ErrSecurity) {
				t.Fatalf("Checkpoint after misbehaviour: err = %v, want ErrSecurity (failed closed)", err)
			}
			if _, err := l.Append(t.Context(), []byte("after misbehaviour")); !errors.Is(err, transparency.ErrSecurity) {
				t.Fatalf("Append after misbehaviour: err = %v, want ErrSecurity (failed closed)", err)
			}
		})
	}
}
