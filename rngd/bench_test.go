package rngd

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"golang.org/x/time/rate"

	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
)

// The daemon benchmarks: a load generator plays games as game servers do,
// over gRPC with mutual TLS, against a daemon with the production
// components (tessera log with its default 10 ms batches, bbolt store,
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
func benchDaemon(b *testing.B) *testDaemon {
	bench.once.Do(func() {
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

// newBenchDaemon is newTestDaemon with the production log defaults and the
// system clock.
func newBenchDaemon(b *testing.B) *testDaemon {
	return newTestDaemon(processLifetime{b}, func(c *Config) {
		c.Log.BatchMaxAge = Duration{}
		c.Clock = nil
	})
}

// processLifetime keeps the shared benchmark daemon (and its clients) alive
// across benchmark runs: its cleanups are dropped, the process ends them.
type processLifetime struct{ testing.TB }

func (processLifetime) Cleanup(func()) {}

func (processLifetime) TempDir() string {
	d, err := os.MkdirTemp("", "rngd-bench-")
	if err != nil {
		panic(err)
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
	code := m.Run()
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
			if _, err := p.Prove(alpha); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "proofs/s")
}

// BenchmarkQoDDraws plays games over gRPC + mTLS with TIRAGE_BENCH_CLIENTS
// concurrent game sessions (default 256) until b.N draws (starts and picks)
// are done: the daemon's peak. TIRAGE_BENCH_RATE, when set, paces the
// draws at that many per second (open loop) instead.
func BenchmarkQoDDraws(b *testing.B) {
	td := benchDaemon(b)
	clients := 256
	if v, err := strconv.Atoi(os.Getenv("TIRAGE_BENCH_CLIENTS")); err == nil {
		clients = v
	}
	var lim *rate.Limiter
	if v, err := strconv.ParseFloat(os.Getenv("TIRAGE_BENCH_RATE"), 64); err == nil && v > 0 {
		lim = rate.NewLimiter(rate.Limit(v), 1)
	}
	td.t = processLifetime{b}
	conns := make([]qodv1.QuitteOuDoubleClient, 8)
	for i := range conns {
		conns[i] = td.client("server-a")
	}
	ctx := context.Background()
	var draws, picks atomic.Int64
	var mu sync.Mutex
	var lat []time.Duration
	target := int64(b.N)
	appendSum0, appendN0 := histogram(td.d.engine.metrics.appendSeconds)
	b.ResetTimer()
	var wg sync.WaitGroup
	for w := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := conns[w%len(conns)]
			var mine []time.Duration
			defer func() { mu.Lock(); lat = append(lat, mine...); mu.Unlock() }()
			timed := func(f func() (*qodv1.GameReply, error)) (*qodv1.GameReply, error) {
				if lim != nil {
					lim.Wait(ctx)
				}
				t0 := time.Now()
				r, err := f()
				mine = append(mine, time.Since(t0))
				return r, err
			}
			for draws.Load() < target {
				var code string
				select {
				case code = <-bench.codes:
				default:
					b.Error("out of tickets: raise TIRAGE_BENCH_TICKETS")
					return
				}
				r, err := timed(func() (*qodv1.GameReply, error) {
					return c.StartGame(ctx, &qodv1.StartGameRequest{RequestId: "b-" + code, Code: code})
				})
				if err != nil {
					b.Error(err)
					return
				}
				draws.Add(1)
				g := r.Game
				for n := 0; draws.Load() < target; n++ {
					rid := g.GameId + "-" + strconv.Itoa(n)
					if g.Status == qodv1.Status_STATUS_AT_TIER {
						r, err = c.Decide(ctx, &qodv1.DecideRequest{RequestId: rid, GameId: g.GameId, Decision: qodv1.Decision_DECISION_CONTINUE})
					} else if g.Status == qodv1.Status_STATUS_PLAYING {
						r, err = timed(func() (*qodv1.GameReply, error) {
							return c.Pick(ctx, &qodv1.PickRequest{RequestId: rid, GameId: g.GameId, Number: nextNumber(g)})
						})
						draws.Add(1)
						picks.Add(1)
					} else {
						break
					}
					if err != nil {
						b.Error(err)
						return
					}
					g = r.Game
				}
			}
		}()
	}
	wg.Wait()
	el := b.Elapsed().Seconds()
	b.StopTimer()
	slices.Sort(lat)
	q := func(f float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return float64(lat[int(f*float64(len(lat)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(float64(draws.Load())/el, "draws/s")
	b.ReportMetric(float64(picks.Load())/el, "picks/s")
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
	appendSum, appendN := histogram(td.d.engine.metrics.appendSeconds)
	b.ReportMetric(1000*(appendSum-appendSum0)/math.Max(1, float64(appendN-appendN0)), "append-mean-ms")
}

// histogram returns a histogram's sum and count.
func histogram(h prometheus.Histogram) (float64, uint64) {
	var m dto.Metric
	h.Write(&m)
	return m.GetHistogram().GetSampleSum(), m.GetHistogram().GetSampleCount()
}
