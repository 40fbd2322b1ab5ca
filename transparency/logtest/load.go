package logtest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/transparency"
)

// Load runs n operations op(ctx, i) over workers goroutines and returns the
// wall time and the latency of each operation.
func Load(ctx context.Context, workers, n int, op func(ctx context.Context, i int) error) (time.Duration, []time.Duration, error) {
	lat := make([]time.Duration, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	start := time.Now()
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				t0 := time.Now()
				if err := op(ctx, i); err != nil {
					once.Do(func() { first = err })
					return
				}
				lat[i] = time.Since(t0)
			}
		})
	}
	wg.Wait()
	return time.Since(start), lat, first
}

// Report reports appends/s and the p50/p99 latency (ms) of a Load run as
// benchmark metrics, under the given latency name.
func Report(b *testing.B, elapsed time.Duration, lat []time.Duration, name string) {
	b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "appends/s")
	ReportLatency(b, lat, name)
}

// Leaf returns a benchmark leaf of about 300 bytes, the size of a draw
// record.
func Leaf(run string, i int) []byte {
	return fmt.Appendf(nil, "%s %08d %0290d", run, i, i)
}

// AppendOp is the Load operation appending to a Log.
func AppendOp(l transparency.Log, run string) func(context.Context, int) error {
	return func(ctx context.Context, i int) error {
		_, err := l.Append(ctx, Leaf(run, i))
		return err
	}
}

// InclusionOp appends and then obtains and checks an inclusion proof
// against a signed checkpoint: append → verifiable inclusion.
func InclusionOp(l transparency.Log, run string) func(context.Context, int) error {
	return func(ctx context.Context, i int) error {
		lf := Leaf(run, i)
		idx, err := l.Append(ctx, lf)
		if err != nil {
			return err
		}
		cp, err := l.AwaitCheckpoint(ctx, idx+1)
		if err != nil {
			return err
		}
		p, err := l.InclusionProof(ctx, idx, cp.Size)
		if err != nil {
			return err
		}
		return tlog.CheckRecord(p, int64(cp.Size), cp.Hash, int64(idx), tlog.RecordHash(lf))
	}
}

// Spaced runs n operations one at a time, gap apart (the gap is not timed),
// and returns each operation's latency: draws arriving on a quiet log.
func Spaced(ctx context.Context, n int, gap time.Duration, op func(ctx context.Context, i int) error) ([]time.Duration, error) {
	lat := make([]time.Duration, n)
	for i := range n {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(gap):
		}
		t0 := time.Now()
		if err := op(ctx, i); err != nil {
			return nil, err
		}
		lat[i] = time.Since(t0)
	}
	return lat, nil
}

// ReportLatency reports the p50/p99 latency (ms) of lat as benchmark metrics.
func ReportLatency(b *testing.B, lat []time.Duration, name string) {
	s := slices.Clone(lat)
	slices.Sort(s)
	q := func(p float64) float64 { return float64(s[min(len(s)-1, int(p*float64(len(s))))]) / 1e6 }
	b.ReportMetric(q(0.50), name+"-p50-ms")
	b.ReportMetric(q(0.99), name+"-p99-ms")
	b.ReportMetric(0, "ns/op")
}
