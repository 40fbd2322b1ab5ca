package rngd

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A full disk under the embedded log's leaf hash index (log/leafhash/
// alone on a small file system, as walked on 2026-12-04): draws go on (the
// index is not on their path) and readiness stays SERVING, but
// tirage_log_leaf_index_failing says so (before: a WARN line a second and
// no series an operator could alert on), until the index catches up by
// itself once space is back.
func TestLeafIndexDiskFullGauge(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounts a small tmpfs under log/leafhash/ to fill it: needs root")
	}
	small := filepath.Join(t.TempDir(), "small")
	if err := os.Mkdir(small, 0o700); err != nil {
		t.Fatal(err)
	}
	smallFS(t, small, "1m")
	td := newTestDaemon(t, func(c *Config) {
		if err := os.MkdirAll(filepath.Join(c.DataDir, "log"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(filepath.Join(small, "leafhash"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(small, "leafhash"), filepath.Join(c.DataDir, "log", "leafhash")); err != nil {
			t.Fatal(err)
		}
	})
	codes := td.emission("IX", "2026-12-31", 40)
	a := td.client("server-a")
	gauge := func() float64 {
		v, ok := gaugeValue(t, td, "tirage_log_leaf_index_failing")
		if !ok {
			t.Fatal("tirage_log_leaf_index_failing is not registered")
		}
		return v
	}
	waitFor := func(want float64) {
		t.Helper()
		for deadline := time.Now().Add(15 * time.Second); gauge() != want; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("tirage_log_leaf_index_failing = %v still after 15 s, want %v", gauge(), want)
			}
		}
	}
	waitFor(0)

	// Fill the index's file system, then draw: every start is taken.
	filler := fillUp(t, small)
	for _, c := range codes[:30] {
		start(t, a, c)
	}
	waitFor(1)
	wantReady(t, td, true, "")
	start(t, a, codes[30])

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	waitFor(0)
}

// smallFS mounts a tmpfs of size over dir until the test ends; the test is
// skipped where it cannot (not root, no mount rights).
func smallFS(t *testing.T, dir, size string) {
	t.Helper()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("mount a tmpfs at %s: %v (needs mount rights)", dir, err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
}

// fillUp fills dir's file system with a file, whose removal frees it.
func fillUp(t *testing.T, dir string) (filler string) {
	t.Helper()
	filler = filepath.Join(dir, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for buf := make([]byte, 4096); ; {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			return filler
		}
	}
}
