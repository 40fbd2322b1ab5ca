// Package hashindex is an index from 32-byte hashes to uint64 values (a
// leaf's index in a log, a request's sequence number), for the entries of
// a sequence 0, 1, 2, … added in order. It is derived data: its caller
// can rebuild it from what it indexes, and checks what it answers there.
//
// The index is a set of immutable sorted runs in one directory, each
// covering a range [first, end) of the sequence and named after it;
// together they tile [0, next). Each Add writes one run; Compact then
// merges runs from the newest while the one before is at most twice as
// large (those a step merges, in one pass), so there are at most about
// log2(next) runs and an entry is rewritten at most about
// log2(next / batch) times, in sequential writes. A B+tree keyed by hash
// (bbolt, which this replaced for the transparency log's leaf index)
// rewrites a page of 4 KiB for nearly every entry once it outgrows a few
// pages: its CPU per entry grew from 2 µs on an empty index to 20 µs at
// 400,000 entries, and went on growing.
//
// A run file is blocks of up to blockEntries entries (a 32-byte hash then
// its value, 8 bytes big-endian, sorted by hash, one entry per hash), each
// followed by the CRC-32C of its entries; then the fences, the first 8
// bytes of each block's first hash; then a trailer (runTrailer): "TLIXRUN1",
// the entries, first and end (each 8 bytes big-endian), the fences'
// CRC-32C and the trailer's own, of the 40 bytes before it. A run may hold
// no entry (no block, no fence): a range of the sequence where none has a
// hash, or whose entries Options.Keep all dropped. A lookup reads the
// fences at open, then one block of each run.
//
// Options.Latest chooses which value a hash keeps when it is added more
// than once: the first (the smallest, as the leaf index of a log, where a
// leaf appended again keeps its first index) or the last (the largest, as
// an index of requests, where a request id names its latest request).
package hashindex

import (
	"bufio"
	"bytes"
	"cmp"
	"container/heap"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"tirage.fr/tirage/transparency/atomicfile"
)

const (
	hashSize     = 32
	entrySize    = hashSize + 8
	blockEntries = 102 // entries of a full block
	// blockSize is a full block and its checksum: 4,084 bytes, what a
	// block is read into.
	blockSize = blockEntries*entrySize + 4
	runMagic  = "TLIXRUN1"
	// runTrailer: magic, entries, first, end (each 8 bytes), the fences'
	// CRC-32C and the trailer's own, of the 40 bytes before it.
	runTrailer = 8 + 3*8 + 2*4
	runSuffix  = ".run"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrClosed is a use of an index after Close, when Options.Closed is nil:
// the index answers nothing more (never "not found"); open it again.
var ErrClosed = errors.New("hashindex: index closed")

// Entry is a hash and the value the index maps it to.
type Entry struct {
	Hash  [32]byte
	Value uint64
}

// Options are an index's choices, the same at every Open of a directory.
type Options struct {
	// Latest is whether a hash added more than once keeps its last
	// (largest) value rather than its first (smallest): within an Add, in
	// merges, and in lookups, which then search the newest run first.
	Latest bool
	// Keep, if set, is asked of every entry a merge reads: those it
	// rejects are dropped, and of a hash's entries the merge keeps the
	// first (Latest: the last) of those it accepts. Runs not yet merged
	// still hold what it would reject: the caller checks what a lookup
	// names.
	Keep func(value uint64) bool
	// Err, if set, wraps every error of I/O or of a damaged run the index
	// returns (the caller's error class and prefix); nil returns them
	// unwrapped.
	Err func(error) error
	// Closed is the error of any use after Close; nil is ErrClosed.
	Closed error
	// Filter keeps a Bloom filter of each run's hashes in memory (10 bits
	// an entry), so that a lookup of a hash the index does not hold reads
	// no block: for an index asked mostly for hashes it does not hold (a
	// store's request ids, each looked up before it is stored). Open reads
	// the runs in the background to build theirs; lookups read blocks
	// until then.
	Filter bool
}

// Index is an open index. Add, Repair and Reset are one writer's: the
// caller serialises them (a catch-up). Lookup, Next and Count may run
// beside them and beside Compact, which serialises itself; Close may race
// any of them, which then fail with Options.Closed.
type Index struct {
	opt Options
	dir string
	cmu sync.Mutex // serialises compact

	rmu  sync.RWMutex // runs and closed; a lookup holds it for reading while it reads their files
	runs []*run       // ordered by first, tiling [0, next)
	// closed is set by Close: lookups, adds and merges are refused
	// (opt.Closed), since a lookup, a catch-up and merges may still be
	// under way when the caller closes.
	closed bool

	written atomic.Uint64 // entries written in runs, all told (tests)

	// stop ends buildFilters, which closes built when it returns (nil
	// without Options.Filter).
	stop  context.CancelFunc
	built chan struct{}
}

// run is one open run file.
type run struct {
	first, end uint64
	n          uint64   // entries
	fences     []uint64 // per block
	f          *os.File
	path       string
	// damaged is set when a block did not match its checksum: Repair
	// removes the run, and those after it.
	damaged atomic.Bool
	// filter, with Options.Filter, holds the run's hashes (nil until
	// built).
	filter atomic.Pointer[filter]
}

func runName(first, end uint64) string {
	return fmt.Sprintf("%016x-%016x%s", first, end, runSuffix)
}

// parseRunName is the range a run file's name covers.
func parseRunName(name string) (first, end uint64, ok bool) {
	s, found := strings.CutSuffix(name, runSuffix)
	a, b, dash := strings.Cut(s, "-")
	if !found || !dash || len(a) != 16 || len(b) != 16 {
		return 0, 0, false
	}
	first, err1 := strconv.ParseUint(a, 16, 64)
	end, err2 := strconv.ParseUint(b, 16, 64)
	return first, end, err1 == nil && err2 == nil && first < end && runName(first, end) == name
}

// fail is err, wrapped by opt.Err.
func (x *Index) fail(err error) error {
	if x.opt.Err == nil {
		return err
	}
	return x.opt.Err(err)
}

// closedErr is the error of a use after Close.
func (x *Index) closedErr() error {
	if x.opt.Closed == nil {
		return ErrClosed
	}
	return x.opt.Closed
}

// compare orders entries by hash, then by value: of equal hashes, the one
// a hash keeps first (the smallest value; Latest: the largest).
func (x *Index) compare(a, b Entry) int {
	if c := bytes.Compare(a.Hash[:], b.Hash[:]); c != 0 {
		return c
	}
	if x.opt.Latest {
		return cmp.Compare(b.Value, a.Value)
	}
	return cmp.Compare(a.Value, b.Value)
}

// Open opens the runs in dir (creating it) that tile the longest prefix
// [0, next) of the sequence, from the run covering most at each step (a
// merge's inputs outlive it only until it is durable). The other run files
// (a merge's inputs, a run after a gap or a damaged run, left by a crash)
// and unfinished ones are removed: their entries are to be added again.
func Open(dir string, opt Options) (*Index, error) {
	x := &Index{opt: opt, dir: dir}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, x.fail(err)
	}
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, x.fail(err)
	}
	type cand struct{ first, end uint64 }
	var cands []cand
	var drop []string
	for _, de := range des {
		if first, end, ok := parseRunName(de.Name()); ok && de.Type().IsRegular() {
			cands = append(cands, cand{first, end})
		} else {
			drop = append(drop, de.Name())
		}
	}
	// At each position, the run reaching furthest first.
	slices.SortFunc(cands, func(a, b cand) int {
		return cmp.Or(cmp.Compare(a.first, b.first), cmp.Compare(b.end, a.end))
	})
	var next uint64
	for _, c := range cands {
		name := runName(c.first, c.end)
		if c.first != next {
			drop = append(drop, name)
			continue
		}
		r, err := x.openRun(filepath.Join(dir, name), c.first, c.end)
		if errors.Is(err, errDamagedRun) {
			// A smaller run from the same position (a merge's input)
			// may stand in; if none, the runs after it are after a gap.
			drop = append(drop, name)
			continue
		}
		if err != nil {
			x.Close()
			return nil, err
		}
		x.runs = append(x.runs, r)
		next = c.end
	}
	for _, name := range drop {
		if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
			x.Close()
			return nil, x.fail(err)
		}
	}
	if opt.Filter {
		ctx, stop := context.WithCancel(context.Background())
		x.stop, x.built = stop, make(chan struct{})
		go x.buildFilters(ctx, slices.Clone(x.runs))
	}
	return x, nil
}

var errDamagedRun = errors.New("damaged run")

// openRun opens a run file and reads its fences. A file whose trailer or
// fences do not check is errDamagedRun.
func (x *Index) openRun(path string, first, end uint64) (*run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, x.fail(err)
	}
	r, err := x.readRun(f, first, end)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.f, r.path = f, path
	return r, nil
}

func (x *Index) readRun(f *os.File, first, end uint64) (*run, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, x.fail(err)
	}
	size := fi.Size()
	damaged := func(why string) error {
		return fmt.Errorf("%w: %s: %s", errDamagedRun, f.Name(), why)
	}
	if size < runTrailer {
		return nil, damaged("shorter than its trailer")
	}
	var t [runTrailer]byte
	if _, err := f.ReadAt(t[:], size-runTrailer); err != nil {
		return nil, x.fail(err)
	}
	if string(t[:8]) != runMagic || crc32.Checksum(t[:runTrailer-4], castagnoli) != binary.BigEndian.Uint32(t[runTrailer-4:]) {
		return nil, damaged("bad trailer")
	}
	n := binary.BigEndian.Uint64(t[8:])
	if binary.BigEndian.Uint64(t[16:]) != first || binary.BigEndian.Uint64(t[24:]) != end || n > end-first {
		return nil, damaged("trailer does not match its name")
	}
	// Bounded first, so that the size below cannot wrap around.
	if n > uint64(size)/entrySize {
		return nil, damaged("wrong size")
	}
	blocks := (n + blockEntries - 1) / blockEntries
	if uint64(size) != n*entrySize+blocks*4+blocks*8+runTrailer {
		return nil, damaged("wrong size")
	}
	fb := make([]byte, blocks*8)
	if _, err := f.ReadAt(fb, size-runTrailer-int64(len(fb))); err != nil {
		return nil, x.fail(err)
	}
	if crc32.Checksum(fb, castagnoli) != binary.BigEndian.Uint32(t[32:]) {
		return nil, damaged("bad fences")
	}
	return newRun(first, end, n, fb), nil
}

// newRun is the run [first, end) of n entries whose fences are fb (8 bytes
// a block, as in its file), without its file.
func newRun(first, end, n uint64, fb []byte) *run {
	r := &run{first: first, end: end, n: n, fences: make([]uint64, len(fb)/8)}
	for i := range r.fences {
		r.fences[i] = binary.BigEndian.Uint64(fb[8*i:])
	}
	return r
}

// blockAt is the offset and the number of entries of block b.
func (r *run) blockAt(b int) (off int64, entries int) {
	entries = int(min(blockEntries, r.n-uint64(b)*blockEntries))
	return int64(b) * blockSize, entries
}

// readBlock reads block b of r into buf and checks it.
func (x *Index) readBlock(r *run, b int, buf []byte) ([]byte, error) {
	off, entries := r.blockAt(b)
	buf = buf[:entries*entrySize+4]
	if _, err := r.f.ReadAt(buf, off); err != nil {
		return nil, x.fail(err)
	}
	body := buf[:entries*entrySize]
	if crc32.Checksum(body, castagnoli) != binary.BigEndian.Uint32(buf[len(body):]) {
		r.damaged.Store(true)
		return nil, x.fail(fmt.Errorf("%s: block %d does not match its checksum (the run is removed and its entries indexed again at the writer's next Repair)", r.path, b))
	}
	return body, nil
}

// search is the value of h in r, if r holds it.
func (x *Index) search(r *run, h [32]byte, buf []byte) (uint64, bool, error) {
	key := binary.BigEndian.Uint64(h[:8])
	// Entries of h are in the blocks from the last one starting before
	// key through the last one starting at key.
	from := max(sort.Search(len(r.fences), func(i int) bool { return r.fences[i] >= key })-1, 0)
	to := sort.Search(len(r.fences), func(i int) bool { return r.fences[i] > key })
	for b := from; b < to; b++ {
		body, err := x.readBlock(r, b, buf)
		if err != nil {
			return 0, false, err
		}
		n := len(body) / entrySize
		i := sort.Search(n, func(i int) bool { return bytes.Compare(body[i*entrySize:i*entrySize+hashSize], h[:]) >= 0 })
		if i < n && bytes.Equal(body[i*entrySize:i*entrySize+hashSize], h[:]) {
			return binary.BigEndian.Uint64(body[i*entrySize+hashSize:]), true, nil
		}
	}
	return 0, false, nil
}

// Next is the end of the range the runs tile: the first position of the
// sequence not indexed.
func (x *Index) Next() (uint64, error) {
	x.rmu.RLock()
	defer x.rmu.RUnlock()
	if x.closed {
		return 0, x.closedErr()
	}
	if len(x.runs) == 0 {
		return 0, nil
	}
	return x.runs[len(x.runs)-1].end, nil
}

// Add indexes the entries of the positions [first, end) of the sequence
// (first is Next()) in one run, durably: entries in any order, each value
// in [first, end), not every position holding one. A hash added more than
// once keeps its first value (Latest: its last). A range without entries
// is written as a run of none, so that the runs go on tiling the sequence;
// an empty range adds nothing.
func (x *Index) Add(first, end uint64, entries []Entry) error {
	if first == end && len(entries) == 0 {
		return nil
	}
	if next, err := x.Next(); err != nil {
		return err
	} else if first != next {
		return x.fail(fmt.Errorf("entries from %d added, the index is at %d", first, next))
	}
	if end <= first {
		return x.fail(fmt.Errorf("entries of the range [%d, %d) added", first, end))
	}
	es := slices.Clone(entries)
	for _, e := range es {
		if e.Value < first || e.Value >= end {
			return x.fail(fmt.Errorf("an entry of value %d added in the range [%d, %d)", e.Value, first, end))
		}
	}
	slices.SortFunc(es, x.compare)
	es = slices.CompactFunc(es, func(a, b Entry) bool { return a.Hash == b.Hash })
	r, err := x.writeRun(first, end, uint64(len(es)), yieldAll(es))
	if err != nil {
		return err
	}
	x.rmu.Lock()
	defer x.rmu.Unlock()
	if x.closed {
		// The run stays on disk: the next open keeps it.
		r.f.Close()
		return x.closedErr()
	}
	x.runs = append(x.runs, r)
	return nil
}

// yieldAll is writeRun's each for es, in order.
func yieldAll(es []Entry) func(yield func(Entry) error) error {
	return func(yield func(Entry) error) error {
		for _, e := range es {
			if err := yield(e); err != nil {
				return err
			}
		}
		return nil
	}
}

// writeRun writes the run [first, end) of the entries each yields, in
// order, durably (a temporary file synced, renamed, its directory synced),
// and keeps it open.
// With Options.Filter it builds the run's filter as it writes, for at
// most hint entries.
func (x *Index) writeRun(first, end, hint uint64, each func(yield func(Entry) error) error) (_ *run, err error) {
	path := filepath.Join(x.dir, runName(first, end))
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, x.fail(err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	w := bufio.NewWriterSize(f, 1<<16)
	var (
		n      uint64
		fences []byte
		block  = make([]byte, 0, blockEntries*entrySize)
		filter *filter
	)
	if x.opt.Filter {
		filter = newFilter(hint)
	}
	flush := func() error {
		if len(block) == 0 {
			return nil
		}
		fences = append(fences, block[:8]...)
		w.Write(block)
		_, err := w.Write(binary.BigEndian.AppendUint32(nil, crc32.Checksum(block, castagnoli)))
		block = block[:0]
		if err != nil {
			return x.fail(err)
		}
		return nil
	}
	err = each(func(e Entry) error {
		if filter != nil {
			filter.add(&e.Hash)
		}
		block = append(block, e.Hash[:]...)
		block = binary.BigEndian.AppendUint64(block, e.Value)
		n++
		if len(block) == cap(block) {
			return flush()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := flush(); err != nil {
		return nil, err
	}
	w.Write(fences)
	t := append([]byte(runMagic), make([]byte, runTrailer-len(runMagic))...)
	binary.BigEndian.PutUint64(t[8:], n)
	binary.BigEndian.PutUint64(t[16:], first)
	binary.BigEndian.PutUint64(t[24:], end)
	binary.BigEndian.PutUint32(t[32:], crc32.Checksum(fences, castagnoli))
	binary.BigEndian.PutUint32(t[36:], crc32.Checksum(t[:36], castagnoli))
	w.Write(t)
	if err := w.Flush(); err != nil {
		return nil, x.fail(err)
	}
	if err := f.Sync(); err != nil {
		return nil, x.fail(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, x.fail(err)
	}
	if err := atomicfile.SyncDir(x.dir); err != nil {
		return nil, x.fail(err)
	}
	// The run as written (its file is not read back for it).
	r := newRun(first, end, n, fences)
	r.f, r.path = f, path
	if filter != nil {
		r.filter.Store(filter)
	}
	x.written.Add(n)
	return r, nil
}

// Compact merges runs until each is more than twice the size (in positions
// covered) of the next: from the newest pair where the older is at most
// twice the newer, with each run before while it is at most twice the
// size of those merged, all in one merge (mergeable). Merged two by two, a
// long catch-up's runs of a batch each wrote an entry again at each step
// (s+s, 2s+s, …). Lookups go on meanwhile; Add may append runs. A merge
// stops when ctx is done (the caller closing), its inputs kept, and
// returns ctx's error.
func (x *Index) Compact(ctx context.Context) error {
	x.cmu.Lock()
	defer x.cmu.Unlock()
	for {
		x.rmu.RLock()
		rs := x.mergeable()
		x.rmu.RUnlock()
		if rs == nil {
			return nil
		}
		if err := x.merge(ctx, rs); err != nil {
			return err
		}
	}
}

// mergeable is the adjacent runs Compact merges next, oldest first, or nil.
// The caller holds rmu.
func (x *Index) mergeable() []*run {
	size := func(r *run) uint64 { return r.end - r.first }
	for i := len(x.runs) - 1; i >= 1; i-- {
		if size(x.runs[i-1]) > 2*size(x.runs[i]) {
			continue
		}
		j, sum := i-1, size(x.runs[i-1])+size(x.runs[i])
		for j > 0 && size(x.runs[j-1]) <= 2*sum {
			j--
			sum += size(x.runs[j])
		}
		return slices.Clone(x.runs[j : i+1])
	}
	return nil
}

// merge replaces the adjacent runs rs (oldest first) with one run.
func (x *Index) merge(ctx context.Context, rs []*run) error {
	var hint uint64
	for _, r := range rs {
		hint += r.n
	}
	m, err := x.writeRun(rs[0].first, rs[len(rs)-1].end, hint, x.mergeRuns(ctx, rs))
	if err != nil {
		return err
	}
	x.rmu.Lock()
	if x.closed {
		x.rmu.Unlock()
		// The merged run stays on disk: the next open keeps it and
		// removes its inputs.
		m.f.Close()
		return x.closedErr()
	}
	i := slices.Index(x.runs, rs[0])
	x.runs = slices.Replace(x.runs, i, i+len(rs), m)
	x.rmu.Unlock()
	// No lookup reads rs any more (they held rmu while they did).
	for _, r := range rs {
		r.f.Close()
		if err := os.Remove(r.path); err != nil {
			return x.fail(err)
		}
	}
	return nil
}

// mergeRuns is writeRun's each for the entries of the adjacent runs rs in
// hash order, those opt.Keep rejects dropped, each hash once with the
// value it keeps: entries compare by hash then value (compare), so that
// of equal hashes the one kept comes first. It stops when ctx is done.
func (x *Index) mergeRuns(ctx context.Context, rs []*run) func(yield func(Entry) error) error {
	return func(yield func(Entry) error) error {
		h := runHeap{x: x, rs: make([]*runReader, 0, len(rs))}
		for _, r := range rs {
			rr := &runReader{x: x, r: r, buf: make([]byte, blockSize)}
			if err := rr.advance(); err != nil {
				return err
			}
			if rr.ok {
				h.rs = append(h.rs, rr)
			}
		}
		heap.Init(&h)
		var (
			last    [32]byte
			written bool
		)
		for n := 0; len(h.rs) > 0; n++ {
			rr := h.rs[0]
			e := rr.head
			if err := rr.advance(); err != nil {
				return err
			}
			if rr.ok {
				heap.Fix(&h, 0)
			} else {
				heap.Pop(&h)
			}
			if n%4096 == 4095 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if x.opt.Keep != nil && !x.opt.Keep(e.Value) {
				continue
			}
			if written && e.Hash == last {
				continue // another value of a hash written
			}
			last, written = e.Hash, true
			if err := yield(e); err != nil {
				return err
			}
		}
		return nil
	}
}

// runReader reads a run's entries in order, checking each block.
type runReader struct {
	x    *Index
	r    *run
	b    int // the next block
	body []byte
	buf  []byte
	head Entry // the entry read, if ok
	ok   bool  // false once the entries are all read
}

// advance reads the next entry into head.
func (rr *runReader) advance() error {
	if len(rr.body) == 0 {
		if rr.b == len(rr.r.fences) {
			rr.ok = false
			return nil
		}
		body, err := rr.x.readBlock(rr.r, rr.b, rr.buf)
		if err != nil {
			return err
		}
		rr.body = body
		rr.b++
	}
	copy(rr.head.Hash[:], rr.body)
	rr.head.Value = binary.BigEndian.Uint64(rr.body[hashSize:])
	rr.body = rr.body[entrySize:]
	rr.ok = true
	return nil
}

// runHeap is a container/heap of run readers, the least head (compare)
// first.
type runHeap struct {
	x  *Index
	rs []*runReader
}

func (h runHeap) Len() int           { return len(h.rs) }
func (h runHeap) Less(i, j int) bool { return h.x.compare(h.rs[i].head, h.rs[j].head) < 0 }
func (h runHeap) Swap(i, j int)      { h.rs[i], h.rs[j] = h.rs[j], h.rs[i] }
func (h *runHeap) Push(rr any)       { h.rs = append(h.rs, rr.(*runReader)) }
func (h *runHeap) Pop() any {
	old := h.rs
	rr := old[len(old)-1]
	h.rs = old[:len(old)-1]
	return rr
}

// Lookup is the value of hash h, if indexed: its first (Latest: its last).
// Lookups run beside Add and Compact.
func (x *Index) Lookup(h [32]byte) (uint64, bool, error) {
	x.rmu.RLock()
	defer x.rmu.RUnlock()
	if x.closed {
		return 0, false, x.closedErr()
	}
	var buf []byte // made when a block is read (a filter may spare it)
	// The oldest run holding h has its first value; the newest, its
	// last.
	for i := range x.runs {
		r := x.runs[i]
		if x.opt.Latest {
			r = x.runs[len(x.runs)-1-i]
		}
		if f := r.filter.Load(); f != nil && !f.has(&h) {
			continue
		}
		if buf == nil {
			buf = make([]byte, blockSize)
		}
		v, ok, err := x.search(r, h, buf)
		if err != nil || ok {
			return v, ok, err
		}
	}
	return 0, false, nil
}

// Repair removes the first run a read found damaged (a block that did not
// match its checksum) and every run after it, so that the caller adds
// their entries again from Next. It returns the removed run's path and
// first position, if any. One writer's (as Add); it waits for a merge under
// way (a merge reading the damaged run fails, and would otherwise be
// retried on it for ever), but only when a run was found damaged.
func (x *Index) Repair() (path string, first uint64, err error) {
	// Most catch-ups find nothing damaged, and must not wait for a merge
	// (cmu) to find out: the lookups that follow them would wait too.
	x.rmu.RLock()
	damaged := slices.ContainsFunc(x.runs, func(r *run) bool { return r.damaged.Load() })
	x.rmu.RUnlock()
	if !damaged {
		return "", 0, nil
	}
	x.cmu.Lock()
	defer x.cmu.Unlock()
	x.rmu.Lock()
	defer x.rmu.Unlock()
	i := slices.IndexFunc(x.runs, func(r *run) bool { return r.damaged.Load() })
	if i < 0 || x.closed {
		return "", 0, nil
	}
	path, first = x.runs[i].path, x.runs[i].first
	return path, first, x.drop(i)
}

// Reset removes every run, so that the caller adds every entry again from
// 0 (the index was found to index something else). One writer's (as Add);
// it waits for a merge under way.
func (x *Index) Reset() error {
	x.cmu.Lock()
	defer x.cmu.Unlock()
	x.rmu.Lock()
	defer x.rmu.Unlock()
	if x.closed {
		return x.closedErr()
	}
	return x.drop(0)
}

// drop closes and removes the runs from the i-th on; they are no longer
// among the runs even when a file could not be removed (the next Open may
// keep it: the caller checks there what the index covers, as tilelog's
// matchIndex does). The caller holds cmu and rmu.
func (x *Index) drop(i int) error {
	var err error
	for _, r := range x.runs[i:] {
		r.f.Close()
		if rerr := os.Remove(r.path); rerr != nil && err == nil {
			err = x.fail(rerr)
		}
	}
	x.runs = x.runs[:i]
	return err
}

// Count is the number of runs (0 once closed).
func (x *Index) Count() int {
	x.rmu.RLock()
	defer x.rmu.RUnlock()
	return len(x.runs)
}

// Close closes the runs' files; any later use of the index is refused
// (Options.Closed).
func (x *Index) Close() error {
	if x.stop != nil {
		x.stop()
		<-x.built
	}
	x.rmu.Lock()
	defer x.rmu.Unlock()
	var errs []error
	for _, r := range x.runs {
		errs = append(errs, r.f.Close())
	}
	x.runs, x.closed = nil, true
	return errors.Join(errs...)
}
