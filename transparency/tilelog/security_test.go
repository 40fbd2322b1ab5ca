package tilelog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/internal/hashindex"
	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/checkpoint"
)

// openAppended opens a log in cfg.Dir, appends leaves and waits for a
// checkpoint covering them.
func openAppended(t *testing.T, cfg Config, leaves ...string) (*Log, *checkpoint.Checkpoint) {
	t.Helper()
	l, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, leaf := range leaves {
		if _, err := l.Append(context.Background(), []byte(leaf)); err != nil {
			l.Close()
			t.Fatal(err)
		}
	}
	cp, err := l.AwaitCheckpoint(context.Background(), uint64(len(leaves)))
	if err != nil {
		l.Close()
		t.Fatal(err)
	}
	return l, cp
}

// checkFailedForSecurity checks that the log reports a security failure
// (Health and Append) and recorded it, so that it does not open again.
func checkFailedForSecurity(t *testing.T, l *Log, cfg Config) {
	t.Helper()
	waitFor(t, func() bool { return l.Health() != nil })
	if err := l.Health(); !errors.Is(err, transparency.ErrSecurity) || errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("Health = %v, want ErrSecurity alone", err)
	}
	if _, err := l.Append(context.Background(), []byte("after")); !errors.Is(err, transparency.ErrSecurity) {
		t.Fatalf("Append after the security failure = %v, want ErrSecurity", err)
	}
	l.Close() // the pipeline failed: its error is expected
	_, err := Open(context.Background(), cfg)
	checkRefusedForSecurity(t, cfg.Dir, err)
}

// A right-edge tile corrupted on disk after a checkpoint is folded by
// tessera into its next root: the log key refuses to sign that root, which
// forks from the checkpoint signed before, and the log fails closed.
func TestForkedCheckpointNotSigned(t *testing.T) {
	cfg := Config{Dir: t.TempDir(), Origin: "example.com/fork", Signers: lagSigners(t)}
	l, cp3 := openAppended(t, cfg, "a", "b", "c")
	p := filepath.Join(cfg.Dir, "tiles", "tile", "0", "000.p", "3")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[0] ^= 1 // leaf 0's hash
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(context.Background(), []byte("d")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return l.Health() != nil || l.Lag().Size > 3 })
	cp, err := checkpoint.Open(mustRead(t, filepath.Join(l.tilesDir, "checkpoint")), l.verifiers...)
	if err != nil {
		t.Fatal(err)
	}
	if cp.Size != cp3.Size || cp.Hash != cp3.Hash {
		t.Errorf("published checkpoint of %d leaves after a tile was corrupted, want the one of 3 only", cp.Size)
	}
	if err := l.Health(); !strings.Contains(err.Error(), "refused to sign the checkpoint of 4 leaves") {
		t.Errorf("Health = %v, want the refusal to sign the checkpoint of 4 leaves", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := l.AwaitCheckpoint(ctx, 4); !errors.Is(err, transparency.ErrSecurity) {
		t.Errorf("AwaitCheckpoint(4) after the fork was refused = %v, want ErrSecurity at once", err)
	}
	checkFailedForSecurity(t, l, cfg)
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A verified checkpoint that replaces the cached one must be consistent
// with it: another root for the same size, or a bigger tree that does not
// contain the cached one, is a security error.
func TestReadCheckpointConsistency(t *testing.T) {
	cfg := Config{Dir: t.TempDir(), Origin: "example.com/consistency", Signers: lagSigners(t)}
	l, cp3 := openAppended(t, cfg, "a", "b", "c")
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	signers, _, _, err := transparency.CheckpointKeys(cfg.Origin, cfg.Signers)
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []uint64{3, 2} {
		forged, err := checkpoint.Sign(cfg.Origin, size, tlog.Hash{1}, signers...)
		if err != nil {
			t.Fatal(err)
		}
		l.mu.Lock()
		l.cp, l.cpRaw = forged, forged.Note
		l.mu.Unlock()
		if _, err := l.readCheckpoint(0); !errors.Is(err, errFork) {
			t.Errorf("readCheckpoint of %d leaves after a checkpoint of %d leaves with another tree: %v, want ErrSecurity", cp3.Size, size, err)
		} else {
			t.Log(err)
		}
	}
	// Consistent: accepted.
	l.mu.Lock()
	l.cp, l.cpRaw = nil, nil
	l.mu.Unlock()
	if _, err := l.readCheckpoint(0); err != nil {
		t.Fatal(err)
	}
}

// An entry that does not match its authenticated leaf hash, found by the
// background index refresh, fails the log closed as a security failure.
func TestIndexRefreshSecurityFailure(t *testing.T) {
	cfg := Config{Dir: t.TempDir(), Origin: "example.com/index", Signers: lagSigners(t)}
	l, _ := openAppended(t, cfg, "a", "b", "c")
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	// Every leaf is integrated: the journal may go; without the index,
	// the next Open indexes every entry again.
	for _, p := range []string{journalDir, leafIndexDir} {
		if err := os.RemoveAll(filepath.Join(cfg.Dir, p)); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(cfg.Dir, "tiles", "tile", "entries", "000.p", "3")
	b := mustRead(t, p)
	b[2] ^= 1 // leaf 0's first byte
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkFailedForSecurity(t, l, cfg)
}

// The leaf hash index is not authoritative: an index that names another
// leaf than the one asked about is refused, not proven.
func TestInclusionProofByHashChecksIndex(t *testing.T) {
	cfg := Config{Dir: t.TempDir(), Origin: "example.com/byhash", Signers: lagSigners(t)}
	l, _ := openAppended(t, cfg, "a", "b")
	defer l.Close()
	ctx := context.Background()
	if err := l.catchUpIndex(ctx, 2); err != nil {
		t.Fatal(err)
	}
	h := tlog.RecordHash([]byte("a"))
	if idx, _, err := l.InclusionProofByHash(ctx, h, 2); err != nil || idx != 0 {
		t.Fatalf("InclusionProofByHash(a) = %d, %v; want 0", idx, err)
	}
	// The index's one run, of leaves 0 and 1, rewritten to name leaf 1
	// for "a".
	l.index.mu.Lock() // no catch-up meanwhile
	err := l.index.Reset()
	if err == nil {
		err = l.index.Add(0, 2, []hashindex.Entry{{Hash: h, Value: 1}})
	}
	l.index.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if idx, _, err := l.InclusionProofByHash(ctx, h, 2); !errors.Is(err, transparency.ErrSecurity) {
		t.Fatalf("InclusionProofByHash(a) with the index naming leaf 1 = %d, %v; want ErrSecurity", idx, err)
	}
}

// BenchmarkProveConsistent: the check approve makes before the keys sign a
// checkpoint, for a checkpoint interval's worth of leaves (about 7 000 at
// 70 k appends/s) on a tree of 100 000.
func BenchmarkProveConsistent(b *testing.B) {
	const size, grown = 100_000, 7_000
	cfg := Config{Dir: b.TempDir(), Origin: "example.com/bench", Signers: lagSigners(b)}
	l, err := Open(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	appendRange := func(from, to int) tlog.Tree {
		var wg sync.WaitGroup
		next := make(chan int)
		for range 256 {
			wg.Go(func() {
				for i := range next {
					if _, err := l.Append(context.Background(), fmt.Appendf(nil, "leaf %d", i)); err != nil {
						b.Error(err)
					}
				}
			})
		}
		for i := from; i < to; i++ {
			next <- i
		}
		close(next)
		wg.Wait()
		cp, err := l.AwaitCheckpoint(context.Background(), uint64(to))
		if err != nil {
			b.Fatal(err)
		}
		return cp.Tree()
	}
	old := appendRange(0, size-grown)
	next := appendRange(size-grown, size)
	for b.Loop() {
		if err := l.proveConsistent(old, next); err != nil {
			b.Fatal(err)
		}
	}
}

// A run whose block no longer matches its checksum (the disk's damage)
// fails the lookups that read it, ErrUnavailable, then is removed with the
// runs after it at the next catch-up, which indexes their leaves again from
// the tree: the index repairs itself, where before it answered
// ErrUnavailable until an operator deleted it.
func TestLeafIndexRepairsDamagedRun(t *testing.T) {
	cfg := Config{Dir: t.TempDir(), Origin: "example.com/repair", Signers: lagSigners(t)}
	leaves := []string{"a", "b", "c", "d"}
	l, _ := openAppended(t, cfg, leaves...)
	defer l.Close()
	ctx := context.Background()
	if err := l.catchUpIndex(ctx, 4); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(cfg.Dir, leafIndexDir)
	path := filepath.Join(dir, runFiles(t, dir)[0].Name())
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{0xff, 0xff}, 3); err != nil { // in block 0, the only one
		t.Fatal(err)
	}
	f.Close()
	h := tlog.RecordHash([]byte("c"))
	if _, _, err := l.InclusionProofByHash(ctx, h, 4); !errors.Is(err, transparency.ErrUnavailable) || !strings.Contains(err.Error(), path) {
		t.Fatalf("InclusionProofByHash reading a damaged block = %v, want ErrUnavailable naming %s", err, path)
	}
	for i, leaf := range leaves {
		idx, _, err := l.InclusionProofByHash(ctx, tlog.RecordHash([]byte(leaf)), 4)
		if err != nil || idx != uint64(i) {
			t.Fatalf("InclusionProofByHash(%s) after the damage was seen = %d, %v; want %d", leaf, idx, err, i)
		}
	}
}
