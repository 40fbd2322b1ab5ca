package draw

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"testing"
)

// vectorFile is testdata/vectors.json, written by testdata/vectors.py, an
// independent implementation of the package documentation.
type vectorFile struct {
	Cases []struct {
		Seed     string          `json:"seed"`
		Beta     string          `json:"beta"`
		Label    string          `json:"label"`
		Op       string          `json:"op"`
		Args     []uint64        `json:"args"`
		Block0   string          `json:"block0"`
		Consumed string          `json:"consumed"`
		Result   json.RawMessage `json:"result"`
	} `json:"cases"`
}

// recorder remembers the stream bytes an operation read.
type recorder struct {
	s    *Stream
	seen []byte
}

func (r *recorder) Read(p []byte) (int, error) {
	n, err := r.s.Read(p)
	r.seen = append(r.seen, p[:n]...)
	return n, err
}

func TestVectors(t *testing.T) {
	raw, err := os.ReadFile("testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var vf vectorFile
	if err := json.Unmarshal(raw, &vf); err != nil {
		t.Fatal(err)
	}
	if len(vf.Cases) < 40 {
		t.Fatalf("only %d vectors loaded", len(vf.Cases))
	}
	for _, c := range vf.Cases {
		beta, _ := hex.DecodeString(c.Beta)
		if want := sha256.Sum256([]byte("tirage draw vectors " + c.Seed)); !bytes.Equal(beta, want[:]) {
			t.Errorf("%s: beta is not SHA-256 of its seed", c.Seed)
		}
		// The first block, computed by hand from the documented formula.
		h := sha256.New()
		h.Write([]byte("tirage/draw/v1"))
		h.Write([]byte{byte(len(c.Label))})
		h.Write([]byte(c.Label))
		h.Write(beta)
		h.Write(make([]byte, 8))
		if got := hex.EncodeToString(h.Sum(nil)); got != c.Block0 {
			t.Errorf("%s: block0 = %s, vector %s", c.Seed, got, c.Block0)
		}
		rec := &recorder{s: NewStream(beta, c.Label)}
		s := FromReader(rec)
		var got any
		switch c.Op {
		case "stream":
			b := make([]byte, c.Args[0])
			_, err = s.Read(b)
			got = hex.EncodeToString(b)
		case "uniform":
			var vs []uint64
			for range c.Args[1] {
				v, e := s.Uniform(c.Args[0])
				err = errors.Join(err, e)
				vs = append(vs, v)
			}
			got = vs
		case "bernoulli":
			var vs []bool
			for range c.Args[2] {
				v, e := s.Bernoulli(c.Args[0], c.Args[1])
				err = errors.Join(err, e)
				vs = append(vs, v)
			}
			got = vs
		case "ranked_sample":
			got, err = s.RankedSample(int(c.Args[0]), int(c.Args[1]))
		default:
			t.Fatalf("unknown op %q", c.Op)
		}
		if err != nil {
			t.Errorf("%s %s%v: %v", c.Seed, c.Op, c.Args, err)
			continue
		}
		gotJSON, _ := json.Marshal(got)
		if string(gotJSON) == "null" {
			gotJSON = []byte("[]")
		}
		var want bytes.Buffer
		_ = json.Compact(&want, c.Result)
		if !bytes.Equal(gotJSON, want.Bytes()) {
			t.Errorf("%s %s%v = %s, vector %s", c.Seed, c.Op, c.Args, gotJSON, want.Bytes())
		}
		if got := hex.EncodeToString(rec.seen); got != c.Consumed {
			t.Errorf("%s %s%v consumed %s, vector %s", c.Seed, c.Op, c.Args, got, c.Consumed)
		}
	}
}

// TestStreamIsCounterMode checks the stream against the formula, across
// block boundaries and for reads of every size.
func TestStreamIsCounterMode(t *testing.T) {
	beta := bytes.Repeat([]byte{0x5a}, 32)
	var want []byte
	for i := uint64(0); i < 5; i++ {
		var c [8]byte
		binary.BigEndian.PutUint64(c[:], i)
		b := sha256.Sum256(append(append([]byte("tirage/draw/v1\x03abc"), beta...), c[:]...))
		want = append(want, b[:]...)
	}
	for step := 1; step <= 40; step++ {
		s := NewStream(beta, "abc")
		var got []byte
		for len(got) < len(want) {
			b := make([]byte, min(step, len(want)-len(got)))
			if n, err := s.Read(b); n != len(b) || err != nil {
				t.Fatalf("Read = %d, %v", n, err)
			}
			got = append(got, b...)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("reads of %d bytes: stream differs from SHA-256 counter mode", step)
		}
	}
}

// TestDomainSeparation: different labels or β give unrelated streams, and a
// label cannot be shifted into β.
func TestDomainSeparation(t *testing.T) {
	first := func(beta []byte, label string) string {
		b := make([]byte, 32)
		NewStream(beta, label).Read(b)
		return hex.EncodeToString(b)
	}
	beta := []byte("0123456789abcdef0123456789abcdef")
	seen := map[string]string{}
	for _, c := range []struct {
		beta  []byte
		label string
	}{
		{beta, "tier1"}, {beta, "tier2"}, {beta, "pick"},
		{beta[1:], "tier10"}, // "tier1" || "0…" vs "tier10" || "…": the length prefix separates them
		{append([]byte("1"), beta...), "tier"},
	} {
		k := first(c.beta, c.label)
		if prev, dup := seen[k]; dup {
			t.Errorf("label %q collides with %s", c.label, prev)
		}
		seen[k] = c.label
	}
}

func TestParameterErrors(t *testing.T) {
	s := NewStream(make([]byte, 32), "x")
	if _, err := s.Uniform(0); !errors.Is(err, ErrRange) {
		t.Errorf("Uniform(0): %v", err)
	}
	for _, pq := range [][2]uint64{{1, 0}, {0, 0}, {4, 3}} {
		if _, err := s.Bernoulli(pq[0], pq[1]); !errors.Is(err, ErrRange) {
			t.Errorf("Bernoulli(%d, %d): %v", pq[0], pq[1], err)
		}
	}
	for _, kn := range [][2]int{{3, 2}, {-1, 5}, {1, -1}} {
		if _, err := s.RankedSample(kn[0], kn[1]); !errors.Is(err, ErrRange) {
			t.Errorf("RankedSample(%d, %d): %v", kn[0], kn[1], err)
		}
	}
	for _, label := range []string{"", string(make([]byte, 256))} {
		func() {
			defer func() {
				if recover() != ErrLabel {
					t.Errorf("NewStream with a %d-byte label did not panic with ErrLabel", len(label))
				}
			}()
			NewStream(nil, label)
		}()
	}
	// Certain outcomes read bytes all the same (the draw is the same shape
	// whatever p): Bernoulli(0, q) is false, Bernoulli(q, q) true.
	for range 100 {
		if v, _ := s.Bernoulli(0, 7); v {
			t.Fatal("Bernoulli(0, 7) = true")
		}
		if v, _ := s.Bernoulli(7, 7); !v {
			t.Fatal("Bernoulli(7, 7) = false")
		}
	}
	// A FromReader stream reports its reader's failure, and keeps it.
	fs := FromReader(bytes.NewReader([]byte{250})) // 250 ≥ 240: rejected for n = 30
	if _, err := fs.Uniform(30); !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("Uniform on a dry reader: %v", err)
	}
	if _, err := fs.Uniform(2); err == nil {
		t.Error("a failed stream must keep failing")
	}
}

// TestWidth checks w, the bytes read per attempt, at every boundary.
func TestWidth(t *testing.T) {
	for _, c := range []struct {
		n uint64
		w int
	}{{1, 0}, {2, 1}, {256, 1}, {257, 2}, {65536, 2}, {65537, 3}, {1 << 24, 3}, {1<<24 + 1, 4},
		{1 << 56, 7}, {1<<56 + 1, 8}, {^uint64(0), 8}} {
		if got := width(c.n); got != c.w {
			t.Errorf("width(%d) = %d, want %d", c.n, got, c.w)
		}
	}
}

// TestRejectionBoundary feeds x = limit−1 (accepted) and x = limit
// (rejected) to Uniform for wide n, where the exhaustive test cannot go.
func TestRejectionBoundary(t *testing.T) {
	for _, n := range []uint64{3, 1000, 65537, 1<<32 + 15, 1<<63 + 1, ^uint64(0), 1 << 63, 1<<56 + 1} {
		w := width(n)
		var R, limit uint64 // R = 256^w, possibly 2^64 (represented as 0)
		if w == 8 {
			limit = -(-n % n) // 2^64 − (2^64 mod n), or 0 meaning 2^64
		} else {
			R = 1 << (8 * w)
			limit = R - R%n
		}
		enc := func(x uint64) []byte {
			b := binary.BigEndian.AppendUint64(nil, x)
			return b[8-w:]
		}
		if limit != 0 { // some values are rejected
			// limit−1 is accepted and gives (limit−1) mod n = n−1.
			v, err := FromReader(bytes.NewReader(enc(limit - 1))).Uniform(n)
			if err != nil || v != n-1 {
				t.Errorf("n=%d: x=limit−1 gave %d, %v; want %d", n, v, err, n-1)
			}
			// limit is rejected: the next attempt (x = 5) is used.
			v, err = FromReader(bytes.NewReader(append(enc(limit), enc(5)...))).Uniform(n)
			if err != nil || v != 5%n {
				t.Errorf("n=%d: x=limit was not rejected (%d, %v)", n, v, err)
			}
		} else {
			v, err := FromReader(bytes.NewReader(enc(^uint64(0)))).Uniform(n)
			if err != nil || v != ^uint64(0)%n {
				t.Errorf("n=%d (divides 2^64): x=2^64−1 gave %d, %v", n, v, err)
			}
		}
	}
}
