package transparency_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"tirage.fr/tirage/transparency"
)

// An append refused because the backend failed counts as a failure, a
// rollback or fork (ErrSecurity) included; a closed log or bad input does
// not, and an acknowledged append counts as an append.
func TestMeterFailures(t *testing.T) {
	var m transparency.Meter
	for _, err := range []error{
		nil,
		fmt.Errorf("disk full: %w", transparency.ErrUnavailable),
		fmt.Errorf("tree went back: %w", transparency.ErrSecurity),
		transparency.ErrClosed,
		errors.New("leaf too large"),
	} {
		m.Start()(err)
	}
	if s := m.Stats(); s.Appends != 1 || s.Failures != 2 || s.InFlight != 0 {
		t.Fatalf("stats %+v: want 1 append, 2 failures, none in flight", s)
	}
}

// healthLog is a log that fails closed with err (nil: healthy); only its
// Stats and Health are used.
type healthLog struct {
	transparency.Log
	err error
}

func (healthLog) Stats() transparency.Stats { return transparency.Stats{} }
func (h healthLog) Health() error           { return h.err }

// tirage_log_up follows Health: 0 for as long as the log refuses every
// append, whether or not draws come in to be refused and counted.
func TestCollectorUp(t *testing.T) {
	for _, c := range []struct {
		err  error
		want float64
	}{
		{nil, 1},
		{fmt.Errorf("outage: %w", transparency.ErrUnavailable), 0},
		{fmt.Errorf("rolled back: %w", transparency.ErrSecurity), 0},
	} {
		reg := prometheus.NewPedanticRegistry()
		reg.MustRegister(transparency.NewCollector(healthLog{err: c.err}))
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, mf := range mfs {
			if mf.GetName() == "tirage_log_up" {
				found = true
				if got := mf.GetMetric()[0].GetGauge().GetValue(); got != c.want {
					t.Errorf("Health %v: tirage_log_up %v, want %v", c.err, got, c.want)
				}
			}
		}
		if !found {
			t.Errorf("Health %v: no tirage_log_up", c.err)
		}
	}
}

// A snapshot taken while appends are answered is a valid histogram: no
// bucket counts more appends than the total (Prometheus reads the total
// as the +Inf bucket, and cumulative buckets must not decrease).
func TestMeterSnapshotConsistent(t *testing.T) {
	var m transparency.Meter
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				m.Start()(nil)
			}
		}
	}()
	defer func() { close(stop); <-done }()
	for range 200000 {
		s := m.Stats()
		if last := s.LatencyCounts[len(s.LatencyCounts)-1]; last > s.Appends {
			t.Fatalf("snapshot: %d appends at or below %vs, %d appends in all", last, s.LatencyBuckets[len(s.LatencyBuckets)-1], s.Appends)
		}
	}
}
