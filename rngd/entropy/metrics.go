package entropy

import "github.com/prometheus/client_golang/prometheus"

// metrics are the Generator's Prometheus collectors; the daemon registers
// them (Generator.Collectors). Two alarms (docs/entropy.md):
// tirage_entropy_generator_healthy = 0: draws are refused;
// tirage_entropy_sources_failed > 0: a source has failed and draws go on
// from the others, with less margin (degraded).
type metrics struct {
	sourceHealthy *prometheus.GaugeVec
	failures      *prometheus.CounterVec
	bytesRead     *prometheus.CounterVec
	reseeds       prometheus.Counter
	refused       prometheus.Counter
	healthy       prometheus.Gauge
	failed        prometheus.Gauge
	credited      prometheus.Gauge
	required      prometheus.Gauge
}

func newMetrics() *metrics {
	return &metrics{
		sourceHealthy: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "tirage_entropy_source_healthy",
			Help: "1 when the entropy source passes its SP 800-90B health tests, 0 once it has failed (until an operator retest).",
		}, []string{"source"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tirage_entropy_health_failures_total",
			Help: "Health-test failures by source and test (repetition-count, adaptive-proportion, read, timeout); every series starts at 0.",
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
		failed: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "tirage_entropy_sources_failed",
			Help: "Entropy sources out of use after a health-test, read or timeout failure (until an operator retest); above 0 with generator_healthy 1, draws go on degraded.",
		}),
		credited: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "tirage_entropy_credited_bits",
			Help: "Min-entropy, in bits, the healthy physical sources credit to each seed; draws are refused below tirage_entropy_required_bits.",
		}),
		required: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "tirage_entropy_required_bits",
			Help: "Min-entropy, in bits, each seed must be credited (RequiredEntropy).",
		}),
	}
}

func (m *metrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.sourceHealthy, m.failures, m.bytesRead, m.reseeds, m.refused, m.healthy, m.failed, m.credited, m.required}
}
