package hashindex

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"testing"
	"time"
)

// With Options.Filter every run has a filter — those written and merged at
// once, those found at Open once read in the background — and lookups find
// every hash held, as without: a filter never hides one. Of hashes not
// held, at most a few percent pass a run's filter (10 bits an entry, 7
// probes: about 1 % expected; the bound, 3 %, is passed with probability
// far below 1e-9 for 20,000 hashes, which are fixed).
func TestFilter(t *testing.T) {
	x, dir := newTestIndex(t, Options{Filter: true})
	const n = 20_000
	for first := 0; first < n; first += 2_500 {
		add(t, x, uint64(first), testEntries(first, 2_500))
		if err := x.Compact(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	check := func(x *Index) {
		t.Helper()
		for i := range n {
			if v, ok, err := x.Lookup(hashOf(uint64(i))); err != nil || !ok || v != uint64(i) {
				t.Fatalf("entry %d: %d %v %v", i, v, ok, err)
			}
		}
		passed := 0
		for i := range n {
			h := sha256.Sum256(binary.BigEndian.AppendUint64([]byte("absent"), uint64(i)))
			for _, r := range x.runs {
				if f := r.filter.Load(); f == nil {
					t.Fatalf("run %s has no filter", r.path)
				} else if f.has(&h) {
					passed++
				}
			}
			if _, ok, err := x.Lookup(h); ok || err != nil {
				t.Fatalf("absent hash %d found: %v %v", i, ok, err)
			}
		}
		if rate := float64(passed) / float64(n*len(x.runs)); rate > 0.03 {
			t.Errorf("%.1f %% of absent hashes pass a run's filter, want about 1 %%", 100*rate)
		}
	}
	check(x)
	x.Close()
	x, err := Open(dir, testOptions(Options{Filter: true}))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	for i := range n { // before and while the filters are built
		if v, ok, err := x.Lookup(hashOf(uint64(i))); err != nil || !ok || v != uint64(i) {
			t.Fatalf("entry %d after Open: %d %v %v", i, v, ok, err)
		}
	}
	select {
	case <-x.built:
	case <-time.After(10 * time.Second):
		t.Fatal("the filters of the runs found at Open not built in 10 s")
	}
	check(x)
}

// Close stops the building of filters at Open and waits for it.
func TestFilterClose(t *testing.T) {
	x, dir := newTestIndex(t, Options{})
	add(t, x, 0, testEntries(0, 50_000))
	x.Close()
	x, err := Open(dir, testOptions(Options{Filter: true}))
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-x.built:
	default:
		t.Fatal("Close returned with the filters still being built")
	}
}

// buildFilters stops when its context is done (Close cancels it): a run it
// has not read by then keeps no filter, and its lookups read its blocks.
// Run with a context already done, it gives no run a filter; run to its
// end, every run.
func TestFilterBuildStops(t *testing.T) {
	x, dir := newTestIndex(t, Options{})
	add(t, x, 0, testEntries(0, 10_000))
	add(t, x, 10_000, testEntries(10_000, 10_000))
	x.Close()
	x, err := Open(dir, testOptions(Options{}))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if len(x.runs) != 2 {
		t.Fatalf("%d runs, want 2", len(x.runs))
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	x.built = make(chan struct{})
	x.buildFilters(ctx, x.runs)
	for _, r := range x.runs {
		if r.filter.Load() != nil {
			t.Fatalf("run %s got a filter from a build stopped before it began", r.path)
		}
	}
	for i := range 20_000 {
		if v, ok, err := x.Lookup(hashOf(uint64(i))); err != nil || !ok || v != uint64(i) {
			t.Fatalf("entry %d without filters: %d %v %v", i, v, ok, err)
		}
	}
	x.built = make(chan struct{})
	x.buildFilters(t.Context(), x.runs)
	for _, r := range x.runs {
		if r.filter.Load() == nil {
			t.Fatalf("run %s has no filter after a whole build", r.path)
		}
	}
}
