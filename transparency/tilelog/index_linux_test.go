package tilelog

import (
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"
)

// BenchmarkLeafIndex is the leaf hash index's cost as the log grows: on an
// index already holding leaves=N random leaves, each op is a second's
// catch-up of indexBatch leaves (a run written, then merged as compact
// does). cpu-us/leaf is the process's CPU time (user and system, of every
// thread) per leaf over the ops, disk-B/leaf the runs' size per leaf
// indexed, runs how many there are at the end. scripts/bench.d/transparency.sh
// puts it in docs/bench/transparency.md.
func BenchmarkLeafIndex(b *testing.B) {
	for _, n := range []int{0, 1 << 20, 1 << 22} {
		b.Run(fmt.Sprintf("leaves=%d", n), func(b *testing.B) {
			dir := filepath.Join(b.TempDir(), leafIndexDir)
			x, err := openLeafIndex(dir)
			if err != nil {
				b.Fatal(err)
			}
			defer x.Close()
			var next uint64
			batch := func() {
				hashes := make([]tlog.Hash, indexBatch)
				for i := range hashes {
					hashes[i] = tlog.RecordHash([]byte(rand.Text()))
				}
				if err := x.add(next, hashes); err != nil {
					b.Fatal(err)
				}
				next += indexBatch
				if err := x.Compact(b.Context()); err != nil {
					b.Fatal(err)
				}
			}
			for next < uint64(n) {
				batch()
			}
			cpu0 := processCPU(b)
			b.ResetTimer()
			for b.Loop() {
				batch()
			}
			b.StopTimer()
			leaves := float64(b.N * indexBatch)
			b.ReportMetric(float64((processCPU(b)-cpu0).Microseconds())/leaves, "cpu-us/leaf")
			var size int64
			des, err := os.ReadDir(dir)
			if err != nil {
				b.Fatal(err)
			}
			for _, de := range des {
				fi, err := de.Info()
				if err != nil {
					b.Fatal(err)
				}
				size += fi.Size()
			}
			b.ReportMetric(float64(size)/float64(next), "disk-B/leaf")
			b.ReportMetric(float64(x.Count()), "runs")
		})
	}
}

// processCPU is the process's CPU time so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
