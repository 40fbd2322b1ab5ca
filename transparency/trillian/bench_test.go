package trillian_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	tpb "github.com/google/trillian"
	"github.com/google/trillian/types"
	"golang.org/x/mod/sumdb/tlog"
	"google.golang.org/grpc"

	"tirage.fr/tirage/transparency/logtest"
	"tirage.fr/tirage/transparency/trillian"
)

var benchAppenders = []int{1, 64, 512, 2048}

// benchEngine names the backend's runs: engine=trillian without
// Config.StateFile (as before), engine=trillian-statefile with it, as rngd
// runs it (the signed checkpoint saved, the pending file written ahead of
// each QueueLeaf), in a temporary directory.
func benchEngine(state bool) string {
	if state {
		return "trillian-statefile"
	}
	return "trillian"
}

// benchOpen opens the backend on a new tree, with a state file if state.
func benchOpen(b *testing.B, conn *grpc.ClientConn, state bool) *trillian.Log {
	cfg := trillian.Config{Conn: conn, TreeID: newTree(b, conn), Origin: "tirage.fr/log/bench", Signers: signers(b)}
	if state {
		cfg.StateFile = filepath.Join(b.TempDir(), "trillian-checkpoint")
	}
	l, err := trillian.Open(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	return l
}

func rootSize(b *testing.B, c tpb.TrillianLogClient, tree int64) uint64 {
	resp, err := c.GetLatestSignedLogRoot(context.Background(), &tpb.GetLatestSignedLogRootRequest{LogId: tree})
	if err != nil {
		b.Fatal(err)
	}
	var r types.LogRootV1
	if err := r.UnmarshalBinary(resp.GetSignedLogRoot().GetLogRoot()); err != nil {
		b.Fatal(err)
	}
	return r.TreeSize
}

// waitIntegrated polls until the tree has size leaves.
func waitIntegrated(b *testing.B, c tpb.TrillianLogClient, tree int64, size uint64) {
	for rootSize(b, c, tree) < size {
		time.Sleep(2 * time.Millisecond)
	}
}

// BenchmarkAppend: integrated appends/s with N concurrent appenders; the
// backend vs Trillian's QueueLeaf used directly (timed until the queued
// leaves are all integrated, so both count sequenced leaves).
func BenchmarkAppend(b *testing.B) {
	conn := dial(b)
	c := tpb.NewTrillianLogClient(conn)
	run := fmt.Sprint(time.Now().UnixNano())
	for _, n := range benchAppenders {
		b.Run(fmt.Sprintf("engine=trillian-raw/appenders=%d", n), func(b *testing.B) {
			tree := newTree(b, conn)
			start := time.Now()
			_, lat, err := logtest.Load(context.Background(), n, b.N, func(ctx context.Context, i int) error {
				_, err := c.QueueLeaf(ctx, &tpb.QueueLeafRequest{LogId: tree, Leaf: &tpb.LogLeaf{LeafValue: logtest.Leaf("raw"+run, i)}})
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
			waitIntegrated(b, c, tree, uint64(b.N))
			logtest.Report(b, time.Since(start), lat, "ack")
		})
		for _, state := range []bool{false, true} {
			b.Run(fmt.Sprintf("engine=%s/appenders=%d", benchEngine(state), n), func(b *testing.B) {
				l := benchOpen(b, conn, state)
				el, lat, err := logtest.Load(context.Background(), n, b.N, logtest.AppendOp(l, "log"+run))
				if err != nil {
					b.Fatal(err)
				}
				logtest.Report(b, el, lat, "ack")
			})
		}
	}
}

// BenchmarkInclusion: append → verifiable inclusion, 16 concurrent draws;
// raw: QueueLeaf, then poll GetInclusionProofByHash until it answers.
func BenchmarkInclusion(b *testing.B) {
	const n = 16
	conn := dial(b)
	c := tpb.NewTrillianLogClient(conn)
	run := fmt.Sprint(time.Now().UnixNano())
	b.Run(fmt.Sprintf("engine=trillian-raw/appenders=%d", n), func(b *testing.B) {
		tree := newTree(b, conn)
		el, lat, err := logtest.Load(context.Background(), n, b.N, rawInclusion(b, c, tree, run))
		if err != nil {
			b.Fatal(err)
		}
		logtest.Report(b, el, lat, "incl")
	})
	for _, state := range []bool{false, true} {
		b.Run(fmt.Sprintf("engine=%s/appenders=%d", benchEngine(state), n), func(b *testing.B) {
			l := benchOpen(b, conn, state)
			el, lat, err := logtest.Load(context.Background(), n, b.N, logtest.InclusionOp(l, "log"+run))
			if err != nil {
				b.Fatal(err)
			}
			logtest.Report(b, el, lat, "incl")
		})
	}
}

// BenchmarkInclusionIdle: append → verifiable inclusion for a draw arriving
// on a quiet log (draws 150 ms apart).
func BenchmarkInclusionIdle(b *testing.B) {
	const gap = 150 * time.Millisecond
	conn := dial(b)
	c := tpb.NewTrillianLogClient(conn)
	run := fmt.Sprint(time.Now().UnixNano())
	b.Run("engine=trillian-raw/appenders=1", func(b *testing.B) {
		tree := newTree(b, conn)
		lat, err := logtest.Spaced(context.Background(), b.N, gap, rawInclusion(b, c, tree, run))
		if err != nil {
			b.Fatal(err)
		}
		logtest.ReportLatency(b, lat, "incl")
	})
	for _, state := range []bool{false, true} {
		b.Run(fmt.Sprintf("engine=%s/appenders=1", benchEngine(state)), func(b *testing.B) {
			l := benchOpen(b, conn, state)
			lat, err := logtest.Spaced(context.Background(), b.N, gap, logtest.InclusionOp(l, "log"+run))
			if err != nil {
				b.Fatal(err)
			}
			logtest.ReportLatency(b, lat, "incl")
		})
	}
}

// rawInclusion is Trillian used directly for append → inclusion: QueueLeaf,
// then poll GetInclusionProofByHash until it answers.
func rawInclusion(b *testing.B, c tpb.TrillianLogClient, tree int64, run string) func(context.Context, int) error {
	return func(ctx context.Context, i int) error {
		lf := logtest.Leaf("raw"+run, i)
		if _, err := c.QueueLeaf(ctx, &tpb.QueueLeafRequest{LogId: tree, Leaf: &tpb.LogLeaf{LeafValue: lf}}); err != nil {
			return err
		}
		h := tlog.RecordHash(lf)
		for {
			size := rootSize(b, c, tree)
			if size > 0 {
				if _, err := c.GetInclusionProofByHash(ctx, &tpb.GetInclusionProofByHashRequest{LogId: tree, LeafHash: h[:], TreeSize: int64(size)}); err == nil {
					return nil
				}
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}
