package loadtest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"tirage.fr/tirage/rngd/rngdtest"
)

// TestRun plays a few games against a real daemon (in this process) and
// checks the accounting: the draws reach the target and overshoot it by
// less than one per session, every draw has its latency sample, and every
// start used one ticket.
func TestRun(t *testing.T) {
	d := rngdtest.Start(t, "server-a")
	pool := emission(t, d.Admin, "LT", 70)
	tickets := len(pool)
	conns, _ := dial(t, d.GRPC, d.PKI, "server-a", 2)
	const target, sessions = 60, 4
	r, err := Run(context.Background(), Config{Conns: conns, Codes: pool, Sessions: sessions, Draws: target})
	if err != nil {
		t.Fatal(err)
	}
	if r.Draws < target || r.Draws > target+sessions-1 {
		t.Errorf("draws = %d, want %d..%d", r.Draws, target, target+sessions-1)
	}
	starts := r.Draws - r.Picks
	if starts < 1 || r.Picks < 1 {
		t.Errorf("starts = %d, picks = %d: want both", starts, r.Picks)
	}
	if used := int64(tickets - len(pool)); used != starts {
		t.Errorf("%d tickets used for %d starts", used, starts)
	}
	if int64(len(r.Latencies)) != r.Draws || !slices.IsSorted(r.Latencies) || r.Latencies[0] <= 0 {
		t.Errorf("%d latency samples for %d draws, sorted %v", len(r.Latencies), r.Draws, slices.IsSorted(r.Latencies))
	}
	if r.Elapsed <= 0 || r.DrawsPerSecond() <= 0 || r.P99() < r.P50() {
		t.Errorf("elapsed %v, %v draws/s, p50 %v, p99 %v", r.Elapsed, r.DrawsPerSecond(), r.P50(), r.P99())
	}

	// Too few tickets for the target: the run says so.
	few := make(chan string, 1)
	few <- <-pool
	r, err = Run(context.Background(), Config{Conns: conns, Codes: few, Sessions: 2, Draws: 1000})
	if !errors.Is(err, ErrOutOfTickets) {
		t.Errorf("one ticket for 1000 draws: err = %v, want ErrOutOfTickets", err)
	}
	if r.Draws > 31 { // a start and at most 30 picks
		t.Errorf("one ticket made %d draws", r.Draws)
	}

	// A code the manifest lacks: the daemon's refusal is the run's error.
	bad := make(chan string, 1)
	bad <- "AAAAAAAAAAAAAAAAAA"
	_, err = Run(context.Background(), Config{Conns: conns, Codes: bad, Sessions: 1, Draws: 1})
	if status.Code(err) != codes.NotFound {
		t.Errorf("unknown code: err = %v, want NotFound", err)
	}
}

// TestQuantile checks the rank of the quantiles: sample ⌊f·(n−1)⌋.
func TestQuantile(t *testing.T) {
	var r Result
	if r.P50() != 0 {
		t.Errorf("p50 of nothing = %v", r.P50())
	}
	for i := 1; i <= 100; i++ {
		r.Latencies = append(r.Latencies, time.Duration(i)*time.Millisecond)
	}
	if r.P50() != 50*time.Millisecond || r.P99() != 99*time.Millisecond || r.Quantile(1) != 100*time.Millisecond {
		t.Errorf("p50 %v, p99 %v, max %v; want 50ms, 99ms, 100ms", r.P50(), r.P99(), r.Quantile(1))
	}
	if Milliseconds(1500*time.Microsecond) != 1.5 {
		t.Errorf("Milliseconds(1.5ms) = %v", Milliseconds(1500*time.Microsecond))
	}
}
