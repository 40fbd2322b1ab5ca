package tilelog

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

	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/atomicfile"
)

// The leaf hash index maps each leaf's RFC 6962 hash to the first index it
// was appended at, for InclusionProofByHash. It is derived data, rebuilt
// from the tree when lost, and not authoritative: InclusionProofByHash
// checks the tree holds the hash at the index it names.
//
// It is a set of immutable sorted runs in the directory leafIndexDir, each
// covering a range of leaves [first, end) and named after it; together they
// tile [0, next). Each catch-up writes one run for its new leaves, and runs
// are then merged from the newest while the one before is at most twice as
// large (compact; those a step merges, in one pass), so there are at most
// about log2(leaves) runs and a leaf is rewritten at most about
// log2(leaves / batch) times, in sequential writes. The
// B+tree this replaced (bbolt, keys in hash order) rewrote a page of 4 KiB
// for nearly every leaf once the index no longer fitted in a few pages: its
// CPU per leaf grew from 2 µs on an empty log to 20 µs at 400,000 leaves,
// and went on growing with the log.
//
// A run file is blocks of up to blockEntries entries (a 32-byte leaf hash
// then the leaf's index, 8 bytes big-endian, sorted by hash, one entry per
// hash: its first index), each followed by the CRC-32C of its entries; then
// the fences, the first 8 bytes of each block's first hash; then a trailer
// (runTrailer). A lookup reads the fences at open, then one block of each
// run.
const (
	leafIndexDir = "leafhash"
	// oldLeafIndexFile is the index before runs (a bbolt B+tree): Open
	// removes it, and the index is rebuilt from the tree.
	oldLeafIndexFile = "leafhash.db"

	entrySize    = tlog.HashSize + 8
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

// leafIndex is the set of runs.
type leafIndex struct {
	mu  sync.Mutex // serialises catch-up (add)
	cmu sync.Mutex // serialises compact
	dir string
	// matched is set, under mu, once the runs opened were found to index
	// the tree beside them, or removed (matchIndex, at the first catch-up
	// after open).
	matched bool

	rmu  sync.RWMutex // runs and closed; a lookup holds it for reading while it reads their files
	runs []*run       // ordered by first, tiling [0, next)
	// closed is set by close: lookups, adds and merges are refused
	// (errIndexClosed), since InclusionProofByHash, its catch-up and its
	// merges may still be under way when the log closes.
	closed bool

	written atomic.Uint64 // entries written in runs, all told (tests)
}

// errIndexClosed is a use of the index after close: never "not found".
var errIndexClosed = fmt.Errorf("tilelog: %w: leaf index closed", transparency.ErrClosed)

// run is one open run file.
type run struct {
	first, end uint64
	n          uint64   // entries
	fences     []uint64 // per block
	f          *os.File
	path       string
	// damaged is set when a block did not match its checksum: repair
	// removes the run, and those after it, at the next catch-up.
	damaged atomic.Bool
}

type indexEntry struct {
	h   tlog.Hash
	idx uint64
}

func compareEntries(a, b indexEntry) int {
	if c := bytes.Compare(a.h[:], b.h[:]); c != 0 {
		return c
	}
	return cmp.Compare(a.idx, b.idx)
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

func indexErr(format string, args ...any) error {
	return fmt.Errorf("tilelog: %w: leaf index: %w", transparency.ErrUnavailable, fmt.Errorf(format, args...))
}

// openLeafIndex opens the runs in dir (creating it) that tile the longest
// prefix [0, next) of the log, from the run covering most leaves at each
// step (a merge's inputs outlive it only until it is durable). The other
// run files (a merge's inputs, a run after a gap or a damaged run, left by a
// crash) and unfinished ones are removed: their leaves are indexed again.
func openLeafIndex(dir string) (*leafIndex, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, indexErr("%w", err)
	}
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, indexErr("%w", err)
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
	x := &leafIndex{dir: dir}
	var next uint64
	for _, c := range cands {
		name := runName(c.first, c.end)
		if c.first != next {
			drop = append(drop, name)
			continue
		}
		r, err := openRun(filepath.Join(dir, name), c.first, c.end)
		if errors.Is(err, errDamagedRun) {
			// A smaller run from the same leaf (a merge's input) may
			// stand in; if none, the runs after it are after a gap.
			drop = append(drop, name)
			continue
		}
		if err != nil {
			x.close()
			return nil, err
		}
		x.runs = append(x.runs, r)
		next = c.end
	}
	for _, name := range drop {
		if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
			x.close()
			return nil, indexErr("%w", err)
		}
	}
	return x, nil
}

var errDamagedRun = errors.New("damaged run")

// openRun opens a run file and reads its fences. A file whose trailer or
// fences do not check is errDamagedRun.
func openRun(path string, first, end uint64) (*run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, indexErr("%w", err)
	}
	r, err := readRun(f, first, end)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.f, r.path = f, path
	return r, nil
}

func readRun(f *os.File, first, end uint64) (*run, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, indexErr("%w", err)
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
		return nil, indexErr("%w", err)
	}
	if string(t[:8]) != runMagic || crc32.Checksum(t[:runTrailer-4], castagnoli) != binary.BigEndian.Uint32(t[runTrailer-4:]) {
		return nil, damaged("bad trailer")
	}
	n := binary.BigEndian.Uint64(t[8:])
	if binary.BigEndian.Uint64(t[16:]) != first || binary.BigEndian.Uint64(t[24:]) != end || n == 0 || n > end-first {
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
		return nil, indexErr("%w", err)
	}
	if crc32.Checksum(fb, castagnoli) != binary.BigEndian.Uint32(t[32:]) {
		return nil, damaged("bad fences")
	}
	r := &run{first: first, end: end, n: n, fences: make([]uint64, blocks)}
	for i := range r.fences {
		r.fences[i] = binary.BigEndian.Uint64(fb[8*i:])
	}
	return r, nil
}

// blockAt is the offset and the number of entries of block b.
func (r *run) blockAt(b int) (off int64, entries int) {
	entries = int(min(blockEntries, r.n-uint64(b)*blockEntries))
	return int64(b) * blockSize, entries
}

// readBlock reads block b into buf and checks it.
func (r *run) readBlock(b int, buf []byte) ([]byte, error) {
	off, entries := r.blockAt(b)
	buf = buf[:entries*entrySize+4]
	if _, err := r.f.ReadAt(buf, off); err != nil {
		return nil, indexErr("%w", err)
	}
	body := buf[:entries*entrySize]
	if crc32.Checksum(body, castagnoli) != binary.BigEndian.Uint32(buf[len(body):]) {
		r.damaged.Store(true)
		return nil, indexErr("%s: block %d does not match its checksum (the run is removed and its leaves indexed again at the next catch-up)", r.path, b)
	}
	return body, nil
}

// search is the index of h in r, if r holds it.
func (r *run) search(h tlog.Hash, buf []byte) (uint64, bool, error) {
	key := binary.BigEndian.Uint64(h[:8])
	// Entries of h are in the blocks from the last one starting before
	// key through the last one starting at key.
	from := max(sort.Search(len(r.fences), func(i int) bool { return r.fences[i] >= key })-1, 0)
	to := sort.Search(len(r.fences), func(i int) bool { return r.fences[i] > key })
	for b := from; b < to; b++ {
		body, err := r.readBlock(b, buf)
		if err != nil {
			return 0, false, err
		}
		n := len(body) / entrySize
		i := sort.Search(n, func(i int) bool { return bytes.Compare(body[i*entrySize:i*entrySize+tlog.HashSize], h[:]) >= 0 })
		if i < n && bytes.Equal(body[i*entrySize:i*entrySize+tlog.HashSize], h[:]) {
			return binary.BigEndian.Uint64(body[i*entrySize+tlog.HashSize:]), true, nil
		}
	}
	return 0, false, nil
}

// next is the first leaf not indexed.
func (x *leafIndex) next() (uint64, error) {
	x.rmu.RLock()
	defer x.rmu.RUnlock()
	if x.closed {
		return 0, errIndexClosed
	}
	if len(x.runs) == 0 {
		return 0, nil
	}
	return x.runs[len(x.runs)-1].end, nil
}

// add indexes entries, the leaves first, first+1, … (first is next()): each
// hash keeps the first index it was seen at.
func (x *leafIndex) add(first uint64, entries [][]byte) error {
	if len(entries) == 0 {
		return nil
	}
	if next, err := x.next(); err != nil {
		return err
	} else if first != next {
		return indexErr("leaves from %d added, the index is at %d", first, next)
	}
	es := make([]indexEntry, len(entries))
	for i, e := range entries {
		es[i] = indexEntry{tlog.RecordHash(e), first + uint64(i)}
	}
	slices.SortFunc(es, compareEntries)
	es = slices.CompactFunc(es, func(a, b indexEntry) bool { return a.h == b.h })
	r, err := x.writeRun(first, first+uint64(len(entries)), yieldAll(es))
	if err != nil {
		return err
	}
	x.rmu.Lock()
	defer x.rmu.Unlock()
	if x.closed {
		// The run stays on disk: the next open keeps it.
		r.f.Close()
		return errIndexClosed
	}
	x.runs = append(x.runs, r)
	return nil
}

// yieldAll is writeRun's each for es, in order.
func yieldAll(es []indexEntry) func(yield func(indexEntry) error) error {
	return func(yield func(indexEntry) error) error {
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
// and opens it.
func (x *leafIndex) writeRun(first, end uint64, each func(yield func(indexEntry) error) error) (_ *run, err error) {
	path := filepath.Join(x.dir, runName(first, end))
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, indexErr("%w", err)
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
	)
	flush := func() error {
		if len(block) == 0 {
			return nil
		}
		fences = append(fences, block[:8]...)
		w.Write(block)
		_, err := w.Write(binary.BigEndian.AppendUint32(nil, crc32.Checksum(block, castagnoli)))
		block = block[:0]
		if err != nil {
			return indexErr("%w", err)
		}
		return nil
	}
	err = each(func(e indexEntry) error {
		block = append(block, e.h[:]...)
		block = binary.BigEndian.AppendUint64(block, e.idx)
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
		return nil, indexErr("%w", err)
	}
	if err := f.Sync(); err != nil {
		return nil, indexErr("%w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, indexErr("%w", err)
	}
	if err := atomicfile.SyncDir(x.dir); err != nil {
		return nil, indexErr("%w", err)
	}
	r, err := readRun(f, first, end)
	if err != nil {
		return nil, err
	}
	r.f, r.path = f, path
	x.written.Add(n)
	return r, nil
}

// compact merges runs until each is more than twice the size (in leaves
// covered) of the next: from the newest pair where the older is at most
// twice the newer, with each run before while it is at most twice the
// size of those merged, all in one merge (mergeable). Merged two by two, a
// long catch-up's runs of a batch each (maxRuns of them) wrote a leaf
// again at each step (s+s, 2s+s, …). Lookups go on meanwhile; add may
// append runs. A merge stops when ctx is done (the log closing), its
// inputs kept.
func (x *leafIndex) compact(ctx context.Context) error {
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

// mergeable is the adjacent runs compact merges next, oldest first, or nil.
// The caller holds rmu.
func (x *leafIndex) mergeable() []*run {
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
func (x *leafIndex) merge(ctx context.Context, rs []*run) error {
	m, err := x.writeRun(rs[0].first, rs[len(rs)-1].end, mergeRuns(ctx, rs))
	if err != nil {
		return err
	}
	x.rmu.Lock()
	if x.closed {
		x.rmu.Unlock()
		// The merged run stays on disk: the next open keeps it and
		// removes its inputs.
		m.f.Close()
		return errIndexClosed
	}
	i := slices.Index(x.runs, rs[0])
	x.runs = slices.Replace(x.runs, i, i+len(rs), m)
	x.rmu.Unlock()
	// No lookup reads rs any more (they held rmu while they did).
	for _, r := range rs {
		r.f.Close()
		if err := os.Remove(r.path); err != nil {
			return indexErr("%w", err)
		}
	}
	return nil
}

// mergeRuns is writeRun's each for the entries of the adjacent runs rs in
// hash order, each hash once with its first index: entries compare by hash
// then index, and of equal hashes the oldest run's comes first. It stops
// when ctx is done.
func mergeRuns(ctx context.Context, rs []*run) func(yield func(indexEntry) error) error {
	return func(yield func(indexEntry) error) error {
		h := make(runHeap, 0, len(rs))
		for _, r := range rs {
			rr := &runReader{r: r, buf: make([]byte, blockSize)}
			if err := rr.advance(); err != nil {
				return err
			}
			if rr.ok {
				h = append(h, rr)
			}
		}
		heap.Init(&h)
		var last tlog.Hash
		for n := 0; len(h) > 0; n++ {
			rr := h[0]
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
			if n > 0 && e.h == last {
				continue // a later index of a hash written
			}
			last = e.h
			if err := yield(e); err != nil {
				return err
			}
		}
		return nil
	}
}

// runReader reads a run's entries in order, checking each block.
type runReader struct {
	r    *run
	b    int // the next block
	body []byte
	buf  []byte
	head indexEntry // the entry read, if ok
	ok   bool       // false once the entries are all read
}

// advance reads the next entry into head.
func (rr *runReader) advance() error {
	if len(rr.body) == 0 {
		if rr.b == len(rr.r.fences) {
			rr.ok = false
			return nil
		}
		body, err := rr.r.readBlock(rr.b, rr.buf)
		if err != nil {
			return err
		}
		rr.body = body
		rr.b++
	}
	copy(rr.head.h[:], rr.body)
	rr.head.idx = binary.BigEndian.Uint64(rr.body[tlog.HashSize:])
	rr.body = rr.body[entrySize:]
	rr.ok = true
	return nil
}

// runHeap is a container/heap of run readers, the least head first.
type runHeap []*runReader

func (h runHeap) Len() int           { return len(h) }
func (h runHeap) Less(i, j int) bool { return compareEntries(h[i].head, h[j].head) < 0 }
func (h runHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(rr any)       { *h = append(*h, rr.(*runReader)) }
func (h *runHeap) Pop() any {
	old := *h
	rr := old[len(old)-1]
	*h = old[:len(old)-1]
	return rr
}

// lookup is the first index of the leaf of hash h, if indexed.
func (x *leafIndex) lookup(h tlog.Hash) (uint64, bool, error) {
	x.rmu.RLock()
	defer x.rmu.RUnlock()
	if x.closed {
		return 0, false, errIndexClosed
	}
	buf := make([]byte, blockSize)
	// The oldest run holding h has its first index.
	for _, r := range x.runs {
		idx, ok, err := r.search(h, buf)
		if err != nil || ok {
			return idx, ok, err
		}
	}
	return 0, false, nil
}

// repair removes the first run a read found damaged and every run after
// it, so that the catch-up indexes their leaves again from the tree. It
// returns the removed run's path and first leaf, if any. Under mu (a
// catch-up's); it waits for a merge under way (a merge reading the damaged
// run fails, and would otherwise be retried on it for ever).
func (x *leafIndex) repair() (path string, first uint64, err error) {
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

// reset removes every run, so that the catch-up indexes the whole tree
// again: they index another tree (matchIndex). Under mu; it waits for a
// merge under way.
func (x *leafIndex) reset() error {
	x.cmu.Lock()
	defer x.cmu.Unlock()
	x.rmu.Lock()
	defer x.rmu.Unlock()
	if x.closed {
		return errIndexClosed
	}
	return x.drop(0)
}

// drop closes and removes the runs from the i-th on; they are no longer
// among the runs even when a file could not be removed (matchIndex checks
// the runs again at the next open). The caller holds cmu and rmu.
func (x *leafIndex) drop(i int) error {
	var err error
	for _, r := range x.runs[i:] {
		r.f.Close()
		if rerr := os.Remove(r.path); rerr != nil && err == nil {
			err = indexErr("%w", rerr)
		}
	}
	x.runs = x.runs[:i]
	return err
}

// count is the number of runs.
func (x *leafIndex) count() int {
	x.rmu.RLock()
	defer x.rmu.RUnlock()
	return len(x.runs)
}

// close closes the runs' files; any later use of the index is refused
// (errIndexClosed).
func (x *leafIndex) close() error {
	x.rmu.Lock()
	defer x.rmu.Unlock()
	var errs []error
	for _, r := range x.runs {
		errs = append(errs, r.f.Close())
	}
	x.runs, x.closed = nil, true
	return errors.Join(errs...)
}
