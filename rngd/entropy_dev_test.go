//go:build tirage_dev

package rngd

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
)

// A daemon started with sample_bits = 1 reads its hwrng as a binary noise
// source: 1,024 one-bit samples (128 bytes) for the start-up tests, and
// seed_bytes default ⌈384 / (0.4 × 8)⌉ = 120 bytes per seed. The "device"
// is a file of biased bits (P(1) = 3/4, H ≈ 0.415 bits per bit) shorter
// than the 1,024 bytes that 8-bit samples would need at start-up: read
// byte-wise, the same declaration cannot start. A file as a source is for
// dev mode only (in production the path must be a character device:
// TestEntropySourceNotDevice), hence a dev build's test.
func TestEntropyBinarySource(t *testing.T) {
	const startup, seed, seeds = 128, 120, 6
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, startup+seed*seeds)
	for i := range data {
		for b := 0; b < 8; b++ {
			if rng.IntN(4) != 0 {
				data[i] |= 0x80 >> b
			}
		}
	}
	dev := filepath.Join(t.TempDir(), "hwrng")
	if err := os.WriteFile(dev, data, 0o600); err != nil {
		t.Fatal(err)
	}
	source := EntropySource{Kind: "hwrng", Path: dev, SampleBits: 1, MinEntropy: 0.4}
	var banner strings.Builder
	td := newTestDaemon(t, func(c *Config) {
		c.Dev = true
		c.Entropy.Sources = []EntropySource{source, {Kind: "getrandom"}}
		c.Entropy.ReseedRequests = 1 // a seed per draw
		c.Banner = &banner
	})
	// The start summary names the device read, not only its kind.
	if want := "hwrng " + dev + " + getrandom"; !strings.Contains(banner.String(), want) {
		t.Errorf("banner's entropy line: %q, want %q", grepLines(banner.String(), "  entropy"), want)
	}
	ctx := context.Background()
	st, err := td.admin().EntropyStatus(ctx, &adminv1.EntropyStatusRequest{})
	if err != nil || !st.Healthy || len(st.Sources) != 2 || st.Sources[0].Name != "hwrng" || st.Sources[0].CreditedBits != seed*8*0.4 {
		t.Fatalf("entropy status %v: %v", err, st)
	}
	codes1 := td.emission("B1", "2026-12-15", 3)
	for i, code := range codes1 {
		if _, err := td.client("server-a").StartGame(ctx, &qodv1.StartGameRequest{RequestId: fmt.Sprint("s", i), Code: code}); err != nil {
			t.Fatal(err)
		}
	}
	read := gatheredCounter(t, td, "tirage_entropy_source_bytes_total", "hwrng")
	reseeds := gatheredCounter(t, td, "tirage_entropy_reseeds_total", "")
	if reseeds < 2 || read != startup+seed*reseeds {
		t.Errorf("hwrng: %v bytes read for %v seeds, want %d + %d per seed", read, reseeds, startup, seed)
	}

	// The same file and min_entropy as 8-bit samples: 1,024 bytes for the
	// start-up tests, more than the file holds.
	cfg := freshConfig(t, td)
	source.SampleBits = 0
	cfg.Entropy.Sources = []EntropySource{source, {Kind: "getrandom"}}
	startFails(t, "8-bit samples", cfg, "couldn't start the entropy generator")
}

// gatheredCounter is the value of a counter of the daemon's registry (the
// series whose "source" label is source, or the only one).
func gatheredCounter(t *testing.T, td *testDaemon, name, source string) float64 {
	t.Helper()
	mfs, err := td.d.engine.metrics.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "source" && l.GetValue() != source {
					goto next
				}
			}
			return m.GetCounter().GetValue()
		next:
		}
	}
	t.Fatalf("no %s{source=%q}", name, source)
	return 0
}
