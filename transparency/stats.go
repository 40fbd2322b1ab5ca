package transparency

import (
	"errors"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// latencyBuckets are the append latency histogram's upper bounds, seconds.
var latencyBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// Stats is a snapshot of a log's append counters.
type Stats struct {
	// Appends counts acknowledged appends.
	Appends uint64
	// Failures counts appends that returned ErrUnavailable or ErrSecurity
	// (refused draws).
	Failures uint64
	// InFlight is the queue depth: appends started and not yet answered.
	InFlight int64
	// LatencyBuckets are histogram upper bounds in seconds; LatencyCounts
	// the cumulative count of acknowledged appends at or below each.
	LatencyBuckets []float64
	LatencyCounts  []uint64
	// LatencySum is the total latency of acknowledged appends, seconds.
	LatencySum float64
}

// Meter counts appends for Stats. The zero value is ready; it is safe for
// concurrent use (atomics only).
type Meter struct {
	appends, failures atomic.Uint64
	inFlight          atomic.Int64
	sumNanos          atomic.Uint64
	counts            [14]atomic.Uint64 // len(latencyBuckets)+1 (+Inf)
}

// Start records the start of an append; call the returned func with the
// append's error when it is answered.
func (m *Meter) Start() func(error) {
	return m.StartAt(time.Now())
}

// StartAt is Start for an append that began at t0, for a caller that has
// read the clock already (tilelog's Append, for its watchdog).
func (m *Meter) StartAt(t0 time.Time) func(error) {
	m.inFlight.Add(1)
	return func(err error) {
		m.inFlight.Add(-1)
		switch {
		case err == nil:
			d := time.Since(t0)
			m.appends.Add(1)
			m.sumNanos.Add(uint64(d))
			i := 0
			for i < len(latencyBuckets) && d.Seconds() > latencyBuckets[i] {
				i++
			}
			m.counts[i].Add(1)
		case errors.Is(err, ErrUnavailable), errors.Is(err, ErrSecurity):
			m.failures.Add(1)
		}
	}
}

// Stats returns a snapshot. The buckets are read before the total, which
// an answered append counts first: no bucket then counts more appends than
// the total (Prometheus reads it as the +Inf bucket).
func (m *Meter) Stats() Stats {
	s := Stats{
		LatencyBuckets: latencyBuckets,
		LatencyCounts:  make([]uint64, len(latencyBuckets)),
	}
	var cum uint64
	for i := range latencyBuckets {
		cum += m.counts[i].Load()
		s.LatencyCounts[i] = cum
	}
	s.LatencySum = float64(m.sumNanos.Load()) / 1e9
	s.Appends = m.appends.Load()
	s.Failures = m.failures.Load()
	s.InFlight = m.inFlight.Load()
	return s
}

// NewCollector exports a log's Stats as Prometheus metrics:
// tirage_log_appends_total, tirage_log_append_failures_total (the alarm),
// tirage_log_append_queue_depth and tirage_log_append_latency_seconds;
// for a log that fails closed (Health), tirage_log_up too: 0 while it
// refuses every append, for as long as that lasts (the failures counter
// stops counting when no draw comes in), 1 otherwise.
func NewCollector(l Log) prometheus.Collector { return &collector{l: l} }

var (
	descAppends  = prometheus.NewDesc("tirage_log_appends_total", "Leaves durably appended to the transparency log.", nil, nil)
	descFailures = prometheus.NewDesc("tirage_log_append_failures_total", "Appends refused because the log backend failed (each one is a refused draw).", nil, nil)
	descInFlight = prometheus.NewDesc("tirage_log_append_queue_depth", "Appends waiting to be durably sequenced.", nil, nil)
	descLatency  = prometheus.NewDesc("tirage_log_append_latency_seconds", "Time from Append to durable sequencing.", nil, nil)
	descUp       = prometheus.NewDesc("tirage_log_up", "1 while the transparency log takes appends, 0 while it has failed (an outage, an integrity failure, or a Trillian backend whose health probe finds it not answering) and draws are refused.", nil, nil)
)

type collector struct{ l Log }

func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- descAppends
	ch <- descFailures
	ch <- descInFlight
	ch <- descLatency
	if _, ok := c.l.(Health); ok {
		ch <- descUp
	}
}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	s := c.l.Stats()
	ch <- prometheus.MustNewConstMetric(descAppends, prometheus.CounterValue, float64(s.Appends))
	ch <- prometheus.MustNewConstMetric(descFailures, prometheus.CounterValue, float64(s.Failures))
	ch <- prometheus.MustNewConstMetric(descInFlight, prometheus.GaugeValue, float64(s.InFlight))
	b := make(map[float64]uint64, len(s.LatencyBuckets))
	for i, ub := range s.LatencyBuckets {
		b[ub] = s.LatencyCounts[i]
	}
	ch <- prometheus.MustNewConstHistogram(descLatency, s.Appends, s.LatencySum, b)
	if h, ok := c.l.(Health); ok {
		up := 1.0
		if h.Health() != nil {
			up = 0
		}
		ch <- prometheus.MustNewConstMetric(descUp, prometheus.GaugeValue, up)
	}
}
