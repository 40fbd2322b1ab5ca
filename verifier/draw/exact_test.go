package draw

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"
)

// enumerate runs op on every stream of up to maxLen bytes, depth first: a run
// that reads past its prefix is re-run once per value of the next byte. A
// run that completes after d bytes stands for all 256^(maxLen−d) streams
// sharing those d bytes, so the returned counts are exact: counts[o] is the
// number of maxLen-byte streams whose outcome is o, and undetermined the
// number that need more than maxLen bytes (rejections all along).
func enumerate(t *testing.T, maxLen int, op func(*Stream) (string, error)) (counts map[string]uint64, undetermined uint64) {
	t.Helper()
	counts = map[string]uint64{}
	var walk func(prefix []byte)
	walk = func(prefix []byte) {
		r := bytes.NewReader(prefix)
		out, err := op(FromReader(r))
		switch {
		case err == nil:
			if r.Len() != 0 {
				t.Fatalf("run completed without reading its whole prefix %x", prefix)
			}
			w := uint64(1)
			for range maxLen - len(prefix) {
				w *= 256
			}
			counts[out] += w
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			if len(prefix) == maxLen {
				undetermined++
				return
			}
			for b := range 256 {
				walk(append(prefix[:len(prefix):len(prefix)], byte(b)))
			}
		default:
			t.Fatalf("prefix %x: %v", prefix, err)
		}
	}
	walk(nil)
	var total uint64
	for _, c := range counts {
		total += c
	}
	if all := uint64(1) << (8 * maxLen); total+undetermined != all {
		t.Fatalf("enumeration covers %d + %d streams, want %d", total, undetermined, all)
	}
	return counts, undetermined
}

// allEqual checks that the counts hold exactly the want outcomes, each with
// the same count, and returns that count.
func allEqual(t *testing.T, what string, counts map[string]uint64, want int) uint64 {
	t.Helper()
	if len(counts) != want {
		t.Fatalf("%s: %d distinct outcomes, want %d", what, len(counts), want)
	}
	var c0 uint64
	for o, c := range counts {
		if c0 == 0 {
			c0 = c
		}
		if c != c0 {
			t.Fatalf("%s: outcome %s has count %d, another %d: biased", what, o, c, c0)
		}
	}
	return c0
}

func uniformOp(n uint64) func(*Stream) (string, error) {
	return func(s *Stream) (string, error) {
		v, err := s.Uniform(n)
		if err == nil && v >= n {
			return "", fmt.Errorf("Uniform(%d) = %d out of range", n, v)
		}
		return fmt.Sprint(v), err
	}
}

// TestUniformExact enumerates every stream of one and two bytes (one
// attempt and one rejection for n ≤ 256) for every n up to 256, and every
// two-byte stream for wider n: each outcome has exactly the same count.
func TestUniformExact(t *testing.T) {
	for n := uint64(1); n <= 256; n++ {
		maxLen := 1
		if n <= 40 || n%16 == 1 || n >= 250 {
			maxLen = 2 // the second attempt after a rejection too
		}
		counts, und := enumerate(t, maxLen, uniformOp(n))
		per := allEqual(t, fmt.Sprintf("Uniform(%d) over %d bytes", n, maxLen), counts, int(n))
		// One byte: the rejected values are exactly 256 mod n of them.
		if r := uint64(256) % n; maxLen == 1 && und != r {
			t.Errorf("Uniform(%d): %d rejected bytes, want %d", n, und, r)
		}
		_ = per
	}
	for _, n := range []uint64{257, 506, 969, 1000, 1015, 2024, 32769, 65535, 65536} {
		counts, und := enumerate(t, 2, uniformOp(n))
		per := allEqual(t, fmt.Sprintf("Uniform(%d)", n), counts, int(n))
		if per != 65536/n || und != 65536%n {
			t.Errorf("Uniform(%d): %d per outcome and %d rejected, want %d and %d", n, per, und, 65536/n, 65536%n)
		}
	}
}

// TestBernoulliExact: for the game's probabilities, the streams giving true
// are exactly p/q of the streams giving an outcome.
func TestBernoulliExact(t *testing.T) {
	cases := [][2]uint64{{3, 506}, {86, 969}, {59, 455}, {3, 44}, {0, 5}, {5, 5}, {1, 1}}
	for n := uint64(12); n <= 30; n++ {
		cases = append(cases, [2]uint64{3, n})
	}
	for _, pq := range cases {
		p, q := pq[0], pq[1]
		counts, _ := enumerate(t, 2, func(s *Stream) (string, error) {
			v, err := s.Bernoulli(p, q)
			return fmt.Sprint(v), err
		})
		yes, no := counts["true"], counts["false"]
		// yes / (yes + no) = p / q, exactly.
		if yes*q != p*(yes+no) {
			t.Errorf("Bernoulli(%d/%d): %d true of %d determined streams", p, q, yes, yes+no)
		}
	}
}

// TestRankedSampleExact: every ordered k-tuple of distinct indices has the
// same count.
func TestRankedSampleExact(t *testing.T) {
	for _, c := range []struct{ k, n, maxLen, tuples int }{
		{3, 3, 3, 6}, {2, 5, 2, 20}, {2, 4, 3, 12}, {1, 7, 2, 7}, {2, 7, 2, 42}, {0, 3, 1, 1},
	} {
		counts, _ := enumerate(t, c.maxLen, func(s *Stream) (string, error) {
			v, err := s.RankedSample(c.k, c.n)
			seen := map[int]bool{}
			for _, x := range v {
				if x < 0 || x >= c.n || seen[x] {
					return "", fmt.Errorf("RankedSample(%d, %d) = %v", c.k, c.n, v)
				}
				seen[x] = true
			}
			return fmt.Sprint(v), err
		})
		allEqual(t, fmt.Sprintf("RankedSample(%d, %d)", c.k, c.n), counts, c.tuples)
	}
}
