package tilelog

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"tirage.fr/tirage/transparency"
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
			x, err := openLeafIndex(filepath.Join(b.TempDir(), leafIndexDir))
			if err != nil {
				b.Fatal(err)
			}
			defer x.close()
			var next uint64
			batch := func() {
				entries := make([][]byte, indexBatch)
				for i := range entries {
					entries[i] = []byte(rand.Text())
				}
				if err := x.add(next, entries); err != nil {
					b.Fatal(err)
				}
				next += indexBatch
				if err := x.compact(b.Context()); err != nil {
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
			for _, r := range x.runs {
				fi, err := r.f.Stat()
				if err != nil {
					b.Fatal(err)
				}
				size += fi.Size()
			}
			b.ReportMetric(float64(size)/float64(next), "disk-B/leaf")
			b.ReportMetric(float64(len(x.runs)), "runs")
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

// A write that fails inside a run (the disk full once the run outgrows
// writeRun's buffer, here /dev/full under the run's temporary name) is
// ErrUnavailable, as one at the run's end is, and the temporary file goes.
// Before, it came back bare, no outage of the index: a batch of indexBatch
// leaves is 2.5 times the buffer (160 KiB).
func TestLeafIndexWriteFails(t *testing.T) {
	x, dir := newTestIndex(t)
	const n = 5000
	tmp := filepath.Join(dir, runName(0, n)+".tmp")
	if err := os.Symlink("/dev/full", tmp); err != nil {
		t.Fatal(err)
	}
	if err := x.add(0, testLeaves(0, n)); !errors.Is(err, transparency.ErrUnavailable) || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("add on a full disk: %v, want ErrUnavailable and ENOSPC", err)
	}
	if _, err := os.Lstat(tmp); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s after a failed add: %v, want removed", tmp, err)
	}
}
