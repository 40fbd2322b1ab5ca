package entropy

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"tirage.fr/tirage/rngd/entropy/drbg"
	"tirage.fr/tirage/rngd/internal/testio"
)

// faultSource is the fault-injection harness: a physical source whose
// samples come from ChaCha8 with a fixed seed, and which can be switched to
// stuck (one repeated value), broken (read errors), stalled (Read blocks
// until resume) or back. It records every byte it produced, so tests can
// look for them where they must not be.
type faultSource struct {
	name    string
	mixOnly bool // non-physical: mixed into seeds, credited nothing
	mu      sync.Mutex
	r       *rand.Rand
	mode    string // "", "stuck", "broken"
	gate    chan struct{}
	blocked int // Reads blocked in a stall now
	maxBlk  int // most Reads ever blocked at once
	out     bytes.Buffer
	n       int // bytes produced
}

// stall makes every Read block until resume.
func (s *faultSource) stall() {
	s.mu.Lock()
	s.gate = make(chan struct{})
	s.mu.Unlock()
}

// resume releases the Reads blocked by stall: they return fresh samples.
func (s *faultSource) resume() {
	s.mu.Lock()
	if s.gate != nil {
		close(s.gate)
		s.gate = nil
	}
	s.mu.Unlock()
}

// blockedReads returns the number of Reads blocked now and the most ever
// blocked at once.
func (s *faultSource) blockedReads() (now, most int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.blocked, s.maxBlk
}

func newFaultSource(name string, seed byte) *faultSource {
	return &faultSource{name: name, r: rand.New(rand.NewChaCha8([32]byte{seed}))}
}

func (s *faultSource) Name() string   { return s.name }
func (s *faultSource) Physical() bool { return !s.mixOnly }

func (s *faultSource) set(mode string) {
	s.mu.Lock()
	s.mode = mode
	s.mu.Unlock()
}

func (s *faultSource) Read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if gate := s.gate; gate != nil {
		s.blocked++
		s.maxBlk = max(s.maxBlk, s.blocked)
		s.mu.Unlock()
		<-gate
		s.mu.Lock()
		s.blocked--
	}
	switch s.mode {
	case "broken":
		return 0, errors.New("device unplugged")
	case "fault-with-data":
		// A full buffer and an error: the device reports a fault along
		// with its last samples.
		for i := range p {
			p[i] = byte(s.r.Uint32())
		}
		s.out.Write(p)
		s.n += len(p)
		return len(p), errors.New("device reports a fault")
	case "stuck":
		for i := range p {
			p[i] = 0xa5
		}
	default:
		for i := range p {
			p[i] = byte(s.r.Uint32())
		}
	}
	s.out.Write(p)
	s.n += len(p)
	return len(p), nil
}

func (s *faultSource) produced() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.out.Bytes())
}

// fakeClock is an injected clock advanced by the test. Its timers (After)
// fire only when advance reaches them.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []fakeTimer // not yet fired
	armed  int         // timers ever created
	cond   *sync.Cond  // broadcast when a timer is created
}

type fakeTimer struct {
	at time.Time
	ch chan time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	c.timers = append(c.timers, fakeTimer{at: c.now.Add(d), ch: ch})
	c.armed++
	c.condition().Broadcast()
	return ch
}

// condition returns c.cond, made on first use. c.mu is held.
func (c *fakeClock) condition() *sync.Cond {
	if c.cond == nil {
		c.cond = sync.NewCond(&c.mu)
	}
	return c.cond
}

// timersArmed returns the number of timers created so far.
func (c *fakeClock) timersArmed() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.armed
}

// awaitTimers blocks until n timers in all have been created and returns
// the last one created.
func (c *fakeClock) awaitTimers(n int) fakeTimer {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.armed < n {
		c.condition().Wait()
	}
	return c.timers[len(c.timers)-1]
}

// pending reports whether tm has not fired yet.
func (c *fakeClock) pending(tm fakeTimer) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, x := range c.timers {
		if x.ch == tm.ch {
			return true
		}
	}
	return false
}

// advance moves the clock and fires the timers it reaches.
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	left := c.timers[:0]
	for _, tm := range c.timers {
		if tm.at.After(c.now) {
			left = append(left, tm)
			continue
		}
		tm.ch <- c.now
	}
	c.timers = left
}

type harness struct {
	g     *Generator
	clock *fakeClock
	logs  *testio.Buffer
	srcs  []*faultSource
}

// newHarness builds a Generator over fault sources each declared H = 6 and
// each crediting the full requirement alone.
func newHarness(t *testing.T, n int, mod func(*Config)) *harness {
	t.Helper()
	h := &harness{clock: newFakeClock(), logs: &testio.Buffer{}}
	cfg := Config{
		Logger: slog.New(slog.NewJSONHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Clock:  h.clock.Now,
		After:  h.clock.After,
	}
	for i := range n {
		s := newFaultSource("fault"+string(rune('A'+i)), byte(i+10))
		h.srcs = append(h.srcs, s)
		cfg.Sources = append(cfg.Sources, SourceConfig{Source: s, MinEntropy: 6})
	}
	cfg.Sources = append(cfg.Sources, SourceConfig{Kind: KindGetrandom})
	if mod != nil {
		mod(&cfg)
	}
	g, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	h.g = g
	return h
}

func metricValue(t *testing.T, g *Generator, name string, labels ...string) float64 {
	t.Helper()
	for _, c := range g.Collectors() {
		ch := make(chan prometheus.Metric, 16)
		go func() { c.Collect(ch); close(ch) }()
		for m := range ch {
			if !strings.Contains(m.Desc().String(), `"`+name+`"`) {
				continue
			}
			var d dto.Metric
			if err := m.Write(&d); err != nil {
				t.Fatal(err)
			}
			match := true
			for i := 0; i+1 < len(labels); i += 2 {
				found := false
				for _, lp := range d.Label {
					if lp.GetName() == labels[i] && lp.GetValue() == labels[i+1] {
						found = true
					}
				}
				match = match && found
			}
			if !match {
				continue
			}
			switch {
			case d.Gauge != nil:
				return d.Gauge.GetValue()
			case d.Counter != nil:
				return d.Counter.GetValue()
			}
		}
	}
	return -1
}

// checkAlarm checks the metrics after source failed test and draws are
// refused: the alarm, the source's health and its failure count.
func checkAlarm(t *testing.T, g *Generator, source, test string) {
	t.Helper()
	if v := metricValue(t, g, "tirage_entropy_generator_healthy"); v != 0 {
		t.Errorf("generator_healthy = %v, want 0 (the alarm)", v)
	}
	if v := metricValue(t, g, "tirage_entropy_source_healthy", "source", source); v != 0 {
		t.Errorf("source_healthy{%s} = %v, want 0", source, v)
	}
	if v := metricValue(t, g, "tirage_entropy_health_failures_total", "source", source, "test", test); v != 1 {
		t.Errorf("health_failures_total{%s,%s} = %v, want 1", source, test, v)
	}
}

func TestGeneratorReads(t *testing.T) {
	h := newHarness(t, 1, nil)
	a, b := make([]byte, 32), make([]byte, 32)
	if n, err := h.g.Read(a); n != 32 || err != nil {
		t.Fatalf("Read = %d, %v", n, err)
	}
	if _, err := h.g.Read(b); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a, b) || bytes.Equal(a, make([]byte, 32)) {
		t.Error("two reads returned the same or zero bytes")
	}
	// Reads larger than one DRBG request are split.
	big := make([]byte, 3<<16+5)
	if n, err := h.g.Read(big); n != len(big) || err != nil {
		t.Fatalf("large Read = %d, %v", n, err)
	}
	if err := h.g.Healthy(); err != nil {
		t.Error(err)
	}
	if v := metricValue(t, h.g, "tirage_entropy_generator_healthy"); v != 1 {
		t.Errorf("generator_healthy = %v, want 1", v)
	}
}

// TestStuckSourceRefusesDraws is the acceptance scenario: a source gets
// stuck, the RCT trips while reseeding, the generator refuses (ErrUnhealthy
// naming the source and the test, zero bytes, alarm metric, log line), and
// only an operator Retest after the fault is cleared brings it back.
func TestStuckSourceRefusesDraws(t *testing.T) {
	h := newHarness(t, 1, nil)
	buf := make([]byte, 32)
	if _, err := h.g.Read(buf); err != nil {
		t.Fatal(err)
	}
	h.srcs[0].set("stuck")
	h.clock.advance(DefaultReseedInterval) // the next Read reseeds
	for i := range buf {
		buf[i] = 0xee
	}
	n, err := h.g.Read(buf)
	if n != 0 || !errors.Is(err, ErrUnhealthy) {
		t.Fatalf("Read with a stuck source = %d, %v; want 0, ErrUnhealthy", n, err)
	}
	if !bytes.Equal(buf, make([]byte, 32)) {
		t.Error("refused Read left bytes in the buffer")
	}
	var he *HealthError
	if !errors.As(err, &he) || he.Source != "faultA" || he.Test != TestRCT {
		t.Fatalf("error %v does not name source faultA and the RCT", err)
	}
	checkAlarm(t, h.g, "faultA", TestRCT)
	if !strings.Contains(h.logs.String(), "draws refused until an operator retest") {
		t.Errorf("no log line for the refusal; logs: %s", h.logs.String())
	}
	if !strings.Contains(h.logs.String(), `"test":"repetition-count"`) {
		t.Errorf("no log line for the failure; logs: %s", h.logs.String())
	}

	// No silent recovery: the fault clears, time passes, reads still refused.
	h.srcs[0].set("")
	h.clock.advance(time.Hour)
	if _, err := h.g.Read(buf); !errors.Is(err, ErrUnhealthy) {
		t.Fatalf("recovered without an operator: %v", err)
	}
	if v := metricValue(t, h.g, "tirage_entropy_refused_reads_total"); v != 2 {
		t.Errorf("refused_reads_total = %v, want 2", v)
	}

	// Retest while the source is still stuck keeps refusing.
	h.srcs[0].set("stuck")
	if err := h.g.Retest(context.Background()); !errors.Is(err, ErrUnhealthy) {
		t.Fatalf("Retest with a stuck source: %v", err)
	}
	// Retest after repair brings the generator back.
	h.srcs[0].set("")
	if err := h.g.Retest(context.Background()); err != nil {
		t.Fatalf("Retest after repair: %v", err)
	}
	if _, err := h.g.Read(buf); err != nil {
		t.Fatalf("Read after Retest: %v", err)
	}
	if v := metricValue(t, h.g, "tirage_entropy_generator_healthy"); v != 1 {
		t.Errorf("generator_healthy after Retest = %v, want 1", v)
	}
}

// TestRedundantSources: with two sources each crediting the requirement,
// one failure keeps draws going on the other; the second failure stops them.
func TestRedundantSources(t *testing.T) {
	h := newHarness(t, 2, func(c *Config) { c.PredictionResistance = true })
	buf := make([]byte, 32)
	h.srcs[0].set("broken")
	if _, err := h.g.Read(buf); err != nil {
		t.Fatalf("one of two sources broken: %v", err)
	}
	st := h.g.Status()
	if st[0].Failure == nil || st[0].Failure.Test != TestRead || st[1].Failure != nil {
		t.Fatalf("status after faultA broke: %+v", st)
	}
	h.srcs[1].set("stuck")
	_, err := h.g.Read(buf)
	var he *HealthError
	if !errors.Is(err, ErrUnhealthy) || !errors.As(err, &he) {
		t.Fatalf("both sources failed: %v", err)
	}
	for _, want := range []string{"faultA failed the read test", "faultB failed the repetition-count test"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// A non-physical source that failed (it has no health tests: a read error)
// is left out of the seeds, draws going on on the physical sources' credit,
// until an operator retest finds it reading again.
func TestNonPhysicalSourceRetest(t *testing.T) {
	mix := newFaultSource("mix", 99)
	mix.mixOnly = true
	h := newHarness(t, 1, func(c *Config) {
		c.PredictionResistance = true
		c.Sources = append(c.Sources, SourceConfig{Source: mix})
	})
	buf := make([]byte, 32)
	mix.set("broken")
	if _, err := h.g.Read(buf); err != nil {
		t.Fatalf("the non-physical source broken: %v", err)
	}
	failed := func() *HealthError { return h.g.Status()[2].Failure }
	if f := failed(); f == nil || f.Test != TestRead {
		t.Fatalf("mix status after it broke: %+v", h.g.Status()[2])
	}
	if v := metricValue(t, h.g, "tirage_entropy_source_healthy", "source", "mix"); v != 0 {
		t.Errorf("source_healthy{mix} = %v, want 0", v)
	}
	// Still broken: a retest leaves it failed, and draws go on.
	if err := h.g.Retest(context.Background()); err != nil {
		t.Fatalf("Retest: %v", err)
	}
	if failed() == nil {
		t.Fatal("a broken non-physical source passed the retest")
	}
	mix.set("")
	before := len(mix.produced())
	if _, err := h.g.Read(buf); err != nil {
		t.Fatal(err)
	}
	if len(mix.produced()) != before {
		t.Error("a failed source was read while seeding")
	}
	if err := h.g.Retest(context.Background()); err != nil {
		t.Fatalf("Retest: %v", err)
	}
	if f := failed(); f != nil {
		t.Fatalf("mix still failed after it reads again and a retest: %v", f)
	}
	if v := metricValue(t, h.g, "tirage_entropy_source_healthy", "source", "mix"); v != 1 {
		t.Errorf("source_healthy{mix} = %v, want 1", v)
	}
	before = len(mix.produced())
	if _, err := h.g.Read(buf); err != nil {
		t.Fatal(err)
	}
	if len(mix.produced()) <= before {
		t.Error("mix not read into the seed after it came back")
	}
	if !strings.Contains(h.logs.String(), `"msg":"entropy: source reads again and is back in use","entropy_source":"mix"`) {
		t.Errorf("no log of mix back in use:\n%s", h.logs.String())
	}
}

// TestBiasedSourceRefusesDraws: a source biased beyond its declared H (every
// other sample 0: H = 1, declared 6) trips the APT while seeding.
func TestBiasedSourceRefusesDraws(t *testing.T) {
	s := &alternatingSource{r: rand.New(rand.NewChaCha8([32]byte{7}))}
	_, err := New(Config{Sources: []SourceConfig{{Source: s, MinEntropy: 6}}})
	var he *HealthError
	if !errors.As(err, &he) || he.Test != TestAPT || !errors.Is(err, ErrUnhealthy) {
		t.Fatalf("New over a biased source: %v, want an APT failure", err)
	}
}

type alternatingSource struct {
	r *rand.Rand
	i int
}

func (s *alternatingSource) Name() string   { return "biased" }
func (s *alternatingSource) Physical() bool { return true }
func (s *alternatingSource) Read(p []byte) (int, error) {
	for j := range p {
		p[j] = 0
		if s.i%2 == 1 {
			p[j] = byte(1 + s.r.IntN(255))
		}
		s.i++
	}
	return len(p), nil
}

func TestReseedSchedule(t *testing.T) {
	h := newHarness(t, 1, func(c *Config) { c.ReseedRequests = 4; c.ReseedInterval = time.Minute })
	reseeds := func() float64 { return metricValue(t, h.g, "tirage_entropy_reseeds_total") }
	if r := reseeds(); r != 1 {
		t.Fatalf("after New: %v seeds, want 1 (instantiate)", r)
	}
	buf := make([]byte, 32)
	for range 4 {
		h.g.Read(buf)
	}
	if r := reseeds(); r != 1 {
		t.Errorf("after 4 reads: %v, want 1", r)
	}
	h.g.Read(buf) // 5th request: counter reached 4
	if r := reseeds(); r != 2 {
		t.Errorf("after 5 reads: %v, want 2", r)
	}
	h.clock.advance(59 * time.Second)
	h.g.Read(buf)
	if r := reseeds(); r != 2 {
		t.Errorf("59 s later: %v, want 2", r)
	}
	h.clock.advance(time.Second)
	h.g.Read(buf)
	if r := reseeds(); r != 3 {
		t.Errorf("60 s later: %v, want 3", r)
	}
	h.clock.advance(-time.Hour) // clock stepped back
	h.g.Read(buf)
	if r := reseeds(); r != 4 {
		t.Errorf("clock stepped back: %v, want 4", r)
	}
	// Each reseed read SeedBytes = ceil(384/6) = 64 bytes after the 1,024
	// start-up samples.
	if n := h.srcs[0].n; n != 1024+4*64 {
		t.Errorf("source produced %d bytes, want %d", n, 1024+4*64)
	}
}

func TestPredictionResistance(t *testing.T) {
	h := newHarness(t, 1, func(c *Config) { c.PredictionResistance = true })
	buf := make([]byte, 32)
	for range 3 {
		if _, err := h.g.Read(buf); err != nil {
			t.Fatal(err)
		}
	}
	if r := metricValue(t, h.g, "tirage_entropy_reseeds_total"); r != 4 {
		t.Errorf("with prediction resistance, 3 reads: %v seeds, want 4", r)
	}
}

func TestConfigErrors(t *testing.T) {
	good := func() Config {
		return Config{Sources: []SourceConfig{{Source: newFaultSource("s", 1), MinEntropy: 6}}}
	}
	for _, tc := range []struct {
		name  string
		mod   func(*Config)
		field string
	}{
		{"no sources", func(c *Config) { c.Sources = nil }, "Sources"},
		{"alpha", func(c *Config) { c.Alpha = 0.01 }, "Alpha"},
		{"required", func(c *Config) { c.RequiredEntropy = 128 }, "RequiredEntropy"},
		{"min-entropy", func(c *Config) { c.Sources[0].MinEntropy = 9 }, "MinEntropy"},
		{"kind", func(c *Config) { c.Sources = []SourceConfig{{Kind: "lava-lamp", MinEntropy: 1}} }, "lava-lamp"},
		{"credit", func(c *Config) { c.Sources[0].SeedBytes = 10 }, "RequiredEntropy"},
		{"only getrandom", func(c *Config) { c.Sources = []SourceConfig{{Kind: KindGetrandom}} }, "RequiredEntropy"},
		{"duplicate", func(c *Config) { c.Sources = append(c.Sources, c.Sources[0]) }, "used twice"},
		{"interval", func(c *Config) { c.ReseedInterval = -time.Second }, "ReseedInterval"},
		// SP 800-90A Table 2: HMAC_DRBG's reseed_interval is at most 2^48.
		{"reseed requests", func(c *Config) { c.ReseedRequests = drbg.ReseedLimit + 1 }, "ReseedRequests"},
		{"personalization", func(c *Config) { c.Personalization = make([]byte, drbg.MaxInput+1) }, "Personalization"},
	} {
		c := good()
		tc.mod(&c)
		g, err := New(c)
		if err == nil {
			g.Close()
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		if !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s: error %q does not name %s", tc.name, err, tc.field)
		}
	}
}

func TestClosed(t *testing.T) {
	h := newHarness(t, 1, nil)
	h.g.Close()
	buf := bytes.Repeat([]byte{0xa5}, 8)
	n, err := h.g.Read(buf)
	if !errors.Is(err, ErrClosed) || n != 0 {
		t.Errorf("Read after Close: %d, %v", n, err)
	}
	// Failing closed: a caller that ignores the error must not take the
	// buffer's old content for a secret.
	if !bytes.Equal(buf, make([]byte, 8)) {
		t.Errorf("Read after Close left the buffer as it was: % x", buf)
	}
}

// TestReseedCountsRequests: ReseedRequests counts DRBG requests of at most
// drbg.MaxRequest bytes (SP 800-90A generate calls), not Read calls: a
// long Read counts one per 64 KiB and reseeds in its middle when the
// schedule is due (see Generator.Read).
func TestReseedCountsRequests(t *testing.T) {
	h := newHarness(t, 1, func(c *Config) { c.ReseedRequests = 2; c.ReseedInterval = time.Hour })
	reseeds := func() float64 { return metricValue(t, h.g, "tirage_entropy_reseeds_total") }
	// One Read of 5 requests (4 × 64 KiB + 1 byte): requests 1-2 on the
	// first seed, reseed, 3-4, reseed, 5.
	big := make([]byte, 4*drbg.MaxRequest+1)
	if n, err := h.g.Read(big); err != nil || n != len(big) {
		t.Fatalf("Read(%d bytes): %d, %v", len(big), n, err)
	}
	if r := reseeds(); r != 3 {
		t.Errorf("after one Read of 5 requests with ReseedRequests = 2: %v seeds, want 3 (instantiate + 2 reseeds)", r)
	}
	// The 5th request left the counter at 1: one more small Read, then
	// the next reseeds.
	small := make([]byte, 32)
	h.g.Read(small)
	if r := reseeds(); r != 3 {
		t.Errorf("6th request: %v seeds, want 3", r)
	}
	h.g.Read(small)
	if r := reseeds(); r != 4 {
		t.Errorf("7th request: %v seeds, want 4", r)
	}
	// Exactly MaxRequest bytes is one request.
	h.g.Read(make([]byte, drbg.MaxRequest))
	if r := reseeds(); r != 4 {
		t.Errorf("after a Read of exactly 64 KiB: %v seeds, want 4", r)
	}
	h.g.Read(small)
	if r := reseeds(); r != 5 {
		t.Errorf("after 2 requests on the 4th seed: %v seeds, want 5", r)
	}
}

// TestPredictionResistancePerRequest: with prediction resistance, a long
// Read reseeds before each of its requests.
func TestPredictionResistancePerRequest(t *testing.T) {
	h := newHarness(t, 1, func(c *Config) { c.PredictionResistance = true })
	if _, err := h.g.Read(make([]byte, 2*drbg.MaxRequest+1)); err != nil {
		t.Fatal(err)
	}
	if r := metricValue(t, h.g, "tirage_entropy_reseeds_total"); r != 4 {
		t.Errorf("with prediction resistance, one Read of 3 requests: %v seeds, want 4", r)
	}
}

// TestNoSecretsInLogsOrErrors runs a generator through reads, a health
// failure, refusals and a retest, then looks for every raw sample window,
// every output and every DRBG state (Key, V) it went through in the
// captured log and in every error.
func TestNoSecretsInLogsOrErrors(t *testing.T) {
	h := newHarness(t, 2, func(c *Config) { c.ReseedRequests = 2 })
	var outputs, states [][]byte
	var errs []string
	for i := range 12 {
		switch i {
		case 4:
			h.srcs[0].set("stuck")
		case 6:
			h.srcs[1].set("broken")
		case 9:
			h.srcs[0].set("")
			h.srcs[1].set("")
			if err := h.g.Retest(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		buf := make([]byte, 32)
		if _, err := h.g.Read(buf); err != nil {
			errs = append(errs, err.Error())
		} else {
			outputs = append(outputs, buf)
		}
		// The DRBG's internal state (Key, V) after each read, as bytes.
		h.g.mu.Lock()
		if h.g.drbg != nil {
			states = append(states, drbgState(h.g.drbg))
		}
		h.g.mu.Unlock()
	}
	if len(errs) == 0 || len(outputs) == 0 {
		t.Fatalf("scenario did not produce both outputs (%d) and errors (%d)", len(outputs), len(errs))
	}
	haystack := strings.ToLower(h.logs.String() + strings.Join(errs, "\n"))
	check := func(what string, secret []byte) {
		// Any 8-byte window, in hex or raw, is a leak.
		for i := 0; i+8 <= len(secret); i++ {
			w := secret[i : i+8]
			if bytes.Equal(w, bytes.Repeat(w[:1], 8)) {
				continue // a stuck source's constant run is not secret
			}
			if strings.Contains(haystack, hex.EncodeToString(w)) || strings.Contains(haystack, strings.ToLower(string(w))) {
				t.Fatalf("%s bytes at offset %d found in logs or errors", what, i)
			}
		}
	}
	for _, s := range h.srcs {
		check("raw sample", s.produced())
	}
	for _, o := range outputs {
		check("output", o)
	}
	if len(states) == 0 {
		t.Fatal("no DRBG state captured")
	}
	for _, st := range states {
		check("DRBG state", st)
	}
	if !strings.Contains(haystack, "faulta") {
		t.Error("logs do not name the failed source: the capture is not working")
	}
}

var _ io.Reader = (*Generator)(nil)

// drbgState reads the DRBG's unexported Key and V by reflection (the drbg
// package deliberately offers no accessor for its secret state).
func drbgState(d *drbg.HMAC) []byte {
	var out []byte
	v := reflect.ValueOf(d).Elem()
	for _, name := range []string{"key", "v"} {
		f := v.FieldByName(name)
		for i := range f.Len() {
			out = append(out, byte(f.Index(i).Uint()))
		}
	}
	if len(out) != 64 {
		panic("drbg state layout changed")
	}
	return out
}

func TestBinarySourceCredit(t *testing.T) {
	g, err := New(Config{Sources: []SourceConfig{{Source: newFaultSource("bin", 3), SampleBits: 1, MinEntropy: 0.5}}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	// Default SeedBytes = ⌈384 / (0.5 · 8)⌉ = 96 bytes, credited 384 bits.
	if st := g.Status(); st[0].CreditedBits != 384 {
		t.Errorf("credited %v bits, want 384", st[0].CreditedBits)
	}
	_, err = New(Config{Sources: []SourceConfig{{Source: newFaultSource("bin", 3), SampleBits: 3, MinEntropy: 0.5}}})
	if err == nil || !strings.Contains(err.Error(), "SampleBits") {
		t.Errorf("SampleBits 3: %v", err)
	}
}

// TestConcurrentReads: Read is safe for concurrent use (run with -race) and
// concurrent callers never receive the same bytes.
func TestConcurrentReads(t *testing.T) {
	h := newHarness(t, 1, func(c *Config) { c.ReseedRequests = 7 })
	var mu sync.Mutex
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				r := make([]byte, 32)
				if _, err := h.g.Read(r); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if seen[string(r)] {
					t.Error("duplicate output")
				}
				seen[string(r)] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}

// TestConditionKAT pins the conditioning function's encoding: Y_j =
// HMAC-SHA-256(K, j ‖ outLen ‖ (len(name) ‖ name ‖ len(data) ‖ data)...),
// K = SHA-256("tirage.fr/tirage/rngd/entropy conditioning key v1"),
// truncated to outLen. Expected value computed independently (Python
// hmac/hashlib/struct).
func TestConditionKAT(t *testing.T) {
	got := condition([]rawInput{
		{source: "hwrng", data: []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{source: "getrandom", data: nil},
	}, 48)
	want, _ := hex.DecodeString("be713d00347ae261501ade0b9bb3f562792dbed25bfde498b623cc79d466f10f" +
		"df2a937eccf58d41d9632d0fb781c03f")
	if !bytes.Equal(got, want) {
		t.Errorf("condition = %x\nwant        %x", got, want)
	}
}

// TestOutputDependsOnEverySource: the output is a function of the raw
// samples of every credited source: the same samples (and clock) give the
// same bytes, and changing either source's samples changes them. A
// pipeline that dropped a source's samples (or all of them) before the
// DRBG would still pass every other test.
func TestOutputDependsOnEverySource(t *testing.T) {
	run := func(seedA, seedB byte) []byte {
		t.Helper()
		clock := newFakeClock()
		g, err := New(Config{
			Sources: []SourceConfig{
				{Source: newFaultSource("A", seedA), MinEntropy: 6},
				{Source: newFaultSource("B", seedB), MinEntropy: 6},
			},
			ReseedRequests: 1, // each Read after the first reseeds
			Clock:          clock.Now,
			After:          clock.After,
		})
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		out := make([]byte, 3*32)
		for i := 0; i < len(out); i += 32 {
			if _, err := g.Read(out[i : i+32]); err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	base := run(10, 20)
	if !bytes.Equal(base, run(10, 20)) {
		t.Fatal("same samples and clock, different output: the test cannot tell sources apart")
	}
	for _, tc := range []struct {
		name   string
		a, b   byte
		source string
	}{{"A", 11, 20, "A"}, {"B", 10, 21, "B"}} {
		out := run(tc.a, tc.b)
		for i := 0; i < len(out); i += 32 {
			if bytes.Equal(out[i:i+32], base[i:i+32]) {
				t.Errorf("read %d: output unchanged when source %s's samples change", i/32, tc.source)
			}
		}
	}
}

// TestRetestInstantiatesFreshDRBG: Retest wipes the old DRBG and
// instantiates a new one (docs/entropy.md, Recovery policy), rather than
// reseeding the old state.
func TestRetestInstantiatesFreshDRBG(t *testing.T) {
	h := newHarness(t, 1, nil)
	h.g.mu.Lock()
	old := h.g.drbg
	h.g.mu.Unlock()
	if err := h.g.Retest(context.Background()); err != nil {
		t.Fatal(err)
	}
	h.g.mu.Lock()
	fresh := h.g.drbg
	h.g.mu.Unlock()
	if fresh == nil || fresh == old {
		t.Fatal("Retest kept the old DRBG instantiation")
	}
	if err := old.Generate(make([]byte, 32), nil); err == nil {
		t.Error("the old DRBG still generates after Retest: its state was not wiped")
	}
}

// TestDefaultSeedBytesMeetRequirement: the default SeedBytes credits at
// least RequiredEntropy also where ⌈R/H⌉·H rounds below R in float64
// (R = 339, H = 1.13: 300 × 1.13 = 338.99999999999994).
func TestDefaultSeedBytesMeetRequirement(t *testing.T) {
	for _, tc := range []struct {
		required int
		h        float64
		bits     int
	}{{339, 1.13, 8}, {342, 0.57, 1}, {391, 2.3, 8}, {384, 6, 8}} {
		g, err := New(Config{RequiredEntropy: tc.required, Sources: []SourceConfig{
			{Source: newFaultSource("s", 1), MinEntropy: tc.h, SampleBits: tc.bits}}})
		if err != nil {
			t.Errorf("R=%d H=%v bits=%d with the default SeedBytes: %v", tc.required, tc.h, tc.bits, err)
			continue
		}
		if c := g.Status()[0].CreditedBits; c < float64(tc.required) {
			t.Errorf("R=%d H=%v: credited %v", tc.required, tc.h, c)
		}
		g.Close()
	}
}

// RequiredEntropy below 320 is refused: 256 bits in give a conditioned
// 256-bit output about 255 bits (SP 800-90B §3.1.5.1.2).
func TestRequiredEntropyMinimum(t *testing.T) {
	for _, r := range []int{256, 319} {
		if g, err := New(Config{RequiredEntropy: r, Sources: []SourceConfig{{Source: newFaultSource("s", 1), MinEntropy: 4}}}); err == nil {
			g.Close()
			t.Errorf("RequiredEntropy %d accepted", r)
		}
	}
	g, err := New(Config{RequiredEntropy: MinRequiredEntropy, Sources: []SourceConfig{{Source: newFaultSource("s", 1), MinEntropy: 4}}})
	if err != nil {
		t.Fatal(err)
	}
	g.Close()
}

// A declared min-entropy so small that the default SeedBytes would pass
// MaxSeedBytes is refused, naming the source, before anything is read.
func TestDefaultSeedBytesBounded(t *testing.T) {
	for _, h := range []float64{0.005, 1e-300} {
		_, err := New(Config{RequiredEntropy: 384, Sources: []SourceConfig{{Source: newFaultSource("s", 1), MinEntropy: h}}})
		if err == nil || !strings.Contains(err.Error(), "Sources[0] (s)") || !strings.Contains(err.Error(), "more than 65536 raw bytes per seed") {
			t.Errorf("MinEntropy %g: %v, want a refusal naming the source and the bound", h, err)
		}
	}
}

// TestSourceErrorWithFullRead: a source that fills the buffer and returns
// an error (io.Reader allows both) reports a fault; its samples are not
// used, the draw is refused and the alarm raised, as for any failed read.
// io.ReadFull would take the full buffer and drop the error.
func TestSourceErrorWithFullRead(t *testing.T) {
	h := newHarness(t, 1, func(c *Config) { c.ReseedRequests = 1 })
	buf := make([]byte, 32)
	if _, err := h.g.Read(buf); err != nil {
		t.Fatal(err)
	}
	h.srcs[0].set("fault-with-data")
	n, err := h.g.Read(buf)
	var he *HealthError
	if !errors.As(err, &he) || he.Test != TestRead || !errors.Is(err, ErrUnhealthy) || n != 0 {
		t.Fatalf("Read after the source reported a fault: n=%d err=%v, want a refused draw (read failure)", n, err)
	}
	if !bytes.Equal(buf, make([]byte, 32)) {
		t.Error("refused Read left bytes in the buffer")
	}
	checkAlarm(t, h.g, "faultA", TestRead)
}

// emptySource returns (0, nil) for its first empty Reads, then samples.
type emptySource struct {
	empty int
	r     *rand.Rand
}

func (s *emptySource) Name() string   { return "empty" }
func (s *emptySource) Physical() bool { return true }
func (s *emptySource) Read(p []byte) (int, error) {
	if s.empty > 0 {
		s.empty--
		return 0, nil
	}
	for i := range p {
		p[i] = byte(s.r.Uint32())
	}
	return len(p), nil
}

// TestSourceNoProgress: a source whose Read keeps returning nothing and no
// error is a broken device (io.Reader discourages it); it fails its read
// with io.ErrNoProgress after maxEmptyReads such reads in a row instead of
// being polled in a busy loop until it answers (io.ReadFull never gives up).
func TestSourceNoProgress(t *testing.T) {
	src := &emptySource{r: rand.New(rand.NewChaCha8([32]byte{3}))}
	g, err := New(Config{Sources: []SourceConfig{{Source: src, MinEntropy: 6}}, ReseedRequests: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	src.empty = maxEmptyReads - 1 // tolerated: data comes after
	if _, err := g.Read(make([]byte, 32)); err != nil {
		t.Fatalf("after %d empty reads then data: %v", maxEmptyReads-1, err)
	}
	src.empty = 10 * maxEmptyReads
	_, err = g.Read(make([]byte, 32))
	var he *HealthError
	if !errors.As(err, &he) || he.Test != TestRead || !errors.Is(err, io.ErrNoProgress) {
		t.Fatalf("Read from a source making no progress: %v, want a read failure wrapping io.ErrNoProgress", err)
	}
}

// TestConcurrentReadsWhileReseedFails: eight goroutines draw (a reseed
// before every request) while the only physical source breaks. Each
// goroutine, once refused, stays refused; every refused read is zeroed and
// counted; the failure is counted and logged once.
func TestConcurrentReadsWhileReseedFails(t *testing.T) {
	h := newHarness(t, 1, func(c *Config) { c.ReseedRequests = 1 })
	var wg sync.WaitGroup
	var mu sync.Mutex
	refused := 0
	for i := range 8 {
		wg.Go(func() {
			failed := false
			for j := range 50 {
				if i == 3 && j == 10 {
					h.srcs[0].set("broken")
				}
				r := make([]byte, 32)
				_, err := h.g.Read(r)
				switch {
				case err == nil && failed:
					t.Error("a Read succeeded after a refused one")
					return
				case err != nil:
					if !errors.Is(err, ErrUnhealthy) || !bytes.Equal(r, make([]byte, 32)) {
						t.Errorf("refused Read: %v, buffer zeroed %v", err, bytes.Equal(r, make([]byte, 32)))
					}
					failed = true
					mu.Lock()
					refused++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if refused == 0 {
		t.Fatal("no Read was refused")
	}
	checkAlarm(t, h.g, "faultA", TestRead)
	if v := metricValue(t, h.g, "tirage_entropy_refused_reads_total"); v != float64(refused) {
		t.Errorf("refused_reads_total = %v, want %d", v, refused)
	}
	if n := strings.Count(h.logs.String(), "source failed health test"); n != 1 {
		t.Errorf("%d failure log lines, want 1", n)
	}
}

// TestDRBGSelfTest: the DRBG's known-answer self-test (SP 800-90A §11.3)
// runs before the instantiation in New and before every reseed; a failure
// refuses New, or puts a running Generator in an error state: draws refused
// (zeroed, counted) with ErrSelfTest and ErrUnhealthy, the alarm gauge at 0,
// Healthy failing, one ERROR line, no recovery until a Retest passes it.
func TestDRBGSelfTest(t *testing.T) {
	broken := errors.New("returned bits differ")
	failing := func() error { return fmt.Errorf("%w: %w", drbg.ErrSelfTest, broken) }
	_, err := New(Config{Sources: []SourceConfig{{Source: newFaultSource("s", 1), MinEntropy: 6}}, selfTest: failing})
	if !errors.Is(err, ErrSelfTest) || !errors.Is(err, ErrUnhealthy) {
		t.Fatalf("New with a failing DRBG self-test: %v, want ErrSelfTest", err)
	}

	var mu sync.Mutex
	fail := false
	runs := 0
	h := newHarness(t, 1, func(c *Config) {
		c.ReseedRequests = 1
		c.selfTest = func() error {
			mu.Lock()
			defer mu.Unlock()
			runs++
			if fail {
				return failing()
			}
			return nil
		}
	})
	buf := make([]byte, 32)
	for range 2 { // the second Read reseeds
		if _, err := h.g.Read(buf); err != nil {
			t.Fatal(err)
		}
	}
	if runs != 2 {
		t.Errorf("self-test ran %d times for an instantiation and a reseed, want 2", runs)
	}
	mu.Lock()
	fail = true
	mu.Unlock()
	for range 3 {
		n, err := h.g.Read(buf)
		if n != 0 || !errors.Is(err, ErrSelfTest) || !errors.Is(err, ErrUnhealthy) || !bytes.Equal(buf, make([]byte, 32)) {
			t.Fatalf("Read after a failed self-test: n=%d err=%v, want a refused, zeroed draw", n, err)
		}
	}
	mu.Lock()
	fail = false // the self-test would pass now: still no recovery without a retest
	mu.Unlock()
	if _, err := h.g.Read(buf); !errors.Is(err, ErrSelfTest) {
		t.Fatalf("Read after the self-test failed once: %v, want refused until a retest", err)
	}
	if err := h.g.Healthy(); !errors.Is(err, ErrSelfTest) {
		t.Errorf("Healthy: %v, want ErrSelfTest", err)
	}
	if v := metricValue(t, h.g, "tirage_entropy_generator_healthy"); v != 0 {
		t.Errorf("generator_healthy = %v, want 0", v)
	}
	if v := metricValue(t, h.g, "tirage_entropy_refused_reads_total"); v != 4 {
		t.Errorf("refused_reads_total = %v, want 4", v)
	}
	if n := strings.Count(h.logs.String(), "failed its known-answer self-test"); n != 1 {
		t.Errorf("%d log lines about the self-test, want 1", n)
	}
	if err := h.g.Retest(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := h.g.Read(buf); err != nil {
		t.Fatalf("Read after a retest: %v", err)
	}
	if v := metricValue(t, h.g, "tirage_entropy_generator_healthy"); v != 1 {
		t.Errorf("generator_healthy after a retest = %v, want 1", v)
	}
}

// TestCloseWipesSampleState: the health tests keep the last raw sample
// (the RCT's run value) and the APT window's first sample, both part of a
// seed's input; Close wipes them with the DRBG state.
func TestCloseWipesSampleState(t *testing.T) {
	h := newHarness(t, 1, nil)
	ht := h.g.sources[0].health
	out := h.srcs[0].produced()
	if last := out[len(out)-1]; ht.rctA != last || last == 0 {
		t.Fatalf("RCT value %#x, last sample %#x: the test's premise does not hold", ht.rctA, last)
	}
	h.g.Close()
	if ht.rctA != 0 || ht.aptA != 0 || ht.rctB != 0 || ht.aptB != 0 {
		t.Errorf("after Close the health tests still hold samples: RCT %#x, APT %#x", ht.rctA, ht.aptA)
	}
}
