package entropy

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"time"

	"tirage.fr/tirage/rngd/entropy/drbg"
)

// Defaults, chosen conservatively.
const (
	// DefaultAlpha is the false-alarm probability per health test and sample
	// (SP 800-90B §4.4 recommends 2^-20 ≤ α ≤ 2^-40).
	DefaultAlpha = 0x1p-30
	// DefaultRequiredEntropy is the credited entropy, in bits, the raw input
	// of each seed must carry (h_in of the conditioning component): a margin
	// over MinRequiredEntropy. The conditioned seed carries at most 256 bits
	// whatever h_in (SP 800-90B §3.1.5.1.2 caps h_out at the narrowest
	// internal width, 256 for SHA-256), which is the entropy input the
	// DRBG's 256-bit security strength needs (SP 800-90A §10.1.2.3); it is
	// not 1.5 × that strength of entropy in the seed.
	DefaultRequiredEntropy = 384
	// MinRequiredEntropy is the least RequiredEntropy: the conditioning
	// component (HMAC-SHA-256, output blocks of 256 bits) gives a 256-bit
	// output full entropy only from h_in ≥ 256 + 64 bits in (SP 800-90B
	// §3.1.5.1.2); from 256 bits in, its output has about 255.
	MinRequiredEntropy = 320
	// DefaultReseedRequests is the number of DRBG requests (of at most
	// 64 KiB each; one per Read of up to 64 KiB) between reseeds
	// (SP 800-90A allows 2^48 for HMAC_DRBG).
	DefaultReseedRequests = 1024
	// DefaultReseedInterval is the longest time between reseeds.
	DefaultReseedInterval = time.Minute
)

// Bounds on Config.Alpha.
const (
	MinAlpha = 0x1p-40
	MaxAlpha = 0x1p-20
)

// SourceConfig declares one entropy source.
type SourceConfig struct {
	// Name identifies the source in metrics, logs and errors; unique within
	// a Config. Defaults to Kind.
	Name string
	// Kind selects the implementation: "hwrng" (a hardware RNG device),
	// "rdseed" (the CPU's RDSEED instruction), "tpm" (TPM2_GetRandom) or
	// "getrandom" (getrandom(2); never credited). Ignored when Source is set.
	Kind string
	// Path is the device for "hwrng" (default /dev/hwrng) and "tpm"
	// (default /dev/tpmrm0).
	Path string
	// Address, for "tpm", is the TCP command port of a TPM simulator
	// (swtpm) instead of a device, e.g. "127.0.0.1:2321".
	Address string
	// SampleBits is the width of one raw sample: 8 (default; each byte is a
	// sample) or 1 (a binary noise source: each bit, most significant first;
	// the APT window is then 1024).
	SampleBits int
	// MinEntropy is the declared min-entropy of one raw sample, in bits
	// (0 < H ≤ SampleBits), from the source's SP 800-90B entropy assessment.
	// It sets the health-test cutoffs and the entropy credited to the source.
	// Required for physical sources; ignored for non-physical ones.
	MinEntropy float64
	// SeedBytes is the number of raw bytes read from the source for each
	// seed. Default: enough for the source alone to meet RequiredEntropy,
	// ceil(RequiredEntropy / (MinEntropy · 8/SampleBits)); non-physical
	// sources default to 32.
	SeedBytes int
	// Source, when set, is used instead of opening Kind (custom hardware,
	// tests). Its Physical method decides whether it is credited.
	Source Source
}

// Config configures a Generator. The zero value of each optional field
// selects the documented default.
type Config struct {
	// Sources are read for every seed, in order. Their credited entropy
	// (SeedBytes × MinEntropy × 8/SampleBits for each healthy physical source) must reach
	// RequiredEntropy, or the Generator refuses to produce output.
	Sources []SourceConfig
	// Alpha is the false-alarm probability of each health test per sample,
	// between 2^-40 and 2^-20 (default 2^-30).
	Alpha float64
	// RequiredEntropy is the credited entropy, in bits, each seed must carry
	// (default 384, minimum MinRequiredEntropy: 320).
	RequiredEntropy int
	// ReseedRequests is the number of DRBG requests after which the DRBG is
	// reseeded (default 1024, at most 2^48: SP 800-90A's reseed_interval
	// for HMAC_DRBG). A request is one SP 800-90A generate call,
	// of at most 64 KiB: a Read of up to 64 KiB is one request, a longer
	// Read is ⌈len(p) / 64 KiB⌉ and may reseed between them (see Read).
	ReseedRequests uint64
	// ReseedInterval is the time after which the DRBG is reseeded before the
	// next Read (default 1 minute).
	ReseedInterval time.Duration
	// PredictionResistance reseeds from the sources before every request
	// (SP 800-90A §8.8): before every Read, and before each further 64 KiB
	// of a longer one; each Read then costs a full seed from the hardware.
	PredictionResistance bool
	// Personalization is the DRBG's personalization string (SP 800-90A
	// §8.7.1), e.g. the appliance's identity, at most 64 KiB. Not secret.
	Personalization []byte
	// Logger receives health events and reseed failures. Default: discard.
	Logger *slog.Logger
	// Clock returns the current time (default time.Now); tests inject one.
	Clock func() time.Time
	// ReadTimeout bounds every read from a source: the samples of one seed,
	// or the 1,024 samples of its start-up tests (default 2 s). A source
	// that does not deliver in time (a stalled /dev/hwrng, a TPM that stops
	// answering) fails the "timeout" health test: it is no longer used, and
	// draws are refused if the remaining sources fall short, until an
	// operator Retest finds it answering again. Each source has at most one
	// read outstanding: a stalled read is never duplicated. Raise it for a
	// source slower than about 1 kB/s.
	ReadTimeout time.Duration
	// After returns a channel that receives once d has passed, on the same
	// clock as Clock (default time.After); tests inject one to fire the read
	// deadline without waiting.
	After func(d time.Duration) <-chan time.Time

	// selfTest is the DRBG's known-answer self-test (default
	// drbg.SelfTest); tests inject a failing one.
	selfTest func() error
}

func (c *Config) withDefaults() (Config, error) {
	n := *c
	if n.Alpha == 0 {
		n.Alpha = DefaultAlpha
	}
	if !(n.Alpha >= MinAlpha && n.Alpha <= MaxAlpha) {
		return n, fmt.Errorf("entropy: config Alpha = %g, want between 2^-40 and 2^-20", n.Alpha)
	}
	if n.RequiredEntropy == 0 {
		n.RequiredEntropy = DefaultRequiredEntropy
	}
	if n.RequiredEntropy < MinRequiredEntropy {
		return n, fmt.Errorf("entropy: config RequiredEntropy = %d bits, want at least %d (the DRBG's 256-bit security strength, through the conditioning component: SP 800-90B §3.1.5.1.2)", n.RequiredEntropy, MinRequiredEntropy)
	}
	if n.ReseedRequests == 0 {
		n.ReseedRequests = DefaultReseedRequests
	}
	if n.ReseedRequests > drbg.ReseedLimit {
		// Beyond it the DRBG would refuse to generate (reseed required)
		// before the Generator's schedule reseeds it.
		return n, fmt.Errorf("entropy: config ReseedRequests = %d, want at most 2^48 (HMAC_DRBG's reseed_interval, SP 800-90A Table 2)", n.ReseedRequests)
	}
	if len(n.Personalization) > drbg.MaxInput {
		return n, fmt.Errorf("entropy: config Personalization is %d bytes, want at most %d", len(n.Personalization), drbg.MaxInput)
	}
	if n.ReseedInterval == 0 {
		n.ReseedInterval = DefaultReseedInterval
	}
	if n.ReseedInterval < 0 {
		return n, fmt.Errorf("entropy: config ReseedInterval = %v, want positive", n.ReseedInterval)
	}
	if n.ReadTimeout == 0 {
		n.ReadTimeout = DefaultReadTimeout
	}
	if n.ReadTimeout < 0 {
		return n, fmt.Errorf("entropy: config ReadTimeout = %v, want positive", n.ReadTimeout)
	}
	if n.After == nil {
		n.After = time.After
	}
	if n.selfTest == nil {
		n.selfTest = drbg.SelfTest
	}
	if n.Logger == nil {
		n.Logger = slog.New(slog.DiscardHandler)
	}
	if n.Clock == nil {
		n.Clock = time.Now
	}
	if len(n.Sources) == 0 {
		return n, errors.New("entropy: config Sources is empty")
	}
	n.Sources = append([]SourceConfig(nil), c.Sources...)
	seen := map[string]bool{}
	for i := range n.Sources {
		s := &n.Sources[i]
		if s.Name == "" {
			s.Name = s.Kind
			if s.Source != nil {
				s.Name = s.Source.Name()
			}
		}
		if s.Name == "" {
			return n, fmt.Errorf("entropy: config Sources[%d]: Name and Kind are empty", i)
		}
		if seen[s.Name] {
			return n, fmt.Errorf("entropy: config Sources[%d]: Name %q used twice", i, s.Name)
		}
		seen[s.Name] = true
		if s.SeedBytes < 0 || s.SeedBytes > MaxSeedBytes {
			return n, fmt.Errorf("entropy: config Sources[%d] (%s): SeedBytes = %d, want 1..%d", i, s.Name, s.SeedBytes, MaxSeedBytes)
		}
	}
	return n, nil
}

// checkPhysical validates a physical source's declared min-entropy and
// fills in its SeedBytes default.
func (s *SourceConfig) checkPhysical(i, required int) error {
	if s.SampleBits == 0 {
		s.SampleBits = 8
	}
	if s.SampleBits != 8 && s.SampleBits != 1 {
		return fmt.Errorf("entropy: config Sources[%d] (%s): SampleBits = %d, want 8 or 1", i, s.Name, s.SampleBits)
	}
	if !(s.MinEntropy > 0 && s.MinEntropy <= float64(s.SampleBits)) {
		return fmt.Errorf("entropy: config Sources[%d] (%s): MinEntropy = %g bits per %d-bit sample, want 0 < H ≤ %d", i, s.Name, s.MinEntropy, s.SampleBits, s.SampleBits)
	}
	if s.SeedBytes == 0 {
		s.SeedBytes = DefaultSeedBytes(required, s.perByte())
		if s.SeedBytes > MaxSeedBytes {
			return fmt.Errorf("entropy: config Sources[%d] (%s): MinEntropy = %g bits per %d-bit sample needs more than %d raw bytes per seed (SeedBytes' default): declare more, or another source",
				i, s.Name, s.MinEntropy, s.SampleBits, MaxSeedBytes)
		}
	}
	return nil
}

// MaxSeedBytes bounds a source's SeedBytes: raw bytes read per seed.
const MaxSeedBytes = 1 << 16

// DefaultSeedBytes is a physical source's default SeedBytes: the fewest raw
// bytes whose credit, n × perByte bits as New computes it, meets required.
// The quotient may round down to an n whose credit is just under required
// in float64 (339 / 1.13 = 300, but 300 × 1.13 = 338.99999999999994): one
// more byte then meets it. A count beyond math.MaxInt32 (a minute
// min-entropy) is returned as math.MaxInt32, for the caller to refuse.
func DefaultSeedBytes(required int, perByte float64) int {
	d := math.Ceil(float64(required) / perByte)
	if d >= math.MaxInt32 {
		return math.MaxInt32
	}
	n := int(d)
	if float64(n)*perByte < float64(required) {
		n++
	}
	return n
}

// perByte is the entropy credited to one raw byte of a physical source.
func (s *SourceConfig) perByte() float64 {
	return s.MinEntropy * float64(8/s.SampleBits)
}
