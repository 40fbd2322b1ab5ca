package rngd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// A full disk under the state store's request index (requests-<id>/ a link
// to a small file system): the flush fails, is reported (onErr: the alarm
// and an ERROR line) and retried once a second, the replies it could not
// write stay in memory and are found, and once space is back the flush
// succeeds by itself.
func TestRequestIndexDiskFull(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("links requests-<id>/ to a small tmpfs it mounts, to fill it: needs root")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "state.db")
	st, err := openStore(path)
	if err != nil {
		t.Fatal(err)
	}
	st.close()
	index, _ := filepath.Glob(filepath.Join(dir, requestIndexPrefix+"*"))
	if len(index) != 1 {
		t.Fatalf("request indexes: %v", index)
	}
	// The index's directory a link to one on a small file system (the
	// store renames the index at every open).
	small := filepath.Join(t.TempDir(), "small")
	if err := os.Mkdir(small, 0o700); err != nil {
		t.Fatal(err)
	}
	smallFS(t, small, "4m")
	if err := os.Remove(index[0]); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(small, index[0]); err != nil {
		t.Fatal(err)
	}
	if st, err = openStore(path); err != nil {
		t.Fatal(err)
	}
	defer st.close()
	var failures atomic.Int32
	onErr := func(err error) {
		if !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("flush failed with %v, want ENOSPC", err)
		}
		failures.Add(1)
	}
	st.reqs.onErr.Store(&onErr)
	filler := fillUp(t, small)
	t0 := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	const n = 2 * requestFlush
	putRequests(t, st, "a-", 0, n, t0)
	for deadline := time.Now().Add(10 * time.Second); failures.Load() < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d failed flushes reported in 10 s, want a retry", failures.Load())
		}
	}
	wantReplies(t, st, "a-", 0, n, func(i int) string { return fmt.Sprint("a-", i) })
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); recentCount(st) >= requestFlush; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d replies still in memory 10 s after space came back", recentCount(st))
		}
	}
	if st.reqs.x.Count() == 0 {
		t.Error("no run written once space came back")
	}
	wantReplies(t, st, "a-", 0, n, func(i int) string { return fmt.Sprint("a-", i) })
}
