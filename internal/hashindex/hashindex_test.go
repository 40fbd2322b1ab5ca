package hashindex

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
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
)

// errTestIndex is what the test indexes' Options.Err wraps their errors in.
var errTestIndex = errors.New("test index unavailable")

// newTestIndex opens an empty index of the options opt (Err set to wrap
// in errTestIndex) in a temporary directory, closed when the test ends;
// dir is its directory.
func newTestIndex(tb testing.TB, opt Options) (x *Index, dir string) {
	tb.Helper()
	dir = filepath.Join(tb.TempDir(), "index")
	x, err := Open(dir, testOptions(opt))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { x.Close() })
	return x, dir
}

// testOptions is opt, its errors wrapped in errTestIndex.
func testOptions(opt Options) Options {
	opt.Err = func(err error) error { return fmt.Errorf("%w: %w", errTestIndex, err) }
	return opt
}

// reopen closes x and opens its directory again with the options opt.
func reopen(t *testing.T, x *Index, opt Options) *Index {
	t.Helper()
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	y, err := Open(x.dir, testOptions(opt))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { y.Close() })
	return y
}

// hashOf is the hash of item i ("item i").
func hashOf(i uint64) [32]byte { return sha256.Sum256(fmt.Appendf(nil, "item %d", i)) }

// items are the entries of the items is at the positions first, first+1, …
func items(first uint64, is ...uint64) []Entry {
	es := make([]Entry, len(is))
	for i, it := range is {
		es[i] = Entry{hashOf(it), first + uint64(i)}
	}
	return es
}

// testEntries are the entries of the items first … first+n-1, each at its
// own position.
func testEntries(first, n int) []Entry {
	var es []Entry
	for i := range n {
		es = append(es, Entry{hashOf(uint64(first + i)), uint64(first + i)})
	}
	return es
}

// add adds es as the range [first, first+len(es)) of x.
func add(t *testing.T, x *Index, first uint64, es []Entry) {
	t.Helper()
	if err := x.Add(first, first+uint64(len(es)), es); err != nil {
		t.Fatal(err)
	}
}

// checkLookup checks that x maps the hash of each item to want[item],
// or holds no entry of it where want is absent.
func checkLookup(t *testing.T, x *Index, want map[uint64]uint64, absent ...uint64) {
	t.Helper()
	for it, w := range want {
		if got, ok, err := x.Lookup(hashOf(it)); err != nil || !ok || got != w {
			t.Errorf("Lookup(item %d) = %d, %v, %v; want %d", it, got, ok, err, w)
		}
	}
	for _, it := range absent {
		if got, ok, err := x.Lookup(hashOf(it)); err != nil || ok {
			t.Errorf("Lookup(item %d) = %d, %v, %v; want not found", it, got, ok, err)
		}
	}
}

// A hash keeps its first value: within one Add (the entries are sorted by
// hash) and across Adds.
func TestFirstValue(t *testing.T) {
	x, _ := newTestIndex(t, Options{})
	// 0..99, with item 7 again at 50 and at 90.
	var is []uint64
	for i := range uint64(100) {
		switch i {
		case 50, 90:
			is = append(is, 7)
		default:
			is = append(is, i)
		}
	}
	add(t, x, 0, items(0, is...))
	// 100..101 repeat item 3 and add item 100.
	add(t, x, 100, items(100, 3, 100))
	checkLookup(t, x, map[uint64]uint64{0: 0, 7: 7, 3: 3, 49: 49, 51: 51, 99: 99, 100: 101}, 50, 90)
	if n, err := x.Next(); err != nil || n != 102 {
		t.Errorf("Next = %d, %v; want 102", n, err)
	}
}

// Latest: a hash keeps its last value, within one Add, across runs (the
// newest run's shadows the older ones') and across merges; an index
// opened without Latest answers the first values, so the test fails where
// the option is ignored.
func TestLatest(t *testing.T) {
	x, _ := newTestIndex(t, Options{Latest: true})
	// Item 7 at 7, 50 and 90; item 3 at 3, then 100 in the next run;
	// item 5 at 5, 101 and 150; item 8 at 8 only.
	is := make([]uint64, 100)
	for i := range is {
		is[i] = uint64(i)
	}
	is[50], is[90] = 7, 7
	add(t, x, 0, items(0, is...))
	want := map[uint64]uint64{7: 90, 8: 8, 3: 3, 99: 99}
	checkLookup(t, x, want, 50, 90)
	add(t, x, 100, items(100, 3, 5))
	want[3], want[5] = 100, 101
	checkLookup(t, x, want)
	if x.Count() != 2 {
		t.Fatalf("%d runs before compact, want 2 (a newer run shadowing an older)", x.Count())
	}
	es := testEntries(102, 100)
	es[48] = Entry{hashOf(5), 150}
	add(t, x, 102, es)
	want[5] = 150
	if err := x.Compact(t.Context()); err != nil {
		t.Fatal(err)
	}
	if x.Count() != 1 {
		t.Fatalf("%d runs after compact, want 1", x.Count())
	}
	checkLookup(t, x, want)
	x = reopen(t, x, Options{Latest: true})
	checkLookup(t, x, want)
	// The same runs read for first values: their values, not the first.
	f := reopen(t, x, Options{})
	if got, ok, err := f.Lookup(hashOf(7)); err != nil || !ok || got != 90 {
		t.Errorf("Lookup(item 7) without Latest = %d, %v, %v; want the value the run kept, 90", got, ok, err)
	}
}

// Keep: the entries a merge reads that Keep rejects are gone after it (a
// hash whose latest value is rejected falls back on one kept, none if
// none), lookups still find those kept, and a merge that keeps nothing
// writes a run of no entry that covers its range and opens again.
func TestKeep(t *testing.T) {
	var low atomic.Uint64 // values below are pruned
	// 120 is rejected too: item 60's latest value, where its first is kept.
	opt := Options{Latest: true, Keep: func(v uint64) bool { return v >= low.Load() && v != 120 }}
	x, dir := newTestIndex(t, opt)
	add(t, x, 0, testEntries(0, 100))
	es := testEntries(100, 100)
	es[0] = Entry{hashOf(5), 100}   // item 5 again, at 100
	es[20] = Entry{hashOf(60), 120} // item 60 again, at 120
	add(t, x, 100, es)
	checkLookup(t, x, map[uint64]uint64{5: 100, 10: 10, 60: 120, 99: 99}) // not merged yet
	low.Store(50)
	if err := x.Compact(t.Context()); err != nil {
		t.Fatal(err)
	}
	if x.Count() != 1 {
		t.Fatalf("%d runs after compact, want 1", x.Count())
	}
	want := map[uint64]uint64{5: 100, 50: 50, 60: 60, 99: 99, 150: 150}
	checkLookup(t, x, want, 0, 10, 49)
	x = reopen(t, x, opt)
	checkLookup(t, x, want, 0, 10, 49)

	// Everything pruned: the merged run holds no entry.
	add(t, x, 200, testEntries(200, 100))
	low.Store(1000)
	if err := x.Compact(t.Context()); err != nil {
		t.Fatal(err)
	}
	x = reopen(t, x, opt)
	if n, err := x.Next(); err != nil || n != 300 || x.Count() != 1 {
		t.Fatalf("after a merge that kept nothing: Next %d, %v, %d runs; want 300, 1 run", n, err, x.Count())
	}
	if des, _ := os.ReadDir(dir); len(des) != 1 || des[0].Name() != runName(0, 300) {
		t.Fatalf("files %v, want the one run %s", des, runName(0, 300))
	}
	checkLookup(t, x, nil, 5, 50, 150, 250)
	add(t, x, 300, testEntries(300, 10))
	checkLookup(t, x, map[uint64]uint64{305: 305}, 5)
}

// An Add of a range without entries writes a run of none: the runs go on
// tiling the sequence, at a reopen too, and later runs merge with it. An
// Add whose value lies outside its range is refused (Latest's lookups, the
// newest run first, rely on it).
func TestAddEmptyRange(t *testing.T) {
	x, _ := newTestIndex(t, Options{})
	add(t, x, 0, testEntries(0, 10))
	if err := x.Add(10, 20, nil); err != nil {
		t.Fatal(err)
	}
	if err := x.Add(20, 20, nil); err != nil {
		t.Fatal(err)
	}
	x = reopen(t, x, Options{})
	if n, err := x.Next(); err != nil || n != 20 || x.Count() != 2 {
		t.Fatalf("Next %d, %v, %d runs; want 20, 2 runs", n, err, x.Count())
	}
	checkLookup(t, x, map[uint64]uint64{3: 3}, 15)
	add(t, x, 20, testEntries(20, 5))
	if err := x.Compact(t.Context()); err != nil {
		t.Fatal(err)
	}
	checkLookup(t, x, map[uint64]uint64{3: 3, 22: 22}, 15)
	for _, e := range []Entry{{hashOf(1), 24}, {hashOf(1), 35}} {
		if err := x.Add(25, 35, []Entry{e}); !errors.Is(err, errTestIndex) {
			t.Errorf("Add of value %d in [25, 35) = %v, want refused", e.Value, err)
		}
	}
}

// The run files are those the leaf index of the transparency log wrote
// before this package (an existing log's leafhash/ opens): a known answer
// of the code that wrote them, 250 entries of [0, 300).
func TestRunFormat(t *testing.T) {
	x, _ := newTestIndex(t, Options{})
	var es []Entry
	for i := range 250 {
		es = append(es, Entry{sha256.Sum256([]byte{byte(i), byte(i >> 8)}), uint64(i)})
	}
	b := readRunFile(t, x, 0, 300, es)
	const want = "b625da54911dec6109c100a5c71b4ded5dbdcc95196c0869093c6ff59e165a14"
	if got := fmt.Sprintf("%x", sha256.Sum256(b)); len(b) != 10076 || got != want {
		t.Errorf("run file of %d bytes, SHA-256 %s; want 10076 bytes, %s", len(b), got, want)
	}
}

// indexModel is what the index must answer: each hash's first value.
type indexModel map[[32]byte]uint64

func (m indexModel) add(es []Entry) {
	for _, e := range es {
		if v, ok := m[e.Hash]; !ok || e.Value < v {
			m[e.Hash] = e.Value
		}
	}
}

// check compares every lookup of m, and a few absent hashes, with x.
func (m indexModel) check(t *testing.T, x *Index, next uint64) {
	t.Helper()
	for h, want := range m {
		if want >= next {
			continue
		}
		got, ok, err := x.Lookup(h)
		if err != nil || !ok || got != want {
			t.Fatalf("lookup %x: %d %v %v, want %d", h[:4], got, ok, err, want)
		}
	}
	for i := range 100 {
		if _, ok, err := x.Lookup(sha256.Sum256(fmt.Appendf(nil, "absent %d", i))); ok || err != nil {
			t.Fatalf("absent %d: found %v, %v", i, ok, err)
		}
	}
	if n, err := x.Next(); err != nil || n != next {
		t.Fatalf("next %d %v, want %d", n, err, next)
	}
}

// Adds of every size, with hashes repeated within and across them, merged
// as they come: every hash keeps its first value, the runs stay few (each
// more than twice the size of the next), and a reopened index answers the
// same.
func TestRunsMerged(t *testing.T) {
	x, dir := newTestIndex(t, Options{})
	rnd := rand.New(rand.NewPCG(1, 2))
	m := indexModel{}
	var next uint64
	for b := range 300 {
		n := 1 + rnd.IntN(700)
		if b%50 == 0 {
			n = 5000 // more than a block's worth many times over
		}
		is := make([]uint64, n)
		for i := range is {
			if rnd.IntN(20) == 0 && next > 0 { // an item added again
				is[i] = rnd.Uint64N(next + uint64(i))
			} else {
				is[i] = next + uint64(i)
			}
		}
		es := items(next, is...)
		add(t, x, next, es)
		m.add(es)
		next += uint64(n)
		if err := x.Compact(t.Context()); err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(x.runs); i++ {
			if p, q := x.runs[i-1], x.runs[i]; p.end-p.first <= 2*(q.end-q.first) || p.end != q.first {
				t.Fatalf("after add %d, runs %d [%d, %d) and %d [%d, %d) left unmerged", b, i-1, p.first, p.end, i, q.first, q.end)
			}
		}
	}
	m.check(t, x, next)
	if max := bits.Len64(next) + 1; len(x.runs) > max {
		t.Errorf("%d runs for %d entries, want at most %d", len(x.runs), next, max)
	}
	x = reopen(t, x, Options{})
	m.check(t, x, next)
	if des, _ := os.ReadDir(dir); len(des) != len(x.runs) {
		t.Errorf("%d files for %d runs", len(des), len(x.runs))
	}
}

// What a crash leaves is sorted out at Open: a merge's inputs beside the
// merged run, an unfinished file, a damaged run and what follows it, a run
// after a gap. The index keeps the longest tiling from 0 it can trust and
// the rest is to be added again; a block that no longer matches its
// checksum fails the lookup (Options.Err, naming the file), never answers
// wrong.
func TestOpenAfterCrash(t *testing.T) {
	x, dir := newTestIndex(t, Options{})
	m := indexModel{}
	for _, r := range [][2]int{{0, 300}, {300, 300}, {600, 100}} {
		es := testEntries(r[0], r[1])
		add(t, x, uint64(r[0]), es)
		m.add(es)
	}
	// The first two merged, as Compact would, but the inputs kept.
	a, b := x.runs[0], x.runs[1]
	es := testEntries(0, 600)
	slices.SortFunc(es, x.compare)
	merged, err := x.writeRun(0, 600, uint64(len(es)), yieldAll(es))
	if err != nil {
		t.Fatal(err)
	}
	merged.f.Close()
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{runName(700, 800) + ".tmp", runName(900, 950)} { // unfinished; after a gap
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	x = reopen(t, x, Options{})
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
	x.Close()
	damage(t, path, 100)
	x = reopen(t, x, Options{})
	var failed int
	for h := range m {
		if _, _, err := x.Lookup(h); err != nil {
			failed++
			if !errors.Is(err, errTestIndex) || !strings.Contains(err.Error(), path) {
				t.Fatalf("lookup in an altered block: %v, want errTestIndex naming %s", err, path)
			}
		}
	}
	if failed == 0 {
		t.Fatal("no lookup read the altered block")
	}

	// Its trailer altered: the run is dropped with the run after it, and
	// their entries are to be added again.
	x.Close()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	damage(t, path, fi.Size()-10)
	x = reopen(t, x, Options{})
	if n, _ := x.Next(); n != 0 || len(x.runs) != 0 {
		t.Fatalf("after a damaged first run: next %d, %d runs; want 0, 0", n, len(x.runs))
	}
	if des, _ := os.ReadDir(dir); len(des) != 0 {
		t.Errorf("%d files left", len(des))
	}
}

// damage sets the byte at off of the file path to 0xff.
func damage(t *testing.T, path string, off int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt([]byte{0xff}, off); err != nil {
		t.Fatal(err)
	}
}

// Repair removes the run a lookup found damaged and the runs after it;
// Reset removes them all.
func TestRepairAndReset(t *testing.T) {
	x, dir := newTestIndex(t, Options{})
	for _, first := range []int{0, 100, 200} {
		add(t, x, uint64(first), testEntries(first, 100))
	}
	if err := x.Add(100, 150, nil); err == nil {
		t.Fatal("Add behind Next accepted")
	}
	if path, _, err := x.Repair(); path != "" || err != nil {
		t.Fatalf("Repair with nothing damaged = %q, %v", path, err)
	}
	damaged := x.runs[1].path
	damage(t, damaged, 3)
	if _, _, err := x.Lookup(hashOf(150)); !errors.Is(err, errTestIndex) {
		t.Fatalf("Lookup in a damaged block = %v, want errTestIndex", err)
	}
	if path, first, err := x.Repair(); path != damaged || first != 100 || err != nil {
		t.Fatalf("Repair = %q, %d, %v; want %s, 100", path, first, err, damaged)
	}
	if n, _ := x.Next(); n != 100 {
		t.Errorf("Next after Repair = %d, want 100", n)
	}
	if des, _ := os.ReadDir(dir); len(des) != 1 {
		t.Errorf("%d files after Repair, want 1", len(des))
	}
	if err := x.Reset(); err != nil {
		t.Fatal(err)
	}
	if n, _ := x.Next(); n != 0 {
		t.Errorf("Next after Reset = %d, want 0", n)
	}
	if des, _ := os.ReadDir(dir); len(des) != 0 {
		t.Errorf("%d files after Reset, want 0", len(des))
	}
}

// Lookups go on while runs are added and merged: each finds its hash at
// its value.
func TestLookupDuringMerge(t *testing.T) {
	x, _ := newTestIndex(t, Options{})
	var (
		wg   sync.WaitGroup
		done = make(chan struct{})
		high atomic.Uint64 // entries added so far
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
				got, ok, err := x.Lookup(hashOf(i))
				if err != nil || !ok || got != i {
					t.Errorf("Lookup(item %d) = %d, %v, %v", i, got, ok, err)
					return
				}
			}
		})
	}
	var merges sync.WaitGroup
	for next := 0; next < 40_000; next += 500 {
		add(t, x, uint64(next), testEntries(next, 500))
		high.Store(uint64(next + 500))
		merges.Wait()
		merges.Go(func() {
			if err := x.Compact(t.Context()); err != nil {
				t.Error(err)
			}
		})
	}
	merges.Wait()
	close(done)
	wg.Wait()
}

// A merge stops when its context is done (the caller closing): its inputs
// stay, its unfinished run goes.
func TestMergeStops(t *testing.T) {
	x, dir := newTestIndex(t, Options{})
	m := indexModel{}
	for _, first := range []int{0, 5000} {
		es := testEntries(first, 5000)
		add(t, x, uint64(first), es)
		m.add(es)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := x.Compact(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Compact with its context done = %v, want context.Canceled", err)
	}
	if len(x.runs) != 2 {
		t.Fatalf("%d runs after a stopped merge, want its 2 inputs", len(x.runs))
	}
	if des, _ := os.ReadDir(dir); len(des) != 2 {
		t.Errorf("%d files after a stopped merge, want its 2 inputs", len(des))
	}
	m.check(t, x, 10_000)
}

// A closed index refuses lookups, adds and merges (Options.Closed, by
// default ErrClosed): a lookup, its catch-up and merges may be under way
// when the caller closes. Before, a lookup answered "not found" for a hash
// it had indexed, an add appended a run whose file was never closed, and
// a merge that ended after close panicked (its inputs no longer among the
// runs).
func TestClosed(t *testing.T) {
	errMine := errors.New("mine closed")
	for _, closed := range []error{nil, errMine} {
		want := cmp.Or(closed, ErrClosed)
		x, _ := newTestIndex(t, Options{Closed: closed})
		for _, first := range []int{0, 100} {
			add(t, x, uint64(first), testEntries(first, 100))
		}
		// The inputs of a merge under way, open apart from the index's.
		var inputs []*run
		for _, r := range x.runs {
			c, err := x.openRun(r.path, r.first, r.end)
			if err != nil {
				t.Fatal(err)
			}
			defer c.f.Close()
			inputs = append(inputs, c)
		}
		if err := x.Close(); err != nil {
			t.Fatal(err)
		}
		if _, ok, err := x.Lookup(hashOf(5)); ok || !errors.Is(err, want) {
			t.Errorf("Lookup on a closed index: found %v, %v; want %v", ok, err, want)
		}
		if err := x.Add(0, 10, testEntries(0, 10)); !errors.Is(err, want) {
			t.Errorf("Add on a closed index: %v, want %v", err, want)
		}
		if _, err := x.Next(); !errors.Is(err, want) {
			t.Errorf("Next on a closed index: %v, want %v", err, want)
		}
		if err := x.Reset(); !errors.Is(err, want) {
			t.Errorf("Reset on a closed index: %v, want %v", err, want)
		}
		if err := x.merge(t.Context(), inputs); !errors.Is(err, want) {
			t.Errorf("merge ending on a closed index: %v, want %v", err, want)
		}
		// What the merge wrote stands for its inputs at the next open.
		x = reopen(t, x, Options{})
		if n, _ := x.Next(); n != 200 || x.Count() != 1 {
			t.Errorf("reopened: Next %d, %d runs; want 200, 1", n, x.Count())
		}
		checkLookup(t, x, map[uint64]uint64{150: 150})
	}
}

// A long catch-up's runs (65 of them, tilelog's maxRuns+1) are merged in
// one run, each entry written once, where merges two by two (s+s, 2s+s, …
// 64s+s) wrote an entry again at each, 33 times on average here and about
// 36 times per leaf over the rebuild of a leaf index of 1 million leaves
// (5 to 7 s on a shared machine, 2.3 s and 3 writes a leaf merging each
// group at once). A hash repeated in every run keeps its first value.
func TestCompactOnce(t *testing.T) {
	x, _ := newTestIndex(t, Options{})
	const runs, size = 65, 100
	m := indexModel{}
	for i := range runs {
		es := testEntries(i*size, size)
		if i > 0 {
			es[size-1].Hash = hashOf(7)
		}
		add(t, x, uint64(i*size), es)
		m.add(es)
	}
	before := x.written.Load()
	if err := x.Compact(t.Context()); err != nil {
		t.Fatal(err)
	}
	if w := x.written.Load() - before; w > runs*size {
		t.Errorf("compact of %d runs of %d entries wrote %d entries, want at most %d (each once)", runs, size, w, runs*size)
	}
	if n := x.Count(); n != 1 {
		t.Errorf("%d runs after compact, want 1", n)
	}
	m.check(t, x, runs*size)
}

// A run whose trailer checks but counts more entries than its file can
// hold (written by hand: a CRC is no seal) is damaged and dropped at open.
// Before, a count whose size wrapped around 2^64 to the file's passed the
// size check, and open panicked allocating its fences (exabytes).
func TestTrailerCountTooLarge(t *testing.T) {
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
	dir := filepath.Join(t.TempDir(), "index")
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
	x, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if x.Count() != 0 {
		t.Errorf("%d runs, want the damaged one dropped", x.Count())
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s: %v, want removed", path, err)
	}
}

// Repair with nothing to repair does not wait for a merge under way: it
// takes Compact's lock only when a run was found damaged.
func TestRepairDoesNotWaitForMerge(t *testing.T) {
	x, _ := newTestIndex(t, Options{})
	x.cmu.Lock() // a merge under way
	done := make(chan struct{})
	go func() {
		x.Repair()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Error("Repair with nothing damaged waited for Compact's lock")
	}
	x.cmu.Unlock()
	<-done
}
