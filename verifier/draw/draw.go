// Package draw turns a VRF output β into outcomes, with no bias at all.
//
// # API
//
//	s := draw.NewStream(beta, "pick")   // one labelled stream per use of β
//	v, err := s.Uniform(n)              // uniform integer in [0, n)
//	ok, err := s.Bernoulli(p, q)        // true with probability exactly p/q
//	idx, err := s.RankedSample(k, n)    // k distinct indices of [0, n), in rank order
//
// A Stream derived from β never fails: errors come only from bad parameters
// (n = 0, p > q, k > n, …) or, for a stream built by FromReader, from the
// reader running dry.
//
// # The stream (version 1)
//
// The stream for label L (1 to 255 bytes) and VRF output β is the
// concatenation of the 32-byte blocks
//
//	block_i = SHA-256( "tirage/draw/v1" || u8(len(L)) || L || β || u64be(i) )   i = 0, 1, 2, …
//
// where "tirage/draw/v1" is the 14 ASCII bytes, u8 is one byte and u64be is
// eight bytes big-endian. Bytes are consumed in order and never reused. The
// label is length-prefixed and the counter has a fixed width, so distinct
// (L, β) pairs never share an input. In Python:
//
//	hashlib.sha256(b"tirage/draw/v1" + bytes([len(L)]) + L + beta + i.to_bytes(8, "big")).digest()
//
// # Uniform(n)
//
// Let w be the least number of bytes with 256^w ≥ n (w = 0 for n = 1: no
// byte is read and the result is 0), R = 256^w and limit = R − (R mod n), the
// largest multiple of n not above R.
//
//  1. Read w bytes; x is their big-endian value.
//  2. If x ≥ limit, reject x and go back to step 1 with the next w bytes.
//  3. Return x mod n.
//
// Each accepted x is uniform on [0, limit) and every residue class mod n
// holds exactly limit/n of those values, so the result is exactly uniform;
// a rejection happens with probability (R mod n)/R < 1/2.
//
// # Bernoulli(p, q)
//
// For 0 ≤ p ≤ q, q > 0: true if and only if Uniform(q) < p. The probability is
// exactly p/q; the fraction is used as given (3/44 and 6/88 are equally fair
// but read different bytes), so each use states the exact fraction it
// draws: Quitte ou Double draws q_t in lowest terms but a pick as 3/n as the
// rules state it, unreduced (3/30, not 1/10, for the first pick).
//
// # RankedSample(k, n)
//
// A partial Fisher–Yates shuffle of the identity permutation a = (0, 1, …, n−1):
// for i = 0 … k−1, j = i + Uniform(n − i), swap a[i] and a[j]. The result is
// a[0], …, a[k−1]: rank 1 first (winners, then reserves, in that order).
// Every ordered k-tuple of distinct indices comes out with probability exactly
// (n−k)!/n!. Memory is O(k): untouched positions are not stored.
package draw

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Domain is the domain-separation prefix of the version-1 stream.
const Domain = "tirage/draw/v1"

// Errors for bad parameters. They are the caller's bug: nothing was drawn.
var (
	// ErrLabel: the label is empty or longer than 255 bytes.
	ErrLabel = errors.New("draw: label must be 1 to 255 bytes")
	// ErrRange: the parameters of Uniform, Bernoulli or RankedSample are out of range.
	ErrRange = errors.New("draw: parameter out of range")
)

// Stream is a deterministic byte stream derived from β and a label, and the
// outcome mappings that consume it. A Stream is not safe for concurrent use;
// derive one per goroutine (it is cheap).
type Stream struct {
	// Exactly one of prefix (SHA-256 counter mode) or r (FromReader) is set.
	prefix []byte // Domain || u8(len(L)) || L || β
	ctr    uint64
	buf    [sha256.Size]byte
	off    int // next unread byte of buf; len(buf) when empty
	r      io.Reader
	err    error // sticky error of a FromReader stream
}

// NewStream returns the version-1 stream of β for label. It panics if the
// label is not 1 to 255 bytes: labels are constants of the calling code.
func NewStream(beta []byte, label string) *Stream {
	if len(label) == 0 || len(label) > 255 {
		panic(ErrLabel)
	}
	p := make([]byte, 0, len(Domain)+1+len(label)+len(beta)+8)
	p = append(p, Domain...)
	p = append(p, byte(len(label)))
	p = append(p, label...)
	p = append(p, beta...)
	return &Stream{prefix: p, off: sha256.Size}
}

// FromReader returns a stream whose bytes are read from r instead of being
// derived from β. It exists for exhaustive tests and simulations that need to
// drive the mappings with chosen bytes; production draws use NewStream.
// When r fails (io.EOF included) the mapping returns that error, wrapped.
func FromReader(r io.Reader) *Stream {
	return &Stream{r: r, off: sha256.Size}
}

// Read fills p with the next len(p) bytes of the stream. For a stream from
// NewStream it always returns len(p), nil.
func (s *Stream) Read(p []byte) (int, error) {
	if s.r != nil {
		if s.err != nil {
			return 0, s.err
		}
		n, err := io.ReadFull(s.r, p)
		if err != nil {
			s.err = fmt.Errorf("draw: stream source: %w", err)
			return n, s.err
		}
		return n, nil
	}
	n := 0
	for n < len(p) {
		if s.off == len(s.buf) {
			s.refill()
		}
		c := copy(p[n:], s.buf[s.off:])
		s.off += c
		n += c
	}
	return n, nil
}

// refill computes the next block: SHA-256(prefix || u64be(ctr)).
func (s *Stream) refill() {
	h := sha256.New()
	h.Write(s.prefix)
	var c [8]byte
	binary.BigEndian.PutUint64(c[:], s.ctr)
	h.Write(c[:])
	h.Sum(s.buf[:0])
	s.ctr++
	s.off = 0
}

// width returns w, the least number of bytes with 256^w ≥ n.
func width(n uint64) int {
	w := 0
	for m := n - 1; m > 0; m >>= 8 {
		w++
	}
	return w
}

// Uniform returns an integer uniformly distributed on [0, n), n ≥ 1, by
// rejection sampling (see the package documentation for the exact steps).
func (s *Stream) Uniform(n uint64) (uint64, error) {
	if n == 0 {
		return 0, fmt.Errorf("uniform over an empty range (n = 0): %w", ErrRange)
	}
	w := width(n)
	if w == 0 {
		return 0, nil
	}
	// rem = R mod n with R = 256^w; for w = 8, R = 2^64 overflows and
	// 2^64 mod n = (2^64 − n) mod n = (−n) mod n in uint64 arithmetic.
	var rem uint64
	if w == 8 {
		rem = -n % n
	} else {
		rem = (uint64(1) << (8 * w)) % n
	}
	var b [8]byte
	for {
		if _, err := s.Read(b[8-w:]); err != nil {
			return 0, err
		}
		x := binary.BigEndian.Uint64(b[:])
		// Accept x < R − rem. For w = 8 that is x ≤ 2^64−1−rem, written
		// so that it does not overflow.
		var ok bool
		if w == 8 {
			ok = x <= ^uint64(0)-rem || rem == 0
		} else {
			ok = x < (uint64(1)<<(8*w))-rem
		}
		if ok {
			return x % n, nil
		}
	}
}

// Bernoulli returns true with probability exactly p/q: Uniform(q) < p.
// It requires q > 0 and p ≤ q.
func (s *Stream) Bernoulli(p, q uint64) (bool, error) {
	if q == 0 || p > q {
		return false, fmt.Errorf("bernoulli %d/%d: need 0 ≤ p ≤ q and q > 0: %w", p, q, ErrRange)
	}
	x, err := s.Uniform(q)
	if err != nil {
		return false, err
	}
	return x < p, nil
}

// RankedSample returns k distinct indices of [0, n) in rank order, each
// ordered k-tuple being equally likely (partial Fisher–Yates; see the
// package documentation). It requires 0 ≤ k ≤ n.
func (s *Stream) RankedSample(k, n int) ([]int, error) {
	if k < 0 || n < 0 || k > n {
		return nil, fmt.Errorf("ranked sample of %d out of %d: need 0 ≤ k ≤ n: %w", k, n, ErrRange)
	}
	// moved[i] is a[i] for positions touched so far; absent means a[i] = i.
	moved := make(map[int]int, 2*k)
	at := func(i int) int {
		if v, ok := moved[i]; ok {
			return v
		}
		return i
	}
	out := make([]int, k)
	for i := 0; i < k; i++ {
		u, err := s.Uniform(uint64(n - i))
		if err != nil {
			return nil, err
		}
		j := i + int(u)
		ai, aj := at(i), at(j)
		out[i] = aj
		moved[j] = ai
		delete(moved, i) // position i is final and never read again
	}
	return out, nil
}
