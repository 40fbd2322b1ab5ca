package vrf

import (
	"testing"
)

// loop runs op b.N times and reports, besides wall time, the process CPU
// time per op ("cpu-ns/op"): on a shared machine wall time measures the
// neighbours too, CPU time (with -cpu 1) measures this code.
func loop(b *testing.B, op func()) {
	b.ReportAllocs()
	b.ResetTimer()
	c0 := processCPU()
	for i := 0; i < b.N; i++ {
		op()
	}
	b.StopTimer()
	if c := processCPU() - c0; c > 0 {
		b.ReportMetric(float64(c.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// benchKey returns the first RFC 9381 example key of suite s (the 2048-bit
// key for RSA), so that benchmark figures are reproducible.
func benchKey(b *testing.B, s Suite) *PrivateKey {
	b.Helper()
	for _, v := range loadVectors(b) {
		if Suite(v.Suite) == s {
			raw, _ := vectorKeys(b, v)
			sk, err := NewPrivateKey(s, raw)
			if err != nil {
				b.Fatal(err)
			}
			return sk
		}
	}
	b.Fatalf("no vector for %s", s)
	return nil
}

// The benchmark names BenchmarkProve/<suite> and BenchmarkVerify/<suite> are
// stable: other packages quote BenchmarkProve/ECVRF-P256-SHA256-SSWU as the
// raw VRF-prove bound.
func BenchmarkProve(b *testing.B) {
	for _, s := range Suites() {
		b.Run(string(s), func(b *testing.B) {
			sk := benchKey(b, s)
			alpha := []byte("tirage benchmark alpha, 48 bytes long.........")
			loop(b, func() {
				if _, err := sk.Prove(alpha); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

func BenchmarkVerify(b *testing.B) {
	for _, s := range Suites() {
		b.Run(string(s), func(b *testing.B) {
			sk := benchKey(b, s)
			alpha := []byte("tirage benchmark alpha, 48 bytes long.........")
			pi, err := sk.Prove(alpha)
			if err != nil {
				b.Fatal(err)
			}
			pk := sk.Public()
			loop(b, func() {
				if _, err := Verify(pk, alpha, pi); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

func BenchmarkProofToHash(b *testing.B) {
	sk := benchKey(b, SuiteP256SSWU)
	pi, err := sk.Prove([]byte("alpha"))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := ProofToHash(SuiteP256SSWU, pi); err != nil {
			b.Fatal(err)
		}
	}
}
