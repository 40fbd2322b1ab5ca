// Package logtest is the conformance suite every transparency.Log backend
// runs (in the manner of x/mod's sumdb/storage.TestStorage).
//
// Proofs and checkpoints are checked by an independent verifier written only
// against golang.org/x/mod/sumdb/note and sumdb/tlog (and the standard
// library): it shares no code with the backends or with package checkpoint,
// so a bug there cannot hide itself.
package logtest

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/checkpoint"
)

// Opener opens one log (the same storage at every call); Close then Open
// again must show the same log.
type Opener func() (transparency.Log, error)

// NewLog returns an opener for a fresh, empty log private to the test.
type NewLog func(t *testing.T) Opener

// Run runs the conformance suite.
func Run(t *testing.T, newLog NewLog) {
	t.Run("AppendAndRead", func(t *testing.T) { testAppendAndRead(t, newLog(t)) })
	t.Run("Restart", func(t *testing.T) { testRestart(t, newLog(t)) })
	t.Run("ConcurrentAppenders", func(t *testing.T) { testConcurrent(t, newLog(t)) })
	t.Run("InvalidLeaves", func(t *testing.T) { testInvalidLeaves(t, newLog(t)) })
	t.Run("BadRequests", func(t *testing.T) { testBadRequests(t, newLog(t)) })
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func mustOpen(t *testing.T, open Opener) transparency.Log {
	t.Helper()
	l, err := open()
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return l
}

// leaf returns a distinct leaf for (tag, i), of varying length.
func leaf(tag string, i int) []byte {
	return fmt.Appendf(nil, "tirage logtest %s leaf %d %s", tag, i, strings.Repeat("x", i%97))
}

// Verified is what the independent verifier learnt from a checkpoint.
type Verified struct {
	Size uint64
	Hash tlog.Hash
	Text string
}

// VerifyCheckpoint opens a signed checkpoint with x/mod's note package and
// the Ed25519 verifier key text only, and parses the tlog-checkpoint body by
// hand.
func VerifyCheckpoint(t testing.TB, msg []byte, ed25519VKey string) Verified {
	t.Helper()
	v, err := note.NewVerifier(ed25519VKey)
	if err != nil {
		t.Fatalf("x/mod note.NewVerifier(%q): %v", ed25519VKey, err)
	}
	n, err := note.Open(msg, note.VerifierList(v))
	if err != nil {
		t.Fatalf("x/mod note.Open: %v\n%s", err, msg)
	}
	lines := strings.Split(n.Text, "\n")
	if len(lines) < 4 || lines[0] != v.Name() {
		t.Fatalf("checkpoint text %q: want origin %q then size and hash", n.Text, v.Name())
	}
	size, err := strconv.ParseUint(lines[1], 10, 64)
	if err != nil {
		t.Fatalf("checkpoint size %q: %v", lines[1], err)
	}
	h, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(h) != 32 {
		t.Fatalf("checkpoint hash %q: %v", lines[2], err)
	}
	var vc Verified
	vc.Size, vc.Text = size, n.Text
	copy(vc.Hash[:], h)
	return vc
}

// checkKeys verifies a checkpoint with every verifier key (Ed25519 via x/mod;
// ML-DSA-44 via package checkpoint) and returns the independent view.
func checkKeys(t *testing.T, l transparency.Log, cp *checkpoint.Checkpoint) Verified {
	t.Helper()
	keys := l.VerifierKeys()
	if len(keys) < 1 {
		t.Fatal("VerifierKeys: none")
	}
	vc := VerifyCheckpoint(t, cp.Note, keys[0])
	if vc.Size != cp.Size || vc.Hash != cp.Hash {
		t.Fatalf("checkpoint parsed as (%d, %x), independent verifier says (%d, %x)", cp.Size, cp.Hash, vc.Size, vc.Hash)
	}
	for _, k := range keys[1:] {
		v, err := checkpoint.ParseVerifierKey(k)
		if err != nil {
			t.Fatalf("ParseVerifierKey(%.40s...): %v", k, err)
		}
		n, err := note.Open(cp.Note, note.VerifierList(v))
		if err != nil || len(n.Sigs) != 1 {
			t.Fatalf("checkpoint does not verify with key %.40s...: %v", k, err)
		}
	}
	return vc
}

func testAppendAndRead(t *testing.T, open Opener) {
	ctx := ctxT(t)
	l := mustOpen(t, open)
	defer l.Close()
	const n = 40
	var leaves [][]byte
	for i := range n {
		leaves = append(leaves, leaf("read", i))
		idx, err := l.Append(ctx, leaves[i])
		if err != nil {
			t.Fatalf("Append %d: %v", i, err)
		}
		if idx != uint64(i) {
			t.Fatalf("Append %d returned index %d", i, idx)
		}
	}
	cp, err := l.AwaitCheckpoint(ctx, n)
	if err != nil {
		t.Fatalf("AwaitCheckpoint: %v", err)
	}
	vc := checkKeys(t, l, cp)
	got, err := readAll(ctx, l, 0, n, vc.Size)
	if err != nil {
		t.Fatalf("Entries: %v", err)
	}
	for i := range leaves {
		if !bytes.Equal(got[i], leaves[i]) {
			t.Fatalf("entry %d = %q, want %q", i, got[i], leaves[i])
		}
	}
	for i := range leaves {
		p, err := l.InclusionProof(ctx, uint64(i), vc.Size)
		if err != nil {
			t.Fatalf("InclusionProof(%d): %v", i, err)
		}
		if err := tlog.CheckRecord(p, int64(vc.Size), vc.Hash, int64(i), tlog.RecordHash(leaves[i])); err != nil {
			t.Fatalf("inclusion proof of %d does not verify with x/mod tlog: %v", i, err)
		}
		// A proof must not verify for another leaf.
		if err := tlog.CheckRecord(p, int64(vc.Size), vc.Hash, int64(i), tlog.RecordHash(leaf("other", i))); err == nil {
			t.Fatalf("inclusion proof of %d verifies for the wrong leaf", i)
		}
	}
	// Proofs against an older tree size, and by hash.
	for _, i := range []int{0, 7, n - 1} {
		size := uint64(i + 1)
		idx, p, err := l.InclusionProofByHash(ctx, tlog.RecordHash(leaves[i]), size)
		if err != nil {
			t.Fatalf("InclusionProofByHash(%d): %v", i, err)
		}
		if idx != uint64(i) {
			t.Fatalf("InclusionProofByHash(leaf %d) = index %d", i, idx)
		}
		th := treeHash(t, l, leaves[:size])
		if err := tlog.CheckRecord(p, int64(size), th, int64(i), tlog.RecordHash(leaves[i])); err != nil {
			t.Fatalf("inclusion proof of %d in tree %d: %v", i, size, err)
		}
	}
	// Consistency between every pair of a few sizes, against roots
	// recomputed from the leaves.
	for _, m := range []uint64{1, 2, 5, 16, 17, n} {
		p, err := l.ConsistencyProof(ctx, m, n)
		if err != nil {
			t.Fatalf("ConsistencyProof(%d, %d): %v", m, n, err)
		}
		if err := tlog.CheckTree(p, int64(n), vc.Hash, int64(m), treeHash(t, l, leaves[:m])); err != nil {
			t.Fatalf("consistency proof %d -> %d does not verify with x/mod tlog: %v", m, n, err)
		}
	}
}

// treeHash computes the RFC 6962 root of leaves with x/mod tlog alone.
func treeHash(t *testing.T, _ transparency.Log, leaves [][]byte) tlog.Hash {
	t.Helper()
	var hashes []tlog.Hash
	for i, l := range leaves {
		h, err := tlog.StoredHashes(int64(i), l, hashReader(hashes))
		if err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, h...)
	}
	th, err := tlog.TreeHash(int64(len(leaves)), hashReader(hashes))
	if err != nil {
		t.Fatal(err)
	}
	return th
}

type hashReader []tlog.Hash

func (h hashReader) ReadHashes(idx []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(idx))
	for i, x := range idx {
		if x >= int64(len(h)) {
			return nil, errors.New("hash index out of range")
		}
		out[i] = h[x]
	}
	return out, nil
}

// readAll reads [start, end) with as many Entries calls as needed.
func readAll(ctx context.Context, l transparency.Log, start, end, size uint64) ([][]byte, error) {
	var out [][]byte
	for start < end {
		e, err := l.Entries(ctx, start, end, size)
		if err != nil {
			return nil, err
		}
		if len(e) == 0 {
			return nil, errors.New("entries returned nothing")
		}
		out = append(out, e...)
		start += uint64(len(e))
	}
	return out, nil
}

func testRestart(t *testing.T, open Opener) {
	ctx := ctxT(t)
	l := mustOpen(t, open)
	var leaves [][]byte
	for i := range 10 {
		leaves = append(leaves, leaf("restart", i))
		if _, err := l.Append(ctx, leaves[i]); err != nil {
			t.Fatalf("Append: %v", err)
		}
	}
	cp1, err := l.AwaitCheckpoint(ctx, 10)
	if err != nil {
		t.Fatalf("AwaitCheckpoint: %v", err)
	}
	v1 := checkKeys(t, l, cp1)
	if err := l.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := l.Append(ctx, leaf("closed", 0)); err == nil {
		t.Fatal("Append after Close succeeded")
	}

	l = mustOpen(t, open)
	defer l.Close()
	cp, err := l.Checkpoint(ctx)
	if err != nil {
		t.Fatalf("Checkpoint after reopen: %v", err)
	}
	v := checkKeys(t, l, cp)
	if v.Size < v1.Size {
		t.Fatalf("checkpoint went back from %d to %d across restart", v1.Size, v.Size)
	}
	got, err := readAll(ctx, l, 0, 10, v.Size)
	if err != nil {
		t.Fatalf("Entries after reopen: %v", err)
	}
	for i := range leaves {
		if !bytes.Equal(got[i], leaves[i]) {
			t.Fatalf("entry %d changed across restart", i)
		}
	}
	for i := 10; i < 25; i++ {
		leaves = append(leaves, leaf("restart", i))
		idx, err := l.Append(ctx, leaves[i])
		if err != nil {
			t.Fatalf("Append after reopen: %v", err)
		}
		if idx != uint64(i) {
			t.Fatalf("Append after reopen returned %d, want %d", idx, i)
		}
	}
	cp2, err := l.AwaitCheckpoint(ctx, 25)
	if err != nil {
		t.Fatalf("AwaitCheckpoint: %v", err)
	}
	v2 := checkKeys(t, l, cp2)
	p, err := l.ConsistencyProof(ctx, v1.Size, v2.Size)
	if err != nil {
		t.Fatalf("ConsistencyProof: %v", err)
	}
	if err := tlog.CheckTree(p, int64(v2.Size), v2.Hash, int64(v1.Size), v1.Hash); err != nil {
		t.Fatalf("checkpoint after restart not consistent with the one before: %v", err)
	}
}

func testConcurrent(t *testing.T, open Opener) {
	ctx := ctxT(t)
	l := mustOpen(t, open)
	defer l.Close()
	const workers, per = 16, 25
	var (
		mu   sync.Mutex
		seen = map[uint64][]byte{}
		wg   sync.WaitGroup
		errs = make(chan error, workers)
	)
	for w := range workers {
		wg.Go(func() {
			for i := range per {
				lf := leaf(fmt.Sprintf("conc-%d", w), i)
				idx, err := l.Append(ctx, lf)
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				if prev, dup := seen[idx]; dup {
					errs <- fmt.Errorf("index %d given to %q and %q", idx, prev, lf)
				}
				seen[idx] = lf
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	const n = workers * per
	cp, err := l.AwaitCheckpoint(ctx, n)
	if err != nil {
		t.Fatalf("AwaitCheckpoint: %v", err)
	}
	vc := checkKeys(t, l, cp)
	got, err := readAll(ctx, l, 0, n, vc.Size)
	if err != nil {
		t.Fatalf("Entries: %v", err)
	}
	for i := range uint64(n) {
		if !bytes.Equal(got[i], seen[i]) {
			t.Fatalf("entry %d = %q, acknowledged leaf was %q", i, got[i], seen[i])
		}
	}
	s := l.Stats()
	if s.Appends < n || s.InFlight != 0 {
		t.Fatalf("Stats = %+v after %d acknowledged appends", s, n)
	}
}

func testInvalidLeaves(t *testing.T, open Opener) {
	ctx := ctxT(t)
	l := mustOpen(t, open)
	defer l.Close()
	for _, tc := range []struct {
		name string
		leaf []byte
	}{
		{"nil", nil},
		{"empty", []byte{}},
		{"oversize", bytes.Repeat([]byte{'a'}, transparency.MaxLeafSize+1)},
		{"huge", make([]byte, 1<<20)},
	} {
		_, err := l.Append(ctx, tc.leaf)
		if !errors.Is(err, transparency.ErrInvalidLeaf) {
			t.Errorf("Append(%s) = %v, want ErrInvalidLeaf", tc.name, err)
		}
	}
	big := bytes.Repeat([]byte{'b'}, transparency.MaxLeafSize)
	idx, err := l.Append(ctx, big)
	if err != nil {
		t.Fatalf("Append of a MaxLeafSize leaf: %v", err)
	}
	if idx != 0 {
		t.Fatalf("rejected leaves consumed indices: first valid leaf got %d", idx)
	}
	cp, err := l.AwaitCheckpoint(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	got, err := l.Entries(ctx, 0, 1, cp.Size)
	if err != nil || len(got) != 1 || !bytes.Equal(got[0], big) {
		t.Fatalf("Entries(0,1) of the max-size leaf: %v", err)
	}
}

func testBadRequests(t *testing.T, open Opener) {
	ctx := ctxT(t)
	l := mustOpen(t, open)
	defer l.Close()
	for i := range 3 {
		if _, err := l.Append(ctx, leaf("bad", i)); err != nil {
			t.Fatal(err)
		}
	}
	cp, err := l.AwaitCheckpoint(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	size := cp.Size
	check := func(name string, err, want error) {
		t.Helper()
		if !errors.Is(err, want) {
			t.Errorf("%s: err = %v, want %v", name, err, want)
		}
	}
	_, err = l.InclusionProof(ctx, size, size)
	check("InclusionProof(index = size)", err, transparency.ErrInvalidRequest)
	_, err = l.InclusionProof(ctx, 0, size+1000)
	check("InclusionProof(size beyond checkpoint)", err, transparency.ErrNotFound)
	_, _, err = l.InclusionProofByHash(ctx, tlog.RecordHash([]byte("never appended")), size)
	check("InclusionProofByHash(unknown)", err, transparency.ErrNotFound)
	_, _, err = l.InclusionProofByHash(ctx, tlog.RecordHash(leaf("bad", 2)), 2)
	check("InclusionProofByHash(leaf after tree size)", err, transparency.ErrNotFound)
	_, err = l.ConsistencyProof(ctx, 3, 2)
	check("ConsistencyProof(old > new)", err, transparency.ErrInvalidRequest)
	_, err = l.ConsistencyProof(ctx, 1, size+1000)
	check("ConsistencyProof(beyond checkpoint)", err, transparency.ErrNotFound)
	_, err = l.Entries(ctx, 2, 2, size)
	check("Entries(empty range)", err, transparency.ErrInvalidRequest)
	_, err = l.Entries(ctx, 0, size+1, size)
	check("Entries(end beyond tree)", err, transparency.ErrInvalidRequest)
}
