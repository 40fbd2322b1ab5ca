package rngd

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"os"
	rtmetrics "runtime/metrics"
	"runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/rngd/loadtest"
	"tirage.fr/tirage/transparency/witness/witnesstest"
)

// The daemon benchmarks: a load generator plays games as game servers do,
// over gRPC with mutual TLS, against a daemon with the production
// components (tessera log with its default batches, bbolt store,
// software VRF key, hwrng-seeded DRBG), and the raw VRF-prove throughput of
// the same key on all cores, for comparison. scripts/bench.d/rngd.sh runs
// them and writes docs/bench/rngd.md.

var bench struct {
	once  sync.Once
	td    *testDaemon
	codes chan string
}

// benchDaemon starts one daemon for all the benchmarks of the process, with
// enough tickets (TIRAGE_BENCH_TICKETS, default 20,000).
func benchDaemon(b testing.TB) *testDaemon {
	bench.once.Do(func() {
		TuneRuntime() // as cmd/rngd does
		n := 20_000
		if v, err := strconv.Atoi(os.Getenv("TIRAGE_BENCH_TICKETS")); err == nil {
			n = v
		}
		td := newBenchDaemon(b)
		codes := td.emission("BENCH", "2099-12-31", n)
		bench.codes = make(chan string, len(codes))
		for i, c := range codes {
			if i%len(Stakes) != 0 { // 50,000 € tickets draw no multipliers
				bench.codes <- c
			}
		}
		bench.td = td
	})
	return bench.td
}

// newBenchDaemon is newTestDaemon with the production log defaults, the
// system clock and cmd/rngd's logger (JSON lines at INFO; WARN and ERROR
// go to the benchmark's log, no line is kept: kept in memory, the log grew
// with every run against one daemon, the bench's step 7 runs 21, and the
// heap the collector scans with it); with TIRAGE_BENCH_KEYS=pkcs11, its
// keys are in a SoftHSM2 token (the production custody:
// RSA-FDH-VRF-SHA256 proofs made by the token, each checked by the host
// before release).
func newBenchDaemon(b testing.TB) *testDaemon {
	mods := []func(*Config){func(c *Config) {
		c.Log.BatchMaxAge = Duration{}
		c.Clock = nil
		c.Logger = slog.New(slog.NewJSONHandler(testWriter{t: b}, nil))
	}}
	if os.Getenv("TIRAGE_BENCH_KEYS") == "pkcs11" {
		if hsmKeys == nil {
			b.Skip("TIRAGE_BENCH_KEYS=pkcs11 needs a cgo build (the PKCS#11 backend)")
		}
		mods = append(mods, hsmKeys(processLifetime{b}))
	}
	if os.Getenv("TIRAGE_BENCH_WITNESS") == "1" {
		// Every checkpoint cosigned by a witness on loopback before it is
		// published (log.witness_policy): draws do not wait for it.
		var tw *witnesstest.Witness
		mods = append(mods, withWitness(processLifetime{b}, &tw))
	}
	return newTestDaemon(processLifetime{b}, mods...)
}

// hsmKeys, set in cgo builds (pkcs11_test.go), puts the daemon's keys in a
// SoftHSM2 token.
var hsmKeys func(testing.TB) func(*Config)

// processLifetime keeps the shared benchmark daemon (and its clients) alive
// across benchmark runs: its cleanups are dropped, the process ends them.
type processLifetime struct{ testing.TB }

func (processLifetime) Cleanup(func()) {}

// TempDir is under TIRAGE_BENCH_DATA if set, and kept (the bench removes
// that directory when it ends, so that no measured step pays for the removal
// of a daemon's data before it: rngd/loadtest's benchDataDir).
func (processLifetime) TempDir() string {
	root := os.Getenv("TIRAGE_BENCH_DATA")
	d, err := os.MkdirTemp(root, "rngd-bench-")
	if err != nil {
		panic(err)
	}
	if root != "" {
		return d
	}
	benchDirs.Lock()
	benchDirs.list = append(benchDirs.list, d)
	benchDirs.Unlock()
	return d
}

// benchDirs are the shared benchmark daemon's directories, removed when the
// test binary exits (TestMain): each holds a whole log and store.
var benchDirs struct {
	sync.Mutex
	list []string
}

func TestMain(m *testing.M) {
	if os.Getenv("RNGD_TEST_SIGNAL") == "1" {
		signalHelper() // TestSecondSignalKills' child
	}
	code := m.Run()
	// The shared benchmark daemon stops before its directories go: its
	// log would otherwise write into a directory removed under it.
	if td := bench.td; td != nil && td.cancel != nil {
		td.cancel()
		<-td.done
	}
	benchDirs.Lock()
	for _, d := range benchDirs.list {
		os.RemoveAll(d)
	}
	benchDirs.Unlock()
	os.Exit(code)
}

// BenchmarkVRFProveParallel is the raw bound: proofs with the daemon's key
// on all cores (ns/op is wall time per proof across GOMAXPROCS goroutines).
func BenchmarkVRFProveParallel(b *testing.B) {
	td := benchDaemon(b)
	p := td.d.engine.prover
	var n atomic.Uint64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			alpha := []byte(fmt.Sprintf("bench alpha %d", n.Add(1)))
			if _, _, err := p.Prove(alpha); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "proofs/s")
}

// storePagesWritten is how many writes state.db's commits have made: one
// a page, or one for a page and its overflow (a node larger than a page).
// In the bench's runs as many pages were allocated.
func storePagesWritten(td *testDaemon) int64 {
	st := td.d.engine.store.db.Stats()
	return st.TxStats.GetWrite()
}

// BenchmarkQoDDraws plays games over gRPC + mTLS with TIRAGE_BENCH_CLIENTS
// concurrent game sessions (default 256) until b.N draws (starts and picks)
// are done: the daemon's peak. TIRAGE_BENCH_RATE, when set, paces the
// draws at that many per second (open loop) instead. The load generator
// (package loadtest) runs in this process, beside the daemon; its
// BenchmarkDaemonProcess runs the daemon in a process of its own.
func BenchmarkQoDDraws(b *testing.B) {
	td := benchDaemon(b)
	clients := 256
	if v, err := strconv.Atoi(os.Getenv("TIRAGE_BENCH_CLIENTS")); err == nil {
		clients = v
	}
	var pace float64
	if v, err := strconv.ParseFloat(os.Getenv("TIRAGE_BENCH_RATE"), 64); err == nil && v > 0 {
		pace = v
	}
	td.t = processLifetime{b}
	// Closed when the run ends: runs share the daemon (-count, the
	// aged peak of scripts/bench.d/rngd.sh), whose grpc.max_connections
	// (256) would otherwise be used up by the runs before.
	conns := make([]qodv1.QuitteOuDoubleClient, 8)
	for i := range conns {
		cc := td.conn("server-a")
		defer cc.Close()
		conns[i] = loadtest.Client(cc, loadtest.PlayFromEnv())
	}
	appendSum0, appendN0 := histogram(td.d.engine.metrics.appendSeconds)
	append0 := buckets(td.d.engine.metrics.appendSeconds)
	sched0 := schedLatencies()
	cosigned0 := witnessCosignatures(td)
	pages0 := storePagesWritten(td)
	stopProfile := profileDraws(b)
	b.ResetTimer()
	r, err := loadtest.Run(context.Background(), loadtest.Config{
		Conns: conns, Codes: bench.codes, Sessions: clients, Draws: int64(b.N), Rate: pace,
	})
	b.StopTimer()
	stopProfile()
	if err != nil {
		b.Error(err)
	}
	b.ReportMetric(r.DrawsPerSecond(), "draws/s")
	b.ReportMetric(r.PicksPerSecond(), "picks/s")
	b.ReportMetric(loadtest.Milliseconds(r.P50()), "p50-ms")
	b.ReportMetric(loadtest.Milliseconds(r.P99()), "p99-ms")
	b.ReportMetric(loadtest.Milliseconds(r.StartQuantile(0.99)), "start-p99-ms")
	b.ReportMetric(float64(storePagesWritten(td)-pages0)/float64(max(r.Draws, 1)), "store-pages/draw")
	appendSum, appendN := histogram(td.d.engine.metrics.appendSeconds)
	b.ReportMetric(1000*(appendSum-appendSum0)/math.Max(1, float64(appendN-appendN0)), "append-mean-ms")
	b.ReportMetric(1000*bucketQuantile(append0, buckets(td.d.engine.metrics.appendSeconds), 0.99), "append-p99-ms")
	b.ReportMetric(1000*schedQuantile(sched0, schedLatencies(), 0.99), "sched-p99-ms")
	if os.Getenv("TIRAGE_BENCH_WITNESS") == "1" {
		// Checkpoints the witness cosigned meanwhile (one per checkpoint
		// published): that it was in the loop.
		b.ReportMetric(float64(witnessCosignatures(td)-cosigned0), "cosignatures")
	}
}

// profileDraws starts a CPU profile of the whole process into the file
// TIRAGE_BENCH_CPUPROFILE names, for the measured draws alone (go test's
// -cpuprofile would also take the daemon's start and the tickets' import):
// scripts/bench.d/rngd.sh splits it into where a draw's CPU goes. The
// benchmark's first, one-draw round is not profiled. It returns the stop.
func profileDraws(b *testing.B) (stop func()) {
	path := os.Getenv("TIRAGE_BENCH_CPUPROFILE")
	if path == "" || b.N == 1 {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		b.Fatalf("TIRAGE_BENCH_CPUPROFILE: %v", err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			b.Error(err)
		}
	}
}

// witnessCosignatures is how many checkpoints the daemon's witnesses
// cosigned since it started (0 without log.witness_policy).
func witnessCosignatures(td *testDaemon) uint64 {
	var n uint64
	if wl, ok := td.d.engine.tlog.(witnessedLog); ok {
		for _, w := range wl.Witnesses() {
			n += w.Cosigned
		}
	}
	return n
}

// buckets is a snapshot of a histogram's counts.
func buckets(h prometheus.Histogram) *dto.Histogram {
	var m dto.Metric
	h.Write(&m)
	return m.GetHistogram()
}

// bucketQuantile is the upper bound of the bucket that holds quantile q of
// what was observed between the snapshots a and z: an upper bound of that
// quantile, within the bucket's factor of 2 (+Inf beyond the last bucket).
func bucketQuantile(a, z *dto.Histogram, q float64) float64 {
	total := z.GetSampleCount() - a.GetSampleCount()
	ab, zb := a.GetBucket(), z.GetBucket()
	for i := range zb {
		if n := zb[i].GetCumulativeCount() - ab[i].GetCumulativeCount(); total > 0 && float64(n) >= q*float64(total) {
			return zb[i].GetUpperBound()
		}
	}
	return math.Inf(1)
}

// BenchmarkRebuild is the recovery that follows a crash under load (the
// store is then behind the log) or a lost state.db: rngd rebuilds its store
// from the whole log before it serves. It plays TIRAGE_BENCH_REBUILD_DRAWS
// draws (default 20,000) against a fresh daemon with 64 sessions, stops it,
// then rebuilds its store b.N times (rngctl state rebuild). records/s is the
// log records replayed per second: a log of n records comes back in about
// n / records/s seconds.
func BenchmarkRebuild(b *testing.B) {
	draws := 20_000
	if v, err := strconv.Atoi(os.Getenv("TIRAGE_BENCH_REBUILD_DRAWS")); err == nil && v > 0 {
		draws = v
	}
	ctx := context.Background()
	td := newBenchDaemon(b)
	all := td.emission("REBUILD", "2099-12-31", draws/2)
	codes := make(chan string, len(all))
	for i, c := range all {
		if i%len(Stakes) != 0 {
			codes <- c
		}
	}
	conns := make([]qodv1.QuitteOuDoubleClient, 8)
	for i := range conns {
		conns[i] = td.client("server-a")
	}
	if _, err := loadtest.Run(ctx, loadtest.Config{Conns: conns, Codes: codes, Sessions: 64, Draws: int64(draws)}); err != nil {
		b.Fatal(err)
	}
	td.stop()
	b.ResetTimer()
	var n uint64
	for range b.N {
		var err error
		if n, err = Rebuild(ctx, td.cfg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(n), "records")
}

// histogram returns a histogram's sum and count.
func histogram(h prometheus.Histogram) (float64, uint64) {
	var m dto.Metric
	h.Write(&m)
	return m.GetHistogram().GetSampleSum(), m.GetHistogram().GetSampleCount()
}

// schedLatencies is the Go runtime's histogram of how long goroutines wait,
// runnable, for a CPU: each call crosses several goroutines (the transport's
// readers and writers, the handler, the log's journal), so on a busy
// machine their wait adds up in a call's latency.
func schedLatencies() *rtmetrics.Float64Histogram {
	s := []rtmetrics.Sample{{Name: "/sched/latencies:seconds"}}
	rtmetrics.Read(s)
	return s[0].Value.Float64Histogram()
}

// schedQuantile is the q quantile (seconds, a bucket's upper bound) of the
// waits between two readings.
func schedQuantile(a, z *rtmetrics.Float64Histogram, q float64) float64 {
	var total uint64
	for i := range z.Counts {
		total += z.Counts[i] - a.Counts[i]
	}
	var n uint64
	for i := range z.Counts {
		n += z.Counts[i] - a.Counts[i]
		if total > 0 && float64(n) >= q*float64(total) {
			return z.Buckets[i+1]
		}
	}
	return 0
}
