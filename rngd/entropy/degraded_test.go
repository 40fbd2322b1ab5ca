package entropy

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"tirage.fr/tirage/rngd/internal/testio"
)

// dyingSource is /dev/hwrng, read through a file of its own, until the
// test kills it: from then on it is a dead noise diode stuck on the last
// byte the device gave, and the health tests must find that out.
type dyingSource struct {
	name string
	dev  Source
	dead atomic.Bool
	mu   sync.Mutex // guards last
	last byte
}

func openDying(t *testing.T, name string) *dyingSource {
	t.Helper()
	dev, err := OpenDevice(name, DefaultHWRNGPath)
	if errors.Is(err, ErrNotSupported) {
		hardwareAbsent(t, DefaultHWRNGPath)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.(io.Closer).Close() })
	return &dyingSource{name: name, dev: dev}
}

func (s *dyingSource) Name() string   { return s.name }
func (s *dyingSource) Physical() bool { return true }

func (s *dyingSource) Read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead.Load() {
		for i := range p {
			p[i] = s.last
		}
		return len(p), nil
	}
	n, err := s.dev.Read(p)
	if n > 0 {
		s.last = p[n-1]
	}
	return n, err
}

// gathered reads every series of reg, keyed name{label="value",...} with
// the labels in order.
func gathered(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var ls []string
			for _, l := range m.GetLabel() {
				ls = append(ls, l.GetName()+`="`+l.GetValue()+`"`)
			}
			sort.Strings(ls)
			key := mf.GetName()
			if len(ls) > 0 {
				key += "{" + strings.Join(ls, ",") + "}"
			}
			switch {
			case m.Gauge != nil:
				out[key] = m.GetGauge().GetValue()
			case m.Counter != nil:
				out[key] = m.GetCounter().GetValue()
			}
		}
	}
	return out
}

func wantSeries(t *testing.T, when string, got map[string]float64, want map[string]float64) {
	t.Helper()
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s: %s = %v (present %v), want %v", when, k, g, ok, v)
		}
	}
}

// logLines returns the log lines that contain every one of parts.
func logLines(logs *testio.Buffer, parts ...string) []string {
	var out []string
	for line := range strings.Lines(logs.String()) {
		match := true
		for _, p := range parts {
			match = match && strings.Contains(line, p)
		}
		if match {
			out = append(out, line)
		}
	}
	return out
}

// A source that fails its continuous health test while the others still
// credit the required entropy: draws go on, and the failure is visible and
// alarming — the source's gauge, its failure counter (0 from the start, so
// an alert sees the first increase), the failed-sources gauge and the
// credited bits, one ERROR line naming the source and the test and one
// WARN line for the degraded state, however many reads follow, and the
// source's failure in Status. It stays failed when its fault clears and
// time passes, and a retest brings it back (docs/entropy.md).
func TestDegradedSourceAlarms(t *testing.T) {
	dying := openDying(t, "dying")
	clock := newFakeClock()
	logs := &testio.Buffer{}
	g, err := New(Config{
		Sources: []SourceConfig{
			{Kind: KindHWRNG, MinEntropy: 4}, // 96 bytes: 384 bits, the requirement alone
			{Source: dying, MinEntropy: 4},
			{Kind: KindGetrandom},
		},
		PredictionResistance: true, // every Read reseeds from every healthy source
		Logger:               slog.New(slog.NewJSONHandler(logs, nil)),
		Clock:                clock.Now,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(g.Collectors()...)

	const (
		failedMsg   = `"level":"ERROR","msg":"entropy: source failed health test; it is no longer used","entropy_source":"dying","test":"repetition-count"`
		degradedMsg = `"level":"WARN","msg":"entropy: degraded: draws go on from the healthy sources alone; repair the failed sources and run an operator retest","failed_sources":"dying (repetition-count)","credited_bits":384,"required_bits":384`
	)
	wantSeries(t, "healthy", gathered(t, reg), map[string]float64{
		`tirage_entropy_generator_healthy`:                                                1,
		`tirage_entropy_sources_failed`:                                                   0,
		`tirage_entropy_credited_bits`:                                                    768,
		`tirage_entropy_required_bits`:                                                    384,
		`tirage_entropy_source_healthy{source="dying"}`:                                   1,
		`tirage_entropy_source_healthy{source="hwrng"}`:                                   1,
		`tirage_entropy_source_healthy{source="getrandom"}`:                               1,
		`tirage_entropy_health_failures_total{source="dying",test="repetition-count"}`:    0,
		`tirage_entropy_health_failures_total{source="dying",test="adaptive-proportion"}`: 0,
		`tirage_entropy_health_failures_total{source="dying",test="read"}`:                0,
		`tirage_entropy_health_failures_total{source="dying",test="timeout"}`:             0,
		`tirage_entropy_health_failures_total{source="getrandom",test="read"}`:            0,
	})
	if got := gathered(t, reg); len(got) == 0 {
		t.Fatal("nothing gathered")
	} else if _, ok := got[`tirage_entropy_health_failures_total{source="getrandom",test="repetition-count"}`]; ok {
		t.Error("getrandom has a repetition-count series: it is not health-tested")
	}

	dying.dead.Store(true)
	seen := map[string]bool{}
	for i := range 20 {
		r := make([]byte, 32)
		if _, err := g.Read(r); err != nil {
			t.Fatalf("read %d with one of two physical sources dead: %v", i, err)
		}
		if seen[string(r)] {
			t.Fatal("repeated output")
		}
		seen[string(r)] = true
		clock.advance(time.Second)
	}
	if err := g.Healthy(); err != nil {
		t.Fatalf("Healthy while degraded: %v", err)
	}
	st := g.Status()
	if f := st[1].Failure; st[1].Name != "dying" || f == nil || f.Test != TestRCT || st[0].Failure != nil || st[2].Failure != nil {
		t.Fatalf("status after dying died: %+v", st)
	}
	degraded := gathered(t, reg)
	wantSeries(t, "degraded", degraded, map[string]float64{
		`tirage_entropy_generator_healthy`:                                             1,
		`tirage_entropy_sources_failed`:                                                1,
		`tirage_entropy_credited_bits`:                                                 384,
		`tirage_entropy_source_healthy{source="dying"}`:                                0,
		`tirage_entropy_source_healthy{source="hwrng"}`:                                1,
		`tirage_entropy_health_failures_total{source="dying",test="repetition-count"}`: 1,
		`tirage_entropy_health_failures_total{source="hwrng",test="repetition-count"}`: 0,
		`tirage_entropy_refused_reads_total`:                                           0,
	})
	// Once per transition, not per read.
	if n := len(logLines(logs, failedMsg)); n != 1 {
		t.Errorf("%d failure lines, want 1:\n%s", n, logs.String())
	}
	if n := len(logLines(logs, degradedMsg)); n != 1 {
		t.Errorf("%d degraded lines, want 1:\n%s", n, logs.String())
	}
	if n := len(logLines(logs, `"level":"ERROR"`)); n != 1 {
		t.Errorf("%d ERROR lines, want 1:\n%s", n, logs.String())
	}

	// No recovery by itself: the fault clears, time passes, the source
	// stays out of use and is not read.
	dying.dead.Store(false)
	clock.advance(time.Hour)
	for range 3 {
		if _, err := g.Read(make([]byte, 32)); err != nil {
			t.Fatal(err)
		}
	}
	if g.Status()[1].Failure == nil {
		t.Fatal("a failed source came back without a retest")
	}
	if k := `tirage_entropy_source_bytes_total{source="dying"}`; gathered(t, reg)[k] != degraded[k] {
		t.Errorf("the failed source was read: %s %v -> %v", k, degraded[k], gathered(t, reg)[k])
	}

	// A retest while it is still dead: it fails again, counted and logged
	// as such; draws go on.
	dying.dead.Store(true)
	if err := g.Retest(context.Background()); err != nil {
		t.Fatalf("Retest while degraded: %v", err)
	}
	if n := len(logLines(logs, `"level":"ERROR","msg":"entropy: source failed again on retest; it stays out of use","entropy_source":"dying","test":"repetition-count"`)); n != 1 {
		t.Errorf("%d retest failure lines, want 1:\n%s", n, logs.String())
	}
	wantSeries(t, "retest, still dead", gathered(t, reg), map[string]float64{
		`tirage_entropy_generator_healthy`:                                             1,
		`tirage_entropy_sources_failed`:                                                1,
		`tirage_entropy_source_healthy{source="dying"}`:                                0,
		`tirage_entropy_health_failures_total{source="dying",test="repetition-count"}`: 2,
	})

	// Repaired and retested: back in use, the alarm clears.
	dying.dead.Store(false)
	if err := g.Retest(context.Background()); err != nil {
		t.Fatalf("Retest after repair: %v", err)
	}
	if _, err := g.Read(make([]byte, 32)); err != nil {
		t.Fatal(err)
	}
	wantSeries(t, "repaired", gathered(t, reg), map[string]float64{
		`tirage_entropy_generator_healthy`:                                             1,
		`tirage_entropy_sources_failed`:                                                0,
		`tirage_entropy_credited_bits`:                                                 768,
		`tirage_entropy_source_healthy{source="dying"}`:                                1,
		`tirage_entropy_health_failures_total{source="dying",test="repetition-count"}`: 2,
	})
	for _, msg := range []string{
		`"level":"WARN","msg":"entropy: source passed start-up tests again and is back in use","entropy_source":"dying"`,
		`"level":"INFO","msg":"entropy: every source is healthy again","credited_bits":768,"required_bits":384`,
	} {
		if n := len(logLines(logs, msg)); n != 1 {
			t.Errorf("%d lines %s, want 1:\n%s", n, msg, logs.String())
		}
	}
	if n := len(logLines(logs, degradedMsg)); n != 1 {
		t.Errorf("%d degraded lines, want 1:\n%s", n, logs.String())
	}
}

// A source that fails its start-up tests in New leaves the Generator
// degraded from the start when the others meet the requirement: New
// succeeds, and the alarm is raised all the same.
func TestDegradedFromStartup(t *testing.T) {
	dying := openDying(t, "dying")
	dying.dead.Store(true) // stuck on 0 before it ever delivered
	logs := &testio.Buffer{}
	g, err := New(Config{
		Sources: []SourceConfig{{Kind: KindHWRNG, MinEntropy: 4}, {Source: dying, MinEntropy: 4}},
		Logger:  slog.New(slog.NewJSONHandler(logs, nil)),
	})
	if err != nil {
		t.Fatalf("New with one of two physical sources dead: %v", err)
	}
	defer g.Close()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(g.Collectors()...)
	if _, err := g.Read(make([]byte, 32)); err != nil {
		t.Fatal(err)
	}
	wantSeries(t, "degraded at start-up", gathered(t, reg), map[string]float64{
		`tirage_entropy_generator_healthy`:                                             1,
		`tirage_entropy_sources_failed`:                                                1,
		`tirage_entropy_credited_bits`:                                                 384,
		`tirage_entropy_source_healthy{source="dying"}`:                                0,
		`tirage_entropy_health_failures_total{source="dying",test="repetition-count"}`: 1,
	})
	for _, msg := range []string{
		`"level":"ERROR","msg":"entropy: source failed health test; it is no longer used","entropy_source":"dying","test":"repetition-count"`,
		`"level":"WARN","msg":"entropy: degraded: draws go on from the healthy sources alone; repair the failed sources and run an operator retest","failed_sources":"dying (repetition-count)"`,
	} {
		if n := len(logLines(logs, msg)); n != 1 {
			t.Errorf("%d lines %s, want 1:\n%s", n, msg, logs.String())
		}
	}
}
