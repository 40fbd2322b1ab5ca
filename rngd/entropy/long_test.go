package entropy

import (
	"os"
	"testing"

	"tirage.fr/tirage/internal/peertest"
	"tirage.fr/tirage/rngd/entropy/battery"
)

// TestGeneratorOutputLong runs the quick battery on 8 MiB of Generator
// output seeded from /dev/hwrng (or, outside CI, getrandom + a ChaCha8
// physical stand-in when the device is absent), in 8 blocks of 1 MiB. Significance per
// P-value is 10^-6; with 8 blocks × 5 P-values the false-failure rate is at
// most 4·10^-5. The runs test is not applicable to a block whose frequency
// prerequisite fails (|S_n| ≥ 4√n: P(|Z| ≥ 4) = 6.3·10^-5 for a good
// generator, 5·10^-4 over 8 blocks, which counted as failures would
// dominate that rate): such a block's bias is judged by the frequency test's
// own P-value. Runs only with TIRAGE_LONG_TESTS=1 (make test-long).
func TestGeneratorOutputLong(t *testing.T) {
	if os.Getenv("TIRAGE_LONG_TESTS") != "1" {
		t.Skip("long statistical test; set TIRAGE_LONG_TESTS=1")
	}
	src := SourceConfig{Kind: KindHWRNG, MinEntropy: 2}
	if _, err := os.Stat(DefaultHWRNGPath); err != nil {
		peertest.Without(t, "%s absent: seeding from a ChaCha8 stand-in", DefaultHWRNGPath)
		src = SourceConfig{Source: newFaultSource("stand-in", 9), MinEntropy: 6}
	}
	g, err := New(Config{Sources: []SourceConfig{src, {Kind: KindGetrandom}}, ReseedRequests: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	block := make([]byte, 1<<20)
	for i := range 8 {
		for off := 0; off < len(block); off += 4096 {
			if _, err := g.Read(block[off : off+4096]); err != nil {
				t.Fatal(err)
			}
		}
		res, err := battery.Run(block)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.Note != "" { // the runs test's prerequisite (above)
				t.Logf("block %d: %s not applicable: %s", i, r.Name, r.Note)
				continue
			}
			if !r.Pass(1e-6) {
				t.Errorf("block %d: %s P = %v", i, r.Name, r.PValues)
			}
		}
	}
}

// TestHWRNGHealthLong runs the continuous health tests over 256 KiB of raw
// /dev/hwrng samples declared H = 2 (about 25 s at 10 kB/s). False-failure
// rate at α = 2^-30 per test and sample: at most 2·2^18·2^-30 = 2^-11.
func TestHWRNGHealthLong(t *testing.T) {
	if os.Getenv("TIRAGE_LONG_TESTS") != "1" {
		t.Skip("long test; set TIRAGE_LONG_TESTS=1")
	}
	src, err := OpenDevice("hwrng", DefaultHWRNGPath)
	if err != nil {
		hardwareAbsent(t, DefaultHWRNGPath)
	}
	ht, _ := NewHealthTest("hwrng", 8, 2, 0x1p-30)
	if err := ht.Startup(src); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	for range 64 {
		if _, err := src.Read(buf); err != nil {
			t.Fatal(err)
		}
		if err := ht.Feed(buf); err != nil {
			t.Fatal(err)
		}
	}
}
