package rngd

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"google.golang.org/grpc/status"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/tilelog"
)

// metrics are the daemon's Prometheus series, on its own registry (so that
// several daemons can run in one test process).
type metrics struct {
	reg *prometheus.Registry

	draws         *prometheus.CounterVec   // kind, outcome: the records engine.seal seals (draws' and the operator's)
	refusals      *prometheus.CounterVec   // reason (see reason), code (its gRPC code)
	callSeconds   *prometheus.HistogramVec // method
	proveSeconds  prometheus.Histogram
	appendSeconds prometheus.Histogram
	inFlight      prometheus.Gauge       // calls between validation and reply
	appendQueue   prometheus.Gauge       // records waiting for their durable append
	alarms        *prometheus.CounterVec // component: entropy, keys, log, store
	devMode       prometheus.Gauge
	unfinished    prometheus.Gauge   // engine.countGames
	inGrace       prometheus.Gauge   // engine.countGames
	expiryDue     prometheus.Gauge   // engine.countGames
	adminRefused  prometheus.Counter // connections to the admin socket from a uid not in admin.allowed_uids
	buildAttested prometheus.Gauge   // engine.noteBuildAttested
}

// drawsHelp is tirage_draws_total's help: the kind label is the sealed
// record's kind, as engine.seal counts it (the key announcement is
// appended without seal and not counted).
const drawsHelp = "Records sealed in the log, by kind and outcome. " +
	"kind: game_start (outcome: the multipliers m1..m4, e.g. x2323), pick (good, losing), decision (continue, stop), " +
	"game_end (won, lost, expired, refunded), ticket_quit (a QUITTER, outcome empty); and the operator's emission and manifest (outcome empty)."

// countedHelp says when the games' gauges are counted (engine.countGames):
// a game started, ended or past its deadline since shows at the next count.
const countedHelp = "(counted at the start, after each sweep (game.sweep_interval) and after each refund)."

// latencyBuckets are the latency histograms' upper bounds, seconds: 0.2 ms
// to 6.4 s, at most 1.5 times apart from 2 ms to 100 ms, where draws and
// appends fall, and with a bound at the goal of a draw's p99, 25 ms (issue
// 5): the share of calls over it is a bucket's count, not an estimate.
var latencyBuckets = []float64{
	0.0002, 0.0005, 0.001, 0.002, 0.003, 0.0045, 0.0065, 0.01, 0.015, 0.02, 0.025,
	0.035, 0.05, 0.075, 0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.4,
}

// journalFsyncs is the embedded log's tirage_log_journal_fsync_seconds,
// fed by its journal (tilelog.Config.JournalSynced): made when the log is
// opened, before the engine's metrics, and registered with them.
func journalFsyncs() prometheus.Histogram {
	return prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "tirage_log_journal_fsync_seconds",
		Help: "Latency of the embedded log journal's fsyncs, one a group of records: the disk's share of tirage_log_append_seconds (every draw's reply waits for one). " +
			"The call's wall time: on busy cores it holds the wait for one once the disk is done. A rise with no rise in draws is the disk slowing down.",
		Buckets: latencyBuckets,
	})
}

func newMetrics(dev bool) *metrics {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m := &metrics{
		reg: reg,
		draws: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tirage_draws_total", Help: drawsHelp,
		}, []string{"kind", "outcome"}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tirage_refusals_total", Help: "Refused calls by reason (the ErrorInfo reason of the refusal, else its status code's name) and gRPC status code.",
		}, []string{"reason", "code"}),
		callSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "tirage_call_seconds", Help: "Latency of the game servers', the operator's and the auditors' calls.", Buckets: latencyBuckets,
		}, []string{"method"}),
		proveSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "tirage_vrf_prove_seconds", Help: "Latency of VRF proofs.", Buckets: latencyBuckets,
		}),
		appendSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "tirage_log_append_seconds", Help: "Latency of durable log appends.", Buckets: latencyBuckets,
		}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "tirage_calls_in_flight", Help: "Calls being processed (the game servers', the operator's and the auditors').",
		}),
		appendQueue: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "tirage_log_append_queue", Help: "Records waiting for their durable append.",
		}),
		alarms: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tirage_alarms_total", Help: "Failures that refused a draw, by component (entropy, keys, log, store); and crl: grpc.client_crl_file refused (the CRLs before stay in force) a CRL in force past its nextUpdate or issued in the future, or the CRLs in force not remembered in data_dir (client-crl-newest). Any increase needs an operator.",
		}, []string{"component"}),
		devMode: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "tirage_dev_mode", Help: "1 when the daemon runs in dev mode (insecure: never in production).",
		}),
		unfinished: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "tirage_games_unfinished", Help: "Games in play: started, not ended, before their 30-day deadline " + countedHelp,
		}),
		inGrace: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "tirage_games_in_refund_grace", Help: "Games past their 30-day deadline, not ended, that the operator may still refund " +
				"(article 2.2.11; rngctl qod list-expired) until game.refund_grace has passed, when the sweeper seals their expiry " + countedHelp,
		}),
		expiryDue: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "tirage_games_expiry_due", Help: "Games past their deadline and game.refund_grace whose expiry is not sealed yet: the sweeper seals them " +
				"at its next sweep, so more than 0 after a sweep means it could not (a log outage: they build up, and past an hour " +
				"the audit fails them) " + countedHelp,
		}),
		adminRefused: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "tirage_admin_refused_total", Help: "Connections to the admin socket refused: their uid (SO_PEERCRED) is not in admin.allowed_uids. Their calls get PERMISSION_DENIED.",
		}),
		buildAttested: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "tirage_build_attested", Help: "1 when the log holds a build attestation (docs/attestations.md) of this rngd's executable and configuration file; " +
				"0 until one is logged (rngctl attest build, then rngctl attest log): auditors cannot tie the draws to a known build.",
		}),
	}
	reg.MustRegister(m.draws, m.refusals, m.callSeconds, m.proveSeconds, m.appendSeconds,
		m.inFlight, m.appendQueue, m.alarms, m.devMode, m.unfinished, m.inGrace, m.expiryDue, m.adminRefused, m.buildAttested)
	if dev {
		m.devMode.Set(1)
	}
	for _, c := range []string{"entropy", "keys", "log", "store"} {
		m.alarms.WithLabelValues(c)
	}
	for r, c := range reasons { // every reason's series, from 0
		m.refusals.WithLabelValues(string(r), c.String())
	}
	return m
}

// refused counts a refusal by its reason and code (a bounded set: the
// reasons and, for refusals without one, the status codes).
func (m *metrics) refused(err error) {
	m.refusals.WithLabelValues(string(reasonOf(err)), status.Code(err).String()).Inc()
}

// witnessedLog is a log backend that sends its checkpoints to witnesses:
// both do (tilelog.Log, trillian.Log).
type witnessedLog interface {
	Witnesses() []transparency.WitnessStat
}

// witnessCollector exports what the log saw of its witnesses (Witnesses;
// nothing without log.witness_policy).
type witnessCollector struct{ l witnessedLog }

var (
	witnessCosignedDesc = prometheus.NewDesc("tirage_log_witness_cosignatures_total",
		"Checkpoints a witness of log.witness_policy cosigned (C2SP tlog-witness replies 200 whose cosignature verifies under its key in the policy), by witness key name and URL.",
		[]string{"witness", "url"}, nil)
	witnessConflictDesc = prometheus.NewDesc("tirage_log_witness_conflicts_total",
		"Replies of a witness giving another tree size than the one sent (409, retried with its size at once): a few after a restart or a witness's reset are normal.",
		[]string{"witness", "url"}, nil)
	witnessFailedDesc = prometheus.NewDesc("tirage_log_witness_failures_total",
		"Requests to a witness that failed (no reply, a reply other than 200 and 409, or a 200 whose cosignature does not verify under its key in the policy; not those called off). Checkpoints wait for the policy's quorum: "+
			"while it is not reached tirage_log_checkpoint_wait_seconds grows, and past log.checkpoint_timeout every draw is refused.",
		[]string{"witness", "url"}, nil)
	witnessCalledOffDesc = prometheus.NewDesc("tirage_log_witness_called_off_total",
		"Requests to a witness called off before it replied, the quorum met without it: a slower witness's now and then; "+
			"all of them, with no cosignature, a witness that no longer replies.",
		[]string{"witness", "url"}, nil)
	witnessLastDesc = prometheus.NewDesc("tirage_log_witness_last_cosignature_timestamp_seconds",
		"When a witness last cosigned a checkpoint (Unix time; absent until it has).",
		[]string{"witness", "url"}, nil)
)

func (c witnessCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- witnessCosignedDesc
	ch <- witnessConflictDesc
	ch <- witnessFailedDesc
	ch <- witnessCalledOffDesc
	ch <- witnessLastDesc
}

func (c witnessCollector) Collect(ch chan<- prometheus.Metric) {
	for _, w := range c.l.Witnesses() {
		ch <- prometheus.MustNewConstMetric(witnessCosignedDesc, prometheus.CounterValue, float64(w.Cosigned), w.Name, w.URL)
		ch <- prometheus.MustNewConstMetric(witnessConflictDesc, prometheus.CounterValue, float64(w.Conflicts), w.Name, w.URL)
		ch <- prometheus.MustNewConstMetric(witnessFailedDesc, prometheus.CounterValue, float64(w.Failures), w.Name, w.URL)
		ch <- prometheus.MustNewConstMetric(witnessCalledOffDesc, prometheus.CounterValue, float64(w.CalledOff), w.Name, w.URL)
		if !w.LastCosigned.IsZero() {
			ch <- prometheus.MustNewConstMetric(witnessLastDesc, prometheus.GaugeValue, float64(w.LastCosigned.UnixNano())/1e9, w.Name, w.URL)
		}
	}
}

// checkpointGauges are the embedded log's checkpoint series (tilelog.Lag):
// how far signed checkpoints trail its tree. tirage_log_checkpoint_wait_seconds
// is the one to alert on: it grows only while leaves wait for a checkpoint
// (an idle log publishes none, and that is no fault), and past
// log.checkpoint_timeout the log stalls and refuses every draw. With them,
// whether its leaf hash index keeps up (tilelog.Log.IndexHealth).
func checkpointGauges(l *tilelog.Log) []prometheus.Collector {
	return []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "tirage_log_checkpoint_wait_seconds",
			Help: "How long leaves in the embedded log's tree have waited for a signed checkpoint covering them; 0 while the latest covers the tree. " +
				"Past log.checkpoint_timeout the log refuses every draw (tirage_log_checkpoint_stalled): alert well before.",
		}, func() float64 { return l.Lag().Waiting.Seconds() }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "tirage_log_unsigned_leaves",
			Help: "Records acknowledged by the embedded log that no published signed checkpoint covers yet.",
		}, func() float64 { return float64(l.Lag().Unsigned) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "tirage_log_checkpoint_stalled",
			Help: "1 while the embedded log cannot publish signed checkpoints (a checkpoint signer failed, or log.checkpoint_timeout passed) " +
				"and refuses every draw, until it publishes one again by itself; 0 otherwise.",
		}, func() float64 {
			if l.Lag().Stalled {
				return 1
			}
			return 0
		}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "tirage_log_leaf_index_failing",
			Help: "1 while the embedded log's leaf hash index (log/leafhash/) cannot be brought up to its tree (a full or unwritable disk; retried every second): " +
				"draws go on (it is not on their path), auditors' inclusion proofs by leaf hash are refused (UNAVAILABLE) until it catches up by itself; 0 otherwise.",
		}, func() float64 {
			if l.IndexHealth() != nil {
				return 1
			}
			return 0
		}),
	}
}
