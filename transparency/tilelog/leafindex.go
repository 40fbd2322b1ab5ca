package tilelog

import (
	"bufio"
	"bytes"
	"cmp"
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
// large (compact), so there are at most about log2(leaves) runs and a leaf
// is rewritten about log2(leaves / batch) times, in sequential writes. The
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
	blockEntries = 102 // a block and its checksum: 4,084 bytes
	runMagic     = "TLIXRUN1"
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

	rmu  sync.RWMutex // runs and closed; a lookup holds it for reading while it reads their files
	runs []*run       // ordered by first, tiling [0, next)
	// closed is set by close: lookups, adds and merges are refused
	// (errIndexClosed), since InclusionProofByHash, its catch-up and its
	// merges may still be under way when the log closes.
	closed bool
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
	return int64(b) * (blockEntries*entrySize + 4), entries
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
		return nil, indexErr("%s: block %d does not match its checksum (delete %s while the log is closed: it is rebuilt from the tree)", r.path, b, filepath.Dir(r.path))
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
		return err
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
		return nil, indexErr("%w", err)
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
	return r, nil
}

// compact merges the newest two runs while the older is at most twice the
// size of the newer (in leaves covered). Lookups go on meanwhile; add may
// append runs. A merge stops when ctx is done (the log closing), its
// inputs kept.
func (x *leafIndex) compact(ctx context.Context) error {
	x.cmu.Lock()
	defer x.cmu.Unlock()
	for {
		x.rmu.RLock()
		var a, b *run
		for i := len(x.runs) - 1; i >= 1; i-- {
			if p, q := x.runs[i-1], x.runs[i]; p.end-p.first <= 2*(q.end-q.first) {
				a, b = p, q
				break
			}
		}
		x.rmu.RUnlock()
		if a == nil {
			return nil
		}
		if err := x.merge(ctx, a, b); err != nil {
			return err
		}
	}
}

// merge replaces the adjacent runs a and b with one run.
func (x *leafIndex) merge(ctx context.Context, a, b *run) error {
	m, err := x.writeRun(a.first, b.end, func(yield func(indexEntry) error) error {
		ra, rb := newRunReader(a), newRunReader(b)
		ea, oka, err := ra.next()
		if err != nil {
			return err
		}
		eb, okb, err := rb.next()
		if err != nil {
			return err
		}
		var n int
		for oka || okb {
			c := 1 // take b's
			if oka && okb {
				c = bytes.Compare(ea.h[:], eb.h[:])
			} else if oka {
				c = -1
			}
			e := ea
			switch {
			case c < 0:
				ea, oka, err = ra.next()
			case c > 0:
				e = eb
				eb, okb, err = rb.next()
			default: // the same leaf in both: a's index is the first
				if eb, okb, err = rb.next(); err == nil {
					ea, oka, err = ra.next()
				}
			}
			if n++; err == nil && n%4096 == 0 {
				err = ctx.Err()
			}
			if err != nil {
				return err
			}
			if err := yield(e); err != nil {
				return err
			}
		}
		return nil
	})
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
	i := slices.Index(x.runs, a)
	x.runs = slices.Replace(x.runs, i, i+2, m)
	x.rmu.Unlock()
	// No lookup reads a or b any more (they held rmu while they did).
	for _, r := range []*run{a, b} {
		r.f.Close()
		if err := os.Remove(r.path); err != nil {
			return indexErr("%w", err)
		}
	}
	return nil
}

// runReader reads a run's entries in order, checking each block.
type runReader struct {
	r    *run
	b    int // the next block
	body []byte
	buf  []byte
}

func newRunReader(r *run) *runReader {
	return &runReader{r: r, buf: make([]byte, blockEntries*entrySize+4)}
}

func (rr *runReader) next() (indexEntry, bool, error) {
	if len(rr.body) == 0 {
		if rr.b == len(rr.r.fences) {
			return indexEntry{}, false, nil
		}
		body, err := rr.r.readBlock(rr.b, rr.buf)
		if err != nil {
			return indexEntry{}, false, err
		}
		rr.body = body
		rr.b++
	}
	var e indexEntry
	copy(e.h[:], rr.body)
	e.idx = binary.BigEndian.Uint64(rr.body[tlog.HashSize:])
	rr.body = rr.body[entrySize:]
	return e, true, nil
}

// lookup is the first index of the leaf of hash h, if indexed.
func (x *leafIndex) lookup(h tlog.Hash) (uint64, bool, error) {
	x.rmu.RLock()
	defer x.rmu.RUnlock()
	if x.closed {
		return 0, false, errIndexClosed
	}
	buf := make([]byte, blockEntries*entrySize+4)
	// The oldest run holding h has its first index.
	for _, r := range x.runs {
		idx, ok, err := r.search(h, buf)
		if err != nil || ok {
			return idx, ok, err
		}
	}
	return 0, false, nil
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
