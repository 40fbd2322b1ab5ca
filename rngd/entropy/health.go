package entropy

import (
	"fmt"
	"math"
	"math/big"
	"sync"
)

// Window sizes of the Adaptive Proportion Test (SP 800-90B §4.4.2).
const (
	aptWindowBinary    = 1024
	aptWindowNonBinary = 512
	// startupSamples is the number of samples the start-up tests (§4.3
	// requirement 3) run over before a source is first used.
	startupSamples = 1024
)

// Names of the tests, as they appear in errors, logs and metric labels.
const (
	TestRCT  = "repetition-count"
	TestAPT  = "adaptive-proportion"
	TestRead = "read"
	// TestTimeout: the source did not deliver within Config.ReadTimeout
	// (ErrTimeout).
	TestTimeout = "timeout"
)

// rctCutoff is the Repetition Count Test cutoff of SP 800-90B §4.4.1:
// C = 1 + ceil(-log2(α) / H), for min-entropy H bits per sample and false
// alarm probability α.
//
// A quotient within float64 rounding of an integer is that integer: H is
// declared in decimal (0.7) and read as the nearest float64, and 21/0.7
// comes out as 30.000000000000004, whose ceiling would raise the cutoff by
// one over the standard's.
func rctCutoff(h, alpha float64) int {
	x := -math.Log2(alpha) / h
	if r := math.Round(x); math.Abs(x-r) <= 1e-9*r {
		x = r
	}
	return 1 + int(math.Ceil(x))
}

// aptCutoff is the Adaptive Proportion Test cutoff of SP 800-90B §4.4.2 for
// window w: C = 1 + CRITBINOM(w, 2^-H, 1-α), that is the smallest C with
// P(Binomial(w, 2^-H) ≥ C) ≤ α: the formula the standard states and its
// Table 2 lists, followed as written. (The count B of a window is 1 plus a
// Binomial(w-1, p) for an ideal source, so the real false-alarm probability
// per window is P(Binomial(w-1, p) ≥ C-1): for W = 512 and integer H, up to
// 3.47 α at the default α = 2^-30 (docs/entropy.md gives the figures), and up
// to 6.93 α over the allowed α (H = 8, α = 2^-31).) The tail sums are
// computed exactly: for integer H and α a power of two, p = 2^-H is a dyadic
// rational and 4096-bit floats hold every term without rounding; otherwise p
// is rounded to float64 once.
func aptCutoff(w int, h, alpha float64) int {
	key := cutoffKey{w, h, alpha}
	if c, ok := aptCutoffs.Load(key); ok {
		return c.(int)
	}
	c := computeAPTCutoff(w, h, alpha)
	aptCutoffs.Store(key, c)
	return c
}

type cutoffKey struct {
	w        int
	h, alpha float64
}

// aptCutoffs caches aptCutoff: the exact sums take tens of milliseconds.
var aptCutoffs sync.Map // cutoffKey → int

func computeAPTCutoff(w int, h, alpha float64) int {
	const prec = 4096
	n := w
	newf := func() *big.Float { return new(big.Float).SetPrec(prec) }
	p := newf().SetFloat64(math.Exp2(-h))
	q := newf().Sub(newf().SetInt64(1), p)
	a := newf().SetFloat64(alpha)

	pk := make([]*big.Float, n+1) // p^k
	qk := make([]*big.Float, n+1) // q^k
	pk[0], qk[0] = newf().SetInt64(1), newf().SetInt64(1)
	for k := 1; k <= n; k++ {
		pk[k] = newf().Mul(pk[k-1], p)
		qk[k] = newf().Mul(qk[k-1], q)
	}
	// Walk c down from n, accumulating tail(c) = Σ_{k≥c} C(n,k) p^k q^(n-k),
	// which grows as c decreases; keep the smallest c with tail(c) ≤ α.
	binom := big.NewInt(1) // C(n, k), starting at k = n
	tail, term, bf := newf(), newf(), newf()
	c := n + 1 // tail(n+1) = 0 ≤ α
	for k := n; k >= 0; k-- {
		term.Mul(bf.SetInt(binom), pk[k])
		term.Mul(term, qk[n-k])
		tail.Add(tail, term)
		if tail.Cmp(a) > 0 {
			break
		}
		c = k
		// C(n, k-1) = C(n, k) · k / (n-k+1).
		binom.Mul(binom, big.NewInt(int64(k)))
		binom.Quo(binom, big.NewInt(int64(n-k+1)))
	}
	return c
}

// HealthTest runs the two continuous health tests of SP 800-90B §4.4 on the
// raw samples of one source: the Repetition Count Test and the Adaptive
// Proportion Test, with the standard's window (512 for 8-bit samples, 1024
// for binary ones). It is not safe for concurrent use.
type HealthTest struct {
	source string
	bits   int // sample size: 8 (each byte a sample) or 1 (each bit, MSB first)

	rctC, aptC, aptW int

	// Repetition Count Test state: the last value a and its run length b.
	rctA    byte
	rctB    int
	started bool

	// Adaptive Proportion Test state: the window's first value, its count
	// and the number of samples seen in the window.
	aptA    byte
	aptB    int
	aptSeen int
}

// NewHealthTest returns the health tests for a source whose samples are
// sampleBits wide (8: each byte is a sample; 1: each bit, most significant
// first, for a binary noise source) and carry minEntropy bits of
// min-entropy each (0 < H ≤ sampleBits), with false-alarm probability alpha
// (2^-40 ≤ α ≤ 2^-20) per test and sample.
func NewHealthTest(source string, sampleBits int, minEntropy, alpha float64) (*HealthTest, error) {
	w := aptWindowNonBinary
	switch sampleBits {
	case 8:
	case 1:
		w = aptWindowBinary
	default:
		return nil, fmt.Errorf("entropy: source %s: sample size %d bits, want 8 or 1", source, sampleBits)
	}
	if !(minEntropy > 0 && minEntropy <= float64(sampleBits)) {
		return nil, fmt.Errorf("entropy: source %s: min-entropy %g bits per %d-bit sample, want 0 < H ≤ %d", source, minEntropy, sampleBits, sampleBits)
	}
	if !(alpha >= MinAlpha && alpha <= MaxAlpha) {
		return nil, fmt.Errorf("entropy: alpha %g, want between 2^-40 and 2^-20", alpha)
	}
	aptC := aptCutoff(w, minEntropy, alpha)
	if aptC > w {
		// p^W > α: even a window of one value is not rare enough to fail.
		return nil, fmt.Errorf("entropy: source %s: min-entropy %g bits per %d-bit sample is too low for the adaptive proportion test: a window of %d samples all alike would be more likely than α = 2^%g, so the test could never fail; declare more than %.4g bits (-log2(α)/%d)",
			source, minEntropy, sampleBits, w, math.Log2(alpha), -math.Log2(alpha)/float64(w), w)
	}
	return &HealthTest{source: source, bits: sampleBits, rctC: rctCutoff(minEntropy, alpha), aptC: aptC, aptW: w}, nil
}

// Cutoffs returns the RCT cutoff, the APT cutoff and the APT window.
func (t *HealthTest) Cutoffs() (rct, apt, window int) { return t.rctC, t.aptC, t.aptW }

// Reset forgets all state, as for a fresh start-up.
func (t *HealthTest) Reset() {
	*t = HealthTest{source: t.source, bits: t.bits, rctC: t.rctC, aptC: t.aptC, aptW: t.aptW}
}

// Startup runs the start-up tests (SP 800-90B §4.3 requirement 3): it
// resets the tests and runs them over 1,024 fresh samples read from src,
// which are then discarded. The error wraps ErrUnhealthy (a *HealthError)
// when a test fails or src cannot be read.
func (t *HealthTest) Startup(src Source) error {
	buf := make([]byte, t.startupBytes())
	defer clear(buf)
	if _, err := readSource(src, buf); err != nil {
		return &HealthError{Source: t.source, Test: TestRead, Detail: "read failed during start-up tests", Err: err}
	}
	return t.startup(buf)
}

// startupBytes is the size of the start-up tests' 1,024 samples.
func (t *HealthTest) startupBytes() int { return startupSamples * t.bits / 8 }

// startup resets the tests and runs them over the start-up samples in buf.
func (t *HealthTest) startup(buf []byte) error {
	t.Reset()
	return t.Feed(buf)
}

// Feed runs both tests on the samples in p, in order, and returns a
// *HealthError (wrapping ErrUnhealthy) at the first failure. Errors never
// contain sample values.
func (t *HealthTest) Feed(p []byte) error {
	if test, detail := t.feed(p); test != "" {
		return &HealthError{Source: t.source, Test: test, Detail: detail}
	}
	return nil
}

func (t *HealthTest) feed(p []byte) (test, detail string) {
	if t.bits == 1 {
		for _, b := range p {
			for i := 7; i >= 0; i-- {
				if test, detail = t.step((b >> i) & 1); test != "" {
					return test, detail
				}
			}
		}
		return "", ""
	}
	for _, x := range p {
		if test, detail = t.step(x); test != "" {
			return test, detail
		}
	}
	return "", ""
}

// step runs both tests on one sample.
func (t *HealthTest) step(x byte) (test, detail string) {
	// §4.4.1 Repetition Count Test.
	if t.started && x == t.rctA {
		t.rctB++
		if t.rctB >= t.rctC {
			return TestRCT, fmt.Sprintf("a value repeated %d times in a row (cutoff %d)", t.rctB, t.rctC)
		}
	} else {
		t.rctA, t.rctB, t.started = x, 1, true
	}
	// §4.4.2 Adaptive Proportion Test.
	if t.aptSeen == 0 {
		// 1. A = the next sample; 2. B = 1.
		t.aptA, t.aptB, t.aptSeen = x, 1, 1
		return "", ""
	}
	// 3. For i = 1 to W-1: if the next sample equals A, B = B + 1;
	// if B ≥ C, signal a failure.
	if x == t.aptA {
		t.aptB++
		if t.aptB >= t.aptC {
			return TestAPT, fmt.Sprintf("a value occurred %d times in a window of %d (cutoff %d)", t.aptB, t.aptW, t.aptC)
		}
	}
	t.aptSeen++
	if t.aptSeen == t.aptW {
		t.aptSeen = 0
	}
	return "", ""
}
