package trillian

import (
	"bytes"
	"context"
	"fmt"
	"math/bits"
	"slices"

	tpb "github.com/google/trillian"
	"github.com/google/trillian/types"
	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
	"golang.org/x/mod/sumdb/tlog"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"tirage.fr/tirage/transparency"
)

// Trillian is not trusted for what it returns: every proof handed out and
// every entry returned is checked against a root the appliance signed
// (l.cp), as the embedded backend checks its tiles, so that a faulty or
// tampered database is reported here (transparency.ErrSecurity, and the
// log fails closed: the alarm) instead of in an auditor's hands, after a
// bad receipt went out.
//
// The root of a tree size n below the latest signed checkpoint is
// authenticated by a consistency proof from n to that checkpoint (and
// cached); the candidate root itself comes from the proof or the entries
// being checked, or, for a consistency proof, from an inclusion proof of
// leaf n-1 in the tree of n leaves.

// maxRoots bounds the cache of authenticated roots (40 bytes each).
const maxRoots = 4096

var rangeFactory = compact.RangeFactory{Hash: rfc6962.DefaultHasher.HashChildren}

// misbehaved records err, an ErrSecurity, as the log's failure (the alarm:
// appends and checkpoints are refused from now on) and returns it.
func (l *Log) misbehaved(err error) error {
	l.fail(err)
	return err
}

// knownRoot returns the authenticated root hash of the tree of n leaves, if
// it is known without asking Trillian.
func (l *Log) knownRoot(n uint64) (tlog.Hash, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cp != nil && l.cp.Size == n {
		return l.cp.Hash, true
	}
	h, ok := l.roots[n]
	return h, ok
}

// checkTreeHash checks that h is the root hash of the first n leaves of the
// tree the appliance signed (ErrSecurity otherwise).
func (l *Log) checkTreeHash(ctx context.Context, n uint64, h tlog.Hash) error {
	if root, ok := l.knownRoot(n); ok {
		if root != h {
			return l.misbehaved(fmt.Errorf("trillian: %w: tree %d: Trillian's answer implies root %x for %d leaves, the authenticated root is %x", transparency.ErrSecurity, l.cfg.TreeID, h[:], n, root[:]))
		}
		return nil
	}
	l.mu.Lock()
	cp := l.cp
	l.mu.Unlock()
	if cp == nil || n > cp.Size {
		return fmt.Errorf("trillian: %w: tree size %d beyond the latest checkpoint", transparency.ErrNotFound, n)
	}
	p, err := l.consistency(ctx, n, cp.Size)
	if err != nil {
		return err
	}
	if err := tlog.CheckTree(p, int64(cp.Size), cp.Hash, int64(n), h); err != nil {
		return l.misbehaved(fmt.Errorf("trillian: %w: tree %d: Trillian's answer for %d leaves is not consistent with signed checkpoint %d: %w", transparency.ErrSecurity, l.cfg.TreeID, n, cp.Size, err))
	}
	l.mu.Lock()
	if len(l.roots) >= maxRoots {
		clear(l.roots)
	}
	l.roots[n] = h
	l.mu.Unlock()
	return nil
}

// authRoot returns the authenticated root hash of the tree of n > 0 leaves.
func (l *Log) authRoot(ctx context.Context, n uint64) (tlog.Hash, error) {
	if root, ok := l.knownRoot(n); ok {
		return root, nil
	}
	h, p, err := l.entryAndProof(ctx, n-1, n)
	if err != nil {
		return tlog.Hash{}, err
	}
	root, err := l.rootFromInclusion(n-1, n, h, p)
	if err != nil {
		return tlog.Hash{}, err
	}
	return root, l.checkTreeHash(ctx, n, root)
}

// rootFromInclusion returns the root of the tree of n leaves that proof
// proves leaf index, of hash h, in (ErrSecurity for a proof of the wrong
// shape).
func (l *Log) rootFromInclusion(index, n uint64, h tlog.Hash, p []tlog.Hash) (tlog.Hash, error) {
	hashes := make([][]byte, len(p))
	for i := range p {
		hashes[i] = p[i][:]
	}
	r, err := proof.RootFromInclusionProof(rfc6962.DefaultHasher, index, n, h[:], hashes)
	if err != nil {
		return tlog.Hash{}, l.misbehaved(fmt.Errorf("trillian: %w: tree %d: inclusion proof of leaf %d in %d leaves: %w", transparency.ErrSecurity, l.cfg.TreeID, index, n, err))
	}
	return tlog.Hash(r), nil
}

// rootSize returns the size of the root a Trillian answer was computed
// against.
func rootSize(slr *tpb.SignedLogRoot) uint64 {
	var r types.LogRootV1
	if err := r.UnmarshalBinary(slr.GetLogRoot()); err != nil {
		return 0
	}
	return r.TreeSize
}

// behind is the error for an answer from a Trillian (replica) whose tree is
// smaller than the size asked for: no proof, a retry will do.
func (l *Log) behind(what string, have, want uint64) error {
	return fmt.Errorf("trillian: %w: %s: Trillian's tree holds %d leaves, below the %d asked for", transparency.ErrUnavailable, what, have, want)
}

// entryAndProof returns the hash of leaf index (checked against the leaf)
// and Trillian's proof of it in the tree of n leaves, unchecked.
func (l *Log) entryAndProof(ctx context.Context, index, n uint64) (tlog.Hash, []tlog.Hash, error) {
	rctx, cancel := l.rpcCtx(ctx)
	defer cancel()
	what := fmt.Sprintf("couldn't prove leaf %d in tree %d", index, n)
	resp, err := l.client.GetEntryAndProof(rctx, &tpb.GetEntryAndProofRequest{LogId: l.cfg.TreeID, LeafIndex: int64(index), TreeSize: int64(n)})
	if err != nil {
		return tlog.Hash{}, nil, rpcErr(what, err)
	}
	if size := rootSize(resp.GetSignedLogRoot()); size < n || resp.GetProof() == nil || resp.GetLeaf() == nil {
		return tlog.Hash{}, nil, l.behind(what, size, n)
	}
	h, err := l.leafHash(resp.GetLeaf(), index)
	if err != nil {
		return tlog.Hash{}, nil, err
	}
	if got := resp.GetProof().GetLeafIndex(); got != int64(index) {
		return tlog.Hash{}, nil, l.misbehaved(fmt.Errorf("trillian: %w: %s: proof for leaf %d", transparency.ErrSecurity, what, got))
	}
	p, err := toProof(resp.GetProof().GetHashes())
	return h, p, err
}

// readLeaves reads leaves [start, end) — as many as Trillian returns, at
// least one — and returns them with their leaf hashes, each checked by
// leafHash; the range is the caller's to authenticate (checkEntries).
//
// An answer over grpc's message limit (4 MiB: 63 leaves of MaxLeafSize;
// attestation records come close) is refused by the client
// (ResourceExhausted), and so would be every read of that range, the
// follower's and the catch-up's, for ever: the range is asked for again,
// half as long each time, down to one leaf. (A quota's ResourceExhausted
// is asked for again too, and ends the same way.)
func (l *Log) readLeaves(ctx context.Context, start, end uint64, what string) ([]*tpb.LogLeaf, []tlog.Hash, error) {
	var (
		resp *tpb.GetLeavesByRangeResponse
		err  error
	)
	for count := end - start; ; count /= 2 {
		rctx, cancel := l.rpcCtx(ctx)
		resp, err = l.client.GetLeavesByRange(rctx, &tpb.GetLeavesByRangeRequest{LogId: l.cfg.TreeID, StartIndex: int64(start), Count: int64(count)})
		cancel()
		if status.Code(err) != codes.ResourceExhausted || count <= 1 {
			break
		}
	}
	if err != nil {
		return nil, nil, rpcErr(what, err)
	}
	leaves := resp.GetLeaves()
	if len(leaves) == 0 {
		return nil, nil, fmt.Errorf("trillian: %w: %s: no leaves returned from %d", transparency.ErrUnavailable, what, start)
	}
	if len(leaves) > int(end-start) {
		return nil, nil, l.misbehaved(fmt.Errorf("trillian: %w: tree %d: %d leaves returned for [%d, %d)", transparency.ErrSecurity, l.cfg.TreeID, len(leaves), start, end))
	}
	hashes := make([]tlog.Hash, len(leaves))
	for i, lf := range leaves {
		if hashes[i], err = l.leafHash(lf, start+uint64(i)); err != nil {
			return nil, nil, err
		}
	}
	return leaves, hashes, nil
}

// leafHash checks that lf is leaf index and that its Merkle leaf hash is
// the RFC 6962 hash of its value, and returns it.
func (l *Log) leafHash(lf *tpb.LogLeaf, index uint64) (tlog.Hash, error) {
	if lf.GetLeafIndex() != int64(index) {
		return tlog.Hash{}, l.misbehaved(fmt.Errorf("trillian: %w: tree %d: leaf %d returned for leaf %d", transparency.ErrSecurity, l.cfg.TreeID, lf.GetLeafIndex(), index))
	}
	h := tlog.RecordHash(lf.GetLeafValue())
	if !bytes.Equal(h[:], lf.GetMerkleLeafHash()) {
		return tlog.Hash{}, l.misbehaved(fmt.Errorf("trillian: %w: tree %d: leaf %d does not match its leaf hash", transparency.ErrSecurity, l.cfg.TreeID, index))
	}
	return h, nil
}

// checkEntries checks that leaves [start, start+len(hashes)), of the given
// leaf hashes, are those of the signed tree: it computes the root of the
// tree that ends with them, from the perfect subtrees left of start (the
// left siblings in an inclusion proof of leaf start), and authenticates it.
// Two calls at most: the inclusion proof (none from leaf 0) and a
// consistency proof (none when the range ends at the latest checkpoint).
func (l *Log) checkEntries(ctx context.Context, start uint64, hashes []tlog.Hash) error {
	end := start + uint64(len(hashes))
	var left [][]byte
	if start > 0 {
		p, err := l.inclusion(ctx, start, end)
		if err != nil {
			return err
		}
		// Levels below inner are the leaf's own path: its left siblings
		// where start has a 1 bit; above, the proof holds only left
		// siblings (start and end-1 share those bits).
		inner := bits.Len64(start ^ (end - 1))
		if len(p) != inner+bits.OnesCount64(start>>inner) {
			return l.misbehaved(fmt.Errorf("trillian: %w: tree %d: inclusion proof of leaf %d in %d leaves has %d hashes", transparency.ErrSecurity, l.cfg.TreeID, start, end, len(p)))
		}
		for k := range inner {
			if start>>k&1 == 1 {
				left = append(left, p[k][:])
			}
		}
		for _, h := range p[inner:] {
			left = append(left, h[:])
		}
		slices.Reverse(left) // left to right, as compact ranges hold them
	}
	r, err := rangeFactory.NewRange(0, start, left)
	if err != nil {
		return fmt.Errorf("trillian: %w: %w", transparency.ErrSecurity, err) // ruled out by the length check
	}
	for _, h := range hashes {
		if err := r.Append(h[:], nil); err != nil {
			return fmt.Errorf("trillian: %w: %w", transparency.ErrSecurity, err)
		}
	}
	root, err := r.GetRootHash(nil)
	if err != nil {
		return fmt.Errorf("trillian: %w: %w", transparency.ErrSecurity, err)
	}
	return l.checkTreeHash(ctx, end, tlog.Hash(root))
}
