package hashindex

import (
	"context"
	"encoding/binary"
)

// A filter is a Bloom filter of a run's hashes (Options.Filter), held in
// memory: a lookup reads a run's block only when the run's filter may hold
// the hash, so a hash the index does not hold (a new request's, the
// common case) costs no read of the file. It is blocked: all the probes of
// a hash fall in one 512-bit block (one cache line), so a lookup costs one
// miss of the CPU's cache a run rather than one a probe. filterBits bits
// an entry and filterProbes probes let about 1 % of the hashes a run
// does not hold pass (0.99 % in TestFilter). The
// hashes are SHA-256 outputs: two of their 64-bit words give the block and
// the probes, no hash is computed.
type filter struct {
	bits []uint64 // blocks of 8 words
}

const (
	filterBits   = 10
	filterProbes = 7
)

// newFilter is an empty filter for up to n hashes.
func newFilter(n uint64) *filter {
	return &filter{bits: make([]uint64, 8*((max(n, 1)*filterBits+511)/512))}
}

// probe calls fn with each bit of h, while fn returns true.
func (f *filter) probe(h *[32]byte, fn func(word int, mask uint64) bool) bool {
	block := int(binary.LittleEndian.Uint64(h[8:])%uint64(len(f.bits)/8)) * 8
	bits := binary.LittleEndian.Uint64(h[16:])
	for range filterProbes {
		b := bits & 511
		bits >>= 9
		if !fn(block+int(b/64), 1<<(b%64)) {
			return false
		}
	}
	return true
}

func (f *filter) add(h *[32]byte) {
	f.probe(h, func(w int, mask uint64) bool { f.bits[w] |= mask; return true })
}

// has reports whether h may be in the filter: false means it is not.
func (f *filter) has(h *[32]byte) bool {
	return f.probe(h, func(w int, mask uint64) bool { return f.bits[w]&mask != 0 })
}

// buildFilters reads the runs rs, opened without a filter, and gives each
// one its filter, until ctx is done (Close). A run it cannot read (removed
// by a merge meanwhile, or damaged: readBlock marks it) keeps none: its
// lookups read its blocks.
func (x *Index) buildFilters(ctx context.Context, rs []*run) {
	defer close(x.built)
	buf := make([]byte, blockSize)
	for _, r := range rs {
		f := newFilter(r.n)
		rr := &runReader{x: x, r: r, buf: buf}
		var err error
		for n := 0; ; n++ {
			if n%4096 == 0 && ctx.Err() != nil {
				return
			}
			if err = rr.advance(); err != nil || !rr.ok {
				break
			}
			f.add(&rr.head.Hash)
		}
		if err == nil {
			r.filter.Store(f)
		}
	}
}
