package entropy

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"tirage.fr/tirage/rngd/entropy/drbg"
)

// ErrUnhealthy means the sources that pass their health tests no longer
// credit the entropy a seed requires, so the Generator refuses to produce
// output. The caller must refuse the draw (gRPC Unavailable) and raise the
// alarm; an operator inspects the source and calls Retest. The error chain
// also holds a *HealthError per failed source.
var ErrUnhealthy = errors.New("entropy unhealthy")

// ErrSelfTest means the DRBG failed its known-answer self-test (SP 800-90A
// §11.3), which runs before every instantiation and reseed: the error also
// wraps ErrUnhealthy, and the Generator refuses draws, with the alarm, until
// an operator Retest passes the self-test again.
var ErrSelfTest = drbg.ErrSelfTest

// ErrClosed is returned after Close.
var ErrClosed = errors.New("entropy: generator closed")

// HealthError says which source failed which test. It wraps ErrUnhealthy
// and, for a failed read, the I/O error (ErrTimeout for a source that did
// not deliver within Config.ReadTimeout). It never carries sample values.
type HealthError struct {
	Source string // the source's configured name
	Test   string // TestRCT, TestAPT, TestRead or TestTimeout
	Detail string
	Err    error // the read error, for TestRead; ErrTimeout for TestTimeout
}

func (e *HealthError) Error() string {
	if e.Test == TestTimeout {
		return fmt.Sprintf("entropy source %s timed out: %s", e.Source, e.Detail)
	}
	s := fmt.Sprintf("entropy source %s failed the %s test: %s", e.Source, e.Test, e.Detail)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns ErrUnhealthy and the underlying read error, if any.
func (e *HealthError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrUnhealthy, e.Err}
	}
	return []error{ErrUnhealthy}
}

// SourceStatus is the health of one source, as Status reports it.
type SourceStatus struct {
	Name     string
	Physical bool
	// CreditedBits is the entropy credited to the source's contribution to
	// each seed (0 for non-physical sources).
	CreditedBits float64
	// Failure is nil while the source is healthy.
	Failure *HealthError
}

type sourceState struct {
	cfg      SourceConfig
	src      Source
	owned    bool // opened by us, closed by Close
	physical bool
	credited float64
	health   *HealthTest // nil for non-physical sources
	failure  *HealthError
	// guard reads the source with Config.ReadTimeout; its outstanding
	// read, if any, is one not yet collected or one abandoned at its
	// deadline that has not returned.
	guard stallGuard
}

// Generator is the appliance's random bit generator: the configured sources,
// health-tested on every raw sample, conditioned with HMAC-SHA-256, seed an
// SP 800-90A HMAC_DRBG that is reseeded on schedule. It is safe for
// concurrent use; calls are serialised.
type Generator struct {
	cfg Config
	log *slog.Logger
	m   *metrics

	mu       sync.Mutex // guards the fields below
	sources  []*sourceState
	drbg     *drbg.HMAC
	requests uint64 // DRBG requests (of at most drbg.MaxRequest bytes) since the last (re)seed
	seededAt int64  // Clock at the last (re)seed, Unix nanoseconds
	seeds    uint64 // number of (re)seeds, part of the instantiation nonce
	refusing bool   // the healthy sources fall short; logged once per episode
	degraded bool   // a source failed, the others meet the requirement; logged once per episode
	// selfTestErr is the DRBG's failed self-test, the error Read returns
	// until a Retest passes it again (the error state of SP 800-90A §11.3).
	selfTestErr error
	closed      bool
}

// New opens the configured sources, runs the start-up health tests on every
// physical source (1,024 samples each) and instantiates the DRBG. It fails
// if the configuration is invalid, a source cannot be opened, or the sources
// that pass start-up do not credit cfg.RequiredEntropy (error wrapping
// ErrUnhealthy).
func New(cfg Config) (*Generator, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := checkHWRNGNotTPM(c.Sources, c.Logger); err != nil {
		return nil, err
	}
	g := &Generator{cfg: c, log: c.Logger, m: newMetrics()}
	var total float64
	for i, sc := range c.Sources {
		src, err := Open(sc)
		if err != nil {
			g.closeSources()
			return nil, err
		}
		st := &sourceState{cfg: sc, src: src, owned: sc.Source == nil, physical: src.Physical(),
			guard: stallGuard{src: src, name: sc.Name, timeout: c.ReadTimeout, after: c.After}}
		g.sources = append(g.sources, st)
		if st.physical {
			if err := st.cfg.checkPhysical(i, c.RequiredEntropy); err != nil {
				g.closeSources()
				return nil, err
			}
			st.credited = float64(st.cfg.SeedBytes) * st.cfg.perByte()
			total += st.credited
			if st.health, err = NewHealthTest(st.cfg.Name, st.cfg.SampleBits, st.cfg.MinEntropy, c.Alpha); err != nil {
				g.closeSources()
				return nil, err
			}
		} else if st.cfg.SeedBytes == 0 {
			st.cfg.SeedBytes = 32
		}
	}
	if total < float64(c.RequiredEntropy) {
		g.closeSources()
		return nil, fmt.Errorf("entropy: config: the physical sources credit %.1f bits per seed, RequiredEntropy is %d", total, c.RequiredEntropy)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.m.required.Set(float64(c.RequiredEntropy))
	for _, st := range g.sources {
		g.m.sourceHealthy.WithLabelValues(st.cfg.Name).Set(1)
		// Every failure series exists from the start at 0, so that the
		// first failure is an increase an alert sees.
		tests := []string{TestRead, TestTimeout}
		if st.physical {
			tests = append(tests, TestRCT, TestAPT)
		}
		for _, test := range tests {
			g.m.failures.WithLabelValues(st.cfg.Name, test)
		}
	}
	g.tally()
	g.startup(context.Background()) // fails only when its context is done
	if err := g.seed(true); err != nil {
		g.closeSources()
		return nil, err
	}
	return g, nil
}

// hwrngCurrent names the device the kernel backs /dev/hwrng with.
var hwrngCurrent = "/sys/class/misc/hw_random/rng_current"

// checkHWRNGNotTPM refuses an hwrng source on /dev/hwrng beside a tpm
// source when the kernel backs /dev/hwrng with the TPM (its hwrng driver,
// "tpm-rng-N", the choice on hardware without another hardware RNG): one
// device would be credited as two independent sources. The kernel's choice
// is read at New; where it cannot be read, that is logged and the sources
// are taken as configured.
func checkHWRNGNotTPM(sources []SourceConfig, log *slog.Logger) error {
	var hw, tpm bool
	for _, s := range sources {
		switch {
		case s.Source != nil:
		case s.Kind == KindHWRNG:
			hw = s.Path == "" || s.Path == DefaultHWRNGPath
		case s.Kind == KindTPM:
			tpm = true
		}
	}
	if !hw || !tpm {
		return nil
	}
	b, err := os.ReadFile(hwrngCurrent)
	if err != nil {
		log.Warn("entropy: couldn't tell which device backs /dev/hwrng: if it is the TPM, the hwrng and tpm sources are one device credited twice", "err", err)
		return nil
	}
	if cur := strings.TrimSpace(string(b)); strings.HasPrefix(cur, "tpm") {
		return fmt.Errorf("entropy: config: /dev/hwrng is backed by the TPM (%s = %q), and a tpm source is configured too: one device would be credited as two independent sources; remove one of them", hwrngCurrent, cur)
	}
	return nil
}

// Read fills p with output of the DRBG (it is the daemon's source of each
// game's secret r). It reseeds first when the schedule asks for it. When the
// healthy sources do not meet the required entropy it returns 0 and an error
// wrapping ErrUnhealthy, and p is zeroed: it fails closed. Every error
// (ErrClosed after Close included) leaves p zeroed, so a caller that ignores
// it never takes what was in p before for a secret.
//
// Reseed counting: the DRBG serves a Read in requests of at most
// drbg.MaxRequest bytes (64 KiB, SP 800-90A's max_number_of_bits_per_request
// of 2^19 bits for HMAC_DRBG), and each of them is one request in the sense
// of SP 800-90A: one call of the Generate function, one step of its
// reseed_counter. Config.ReseedRequests counts the same requests, so a Read
// of n bytes counts ⌈n / 64 KiB⌉ (one for every Read of the daemon, whose
// secrets are 32 bytes), and the schedule (ReseedRequests, ReseedInterval,
// PredictionResistance) is checked before each of them, also in the middle
// of a long Read. Counting calls instead would let one long Read draw
// ReseedRequests × len(p) bytes from a seed, so the output a seed can
// produce would depend on the callers' buffer sizes rather than on the
// configuration; counted per request it is at most ReseedRequests × 64 KiB.
func (g *Generator) Read(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		clear(p)
		return 0, ErrClosed
	}
	if err := g.healthy(); err != nil {
		g.m.refused.Inc()
		clear(p)
		return 0, err
	}
	for off := 0; off < len(p); {
		chunk := min(len(p)-off, drbg.MaxRequest)
		if g.drbg == nil || g.reseedDue() {
			if err := g.seed(g.drbg == nil); err != nil {
				g.m.refused.Inc()
				clear(p)
				return 0, err
			}
		}
		if err := g.drbg.Generate(p[off:off+chunk], nil); err != nil {
			clear(p)
			return 0, fmt.Errorf("entropy: drbg: %w", err)
		}
		g.requests++
		off += chunk
	}
	return len(p), nil
}

// Healthy returns nil when the healthy sources meet the required entropy,
// or the error Read would return.
func (g *Generator) Healthy() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.health()
}

// health is Healthy under mu.
func (g *Generator) health() error {
	if g.closed {
		return ErrClosed
	}
	return g.healthy()
}

// Status reports the health of every source.
func (g *Generator) Status() []SourceStatus {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.status()
}

// Report is Healthy and Status read at one instant (rngctl entropy
// status): a source failing between two reads would show a healthy
// generator with a failed source, or the reverse.
func (g *Generator) Report() ([]SourceStatus, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.status(), g.health()
}

func (g *Generator) status() []SourceStatus {
	out := make([]SourceStatus, len(g.sources))
	for i, st := range g.sources {
		out[i] = SourceStatus{Name: st.cfg.Name, Physical: st.physical, CreditedBits: st.credited, Failure: st.failure}
	}
	return out
}

// Retest is the operator's recovery action (docs/entropy.md): it re-runs
// the start-up tests on every physical source, failed or not, marks each
// healthy or failed by the outcome (a failed non-physical source: by
// whether it reads again), and, if the healthy sources meet the
// required entropy and the DRBG passes its self-test again, instantiates a
// fresh DRBG from them. Nothing recovers without it.
func (g *Generator) Retest(ctx context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	g.log.Info("entropy: operator retest: re-running start-up health tests")
	if err := g.startup(ctx); err != nil {
		return err
	}
	g.selfTestErr = nil // seed runs the self-test again
	if g.drbg != nil {
		g.drbg.Wipe()
		g.drbg = nil
	}
	return g.seed(true)
}

// Collectors returns the Prometheus collectors for the daemon to register.
func (g *Generator) Collectors() []prometheus.Collector { return g.m.collectors() }

// Close wipes the DRBG state and the raw samples the health tests keep,
// and closes the sources New opened.
func (g *Generator) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil
	}
	g.closed = true
	if g.drbg != nil {
		g.drbg.Wipe()
		g.drbg = nil
	}
	for _, st := range g.sources {
		if st.health != nil {
			st.health.Reset()
		}
	}
	return g.closeSources()
}

func (g *Generator) closeSources() error {
	var errs []error
	for _, st := range g.sources {
		if c, ok := st.src.(io.Closer); ok && st.owned {
			errs = append(errs, c.Close())
		}
	}
	return errors.Join(errs...)
}

// startup runs the start-up tests of every physical source, failed or not,
// reading the sources in parallel, each within Config.ReadTimeout. A source
// that passes is healthy again; one that fails is marked failed. Then each
// failed non-physical source is read once: healthy again if it delivers. If ctx is
// done first, the sources not yet decided keep their state and ctx's error
// is returned. g.mu is held.
func (g *Generator) startup(ctx context.Context) error {
	// The physical sources, and the failed non-physical ones: those have
	// no health tests, and a seed's worth read is theirs.
	var retest []*sourceState
	for _, st := range g.sources {
		switch {
		case st.physical:
			st.guard.start(st.health.startupBytes())
		case st.failure != nil:
			st.guard.start(st.cfg.SeedBytes)
		default:
			continue
		}
		retest = append(retest, st)
	}
	for i, st := range retest {
		var buf []byte
		var err error
		how := "passed start-up tests again"
		if st.physical {
			buf, err = g.read(ctx, st, st.health.startupBytes(), "during start-up tests")
			if err == nil {
				err = st.health.startup(buf)
			}
		} else {
			buf, err = g.read(ctx, st, st.cfg.SeedBytes, "on retest")
			how = "reads again"
		}
		clear(buf)
		var he *HealthError
		switch {
		case errors.As(err, &he):
			g.fail(st, he)
		case err != nil:
			// Cancelled: reads started for the sources left are given up.
			for _, rest := range retest[i+1:] {
				if p := rest.guard.inflight; p != nil {
					p.abandoned = true
				}
			}
			return err
		case st.failure != nil:
			g.recovered(st, how)
		}
	}
	return nil
}

// recovered puts a failed source back in use. g.mu is held.
func (g *Generator) recovered(st *sourceState, how string) {
	st.failure = nil
	g.m.sourceHealthy.WithLabelValues(st.cfg.Name).Set(1)
	g.tally()
	g.log.Warn("entropy: source "+how+" and is back in use", "entropy_source", st.cfg.Name)
}

// fail marks a source failed, counts and logs it. It is called once per
// failure: a failed source is not read again until a retest, and a retest
// that fails it again is a new failure, logged as such. g.mu is held.
func (g *Generator) fail(st *sourceState, he *HealthError) {
	again := st.failure != nil
	st.failure = he
	g.m.sourceHealthy.WithLabelValues(st.cfg.Name).Set(0)
	g.m.failures.WithLabelValues(st.cfg.Name, he.Test).Inc()
	g.tally()
	attrs := []any{"entropy_source", st.cfg.Name, "test", he.Test, "detail", he.Detail}
	if he.Err != nil {
		attrs = append(attrs, "err", he.Err.Error())
	}
	if again {
		g.log.Error("entropy: source failed again on retest; it stays out of use", attrs...)
		return
	}
	g.log.Error("entropy: source failed health test; it is no longer used", attrs...)
}

// tally sums the entropy the healthy physical sources credit to a seed,
// collects the failures of the failed sources and sets the gauges that
// show both. g.mu is held.
func (g *Generator) tally() (credited float64, failures []error, failed []string) {
	for _, st := range g.sources {
		if st.failure != nil {
			failures = append(failures, st.failure)
			failed = append(failed, st.cfg.Name+" ("+st.failure.Test+")")
		} else if st.physical {
			credited += st.credited
		}
	}
	g.m.credited.Set(credited)
	g.m.failed.Set(float64(len(failures)))
	return credited, failures, failed
}

// healthy checks the credited entropy of the healthy sources, and logs each
// change between healthy, degraded (a source failed, the others meet the
// requirement) and refusing. g.mu is held.
func (g *Generator) healthy() error {
	credited, failures, failed := g.tally()
	if g.selfTestErr != nil {
		g.m.healthy.Set(0)
		return g.selfTestErr
	}
	if credited >= float64(g.cfg.RequiredEntropy) {
		g.m.healthy.Set(1)
		if g.refusing {
			g.refusing = false
			g.log.Warn("entropy: healthy sources meet the requirement again; draws resume", "credited_bits", credited, "required_bits", g.cfg.RequiredEntropy)
		}
		switch {
		case len(failed) > 0 && !g.degraded:
			g.degraded = true
			g.log.Warn("entropy: degraded: draws go on from the healthy sources alone; repair the failed sources and run an operator retest",
				"failed_sources", strings.Join(failed, ", "), "credited_bits", credited, "required_bits", g.cfg.RequiredEntropy)
		case len(failed) == 0 && g.degraded:
			g.degraded = false
			g.log.Info("entropy: every source is healthy again", "credited_bits", credited, "required_bits", g.cfg.RequiredEntropy)
		}
		return nil
	}
	g.m.healthy.Set(0)
	// Refusing supersedes degraded: a recovery that leaves some sources
	// failed is logged as degraded again.
	g.degraded = false
	if !g.refusing {
		g.refusing = true
		g.log.Error("entropy: healthy sources fall short of the required entropy; draws refused until an operator retest",
			"credited_bits", credited, "required_bits", g.cfg.RequiredEntropy, "failed_sources", strings.Join(failed, ", "))
	}
	if len(failures) == 0 {
		failures = append(failures, ErrUnhealthy)
	}
	return fmt.Errorf("entropy: healthy sources credit %.1f bits per seed, %d required; draws refused until an operator retest: %w",
		credited, g.cfg.RequiredEntropy, errors.Join(failures...))
}

// reseedDue reports whether the schedule asks for a reseed. g.mu is held.
func (g *Generator) reseedDue() bool {
	if g.cfg.PredictionResistance || g.requests >= g.cfg.ReseedRequests {
		return true
	}
	now := g.cfg.Clock().UnixNano()
	// A clock that went backwards also reseeds.
	return now < g.seededAt || now-g.seededAt >= int64(g.cfg.ReseedInterval)
}

// seed gathers raw samples from every healthy source (health-testing each
// sample), conditions them and instantiates (first) or reseeds the DRBG.
// g.mu is held.
func (g *Generator) seed(instantiate bool) error {
	if err := g.healthy(); err != nil {
		return err
	}
	// SP 800-90A §11.3: known-answer tests before each instantiation and
	// reseed; a failure is an error state that only a Retest leaves.
	if err := g.cfg.selfTest(); err != nil {
		if g.drbg != nil {
			g.drbg.Wipe()
			g.drbg = nil
		}
		g.selfTestErr = fmt.Errorf("entropy: the DRBG failed its known-answer self-test (SP 800-90A §11.3); draws refused until an operator retest: %w", errors.Join(ErrUnhealthy, err))
		g.log.Error("entropy: the DRBG failed its known-answer self-test; draws refused until an operator retest", "err", err.Error())
		return g.healthy()
	}
	var inputs []rawInput
	defer func() {
		for _, in := range inputs {
			clear(in.data)
		}
	}()
	// The healthy sources are read in parallel, each within
	// Config.ReadTimeout.
	var live []*sourceState
	for _, st := range g.sources {
		if st.failure == nil {
			live = append(live, st)
			st.guard.start(st.cfg.SeedBytes)
		}
	}
	for _, st := range live {
		buf, err := g.read(context.Background(), st, st.cfg.SeedBytes, "while seeding")
		if err != nil {
			var he *HealthError
			errors.As(err, &he)
			g.fail(st, he)
			continue
		}
		if st.health != nil {
			if err := st.health.Feed(buf); err != nil {
				clear(buf)
				var he *HealthError
				errors.As(err, &he)
				g.fail(st, he)
				continue
			}
		}
		inputs = append(inputs, rawInput{source: st.cfg.Name, data: buf})
	}
	// Samples of sources that failed were dropped above; what is left must
	// still meet the requirement.
	if err := g.healthy(); err != nil {
		return err
	}
	material := condition(inputs, int(math.Ceil(float64(g.cfg.RequiredEntropy)/8)))
	defer clear(material)
	now := g.cfg.Clock()
	if instantiate || g.drbg == nil {
		// The nonce (SP 800-90A §8.6.7): an instantiation counter and the
		// time. It is one that does not repeat (§8.6.7 b), not one with
		// entropy: the conditioned entropy input carries at most 256 bits
		// (condition), the security strength, and no more.
		nonce := binary.BigEndian.AppendUint64(nil, g.seeds)
		nonce = binary.BigEndian.AppendUint64(nonce, uint64(now.UnixNano()))
		d, err := drbg.NewHMAC(material, nonce, g.cfg.Personalization)
		if err != nil {
			return fmt.Errorf("entropy: instantiate drbg: %w", err)
		}
		if g.drbg != nil {
			g.drbg.Wipe()
		}
		g.drbg = d
	} else if err := g.drbg.Reseed(material, nil); err != nil {
		return fmt.Errorf("entropy: reseed drbg: %w", err)
	}
	g.seeds++
	g.requests = 0
	g.seededAt = now.UnixNano()
	g.m.reseeds.Inc()
	return nil
}
