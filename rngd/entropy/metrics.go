package entropy

import "github.com/prometheus/client_golang/prometheus"

// metrics are the Generator's Prometheus collectors; the daemon registers
// them (Generator.Collectors). tirage_entropy_generator_healthy = 0 is the
// alarm: draws are refused.
type metrics struct {
	sourceHealthy *prometheus.GaugeVec
	failures      *prometheus.CounterVec
	bytesRead     *prometheus.CounterVec
	reseeds       prometheus.Counter
	refused       prometheus.Counter
	healthy       prometheus.Gauge
}

func newMetrics() *metrics {
	return &metrics{
		sourceHealthy: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "tirage_entropy_source_healthy",
			Help: "1 when the entropy source passes its SP 800-90B health tests, 0 once it has failed (until a retest).",
		}, []string{"source"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tirage_entropy_health_failures_total",
			Help: "Health-test failures by source and test (repetition-count, adaptive-proportion, read).",
		}, []string{"source", "test"}),
		bytesRead: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tirage_entropy_source_bytes_total",
			Help: "Raw bytes read from each entropy source.",
		}, []string{"source"}),
		reseeds: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "tirage_entropy_reseeds_total",
			Help: "DRBG instantiations and reseeds from the conditioned sources.",
		}),
		refused: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "tirage_entropy_refused_reads_total",
			Help: "Reads refused because the healthy sources do not meet the required entropy.",
		}),
		healthy: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "tirage_entropy_generator_healthy",
			Help: "1 when the healthy sources meet the required entropy and draws may proceed; 0 is the alarm.",
		}),
	}
}

func (m *metrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.sourceHealthy, m.failures, m.bytesRead, m.reseeds, m.refused, m.healthy}
}
