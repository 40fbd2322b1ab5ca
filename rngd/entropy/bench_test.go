package entropy

import (
	"io"
	"os"
	"testing"

	"golang.org/x/sys/cpu"

	"tirage.fr/tirage/rngd/entropy/entropytest"
)

// benchSources opens each real source present on this machine.
func benchSources(b *testing.B) map[string]Source {
	out := map[string]Source{"getrandom": Getrandom("")}
	if s, err := OpenDevice("hwrng", DefaultHWRNGPath); err == nil {
		out["hwrng"] = s
	}
	if cpu.X86.HasRDSEED {
		s, _ := OpenRDSEED("rdseed")
		out["rdseed"] = s
	}
	if s, err := OpenTPM("tpm", "", entropytest.StartSwtpm(b)); err == nil {
		out["swtpm"] = s
	}
	return out
}

// BenchmarkSourceRead is the raw throughput of each source, 4 KiB reads.
func BenchmarkSourceRead(b *testing.B) {
	srcs := benchSources(b)
	for _, name := range []string{"hwrng", "rdseed", "swtpm", "getrandom"} {
		s, ok := srcs[name]
		if !ok {
			continue
		}
		b.Run(name, func(b *testing.B) {
			buf := make([]byte, 4096)
			b.SetBytes(int64(len(buf)))
			for b.Loop() {
				if _, err := io.ReadFull(s, buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	for _, s := range srcs {
		if c, ok := s.(io.Closer); ok {
			c.Close()
		}
	}
}

// BenchmarkGeneratorRead is the daemon's use: one 256-bit secret r per
// Read, from a Generator over /dev/hwrng (H = 2) and getrandom with the
// default reseed schedule, and with prediction resistance (a reseed from
// the hardware before every Read).
func BenchmarkGeneratorRead(b *testing.B) {
	if _, err := os.Stat(DefaultHWRNGPath); err != nil {
		b.Skipf("%s absent", DefaultHWRNGPath)
	}
	for _, pr := range []bool{false, true} {
		name := "r32/default-reseed"
		if pr {
			name = "r32/prediction-resistance"
		}
		b.Run(name, func(b *testing.B) {
			g, err := New(Config{
				Sources:              []SourceConfig{{Kind: KindHWRNG, MinEntropy: 2}, {Kind: KindGetrandom}},
				PredictionResistance: pr,
			})
			if err != nil {
				b.Fatal(err)
			}
			defer g.Close()
			r := make([]byte, 32)
			b.SetBytes(32)
			for b.Loop() {
				if _, err := g.Read(r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkHealthTestFeed(b *testing.B) {
	ht, _ := NewHealthTest("bench", 8, 6, DefaultAlpha)
	buf := make([]byte, 4096)
	for i := range buf {
		buf[i] = byte(i*131 + i>>8)
	}
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		ht.Feed(buf)
	}
}
