package rngd

import (
	"context"
	"crypto/rand"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/grpc/codes"

	"tirage.fr/tirage/internal/peertest"
	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/rngd/entropy"
)

// switchable is a physical source the test can make stuck (one byte
// repeated, as a dead noise diode) and repair.
type switchable struct{ stuck atomic.Bool }

func (*switchable) Name() string   { return "switchable" }
func (*switchable) Physical() bool { return true }
func (s *switchable) Read(p []byte) (int, error) {
	if !s.stuck.Load() {
		return rand.Read(p)
	}
	for i := range p {
		p[i] = 0x5a
	}
	return len(p), nil
}

// An unhealthy source refuses starts with UNAVAILABLE (refusal and alarm
// metrics); EntropyStatus names the failure; EntropyRetest keeps draws
// refused while the source is still stuck and brings them back once it is
// repaired.
func TestEntropyAdmin(t *testing.T) {
	td := newTestDaemon(t)
	e := td.d.engine
	tickets := td.emission("EN", "2026-12-31", 10)
	ctx := context.Background()
	a, adm := td.client("server-a"), td.admin()
	counter := func(c prometheus.Counter) float64 {
		var m dto.Metric
		c.Write(&m)
		return m.GetCounter().GetValue()
	}
	refusals := e.metrics.refusals.WithLabelValues(string(reasonEntropyUnavailable), codes.Unavailable.String())
	alarms := e.metrics.alarms.WithLabelValues("entropy")

	src := &switchable{}
	gen, err := entropy.New(entropy.Config{Sources: []entropy.SourceConfig{{Source: src, MinEntropy: 4}}, ReseedRequests: 1, Clock: td.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer gen.Close()
	good := e.entropy
	e.entropy = gen
	defer func() { e.entropy = good }()

	st, err := adm.EntropyStatus(ctx, &adminv1.EntropyStatusRequest{})
	if err != nil || !st.Healthy || len(st.Sources) != 1 || st.Sources[0].Name != "switchable" || !st.Sources[0].Physical || st.Sources[0].Failure != "" {
		t.Fatalf("status of a healthy source: %v %v", st, err)
	}

	src.stuck.Store(true)
	r0, a0 := counter(refusals), counter(alarms)
	// The continuous tests trip at the next reseed (one per request here).
	err = nil
	for i := 1; i < 5 && err == nil; i++ {
		_, err = a.StartGame(ctx, &qodv1.StartGameRequest{RequestId: rid(), Code: tickets[i]})
	}
	wantStatus(t, err, codes.Unavailable, "entropy unavailable")
	if counter(refusals) != r0+1 || counter(alarms) != a0+1 {
		t.Fatalf("refusals %v -> %v, alarms %v -> %v", r0, counter(refusals), a0, counter(alarms))
	}
	st, err = adm.EntropyStatus(ctx, &adminv1.EntropyStatusRequest{})
	if err != nil || st.Healthy || !strings.Contains(st.Error, "draws refused") || !strings.Contains(st.Sources[0].Failure, "switchable") {
		t.Fatalf("status of a stuck source: %v %v", st, err)
	}

	st, err = adm.EntropyRetest(ctx, &adminv1.EntropyRetestRequest{})
	if err != nil || st.Healthy || st.Sources[0].Failure == "" {
		t.Fatalf("retest of a stuck source: %v %v", st, err)
	}
	_, err = a.StartGame(ctx, &qodv1.StartGameRequest{RequestId: rid(), Code: tickets[0]})
	wantStatus(t, err, codes.Unavailable, "entropy unavailable")

	src.stuck.Store(false)
	if st, err := adm.EntropyStatus(ctx, &adminv1.EntropyStatusRequest{}); err != nil || st.Healthy {
		t.Fatalf("a source recovers only by a retest: %v %v", st, err)
	}
	st, err = adm.EntropyRetest(ctx, &adminv1.EntropyRetestRequest{})
	if err != nil || !st.Healthy || st.Error != "" || st.Sources[0].Failure != "" {
		t.Fatalf("retest of a repaired source: %v %v", st, err)
	}
	if _, err := a.StartGame(ctx, &qodv1.StartGameRequest{RequestId: rid(), Code: tickets[0]}); err != nil {
		t.Fatalf("start after the retest: %v", err)
	}
}

// dyingHWRNG is /dev/hwrng, read through a file of its own, until the test
// kills it: then a dead noise diode stuck on the last byte it gave.
type dyingHWRNG struct {
	dev  entropy.Source
	dead atomic.Bool
	mu   sync.Mutex // guards last
	last byte
}

func (*dyingHWRNG) Name() string   { return "dying" }
func (*dyingHWRNG) Physical() bool { return true }
func (s *dyingHWRNG) Read(p []byte) (int, error) {
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

// A source that fails while /dev/hwrng alone still meets the required
// entropy: games still start, EntropyStatus names the failed source and
// the test while saying rngd draws, and a retest that finds it still dead
// says so at ERROR rather than "sources healthy" (docs/entropy.md).
func TestEntropyAdminDegraded(t *testing.T) {
	peertest.Device(t, entropy.DefaultHWRNGPath)
	dev, err := entropy.OpenDevice("dying", entropy.DefaultHWRNGPath)
	if errors.Is(err, entropy.ErrNotSupported) {
		peertest.Absent(t, "%s absent: the test needs it", entropy.DefaultHWRNGPath)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer dev.(io.Closer).Close()
	td := newTestDaemon(t)
	e := td.d.engine
	tickets := td.emission("ED", "2026-12-31", 4)
	ctx := context.Background()
	a, adm := td.client("server-a"), td.admin()

	src := &dyingHWRNG{dev: dev}
	gen, err := entropy.New(entropy.Config{Sources: []entropy.SourceConfig{
		{Kind: entropy.KindHWRNG, MinEntropy: 4}, // credits the 384 bits alone
		{Source: src, MinEntropy: 4},
	}, ReseedRequests: 1, Clock: td.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer gen.Close()
	good := e.entropy
	e.entropy = gen
	defer func() { e.entropy = good }()

	src.dead.Store(true)
	// The continuous tests trip at the next reseed (one per request); the
	// game starts all the same.
	for i := range 2 {
		if _, err := a.StartGame(ctx, &qodv1.StartGameRequest{RequestId: rid(), Code: tickets[i]}); err != nil {
			t.Fatalf("start %d with one of two sources dead: %v", i, err)
		}
	}
	st, err := adm.EntropyStatus(ctx, &adminv1.EntropyStatusRequest{})
	if err != nil || !st.Healthy || st.Error != "" || len(st.Sources) != 2 || st.Sources[0].Failure != "" ||
		st.Sources[1].Name != "dying" || !strings.Contains(st.Sources[1].Failure, "dying failed the repetition-count test") {
		t.Fatalf("status of a degraded generator: %v %v", st, err)
	}

	st, err = adm.EntropyRetest(ctx, &adminv1.EntropyRetestRequest{})
	if err != nil || !st.Healthy || st.Sources[1].Failure == "" {
		t.Fatalf("retest of a dead source beside a healthy one: %v %v", st, err)
	}
	logs := string(td.logs())
	if !strings.Contains(logs, `level=ERROR msg="entropy retest by the operator: draws go on from the healthy sources, but sources still fail" failed_sources=dying`) ||
		strings.Contains(logs, "sources healthy, draws resume") {
		t.Errorf("retest log of a degraded generator:\n%s", logs)
	}
	if _, err := a.StartGame(ctx, &qodv1.StartGameRequest{RequestId: rid(), Code: tickets[2]}); err != nil {
		t.Fatalf("start after the retest: %v", err)
	}

	src.dead.Store(false)
	st, err = adm.EntropyRetest(ctx, &adminv1.EntropyRetestRequest{})
	if err != nil || !st.Healthy || st.Sources[1].Failure != "" {
		t.Fatalf("retest of a repaired source: %v %v", st, err)
	}
	if !strings.Contains(string(td.logs()), "entropy retest by the operator: sources healthy, draws resume") {
		t.Errorf("no log of the full recovery:\n%s", td.logs())
	}
}

// retestFailing is a healthy random source whose retest fails (it cannot
// run the tests: closed, cancelled, …).
type retestFailing struct{ io.Reader }

func (retestFailing) Healthy() error                          { return nil }
func (retestFailing) Report() ([]entropy.SourceStatus, error) { return nil, nil }
func (retestFailing) Retest(context.Context) error            { return errors.New("generator closed") }

// A retest that fails without a source failure to report is refused with
// ENTROPY_UNAVAILABLE, as any refusal of the entropy.
func TestEntropyRetestRefused(t *testing.T) {
	td := newTestDaemon(t)
	e := td.d.engine
	good := e.entropy
	e.entropy = retestFailing{good}
	defer func() { e.entropy = good }()
	refusedFor(t, td, reasonEntropyUnavailable, "entropy retest: generator closed", func() error {
		_, err := td.admin().EntropyRetest(context.Background(), &adminv1.EntropyRetestRequest{})
		return err
	})
}
