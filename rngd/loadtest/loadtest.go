// Package loadtest is the load generator of rngd's benchmarks: it plays
// Quitte ou Double as game servers do, over gRPC, and measures the draws per
// second and their latency.
//
// A session takes a ticket code, starts stage 2 (StartGame: one draw, the
// four multipliers), then picks the lowest number not yet picked (Pick: one
// draw) and continues at every tier (Decide CONTINUE, no draw) until the game
// ends (loss or tier 4); then it takes the next ticket. Sessions play until
// the target number of draws is reached; a session finishing its current
// call when the target is reached may add a few draws more (one per session
// at most), so the draws of a Result are at least the target.
//
// Latency is sampled for every draw (StartGame and Pick): the time from
// sending the call to its reply, after the pacer let it go. With a pace the
// load is open loop at that many draws per second across all sessions (a
// token bucket of one, golang.org/x/time/rate); without, every session sends
// its next call as soon as the previous one returns (closed loop: the peak).
//
// The package knows only the game servers' API: the daemon may run in the
// same process (rngd's BenchmarkQoDDraws) or in its own (BenchmarkDaemonProcess).
package loadtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/rngd/playstream"
)

// Client is a game server's client of cc: its game calls on a Play stream
// (rngd/playstream) when play is set, else a unary call each.
func Client(cc grpc.ClientConnInterface, play bool) qodv1.QuitteOuDoubleClient {
	if play {
		return playstream.New(cc)
	}
	return qodv1.NewQuitteOuDoubleClient(cc)
}

// PlayFromEnv is whether the benchmarks' game servers make their game calls
// on Play streams: TIRAGE_BENCH_PLAY=1.
func PlayFromEnv() bool { return os.Getenv("TIRAGE_BENCH_PLAY") == "1" }

// Config is one load run.
type Config struct {
	// Conns are the game-server connections; session i uses Conns[i%len(Conns)].
	Conns []qodv1.QuitteOuDoubleClient
	// Codes are the ticket codes to play, each once. Codes that draw no
	// multipliers (50,000 € tickets) should be left out by the caller: they
	// are played like the others.
	Codes <-chan string
	// Sessions is the number of concurrent game sessions (default 1).
	Sessions int
	// Draws is the target number of draws (starts and picks).
	Draws int64
	// Rate, when > 0, paces the draws at that many per second (open loop).
	Rate float64
	// RequestPrefix starts the request id of every StartGame (default "b-"):
	// runs against the same daemon with the same codes must differ in it.
	RequestPrefix string
	// Reply, when set, is called with every call the daemon answered
	// (StartGame, Pick, Decide: a *qodv1.StartGameRequest, PickRequest or
	// DecideRequest) and its reply, on the session's goroutine.
	Reply func(req proto.Message, reply *qodv1.GameReply)
}

// ErrOutOfTickets is returned when Codes ran dry before the target.
var ErrOutOfTickets = errors.New("out of tickets: give the run more ticket codes")

// Result is what a run measured.
type Result struct {
	Draws   int64         // starts and picks
	Picks   int64         // picks alone
	Elapsed time.Duration // wall time from the first call to the last reply
	// Latencies of every draw, sorted ascending.
	Latencies []time.Duration
	// StartLatencies are those of the starts alone, sorted ascending.
	StartLatencies []time.Duration
}

// DrawsPerSecond is Draws over Elapsed.
func (r Result) DrawsPerSecond() float64 { return float64(r.Draws) / r.Elapsed.Seconds() }

// PicksPerSecond is Picks over Elapsed.
func (r Result) PicksPerSecond() float64 { return float64(r.Picks) / r.Elapsed.Seconds() }

// Quantile is the latency below which a fraction f (0..1) of the draws
// fall: the sample of rank ⌊f·(n−1)⌋ (0 without samples).
func (r Result) Quantile(f float64) time.Duration {
	if len(r.Latencies) == 0 {
		return 0
	}
	return r.Latencies[int(f*float64(len(r.Latencies)-1))]
}

// StartQuantile is Quantile over the starts alone.
func (r Result) StartQuantile(f float64) time.Duration {
	return Result{Latencies: r.StartLatencies}.Quantile(f)
}

// P50 is the median latency.
func (r Result) P50() time.Duration { return r.Quantile(0.50) }

// P99 is the 99th percentile latency.
func (r Result) P99() time.Duration { return r.Quantile(0.99) }

// Milliseconds is d in milliseconds, to the microsecond (benchmark metrics).
func Milliseconds(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Run plays games until cfg.Draws draws are done, or a call fails (the
// first error is returned with what was measured until then), or ctx ends.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if len(cfg.Conns) == 0 {
		return Result{}, errors.New("loadtest: no connection")
	}
	sessions := max(cfg.Sessions, 1)
	prefix := cfg.RequestPrefix
	if prefix == "" {
		prefix = "b-"
	}
	var lim *rate.Limiter
	if cfg.Rate > 0 {
		lim = rate.NewLimiter(rate.Limit(cfg.Rate), 1)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		draws, picks atomic.Int64
		mu           sync.Mutex
		lat, starts  []time.Duration
		firstErr     error
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		cancel()
	}
	t0 := time.Now()
	var wg sync.WaitGroup
	for w := range sessions {
		wg.Go(func() {
			s := session{c: cfg.Conns[w%len(cfg.Conns)], lim: lim, reply: cfg.Reply}
			defer func() {
				mu.Lock()
				lat = append(lat, s.lat...)
				starts = append(starts, s.starts...)
				mu.Unlock()
			}()
			if err := s.play(ctx, cfg.Codes, prefix, cfg.Draws, &draws, &picks); err != nil {
				fail(err)
			}
		})
	}
	wg.Wait()
	r := Result{Draws: draws.Load(), Picks: picks.Load(), Elapsed: time.Since(t0), Latencies: lat, StartLatencies: starts}
	slices.Sort(r.Latencies)
	slices.Sort(r.StartLatencies)
	return r, firstErr
}

// session is one game server's sequence of games.
type session struct {
	c      qodv1.QuitteOuDoubleClient
	lim    *rate.Limiter
	lat    []time.Duration
	starts []time.Duration                       // the starts' latencies, also in lat
	reply  func(proto.Message, *qodv1.GameReply) // Config.Reply
}

// answered passes an answered call to Config.Reply.
func (s *session) answered(req proto.Message, r *qodv1.GameReply) {
	if s.reply != nil {
		s.reply(req, r)
	}
}

// timed makes a draw call after the pacer lets it go and samples its latency.
func (s *session) timed(ctx context.Context, f func() (*qodv1.GameReply, error)) (*qodv1.GameReply, error) {
	if s.lim != nil {
		if err := s.lim.Wait(ctx); err != nil {
			return nil, err
		}
	}
	t0 := time.Now()
	r, err := f()
	s.lat = append(s.lat, time.Since(t0))
	return r, err
}

// play plays games until the shared draw count reaches target.
func (s *session) play(ctx context.Context, codes <-chan string, prefix string, target int64, draws, picks *atomic.Int64) error {
games:
	for draws.Load() < target {
		if ctx.Err() != nil {
			return nil // another session failed
		}
		var code string
		select {
		case code = <-codes:
		default:
			return ErrOutOfTickets
		}
		start := &qodv1.StartGameRequest{RequestId: prefix + code, Code: code}
		r, err := s.timed(ctx, func() (*qodv1.GameReply, error) { return s.c.StartGame(ctx, start) })
		if err != nil {
			return fmt.Errorf("start game: %w", err)
		}
		s.starts = append(s.starts, s.lat[len(s.lat)-1])
		s.answered(start, r)
		draws.Add(1)
		g := r.Game
		for n := 0; draws.Load() < target; n++ {
			rid := g.GameId + "-" + strconv.Itoa(n)
			var req proto.Message
			switch g.Status {
			case qodv1.Status_STATUS_AT_TIER:
				decide := &qodv1.DecideRequest{RequestId: rid, GameId: g.GameId, Decision: qodv1.Decision_DECISION_CONTINUE}
				req = decide
				r, err = s.c.Decide(ctx, decide)
			case qodv1.Status_STATUS_PLAYING:
				pick := &qodv1.PickRequest{RequestId: rid, GameId: g.GameId, Number: NextNumber(g)}
				req = pick
				r, err = s.timed(ctx, func() (*qodv1.GameReply, error) { return s.c.Pick(ctx, pick) })
				if err == nil {
					draws.Add(1)
					picks.Add(1)
				}
			default:
				continue games // lost or tier 4: the next ticket
			}
			if err != nil {
				return fmt.Errorf("game %s: %w", g.GameId, err)
			}
			s.answered(req, r)
			g = r.Game
		}
	}
	return nil
}

// NextNumber is the lowest number of the grid (1..30) the game has not picked.
func NextNumber(g *qodv1.Game) uint64 {
	picked := map[uint64]bool{}
	for _, p := range g.Picks {
		picked[uint64(p.Number)] = true
	}
	for n := uint64(1); ; n++ {
		if !picked[n] {
			return n
		}
	}
}
