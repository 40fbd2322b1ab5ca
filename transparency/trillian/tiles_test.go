package trillian_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"testing"

	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/logtest"
)

// tileReader reads a log's hash tiles as tlog's auditors do.
type tileReader struct {
	ctx   context.Context
	tiles transparency.Tiles
}

func (r tileReader) Height() int { return 8 }

func (r tileReader) ReadTiles(ts []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(ts))
	for i, t := range ts {
		b, err := r.tiles.ReadTile(r.ctx, uint64(t.L), uint64(t.N), uint8(t.W)) // W 256: 0, full
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

func (tileReader) SaveTiles([]tlog.Tile, [][]byte) {}

// The Trillian backend serves the tile API (rngd's /log/tile/, which
// rngverify audit and rngverify log --state read): hash tiles that
// authenticate against the signed checkpoint — level 0 the leaf hashes,
// level 1 the roots of full level-0 tiles — and entry bundles holding the
// leaves, full and partial; none beyond the checkpoint. Before, a
// Trillian-backed appliance served no tile and auditors could not follow it.
func TestTiles(t *testing.T) {
	l, err := opener(t)()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx := t.Context()
	const n = 600 // level 0: two full tiles and one of 88; level 1: one of 2
	if _, _, err := logtest.Load(ctx, 64, n, logtest.AppendOp(l, "tiles")); err != nil {
		t.Fatal(err)
	}
	cp, err := l.AwaitCheckpoint(ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	tiles, ok := l.(transparency.Tiles)
	if !ok {
		t.Fatal("the Trillian log does not implement transparency.Tiles")
	}
	size := int64(cp.Size)
	hr := tlog.TileHashReader(tlog.Tree{N: size, Hash: cp.Hash}, tileReader{ctx, tiles})
	idx := make([]int64, size)
	for i := range idx {
		idx[i] = tlog.StoredHashIndex(0, int64(i))
	}
	hs, err := hr.ReadHashes(idx) // each tile checked against the checkpoint's root
	if err != nil {
		t.Fatalf("leaf hashes from the tiles: %v", err)
	}
	leaves, err := l.Entries(ctx, 0, cp.Size, cp.Size)
	if err != nil {
		t.Fatal(err)
	}
	for int64(len(leaves)) < size {
		more, err := l.Entries(ctx, uint64(len(leaves)), cp.Size, cp.Size)
		if err != nil {
			t.Fatal(err)
		}
		leaves = append(leaves, more...)
	}
	for i, lf := range leaves {
		if hs[i] != tlog.RecordHash(lf) {
			t.Fatalf("tile hash of leaf %d is not its record hash", i)
		}
	}
	for k := int64(0); k*256 < size; k++ {
		w := min(256, size-k*256)
		b, err := tiles.ReadEntryBundle(ctx, uint64(k), uint8(w))
		if err != nil {
			t.Fatalf("entry bundle %d of %d: %v", k, w, err)
		}
		for i := k * 256; i < k*256+w; i++ {
			if len(b) < 2 || len(b) < 2+int(binary.BigEndian.Uint16(b)) {
				t.Fatalf("entry bundle %d: truncated at leaf %d", k, i)
			}
			m := int(binary.BigEndian.Uint16(b))
			if !bytes.Equal(b[2:2+m], leaves[i]) {
				t.Fatalf("entry bundle %d: leaf %d differs", k, i)
			}
			b = b[2+m:]
		}
		if len(b) != 0 {
			t.Fatalf("entry bundle %d: %d bytes after its %d leaves", k, len(b), w)
		}
	}
	// Proofs built from the tiles verify, as rngverify's do.
	rp, err := tlog.ProveRecord(size, 300, hr)
	if err != nil {
		t.Fatal(err)
	}
	if err := tlog.CheckRecord(rp, size, cp.Hash, 300, hs[300]); err != nil {
		t.Fatalf("record proof from the tiles: %v", err)
	}
	old, err := tlog.TreeHash(257, hr)
	if err != nil {
		t.Fatal(err)
	}
	tp, err := tlog.ProveTree(size, 257, hr)
	if err != nil {
		t.Fatal(err)
	}
	if err := tlog.CheckTree(tp, size, cp.Hash, 257, old); err != nil {
		t.Fatalf("tree proof from the tiles: %v", err)
	}
	// Nothing beyond the checkpoint.
	last := uint64(size / 256)
	for what, f := range map[string]func() error{
		"wider partial tile": func() error { _, err := tiles.ReadTile(ctx, 0, last, uint8(size%256+1)); return err },
		"full last tile":     func() error { _, err := tiles.ReadTile(ctx, 0, last, 0); return err },
		"level-1 full tile":  func() error { _, err := tiles.ReadTile(ctx, 1, 0, 0); return err },
		"next bundle":        func() error { _, err := tiles.ReadEntryBundle(ctx, last+1, 1); return err },
		"huge index":         func() error { _, err := tiles.ReadTile(ctx, 3, 1<<40, 1); return err },
	} {
		if err := f(); !errors.Is(err, transparency.ErrNotFound) {
			t.Errorf("%s beyond the checkpoint of %d: %v, want ErrNotFound", what, size, err)
		}
	}
}
