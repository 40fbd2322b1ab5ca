package rngd

import (
	"context"
	"crypto/rand"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/grpc/codes"

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

// retestFailing is a healthy random source whose retest fails (it cannot
// run the tests: closed, cancelled, …).
type retestFailing struct{ io.Reader }

func (retestFailing) Healthy() error                 { return nil }
func (retestFailing) Status() []entropy.SourceStatus { return nil }
func (retestFailing) Retest(context.Context) error   { return errors.New("generator closed") }

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
