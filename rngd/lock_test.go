package rngd

import (
	"sync"
	"testing"
	"time"
)

// A key's lock excludes the other callers of that key only; once nobody
// holds or waits for a key it leaves the map, and its lock is reused, up
// to maxFreeLocks.
func TestKeyLocks(t *testing.T) {
	var l keyLocks[string]
	a := l.lock("a")
	got := make(chan string, 2)
	go func() {
		h := l.lock("a") // waits for a
		got <- "a"
		h.unlock()
	}()
	go func() {
		h := l.lock("b") // another key: at once
		got <- "b"
		h.unlock()
	}()
	select {
	case k := <-got:
		if k != "b" {
			t.Fatalf("%q locked while a was held", k)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("b waited for a")
	}
	select {
	case k := <-got:
		t.Fatalf("%q locked while a was held", k)
	case <-time.After(50 * time.Millisecond):
	}
	a.unlock()
	if k := <-got; k != "a" {
		t.Fatalf("got %q, want a", k)
	}

	// Many callers of few keys: each key held by one at a time.
	var wg sync.WaitGroup
	var mu sync.Mutex
	holding := map[string]int{}
	for i := range 64 {
		key := string(rune('a' + i%4))
		wg.Go(func() {
			for range 100 {
				h := l.lock(key)
				mu.Lock()
				holding[key]++
				n := holding[key]
				mu.Unlock()
				if n != 1 {
					t.Errorf("key %q held by %d", key, n)
				}
				mu.Lock()
				holding[key]--
				mu.Unlock()
				h.unlock()
			}
		})
	}
	wg.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.m) != 0 {
		t.Errorf("%d keys left in the map, want 0", len(l.m))
	}
	if len(l.free) == 0 || len(l.free) > 64 {
		t.Errorf("%d locks kept for reuse, want 1..64 (one a caller at most)", len(l.free))
	}
}

// Locking and unlocking a key allocates nothing once a lock is kept for
// reuse and the map has room.
func TestKeyLocksAllocs(t *testing.T) {
	var l keyLocks[[32]byte]
	var key [32]byte
	l.lock(key).unlock()
	if n := testing.AllocsPerRun(200, func() {
		key[0]++
		h := l.lock(key)
		h.unlock()
	}); n != 0 {
		t.Errorf("%v allocations a lock and unlock, want 0", n)
	}
}
