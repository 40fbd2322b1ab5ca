package entropy

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestAPTCutoffTable checks the APT cutoffs against SP 800-90B Table 2
// (W = 512, non-binary samples, α = 2^-20).
func TestAPTCutoffTable(t *testing.T) {
	for _, tc := range []struct {
		h    float64
		want int
	}{{0.5, 410}, {1, 311}, {2, 177}, {4, 62}, {8, 13}} {
		if got := aptCutoff(512, tc.h, 0x1p-20); got != tc.want {
			t.Errorf("W=512 H=%v α=2^-20: cutoff %d, want %d (SP 800-90B Table 2)", tc.h, got, tc.want)
		}
	}
}

// TestAPTCutoffDefinition checks, independently of the exact big-float sum,
// that every cutoff C is the smallest with P(Binomial(W, 2^-H) ≥ C) ≤ α:
// the tail at C is at most α and the tail at C-1 exceeds it (log-space
// float64 sums, relative error far below the margins involved).
func TestAPTCutoffDefinition(t *testing.T) {
	for _, w := range []int{512, 1024} {
		for _, a := range []float64{0x1p-20, 0x1p-30, 0x1p-40} {
			for _, h := range []float64{0.3, 0.5, 1, 1.7, 3, 6.5, 8} {
				c := aptCutoff(w, h, a)
				if tc := binomTail(w, math.Exp2(-h), c); tc > a*(1+1e-9) {
					t.Errorf("W=%d H=%v α=%g: C=%d has tail %g > α", w, h, a, c, tc)
				}
				if tc := binomTail(w, math.Exp2(-h), c-1); tc <= a*(1-1e-9) {
					t.Errorf("W=%d H=%v α=%g: C-1=%d already has tail %g ≤ α", w, h, a, c-1, tc)
				}
			}
		}
	}
}

// binomTail is P(Binomial(n, p) ≥ c) summed in log space.
func binomTail(n int, p float64, c int) float64 {
	var s float64
	for k := c; k <= n; k++ {
		ln, _ := math.Lgamma(float64(n + 1))
		lk, _ := math.Lgamma(float64(k + 1))
		lnk, _ := math.Lgamma(float64(n - k + 1))
		s += math.Exp(ln - lk - lnk + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p))
	}
	return s
}

func TestRCTCutoff(t *testing.T) {
	for _, tc := range []struct {
		h, alpha float64
		want     int
	}{
		{1, 0x1p-20, 21},
		{0.5, 0x1p-20, 41},
		{8, 0x1p-20, 4}, // 1 + ⌈2.5⌉
		{8, 0x1p-40, 6},
		{2, 0x1p-30, 16},
		// -log2(α)/H is an integer that float64 division rounds up
		// (21/0.7 = 30.000000000000004): C = 1 + 30, not 1 + 31.
		{0.7, 0x1p-21, 31},
		{1.4, 0x1p-21, 16},
		{0.35, 0x1p-21, 61},
	} {
		if got := rctCutoff(tc.h, tc.alpha); got != tc.want {
			t.Errorf("H=%v α=%g: RCT cutoff %d, want %d", tc.h, tc.alpha, got, tc.want)
		}
	}
}

// TestCutoffsDocTable checks the cutoff table of docs/entropy.md (W = 512,
// α = 2^-20 and 2^-30), recomputed independently with exact rational
// arithmetic (Python fractions: C = 1 + ⌈-log2 α / H⌉; the smallest C with
// P(Binomial(512, 2^-H) ≥ C) ≤ α).
func TestCutoffsDocTable(t *testing.T) {
	for _, tc := range []struct {
		h              float64
		e              int
		wantRCT, wantC int
	}{
		{1, 20, 21, 311}, {2, 20, 11, 177}, {4, 20, 6, 62}, {6, 20, 5, 25}, {8, 20, 4, 13},
		{1, 30, 31, 325}, {2, 30, 16, 190}, {4, 30, 9, 71}, {6, 30, 6, 31}, {8, 30, 5, 16},
		{1, 40, 41, 336}, {3, 40, 15, 123}, {8, 40, 6, 19},
	} {
		a := math.Ldexp(1, -tc.e)
		if r, c := rctCutoff(tc.h, a), aptCutoff(512, tc.h, a); r != tc.wantRCT || c != tc.wantC {
			t.Errorf("H=%v α=2^-%d: RCT %d APT %d, want %d %d", tc.h, tc.e, r, c, tc.wantRCT, tc.wantC)
		}
	}
}

// TestStuckSourceTripsRCT: a stuck source fails the RCT at exactly the
// cutoff-th identical sample.
func TestStuckSourceTripsRCT(t *testing.T) {
	ht, err := NewHealthTest("stuck", 8, 4, 0x1p-30)
	if err != nil {
		t.Fatal(err)
	}
	rct, _, _ := ht.Cutoffs()
	sample := []byte{0x5a}
	for i := 1; i < rct; i++ {
		if err := ht.Feed(sample); err != nil {
			t.Fatalf("failed after %d identical samples, cutoff %d: %v", i, rct, err)
		}
	}
	err = ht.Feed(sample)
	var he *HealthError
	if !errors.As(err, &he) || he.Test != TestRCT || !errors.Is(err, ErrUnhealthy) {
		t.Fatalf("after %d identical samples: %v, want an RCT HealthError", rct, err)
	}
}

// TestBiasedSourceTripsAPT: a source whose every other sample is the same
// value (most likely value p = 1/2, so H = 1 bit per sample) but never
// repeats twice in a row is declared H = 8. The RCT cannot see it; the APT
// must fail within the first window of 512 samples.
func TestBiasedSourceTripsAPT(t *testing.T) {
	ht, err := NewHealthTest("biased", 8, 8, 0x1p-30)
	if err != nil {
		t.Fatal(err)
	}
	_, apt, w := ht.Cutoffs()
	r := rand.New(rand.NewChaCha8([32]byte{1}))
	for i := 0; i < w; i++ {
		x := byte(0)
		if i%2 == 1 {
			x = byte(1 + r.IntN(255))
		}
		err := ht.Feed([]byte{x})
		if err == nil {
			continue
		}
		var he *HealthError
		if !errors.As(err, &he) || he.Test != TestAPT {
			t.Fatalf("sample %d: %v, want an APT failure", i, err)
		}
		// The value 0 reaches count C at sample 2(C-1).
		if i != 2*(apt-1) {
			t.Errorf("APT failed at sample %d, want %d", i, 2*(apt-1))
		}
		return
	}
	t.Fatalf("APT did not fail within one window of %d samples", w)
}

// TestBiasedIIDSourceTripsAPT: i.i.d. samples where 0 has probability 1/4
// (true H = 2) declared H = 4. With the fixed seed below the tests fail within
// 8 windows; for a random seed the chance that no window starting with 0
// trips is at most (3/4)^8 ≈ 10%, which is why the seed is fixed.
func TestBiasedIIDSourceTripsAPT(t *testing.T) {
	ht, err := NewHealthTest("biased-iid", 8, 4, 0x1p-30)
	if err != nil {
		t.Fatal(err)
	}
	_, _, w := ht.Cutoffs()
	r := rand.New(rand.NewChaCha8([32]byte{2}))
	buf := make([]byte, 8*w)
	for i := range buf {
		if r.IntN(4) != 0 {
			buf[i] = byte(1 + r.IntN(255))
		}
	}
	var he *HealthError
	if err := ht.Feed(buf); !errors.As(err, &he) || he.Test != TestAPT {
		t.Fatalf("biased source over %d samples: %v, want an APT failure", len(buf), err)
	}
}

// TestIdealSourcePasses: a good source (ChaCha8, fixed seed) declared at
// H = 7 passes 2^20 samples. False-failure probability for a random seed:
// at most 2·2^20·2^-30 = 2^-9; with the fixed seed the outcome is fixed.
func TestIdealSourcePasses(t *testing.T) {
	ht, err := NewHealthTest("ideal", 8, 7, 0x1p-30)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewChaCha8([32]byte{3}))
	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = byte(r.Uint32())
	}
	if err := ht.Feed(buf); err != nil {
		t.Fatal(err)
	}
}

func TestNewHealthTestRejects(t *testing.T) {
	for _, tc := range []struct{ h, a float64 }{{0, 0x1p-30}, {8.5, 0x1p-30}, {math.NaN(), 0x1p-30}, {4, 0x1p-10}, {4, 0x1p-50}} {
		if _, err := NewHealthTest("x", 8, tc.h, tc.a); err == nil {
			t.Errorf("H=%v α=%g accepted", tc.h, tc.a)
		}
	}
}

// A declared min-entropy so low that p^W > α gives an APT cutoff beyond its
// window: the test could never fail, so such a declaration is refused
// (α = 2^-30: H < 30/512 for bytes, 30/1024 for bits); just above, the
// cutoff is within the window.
func TestNewHealthTestRefusesSilentAPT(t *testing.T) {
	for _, tc := range []struct {
		bits int
		h    float64
	}{{8, 0.05}, {8, 0.058}, {1, 0.025}, {1, 0.029}} {
		if _, err := NewHealthTest("x", tc.bits, tc.h, 0x1p-30); err == nil || !strings.Contains(err.Error(), "could never fail") {
			t.Errorf("%d-bit samples, H = %v: %v, want refused (the APT could never fail)", tc.bits, tc.h, err)
		}
	}
	for _, tc := range []struct {
		bits int
		h    float64
	}{{8, 0.06}, {1, 0.03}} {
		ht, err := NewHealthTest("x", tc.bits, tc.h, 0x1p-30)
		if err != nil {
			t.Fatalf("%d-bit samples, H = %v: %v", tc.bits, tc.h, err)
		}
		if _, apt, w := ht.Cutoffs(); apt > w {
			t.Errorf("%d-bit samples, H = %v: APT cutoff %d beyond its window %d", tc.bits, tc.h, apt, w)
		}
	}
}

// TestBinarySamples: with 1-bit samples the APT window is 1024 and each bit
// (most significant first) is a sample. A stuck bit trips the RCT after
// C bits; a source whose bits are 1 with probability 3/4 (H = 0.415),
// declared H = 1, trips the APT (fixed seed).
func TestBinarySamples(t *testing.T) {
	ht, err := NewHealthTest("bin", 1, 1, 0x1p-30)
	if err != nil {
		t.Fatal(err)
	}
	rct, apt, w := ht.Cutoffs()
	if w != 1024 || rct != 31 || apt != aptCutoff(1024, 1, 0x1p-30) {
		t.Fatalf("binary cutoffs %d %d %d", rct, apt, w)
	}
	// 0x55 = 01010101: alternating bits never repeat; 3 bytes of 0xff then
	// 0x00 make runs of 24 and 8, both under 31.
	if err := ht.Feed([]byte{0x55, 0x55, 0xff, 0xff, 0xff, 0x00, 0x55}); err != nil {
		t.Fatalf("good bits: %v", err)
	}
	ht.Reset()
	err = ht.Feed([]byte{0xff, 0xff, 0xff, 0xfe})
	var he *HealthError
	if !errors.As(err, &he) || he.Test != TestRCT {
		t.Fatalf("32 ones: %v, want RCT failure at bit 31", err)
	}
	ht.Reset()
	r := rand.New(rand.NewChaCha8([32]byte{5}))
	buf := make([]byte, 4*w/8)
	for i := range buf {
		// Each bit is 1 with probability 3/4: OR of two fair bits; broken
		// runs keep the RCT quiet (runs of 31 ones have probability 2^-13).
		a, b := byte(r.Uint32()), byte(r.Uint32())
		buf[i] = a | b
	}
	if err := ht.Feed(buf); !errors.As(err, &he) || he.Test != TestAPT {
		t.Fatalf("biased bits: %v, want APT failure", err)
	}
	if _, err := NewHealthTest("bin", 1, 1.5, 0x1p-30); err == nil {
		t.Error("H = 1.5 accepted for 1-bit samples")
	}
	if _, err := NewHealthTest("bin", 4, 1, 0x1p-30); err == nil {
		t.Error("4-bit samples accepted")
	}
}

// filler returns sample i of a sequence over 1..255 that never repeats a
// value twice in a row (so it stays far from both cutoffs).
func filler(i int) byte { return byte(1 + i%255) }

// TestNonBinaryWindow: 8-bit samples use the APT window of 512
// (SP 800-90B §4.4.2: 1024 only for binary sources) and the cutoffs of the
// declared H.
func TestNonBinaryWindow(t *testing.T) {
	for _, h := range []float64{0.5, 2, 8} {
		ht, err := NewHealthTest("w", 8, h, 0x1p-30)
		if err != nil {
			t.Fatal(err)
		}
		rct, apt, w := ht.Cutoffs()
		if w != 512 || apt != aptCutoff(512, h, 0x1p-30) || rct != rctCutoff(h, 0x1p-30) {
			t.Errorf("H=%v: cutoffs RCT %d, APT %d, window %d; want %d, %d, 512",
				h, rct, apt, w, rctCutoff(h, 0x1p-30), aptCutoff(512, h, 0x1p-30))
		}
	}
}

// TestAPTWindowLength: the APT counts the window's first value over
// exactly W samples. H = 8, α = 2^-30: C = 16, W = 512.
func TestAPTWindowLength(t *testing.T) {
	newHT := func() *HealthTest {
		ht, err := NewHealthTest("apt", 8, 8, 0x1p-30)
		if err != nil {
			t.Fatal(err)
		}
		return ht
	}
	_, c, w := newHT().Cutoffs()
	if c != 16 || w != 512 {
		t.Fatalf("cutoff %d window %d, want 16 and 512", c, w)
	}
	// C occurrences of the window's first value, the last one at the
	// window's last sample (W-1): fails there, not before.
	ht := newHT()
	samples := make([]byte, w)
	for i := range samples {
		samples[i] = filler(i)
	}
	for k := 0; k < c-1; k++ {
		samples[2*k] = 0
	}
	samples[w-1] = 0
	for i, x := range samples {
		err := ht.Feed([]byte{x})
		var he *HealthError
		switch {
		case i < w-1 && err != nil:
			t.Fatalf("sample %d: %v, want no failure before sample %d", i, err, w-1)
		case i == w-1 && (!errors.As(err, &he) || he.Test != TestAPT):
			t.Fatalf("sample %d (C-th occurrence within the window): %v, want an APT failure", i, err)
		}
	}
	// C-1 occurrences within the window, then the same value as the first
	// sample of the next window: that one opens a new window, no failure.
	ht = newHT()
	samples = make([]byte, 2*w)
	for i := range samples {
		samples[i] = filler(i)
	}
	for k := 0; k < c-2; k++ {
		samples[2*k] = 0
	}
	samples[w-1], samples[w] = 0, 0
	if err := ht.Feed(samples); err != nil {
		t.Fatalf("C-1 occurrences in a window and one more in the next: %v", err)
	}
}

type bytesSource struct{ r *bytes.Reader }

func (s bytesSource) Name() string               { return "bytes" }
func (s bytesSource) Physical() bool             { return true }
func (s bytesSource) Read(p []byte) (int, error) { return s.r.Read(p) }

// TestStartupResets: the start-up tests start from a clean state; a run
// left by earlier samples does not carry into them.
func TestStartupResets(t *testing.T) {
	ht, err := NewHealthTest("reset", 8, 8, 0x1p-30)
	if err != nil {
		t.Fatal(err)
	}
	rct, _, _ := ht.Cutoffs()
	for range rct - 1 { // one short of the RCT cutoff
		if err := ht.Feed([]byte{7}); err != nil {
			t.Fatal(err)
		}
	}
	buf := make([]byte, startupSamples)
	for i := range buf {
		buf[i] = filler(i + 6) // starts with 7
	}
	if err := ht.Startup(bytesSource{bytes.NewReader(buf)}); err != nil {
		t.Fatalf("start-up over good samples after a run of %d: %v", rct-1, err)
	}
}
