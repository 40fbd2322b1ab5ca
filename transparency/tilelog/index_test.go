package tilelog

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"log/slog"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/transparency"
)

// The leaf hash index keeps, for a leaf appended more than once, its first
// index: within one batch (the puts are sorted by hash) and across batches.
func TestLeafIndexFirstIndex(t *testing.T) {
	x, _ := newTestIndex(t)
	leaf := func(i int) []byte { return fmt.Appendf(nil, "leaf %d", i) }
	// Batch 1: leaves 0..99, with leaf 7 again at 50 and at 90.
	var batch [][]byte
	for i := range 100 {
		switch i {
		case 50, 90:
			batch = append(batch, leaf(7))
		default:
			batch = append(batch, leaf(i))
		}
	}
	if err := x.add(0, batch); err != nil {
		t.Fatal(err)
	}
	// Batch 2: leaves at 100..101 repeat leaves 3 and 100 (new).
	if err := x.add(100, [][]byte{leaf(3), leaf(100)}); err != nil {
		t.Fatal(err)
	}
	for leafNo, want := range map[int]uint64{0: 0, 7: 7, 3: 3, 49: 49, 51: 51, 99: 99, 100: 101} {
		got, ok, err := x.lookup(tlog.RecordHash(leaf(leafNo)))
		if err != nil || !ok || got != want {
			t.Errorf("leaf %d: index %d %v %v, want %d", leafNo, got, ok, err, want)
		}
	}
	for _, absent := range []int{50, 90} { // their slots hold leaf 7
		if _, ok, _ := x.lookup(tlog.RecordHash(leaf(absent))); ok {
			t.Errorf("leaf %d indexed, never appended", absent)
		}
	}
	if n, err := x.next(); err != nil || n != 102 {
		t.Errorf("next %d %v, want 102", n, err)
	}
}

// testLeaves are the leaves "leaf first" … "leaf first+n-1".
func testLeaves(first, n int) [][]byte {
	var b [][]byte
	for i := range n {
		b = append(b, fmt.Appendf(nil, "leaf %d", first+i))
	}
	return b
}

// newTestIndex opens an empty index in a temporary directory, closed when
// the test ends; dir is its directory.
func newTestIndex(t *testing.T) (x *leafIndex, dir string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), leafIndexDir)
	x, err := openLeafIndex(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.close() })
	return x, dir
}

// indexModel is what the index must answer: each leaf's first index.
type indexModel map[tlog.Hash]uint64

func (m indexModel) add(first uint64, entries [][]byte) {
	for i, e := range entries {
		if _, ok := m[tlog.RecordHash(e)]; !ok {
			m[tlog.RecordHash(e)] = first + uint64(i)
		}
	}
}

// check compares every lookup of m, and a few absent hashes, with x.
func (m indexModel) check(t *testing.T, x *leafIndex, next uint64) {
	t.Helper()
	for h, want := range m {
		if want >= next {
			continue
		}
		got, ok, err := x.lookup(h)
		if err != nil || !ok || got != want {
			t.Fatalf("lookup %x: %d %v %v, want %d", h[:4], got, ok, err, want)
		}
	}
	for i := range 100 {
		if _, ok, err := x.lookup(tlog.RecordHash(fmt.Appendf(nil, "absent %d", i))); ok || err != nil {
			t.Fatalf("absent %d: found %v, %v", i, ok, err)
		}
	}
	if n, err := x.next(); err != nil || n != next {
		t.Fatalf("next %d %v, want %d", n, err, next)
	}
}

// Batches of every size, with leaves repeated within and across batches,
// merged as they come: every leaf keeps its first index, the runs stay
// few (each more than twice the size of the next), and a reopened index
// answers the same.
func TestLeafIndexRunsMerged(t *testing.T) {
	dir := filepath.Join(t.TempDir(), leafIndexDir)
	x, err := openLeafIndex(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { x.close() }()
	rnd := rand.New(rand.NewPCG(1, 2))
	m := indexModel{}
	var next uint64
	for b := range 300 {
		n := 1 + rnd.IntN(700)
		if b%50 == 0 {
			n = 5000 // more than a block's worth many times over
		}
		batch := make([][]byte, n)
		for i := range batch {
			if rnd.IntN(20) == 0 && next > 0 { // a leaf logged again
				batch[i] = fmt.Appendf(nil, "leaf %d", rnd.Uint64N(next+uint64(i)))
			} else {
				batch[i] = fmt.Appendf(nil, "leaf %d", next+uint64(i))
			}
		}
		if err := x.add(next, batch); err != nil {
			t.Fatal(err)
		}
		m.add(next, batch)
		next += uint64(n)
		if err := x.compact(t.Context()); err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(x.runs); i++ {
			if p, q := x.runs[i-1], x.runs[i]; p.end-p.first <= 2*(q.end-q.first) || p.end != q.first {
				t.Fatalf("after batch %d, runs %d [%d, %d) and %d [%d, %d) left unmerged", b, i-1, p.first, p.end, i, q.first, q.end)
			}
		}
	}
	m.check(t, x, next)
	if max := bits.Len64(next) + 1; len(x.runs) > max {
		t.Errorf("%d runs for %d leaves, want at most %d", len(x.runs), next, max)
	}
	if err := x.close(); err != nil {
		t.Fatal(err)
	}
	if x, err = openLeafIndex(dir); err != nil {
		t.Fatal(err)
	}
	m.check(t, x, next)
	if des, _ := os.ReadDir(dir); len(des) != len(x.runs) {
		t.Errorf("%d files for %d runs", len(des), len(x.runs))
	}
}

// What a crash leaves is sorted out at open: a merge's inputs beside the
// merged run, an unfinished file, a damaged run and what follows it, a run
// after a gap. The index keeps the longest tiling from leaf 0 it can trust
// and indexes the rest again; a block that no longer matches its checksum
// fails the lookup (ErrUnavailable naming the file), never answers wrong.
func TestLeafIndexOpenAfterCrash(t *testing.T) {
	dir := filepath.Join(t.TempDir(), leafIndexDir)
	x, err := openLeafIndex(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := indexModel{}
	for _, r := range [][2]int{{0, 300}, {300, 300}, {600, 100}} {
		if err := x.add(uint64(r[0]), testLeaves(r[0], r[1])); err != nil {
			t.Fatal(err)
		}
		m.add(uint64(r[0]), testLeaves(r[0], r[1]))
	}
	// The first two merged, as compact would, but the inputs kept.
	a, b := x.runs[0], x.runs[1]
	var es []indexEntry
	for i, l := range testLeaves(0, 600) {
		es = append(es, indexEntry{tlog.RecordHash(l), uint64(i)})
	}
	slices.SortFunc(es, compareEntries)
	merged, err := x.writeRun(0, 600, yieldAll(es))
	if err != nil {
		t.Fatal(err)
	}
	merged.f.Close()
	if err := x.close(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{runName(700, 800) + ".tmp", runName(900, 950)} { // unfinished; after a gap
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if x, err = openLeafIndex(dir); err != nil {
		t.Fatal(err)
	}
	m.check(t, x, 700)
	if len(x.runs) != 2 || x.runs[0].end != 600 {
		t.Fatalf("runs after open: %d, the first to %d; want the merged run and [600, 700)", len(x.runs), x.runs[0].end)
	}
	for _, p := range []string{a.path, b.path, filepath.Join(dir, runName(700, 800)+".tmp"), filepath.Join(dir, runName(900, 950))} {
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s after open: %v, want removed", filepath.Base(p), err)
		}
	}

	// A block altered: the lookups that read it fail, naming the file.
	path := x.runs[0].path
	x.close()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{0xff}, 100); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if x, err = openLeafIndex(dir); err != nil {
		t.Fatal(err)
	}
	var failed int
	for h := range m {
		if _, _, err := x.lookup(h); err != nil {
			failed++
			if !errors.Is(err, transparency.ErrUnavailable) || !strings.Contains(err.Error(), path) {
				t.Fatalf("lookup in an altered block: %v, want ErrUnavailable naming %s", err, path)
			}
		}
	}
	if failed == 0 {
		t.Fatal("no lookup read the altered block")
	}

	// Its trailer altered: the run is dropped with the run after it, and
	// their leaves are to be indexed again.
	x.close()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err = os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{0xff}, fi.Size()-10); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if x, err = openLeafIndex(dir); err != nil {
		t.Fatal(err)
	}
	defer x.close()
	if n, _ := x.next(); n != 0 || len(x.runs) != 0 {
		t.Fatalf("after a damaged first run: next %d, %d runs; want 0, 0", n, len(x.runs))
	}
	if des, _ := os.ReadDir(dir); len(des) != 0 {
		t.Errorf("%d files left", len(des))
	}
}

// Lookups go on while runs are added and merged (compact runs beside the
// catch-up, refreshIndex after it): each finds its leaf at its index.
func TestLeafIndexLookupDuringMerge(t *testing.T) {
	x, _ := newTestIndex(t)
	var (
		wg   sync.WaitGroup
		done = make(chan struct{})
		high atomic.Uint64 // leaves indexed so far
	)
	for g := range 4 {
		wg.Go(func() {
			rnd := rand.New(rand.NewPCG(uint64(g), 0))
			for {
				select {
				case <-done:
					return
				default:
				}
				n := high.Load()
				if n == 0 {
					continue
				}
				i := rnd.Uint64N(n)
				got, ok, err := x.lookup(tlog.RecordHash(fmt.Appendf(nil, "leaf %d", i)))
				if err != nil || !ok || got != i {
					t.Errorf("lookup(leaf %d) = %d, %v, %v", i, got, ok, err)
					return
				}
			}
		})
	}
	var merges sync.WaitGroup
	for next := 0; next < 40_000; next += 500 {
		var batch [][]byte
		for i := range 500 {
			batch = append(batch, fmt.Appendf(nil, "leaf %d", next+i))
		}
		if err := x.add(uint64(next), batch); err != nil {
			t.Fatal(err)
		}
		high.Store(uint64(next + 500))
		merges.Wait()
		merges.Go(func() {
			if err := x.compact(t.Context()); err != nil {
				t.Error(err)
			}
		})
	}
	merges.Wait()
	close(done)
	wg.Wait()
}

// A merge stops when its context is done (the log closing; Close waits for
// the index's goroutine): its inputs stay, its unfinished run goes.
func TestLeafIndexMergeStops(t *testing.T) {
	x, dir := newTestIndex(t)
	m := indexModel{}
	for _, first := range []int{0, 5000} {
		var batch [][]byte
		for i := range 5000 {
			batch = append(batch, fmt.Appendf(nil, "leaf %d", first+i))
		}
		if err := x.add(uint64(first), batch); err != nil {
			t.Fatal(err)
		}
		m.add(uint64(first), batch)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := x.compact(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("compact with its context done = %v, want context.Canceled", err)
	}
	if len(x.runs) != 2 {
		t.Fatalf("%d runs after a stopped merge, want its 2 inputs", len(x.runs))
	}
	if des, _ := os.ReadDir(dir); len(des) != 2 {
		t.Errorf("%d files after a stopped merge, want its 2 inputs", len(des))
	}
	m.check(t, x, 10_000)
}

// A closed index refuses lookups, adds and merges (ErrClosed):
// InclusionProofByHash may be under way when the log closes (Close waits
// for refreshIndex, not for it), and so may its catch-up and merges.
// Before, a lookup answered "not found" for a leaf it had indexed (rngd's
// promo appliance takes that for a record not logged), an add appended a
// run whose file was never closed, and a merge that ended after close
// panicked (its inputs no longer among the runs).
func TestLeafIndexClosed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), leafIndexDir)
	x, err := openLeafIndex(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, first := range []int{0, 100} {
		if err := x.add(uint64(first), testLeaves(first, 100)); err != nil {
			t.Fatal(err)
		}
	}
	// The inputs of a merge under way, open apart from the index's.
	var inputs []*run
	for _, r := range x.runs {
		c, err := openRun(r.path, r.first, r.end)
		if err != nil {
			t.Fatal(err)
		}
		defer c.f.Close()
		inputs = append(inputs, c)
	}
	if err := x.close(); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := x.lookup(tlog.RecordHash([]byte("leaf 5"))); ok || !errors.Is(err, transparency.ErrClosed) {
		t.Errorf("lookup on a closed index: found %v, %v; want ErrClosed", ok, err)
	}
	if err := x.add(0, testLeaves(0, 10)); !errors.Is(err, transparency.ErrClosed) {
		t.Errorf("add on a closed index: %v, want ErrClosed", err)
	}
	if err := x.merge(t.Context(), inputs); !errors.Is(err, transparency.ErrClosed) {
		t.Errorf("merge ending on a closed index: %v, want ErrClosed", err)
	}
	// What the merge wrote stands for its inputs at the next open.
	if x, err = openLeafIndex(dir); err != nil {
		t.Fatal(err)
	}
	defer x.close()
	if n, _ := x.next(); n != 200 {
		t.Errorf("reopened: next %d, want 200", n)
	}
	if idx, ok, err := x.lookup(tlog.RecordHash([]byte("leaf 150"))); err != nil || !ok || idx != 150 {
		t.Errorf("reopened: lookup(leaf 150) = %d, %v, %v; want 150", idx, ok, err)
	}
}

// A long catch-up (the index rebuilt) adds up to maxRuns runs of a batch
// each before it merges them: they are merged in one run, each leaf written
// once, where merges two by two (s+s, 2s+s, … 64s+s) wrote a leaf again at
// each, 33 times on average here and about 36 times per leaf over the
// rebuild of an index of 1 million leaves (5 to 7 s on a shared machine,
// 2.3 s and 3 writes a leaf merging each group at once). A leaf repeated
// in every run keeps its first index.
func TestLeafIndexCompactOnce(t *testing.T) {
	x, _ := newTestIndex(t)
	const runs, size = maxRuns + 1, 100
	m := indexModel{}
	for i := range runs {
		batch := testLeaves(i*size, size)
		if i > 0 {
			batch[size-1] = []byte("leaf 7")
		}
		if err := x.add(uint64(i*size), batch); err != nil {
			t.Fatal(err)
		}
		m.add(uint64(i*size), batch)
	}
	before := x.written.Load()
	if err := x.compact(t.Context()); err != nil {
		t.Fatal(err)
	}
	if w := x.written.Load() - before; w > runs*size {
		t.Errorf("compact of %d runs of %d leaves wrote %d entries, want at most %d (each leaf once)", runs, size, w, runs*size)
	}
	if n := x.count(); n != 1 {
		t.Errorf("%d runs after compact, want 1", n)
	}
	m.check(t, x, runs*size)
}

// A run whose trailer checks but counts more entries than its file can
// hold (written by hand: a CRC is no seal) is damaged and dropped at open.
// Before, a count whose size wrapped around 2^64 to the file's passed the
// size check, and open panicked allocating its fences (exabytes).
func TestLeafIndexTrailerCountTooLarge(t *testing.T) {
	// n entries (102k of them, in k blocks) take 4,092k+40 bytes: find a
	// k that wraps to a small size.
	var k, size uint64
	for c := uint64(1); ; c++ {
		// 1,023k = c (mod 2^62), for 4,092k = 4c (mod 2^64);
		// 0xeffbfeffbfeffbff is 1,023's inverse mod 2^64.
		k = c * 0xeffbfeffbfeffbff & (1<<62 - 1)
		if k < (1<<63)/102 && k > 1<<50 {
			size = 4*c + runTrailer
			break
		}
	}
	n := 102 * k
	if n*entrySize+k*12+runTrailer != size {
		t.Fatalf("n %d does not wrap to %d bytes", n, size)
	}
	dir := filepath.Join(t.TempDir(), leafIndexDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, size)
	tr := b[size-runTrailer:]
	copy(tr, runMagic)
	binary.BigEndian.PutUint64(tr[8:], n)
	binary.BigEndian.PutUint64(tr[16:], 0)
	binary.BigEndian.PutUint64(tr[24:], n)
	binary.BigEndian.PutUint32(tr[36:], crc32.Checksum(tr[:36], castagnoli))
	path := filepath.Join(dir, runName(0, n))
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	x, err := openLeafIndex(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer x.close()
	if x.count() != 0 {
		t.Errorf("%d runs, want the damaged one dropped", x.count())
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s: %v, want removed", path, err)
	}
}

// A catch-up with nothing to repair does not wait for a merge under way:
// repair takes compact's lock only when a run was found damaged.
func TestLeafIndexRepairDoesNotWaitForMerge(t *testing.T) {
	x, _ := newTestIndex(t)
	x.cmu.Lock() // a merge under way
	done := make(chan struct{})
	go func() {
		x.repair()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Error("repair with nothing damaged waited for compact's lock")
	}
	x.cmu.Unlock()
	<-done
}

// staleIndexLog is the config of a log of the leaves repl, closed, in a
// directory whose tree (tiles/, journal/) replaced that of a log of the
// leaves old, whose leaf index (leafhash/, caught up) was left beside it,
// with the same keys: an operator starting a new log in the directory.
func staleIndexLog(t *testing.T, old, repl []string) Config {
	t.Helper()
	cfg := Config{Dir: t.TempDir(), Origin: "example.com/stale", Signers: lagSigners(t)}
	o, _ := openAppended(t, cfg, old...)
	if err := o.catchUpIndex(t.Context(), uint64(len(old))); err != nil {
		t.Fatal(err)
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	other := cfg
	other.Dir = t.TempDir()
	n, _ := openAppended(t, other, repl...)
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"tiles", journalDir} {
		if err := os.RemoveAll(filepath.Join(cfg.Dir, p)); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(other.Dir, p), filepath.Join(cfg.Dir, p)); err != nil {
			t.Fatal(err)
		}
	}
	return cfg
}

// openLogged opens the log of cfg, closed when the test ends, with its
// logger writing to the file logPath (the log writes from its goroutines).
func openLogged(t *testing.T, cfg Config) (l *Log, logPath string) {
	t.Helper()
	logPath = filepath.Join(t.TempDir(), "log")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	cfg.Logger = slog.New(slog.NewTextHandler(f, nil))
	if l, err = Open(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l, logPath
}

// mismatchWarning is the start of the WARN line of an index found not to
// index the tree beside it.
const mismatchWarning = `level=WARN msg="transparency log leaf index: it does not index the tree beside it`

// checkFoundByHash checks that InclusionProofByHash finds each of leaves
// at its index in the latest tree (they are distinct), with a proof that
// checks against the checkpoint.
func checkFoundByHash(t *testing.T, l *Log, leaves []string) {
	t.Helper()
	cp, err := l.Checkpoint(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for i, leaf := range leaves {
		h := tlog.RecordHash([]byte(leaf))
		idx, p, err := l.InclusionProofByHash(t.Context(), h, cp.Size)
		if err != nil || idx != uint64(i) {
			t.Fatalf("InclusionProofByHash(%q) = %d, %v; want %d", leaf, idx, err, i)
		}
		if err := tlog.CheckRecord(p, int64(cp.Size), cp.Hash, int64(idx), h); err != nil {
			t.Fatalf("proof of %q at %d: %v", leaf, idx, err)
		}
	}
}

// A leaf index left beside a tree that replaced its own (a new log started
// in the directory) is found not to match it at the first catch-up,
// removed with a WARN naming its directory, and rebuilt: every leaf of the
// new tree is found, with a valid proof, and a leaf only the old tree held
// is not found (ErrNotFound, no security error). Before, the stale index,
// covering as many leaves as the tree or more, was never caught up: the
// new tree's leaves were not found, and a leaf of the old tree that the
// new one holds elsewhere was ErrSecurity.
func TestLeafIndexOfAnotherTree(t *testing.T) {
	old := []string{"old 0", "old 1", "old 2", "old 3", "old 4", "old 5"}
	for _, tc := range []struct {
		name string
		repl []string
	}{
		// More leaves indexed than the tree holds.
		{"shorter", []string{"old 2", "new 1", "new 2"}},
		// Leaf 0 as the old one's; the last not indexed.
		{"same size", []string{"old 0", "new 1", "old 1", "new 3", "new 4", "new 5"}},
		// The last indexed at an earlier leaf, which is another.
		{"same size, last indexed before", []string{"old 0", "new 1", "new 2", "new 3", "new 4", "old 1"}},
		// The last as the old one's; leaf 0 indexed at another index.
		{"same size, first indexed elsewhere", []string{"old 3", "new 1", "new 2", "new 3", "new 4", "old 5"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, logPath := openLogged(t, staleIndexLog(t, old, tc.repl))
			checkFoundByHash(t, l, tc.repl)
			if _, _, err := l.InclusionProofByHash(t.Context(), tlog.RecordHash([]byte("old 4")), uint64(len(tc.repl))); !errors.Is(err, transparency.ErrNotFound) || errors.Is(err, transparency.ErrSecurity) {
				t.Errorf("InclusionProofByHash of a leaf of the old tree only = %v, want ErrNotFound", err)
			}
			if err := l.Health(); err != nil {
				t.Errorf("Health = %v, want nil", err)
			}
			out := string(mustRead(t, logPath))
			if n := strings.Count(out, mismatchWarning); n != 1 || !strings.Contains(out, "dir="+filepath.Join(l.cfg.Dir, leafIndexDir)) {
				t.Errorf("log = %q, want one WARN of the mismatch naming the index's directory", out)
			}
		})
	}
}

// A tree that cannot be read while the index is checked (a disk error)
// fails the lookup (ErrUnavailable) and leaves the index as it is, even
// one that does not match: once the tree reads again, it is rebuilt.
func TestLeafIndexMatchReadFails(t *testing.T) {
	old := []string{"old 0", "old 1", "old 2"}
	repl := []string{"new 0", "new 1", "new 2"}
	cfg := staleIndexLog(t, old, repl)
	before := runFiles(t, filepath.Join(cfg.Dir, leafIndexDir))
	// The tree's one hash tile, unreadable from Open on (the background
	// catch-up may come first).
	tile := filepath.Join(cfg.Dir, "tiles", "tile", "0", "000.p", "3")
	moved := tile + ".moved"
	if err := os.Rename(tile, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(tile, 0o700); err != nil {
		t.Fatal(err)
	}
	l, logPath := openLogged(t, cfg)
	h := tlog.RecordHash([]byte("new 1"))
	if _, _, err := l.InclusionProofByHash(t.Context(), h, 3); !errors.Is(err, transparency.ErrUnavailable) || errors.Is(err, transparency.ErrSecurity) {
		t.Fatalf("InclusionProofByHash with the tree unreadable = %v, want ErrUnavailable", err)
	}
	checkSameFiles(t, "after a failed check", before, runFiles(t, filepath.Join(cfg.Dir, leafIndexDir)))
	if out := string(mustRead(t, logPath)); strings.Contains(out, mismatchWarning) {
		t.Errorf("log = %q, want no WARN of a mismatch yet", out)
	}
	if err := os.Remove(tile); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(moved, tile); err != nil {
		t.Fatal(err)
	}
	checkFoundByHash(t, l, repl)
	if out := string(mustRead(t, logPath)); strings.Count(out, mismatchWarning) != 1 {
		t.Errorf("log = %q, want one WARN of the mismatch", out)
	}
}

// An index that indexes the tree beside it is kept at Open, its runs as
// they were, even when the last leaf repeats an earlier one (indexed at
// the earlier index).
func TestLeafIndexMatchKept(t *testing.T) {
	cfg := Config{Dir: t.TempDir(), Origin: "example.com/kept", Signers: lagSigners(t)}
	leaves := []string{"a", "b", "c", "d", "b"}
	l, _ := openAppended(t, cfg, leaves...)
	if err := l.catchUpIndex(t.Context(), uint64(len(leaves))); err != nil {
		t.Fatal(err)
	}
	if err := l.index.compact(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(cfg.Dir, leafIndexDir)
	before := runFiles(t, dir)
	l, logPath := openLogged(t, cfg)
	checkFoundByHash(t, l, leaves[:4])
	if idx, _, err := l.InclusionProofByHash(t.Context(), tlog.RecordHash([]byte("b")), 5); err != nil || idx != 1 {
		t.Errorf("InclusionProofByHash(b) = %d, %v; want 1", idx, err)
	}
	checkSameFiles(t, "after reopening", before, runFiles(t, dir))
	if out := string(mustRead(t, logPath)); strings.Contains(out, mismatchWarning) {
		t.Errorf("log = %q, want no WARN of a mismatch", out)
	}
}

// runFiles is the files in the index's directory dir, by name.
func runFiles(t *testing.T, dir string) []os.FileInfo {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var fis []os.FileInfo
	for _, de := range des {
		fi, err := os.Stat(filepath.Join(dir, de.Name()))
		if err != nil {
			t.Fatal(err)
		}
		fis = append(fis, fi)
	}
	return fis
}

// checkSameFiles checks that after are the files before (runFiles), kept:
// the same names, the same files.
func checkSameFiles(t *testing.T, when string, before, after []os.FileInfo) {
	t.Helper()
	if len(after) != len(before) {
		t.Fatalf("%d run files %s, %d before", len(after), when, len(before))
	}
	for i := range after {
		if after[i].Name() != before[i].Name() || !os.SameFile(after[i], before[i]) {
			t.Errorf("run file %s %s, %s before: want it kept", after[i].Name(), when, before[i].Name())
		}
	}
}
