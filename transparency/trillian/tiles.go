package trillian

import (
	"context"
	"encoding/binary"
	"fmt"

	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/transparency"
)

// The Trillian backend serves the tile API too (transparency.Tiles: rngd's
// /log/tile/), so that auditors follow a Trillian-backed appliance with the
// same tools as an embedded one (rngverify audit, rngverify log --state).
// Trillian stores no tiles: each is computed from leaves read with Entries,
// so authenticated against a checkpoint the appliance signed, as any answer
// of Trillian is. A hash tile of level L ≥ 1 holds the roots of full tiles of
// level L−1; those roots are kept (32 bytes a full tile of 256 leaves at
// level 0: 128 MiB for 10⁹ leaves), so each leaf is read once for them.

// ReadEntryBundle implements transparency.Tiles: entry bundle index of
// width entries (0: 256), each as u16be(len) || leaf.
func (l *Log) ReadEntryBundle(ctx context.Context, index uint64, width uint8) ([]byte, error) {
	w := tileWidth(width)
	if index >= 1<<55 {
		return nil, fmt.Errorf("trillian: %w: entry bundle %d", transparency.ErrNotFound, index)
	}
	leaves, err := l.tileLeaves(ctx, index*256, w)
	if err != nil {
		return nil, err
	}
	var b []byte
	for _, lf := range leaves {
		b = binary.BigEndian.AppendUint16(b, uint16(len(lf)))
		b = append(b, lf...)
	}
	return b, nil
}

// ReadTile implements transparency.Tiles: hash tile (level, index) of
// width hashes (0: 256), the hashes of the nodes at height 8·level.
func (l *Log) ReadTile(ctx context.Context, level, index uint64, width uint8) ([]byte, error) {
	w := tileWidth(width)
	// The tile's last node must cover leaves a uint64 counts.
	if level > 6 || index >= 1<<(55-8*level) {
		return nil, fmt.Errorf("trillian: %w: tile %d/%d", transparency.ErrNotFound, level, index)
	}
	hs, err := l.tileNodes(ctx, level, index*256, w)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(hs)*tlog.HashSize)
	for _, h := range hs {
		b = append(b, h[:]...)
	}
	return b, nil
}

func tileWidth(width uint8) uint64 {
	if width == 0 {
		return 256
	}
	return uint64(width)
}

// tileLeaves returns the n leaves from start, authenticated (Entries), or
// ErrNotFound when the latest checkpoint does not cover them all.
func (l *Log) tileLeaves(ctx context.Context, start, n uint64) ([][]byte, error) {
	end := start + n
	if err := l.checkSize(ctx, end); err != nil {
		return nil, err
	}
	out := make([][]byte, 0, n)
	for at := start; at < end; at = start + uint64(len(out)) {
		es, err := l.Entries(ctx, at, end, end)
		if err != nil {
			return nil, err
		}
		if len(es) == 0 {
			return nil, fmt.Errorf("trillian: %w: no entry read from %d", transparency.ErrUnavailable, at)
		}
		out = append(out, es...)
	}
	return out, nil
}

// tileNodes returns the hashes of the n nodes at height 8·level from node
// first on: leaf hashes at level 0, roots of full tiles of level−1 above.
func (l *Log) tileNodes(ctx context.Context, level, first, n uint64) ([]tlog.Hash, error) {
	if level == 0 {
		leaves, err := l.tileLeaves(ctx, first, n)
		if err != nil {
			return nil, err
		}
		hs := make([]tlog.Hash, len(leaves))
		for i, lf := range leaves {
			hs[i] = tlog.RecordHash(lf)
		}
		return hs, nil
	}
	// Every node must be complete: its leaves in the latest checkpoint.
	if err := l.checkSize(ctx, (first+n)<<(8*level)); err != nil {
		return nil, err
	}
	hs := make([]tlog.Hash, n)
	for i := range n {
		k := [2]uint64{level - 1, first + i}
		l.tileMu.Lock()
		h, ok := l.tileRoots[k]
		l.tileMu.Unlock()
		if !ok {
			below, err := l.tileNodes(ctx, level-1, (first+i)*256, 256)
			if err != nil {
				return nil, err
			}
			h = subtreeRoot(below)
			l.tileMu.Lock()
			if l.tileRoots == nil {
				l.tileRoots = map[[2]uint64]tlog.Hash{}
			}
			l.tileRoots[k] = h
			l.tileMu.Unlock()
		}
		hs[i] = h
	}
	return hs, nil
}

// subtreeRoot returns the root of the complete tree whose leaves' (or
// subtrees') hashes are hs, len(hs) a power of two.
func subtreeRoot(hs []tlog.Hash) tlog.Hash {
	for len(hs) > 1 {
		next := make([]tlog.Hash, len(hs)/2)
		for i := range next {
			next[i] = tlog.NodeHash(hs[2*i], hs[2*i+1])
		}
		hs = next
	}
	return hs[0]
}

var _ transparency.Tiles = (*Log)(nil)
