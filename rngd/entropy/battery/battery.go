// Package battery is a quick statistical battery for random bytes, after
// NIST SP 800-22 Rev. 1a: the frequency (monobit) test (§2.1), the runs test
// (§2.3), the serial test (§2.11), and a chi-square goodness-of-fit test of
// the 256 byte values. Each returns P-values; at significance level 0.01 a
// good generator fails each P-value with probability 0.01.
//
// Bits are taken from each byte most significant bit first. The package does
// no I/O.
package battery

import (
	"errors"
	"math"
	"strconv"

	"tirage.fr/tirage/verifier/draw/drawtest"
)

// Result is the outcome of one test.
type Result struct {
	Name    string
	PValues []float64
	// Note explains a P-value of 0 forced by a failed prerequisite.
	Note string
}

// Pass reports whether every P-value is at least alpha.
func (r Result) Pass(alpha float64) bool {
	for _, p := range r.PValues {
		if !(p >= alpha) {
			return false
		}
	}
	return true
}

// ErrTooShort is returned for inputs too short for a test's approximations.
var ErrTooShort = errors.New("battery: input too short")

// Run runs every test of the battery on data (at least 16 bytes).
func Run(data []byte) ([]Result, error) {
	if len(data) < 16 {
		return nil, ErrTooShort
	}
	bits := Bits(data)
	m := SerialBlockLength(len(bits))
	p1, p2 := Serial(bits, m)
	return []Result{
		{Name: "frequency (monobit)", PValues: []float64{Frequency(bits)}},
		runsResult(bits),
		{Name: "serial (m=" + strconv.Itoa(m) + ")", PValues: []float64{p1, p2}},
		{Name: "byte chi-square (255 df)", PValues: []float64{ByteChiSquare(data)}},
	}, nil
}

func runsResult(bits []byte) Result {
	p, ok := Runs(bits)
	r := Result{Name: "runs", PValues: []float64{p}}
	if !ok {
		r.Note = "frequency prerequisite failed (|π - 1/2| ≥ 2/√n)"
	}
	return r
}

// Bits expands bytes into 0/1 values, most significant bit first.
func Bits(data []byte) []byte {
	bits := make([]byte, 0, 8*len(data))
	for _, b := range data {
		for i := 7; i >= 0; i-- {
			bits = append(bits, (b>>i)&1)
		}
	}
	return bits
}

// Frequency is the frequency (monobit) test, SP 800-22 §2.1.
func Frequency(bits []byte) float64 {
	n := len(bits)
	// (1) S_n = Σ (2ε_i - 1).
	s := 0
	for _, b := range bits {
		s += 2*int(b) - 1
	}
	// (2) s_obs = |S_n| / √n.
	sobs := math.Abs(float64(s)) / math.Sqrt(float64(n))
	// (3) P-value = erfc(s_obs / √2).
	return math.Erfc(sobs / math.Sqrt2)
}

// Runs is the runs test, SP 800-22 §2.3. ok is false when the frequency
// prerequisite fails; the P-value is then 0.
func Runs(bits []byte) (p float64, ok bool) {
	n := float64(len(bits))
	// (1) π = Σ ε_j / n.
	ones := 0
	for _, b := range bits {
		ones += int(b)
	}
	pi := float64(ones) / n
	// (2) Prerequisite: |π - 1/2| < τ = 2/√n.
	if math.Abs(pi-0.5) >= 2/math.Sqrt(n) {
		return 0, false
	}
	// (3) V_n(obs) = Σ r(k) + 1, r(k) = 0 if ε_k = ε_{k+1}, else 1.
	v := 1
	for k := 0; k+1 < len(bits); k++ {
		if bits[k] != bits[k+1] {
			v++
		}
	}
	// (4) P-value = erfc(|V_n(obs) - 2nπ(1-π)| / (2√(2n) π(1-π))).
	num := math.Abs(float64(v) - 2*n*pi*(1-pi))
	den := 2 * math.Sqrt(2*n) * pi * (1 - pi)
	return math.Erfc(num / den), true
}

// SerialBlockLength picks the serial test's block length m for n bits: the
// largest m ≤ 16 with m < ⌊log2 n⌋ - 2 (SP 800-22 §2.11.7), at least 2.
func SerialBlockLength(n int) int {
	m := int(math.Floor(math.Log2(float64(n)))) - 3
	return max(2, min(m, 16))
}

// Serial is the serial test, SP 800-22 §2.11, with block length m ≥ 2.
func Serial(bits []byte, m int) (p1, p2 float64) {
	// (1)-(3) ψ²_m, ψ²_{m-1}, ψ²_{m-2} over the sequence extended by its
	// first m-1 bits.
	psi := func(k int) float64 {
		if k <= 0 {
			return 0
		}
		n := len(bits)
		counts := make([]int, 1<<k)
		mask := 1<<k - 1
		// Rolling k-bit window over the sequence extended cyclically.
		v := 0
		for j := 0; j < k-1; j++ {
			v = v<<1 | int(bits[j%n])
		}
		for i := 0; i < n; i++ {
			v = (v<<1 | int(bits[(i+k-1)%n])) & mask
			counts[v]++
		}
		var s float64
		for _, c := range counts {
			s += float64(c) * float64(c)
		}
		return s*float64(int(1)<<k)/float64(n) - float64(n)
	}
	pm, pm1, pm2 := psi(m), psi(m-1), psi(m-2)
	// (4) ∇ψ²_m = ψ²_m - ψ²_{m-1}; ∇²ψ²_m = ψ²_m - 2ψ²_{m-1} + ψ²_{m-2}.
	d1 := pm - pm1
	d2 := pm - 2*pm1 + pm2
	// (5) P-value1 = igamc(2^(m-2), ∇ψ²_m / 2); P-value2 = igamc(2^(m-3), ∇²ψ²_m / 2).
	p1 = Igamc(math.Exp2(float64(m-2)), d1/2)
	p2 = Igamc(math.Exp2(float64(m-3)), d2/2)
	return p1, p2
}

// ByteChiSquare is Pearson's chi-square test of the 256 byte values against
// the uniform distribution (255 degrees of freedom). The approximation needs
// about 5 expected counts per value (1,280 bytes).
func ByteChiSquare(data []byte) float64 {
	var counts [256]int
	for _, b := range data {
		counts[b]++
	}
	e := float64(len(data)) / 256
	var chi float64
	for _, c := range counts {
		d := float64(c) - e
		chi += d * d / e
	}
	return Igamc(255.0/2, chi/2)
}

// Igamc is the regularized upper incomplete gamma function Q(a, x) =
// Γ(a, x) / Γ(a), as SP 800-22 §5.5.3 uses it: the χ² tail the draw tests
// use too (drawtest.GammaQ), with NaN for arguments outside its domain.
func Igamc(a, x float64) float64 {
	if math.IsNaN(a) || math.IsNaN(x) || a <= 0 {
		return math.NaN()
	}
	return drawtest.GammaQ(a, x)
}
