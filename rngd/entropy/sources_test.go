package entropy

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/cpu"

	"tirage.fr/tirage/internal/peertest"
	"tirage.fr/tirage/rngd/entropy/entropytest"
)

// hardwareAbsent ends a test whose hardware is missing: it skips, or
// fails in CI ([peertest.Absent]).
func hardwareAbsent(t *testing.T, what string) {
	t.Helper()
	peertest.Absent(t, "%s absent on this machine: the real-hardware test needs it", what)
}

func TestHWRNG(t *testing.T) {
	src, err := OpenDevice("hwrng", DefaultHWRNGPath)
	if errors.Is(err, ErrNotSupported) {
		hardwareAbsent(t, DefaultHWRNGPath)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer src.(io.Closer).Close()
	checkRealSource(t, src, true)
}

func TestRDSEED(t *testing.T) {
	src, err := OpenRDSEED("rdseed")
	if !cpu.X86.HasRDSEED {
		if !errors.Is(err, ErrNotSupported) {
			t.Fatalf("without RDSEED in CPUID: OpenRDSEED error %v, want ErrNotSupported", err)
		}
		hardwareAbsent(t, "the RDSEED instruction")
	}
	if err != nil {
		t.Fatal(err)
	}
	checkRealSource(t, src, true)
}

func TestGetrandom(t *testing.T) {
	checkRealSource(t, Getrandom(""), false)
}

func TestTPMSwtpm(t *testing.T) {
	addr := entropytest.StartSwtpm(t)
	src, err := OpenTPM("tpm", "", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer src.(io.Closer).Close()
	checkRealSource(t, src, true)
}

func TestTPMDeviceAbsent(t *testing.T) {
	_, err := OpenTPM("tpm", "/nonexistent/tpmrm0", "")
	if !errors.Is(err, ErrNotSupported) {
		t.Fatalf("missing TPM device: %v, want ErrNotSupported", err)
	}
}

// checkRealSource reads the start-up sample count from a real source and
// runs the start-up tests with a conservative declared H (2 bits per byte).
// False-failure rate: each test's false-alarm probability is α = 2^-30 per
// sample, so at most 2·1024·2^-30 < 2^-18 for this test.
func checkRealSource(t *testing.T, src Source, physical bool) {
	t.Helper()
	if src.Physical() != physical {
		t.Errorf("%s: Physical() = %v, want %v", src.Name(), src.Physical(), physical)
	}
	ht, err := NewHealthTest(src.Name(), 8, 2, 0x1p-30)
	if err != nil {
		t.Fatal(err)
	}
	if err := ht.Startup(src); err != nil {
		t.Fatalf("%s: start-up tests: %v", src.Name(), err)
	}
	// Odd sizes exercise partial reads of 64-byte device chunks and 8-byte
	// RDSEED words.
	for _, n := range []int{1, 7, 65, 130} {
		buf := make([]byte, n)
		if m, err := src.Read(buf); err != nil || m != n {
			t.Fatalf("%s: Read(%d) = %d, %v", src.Name(), n, m, err)
		}
	}
}

// TestGeneratorRealSources runs the Generator over every real source this
// machine has: /dev/hwrng, RDSEED, swtpm and getrandom, with prediction
// resistance so that each Read reseeds from all of them.
func TestGeneratorRealSources(t *testing.T) {
	cfg := Config{PredictionResistance: true}
	if _, err := os.Stat(DefaultHWRNGPath); err == nil {
		cfg.Sources = append(cfg.Sources, SourceConfig{Kind: KindHWRNG, MinEntropy: 2})
	} else {
		peertest.Without(t, "%s absent: not in this run", DefaultHWRNGPath)
	}
	if cpu.X86.HasRDSEED {
		cfg.Sources = append(cfg.Sources, SourceConfig{Kind: KindRDSEED, MinEntropy: 4})
	} else {
		peertest.Without(t, "no RDSEED: not in this run")
	}
	cfg.Sources = append(cfg.Sources,
		SourceConfig{Kind: KindTPM, Address: entropytest.StartSwtpm(t), MinEntropy: 4},
		SourceConfig{Kind: KindGetrandom})
	g, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	seen := map[string]bool{}
	for range 4 {
		r := make([]byte, 32)
		if _, err := g.Read(r); err != nil {
			t.Fatal(err)
		}
		if seen[string(r)] {
			t.Fatal("repeated output")
		}
		seen[string(r)] = true
	}
	for _, st := range g.Status() {
		if st.Failure != nil {
			t.Errorf("source %s failed: %v", st.Name, st.Failure)
		}
	}
}

func TestRDSEEDRetryBound(t *testing.T) {
	if !cpu.X86.HasRDSEED {
		hardwareAbsent(t, "the RDSEED instruction")
	}
	// Zero retries: the instruction is not even tried.
	if _, ok := rdseed64(0); ok {
		t.Error("rdseed64(0) delivered a value")
	}
	if _, ok := rdseed64(rdseedRetries); !ok {
		t.Errorf("no seed in %d tries", rdseedRetries)
	}
}

// /dev/hwrng backed by the TPM (the kernel's tpm-rng driver) and a tpm
// source would be one device credited twice: New refuses them before
// opening anything. Another backing device, or a path other than
// /dev/hwrng, is not refused for that.
func TestHWRNGBackedByTPMRefused(t *testing.T) {
	cur := filepath.Join(t.TempDir(), "rng_current")
	defer func(old string) { hwrngCurrent = old }(hwrngCurrent)
	hwrngCurrent = cur
	tpmAndHWRNG := func(path string) Config {
		return Config{Sources: []SourceConfig{{Kind: KindHWRNG, Path: path, MinEntropy: 2},
			{Kind: KindTPM, Address: "127.0.0.1:1", MinEntropy: 4}, {Kind: KindGetrandom}}}
	}
	for _, c := range []struct {
		current, path string
		refused       bool
	}{
		{"tpm-rng-0\n", "", true},
		{"tpm-rng-0\n", DefaultHWRNGPath, true},
		{"virtio_rng.0\n", "", false},
		{"tpm-rng-0\n", "/dev/another-rng", false},
	} {
		if err := os.WriteFile(cur, []byte(c.current), 0o600); err != nil {
			t.Fatal(err)
		}
		g, err := New(tpmAndHWRNG(c.path))
		if g != nil {
			g.Close()
		}
		if got := err != nil && strings.Contains(err.Error(), "backed by the TPM"); got != c.refused {
			t.Errorf("rng_current %q, hwrng path %q: %v, refused for the TPM: %v, want %v", c.current, c.path, err, got, c.refused)
		}
	}
}
