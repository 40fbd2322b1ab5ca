package trillian_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"testing"
	"time"

	tpb "github.com/google/trillian"
	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/transparency"
)

// An honest Trillian: each Append gets the index its leaf is at in the
// tree, sequential, concurrent or duplicate, and its receipt verifies.
func TestAppendIndexHonest(t *testing.T) {
	const n = 5
	f := newFakeTrillian(t, n)
	l := openFake(t, f)
	ctx := t.Context()
	at := func(idx uint64, leaf []byte) {
		t.Helper()
		f.mu.Lock()
		defer f.mu.Unlock()
		if idx >= uint64(len(f.leaves)) || !bytes.Equal(f.leaves[idx], leaf) {
			t.Errorf("Append(%q) = %d, not where the leaf is", leaf, idx)
		}
	}
	for i := range 3 {
		leaf := fmt.Appendf(nil, "new %d", i)
		idx, err := l.Append(ctx, leaf)
		if err != nil || idx != uint64(n+i) {
			t.Fatalf("Append(%q) = %d, %v, want %d", leaf, idx, err, n+i)
		}
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			leaf := fmt.Appendf(nil, "concurrent %d", i)
			idx, err := l.Append(ctx, leaf)
			if err != nil {
				t.Errorf("Append(%q): %v", leaf, err)
				return
			}
			at(idx, leaf)
		})
	}
	wg.Wait()
	if idx, err := l.Append(ctx, []byte("leaf 2")); err != nil || idx != 2 {
		t.Fatalf("Append of a duplicate of leaf 2 = %d, %v", idx, err)
	}
	leaf := []byte("with a receipt")
	idx, err := l.Append(ctx, leaf)
	if err != nil {
		t.Fatal(err)
	}
	at(idx, leaf)
	cp, err := l.AwaitCheckpoint(ctx, idx+1)
	if err != nil {
		t.Fatal(err)
	}
	p, err := l.InclusionProof(ctx, idx, cp.Size)
	if err != nil {
		t.Fatal(err)
	}
	if err := tlog.CheckRecord(p, int64(cp.Size), cp.Hash, int64(idx), tlog.RecordHash(leaf)); err != nil {
		t.Fatalf("receipt does not verify: %v", err)
	}
	if err := l.Health(); err != nil {
		t.Fatalf("Health = %v", err)
	}
}

// The indices handed to Append are authenticated per batch, not per leaf:
// a batch of appends integrated together costs, besides the root polls,
// one consistency proof (signing the root, which the receipt's
// AwaitCheckpoint then finds signed), one range read and one inclusion
// proof (the subtrees left of the range); and the receipt one
// GetEntryAndProof per leaf, as before.
func TestAppendIndexCost(t *testing.T) {
	const n, batch = 6, 8
	f := newFakeTrillian(t, n)
	l := openFake(t, f)
	ctx := t.Context()
	f.mu.Lock()
	f.hold = true
	f.mu.Unlock()
	var wg sync.WaitGroup
	idx := make([]uint64, batch)
	for i := range batch {
		wg.Go(func() {
			var err error
			if idx[i], err = l.Append(ctx, fmt.Appendf(nil, "batched %d", i)); err != nil {
				t.Errorf("Append: %v", err)
			}
		})
	}
	for {
		f.mu.Lock()
		queued := len(f.pending)
		f.mu.Unlock()
		if queued == batch {
			break
		}
		time.Sleep(time.Millisecond)
	}
	f.mu.Lock()
	before := maps.Clone(f.calls)
	f.mu.Unlock()
	f.integrate(t)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	cp, err := l.AwaitCheckpoint(ctx, n+batch)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range idx {
		if _, err := l.InclusionProof(ctx, i, cp.Size); err != nil {
			t.Fatal(err)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for method, want := range map[string]int{
		tpb.TrillianLog_GetConsistencyProof_FullMethodName: 1,
		tpb.TrillianLog_GetLeavesByRange_FullMethodName:    1,
		tpb.TrillianLog_GetInclusionProof_FullMethodName:   1,
		tpb.TrillianLog_GetEntryAndProof_FullMethodName:    batch,
		tpb.TrillianLog_QueueLeaf_FullMethodName:           0,
	} {
		if got := f.calls[method] - before[method]; got != want {
			t.Errorf("%s: %d calls for a batch of %d appends and their receipts, want %d", method, got, batch, want)
		}
	}
}

// A Trillian that reports a leaf at another index than the one it holds in
// the tree is refused: Append fails with ErrSecurity instead of returning
// a position whose receipt proves another record, and the log fails closed.
func TestAppendIndexCheating(t *testing.T) {
	const n = 11
	// The tree a tampered database may present: leaf 4 also at 6.
	forged := &fakeTrillian{}
	for i := range n {
		leaf := fmt.Appendf(nil, "leaf %d", i)
		if i == 6 {
			leaf = []byte("leaf 4")
		}
		forged.add(t, leaf)
	}
	forgedRoot, _ := forged.root(t, n)
	forgedProof, err := tlog.ProveRecord(n, 6, forged.reader())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		leaf   string
		tamper func(f *fakeTrillian) func(method string, req, reply any)
	}{{
		// Another appliance's leaf is integrated right after this one;
		// the range read reports them in each other's place.
		name: "leaves swapped in the range read",
		leaf: "mine",
		tamper: func(f *fakeTrillian) func(method string, req, reply any) {
			return func(method string, req, reply any) {
				switch r := reply.(type) {
				case *tpb.QueueLeafResponse:
					f.add(t, []byte("another replica's"))
				case *tpb.GetLeavesByRangeResponse:
					if k := len(r.Leaves); k >= 2 {
						a, b := r.Leaves[k-2], r.Leaves[k-1]
						a.LeafValue, b.LeafValue = b.LeafValue, a.LeafValue
						a.MerkleLeafHash, b.MerkleLeafHash = b.MerkleLeafHash, a.MerkleLeafHash
					}
				}
			}
		},
	}, {
		name: "leaf index misreported in the range read",
		leaf: "mine",
		tamper: func(f *fakeTrillian) func(method string, req, reply any) {
			return func(method string, req, reply any) {
				if r, ok := reply.(*tpb.GetLeavesByRangeResponse); ok {
					for _, lf := range r.Leaves {
						lf.LeafIndex++
					}
				}
			}
		},
	}, {
		// A duplicate: Trillian answers with a root and a proof of a
		// forged tree, in which the leaf is at 6, not 4.
		name: "duplicate found in a forged tree",
		leaf: "leaf 4",
		tamper: func(f *fakeTrillian) func(method string, req, reply any) {
			return func(method string, req, reply any) {
				switch r := reply.(type) {
				case *tpb.GetLatestSignedLogRootResponse:
					r.SignedLogRoot = forgedRoot
				case *tpb.GetInclusionProofByHashResponse:
					r.SignedLogRoot = forgedRoot
					r.Proof = []*tpb.Proof{{LeafIndex: 6, Hashes: hashesOf(forgedProof)}}
				}
			}
		},
	}, {
		name: "duplicate found at another index",
		leaf: "leaf 4",
		tamper: func(f *fakeTrillian) func(method string, req, reply any) {
			return func(method string, req, reply any) {
				if r, ok := reply.(*tpb.GetInclusionProofByHashResponse); ok {
					r.Proof[0].LeafIndex++
				}
			}
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeTrillian(t, n)
			l := openFake(t, f)
			f.setTamper(tc.tamper(f))
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			idx, err := l.Append(ctx, []byte(tc.leaf))
			if !errors.Is(err, transparency.ErrSecurity) {
				t.Fatalf("Append(%q) = %d, %v, want ErrSecurity", tc.leaf, idx, err)
			}
			f.setTamper(nil)
			if err := l.Health(); !errors.Is(err, transparency.ErrSecurity) {
				t.Fatalf("Health after a misreported index = %v, want ErrSecurity (failed closed)", err)
			}
			if _, err := l.Checkpoint(t.Context()); !errors.Is(err, transparency.ErrSecurity) {
				t.Fatalf("Checkpoint after a misreported index: err = %v, want ErrSecurity", err)
			}
			if _, err := l.Append(t.Context(), []byte("later")); !errors.Is(err, transparency.ErrSecurity) {
				t.Fatalf("Append after a misreported index: err = %v, want ErrSecurity", err)
			}
		})
	}
}
