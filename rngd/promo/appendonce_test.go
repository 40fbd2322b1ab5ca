package promo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/tilelog"
)

// faultLog is the real embedded log (a transparency.Sequencer, through the
// embedded *tilelog.Log) with injected faults: appends refused outright
// (failAppends), lookups by hash that fail with lookupErr, and an append
// whose caller runs out of time (cancelOnAppend is called before the leaf
// is handed to the log, as a deadline expiring while the append waits for
// its acknowledgement: the leaf is queued all the same).
type faultLog struct {
	*tilelog.Log
	mu             sync.Mutex
	failAppends    bool
	lookupErr      error
	cancelOnAppend context.CancelFunc
}

func (f *faultLog) Append(ctx context.Context, leaf []byte) (uint64, error) {
	f.mu.Lock()
	fail, cancel := f.failAppends, f.cancelOnAppend
	f.cancelOnAppend = nil
	f.mu.Unlock()
	if fail {
		return 0, fmt.Errorf("injected: %w", transparency.ErrUnavailable)
	}
	if cancel != nil {
		cancel()
	}
	return f.Log.Append(ctx, leaf)
}

func (f *faultLog) InclusionProofByHash(ctx context.Context, h tlog.Hash, treeSize uint64) (uint64, tlog.RecordProof, error) {
	f.mu.Lock()
	err := f.lookupErr
	f.mu.Unlock()
	if err != nil {
		return 0, nil, err
	}
	return f.Log.InclusionProofByHash(ctx, h, treeSize)
}

func (f *faultLog) set(fn func(*faultLog)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

// openFaultAppliance opens the real log with a one-second checkpoint
// interval (a retry within it finds the record in no published checkpoint)
// and an Appliance on it through a faultLog.
func openFaultAppliance(t *testing.T) (*Appliance, *faultLog, *clock) {
	t.Helper()
	tmp := t.TempDir()
	c := &clock{t: time.Date(2016, 6, 20, 16, 0, 0, 0, time.UTC)}
	a0, lg, err := OpenOffline(context.Background(), OfflineConfig{
		DataDir: filepath.Join(tmp, "data"), Origin: "tirage.test/promo", Keys: testKeys(t, filepath.Join(tmp, "keys")),
		VRFLabel: "vrf", LogLabel: "log", Entropy: testEntropy(t), Clock: c.now, CheckpointInterval: time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lg.Close() })
	f := &faultLog{Log: lg.(*tilelog.Log)}
	cfg := a0.cfg
	cfg.Log = f
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a, f, c
}

// copiesIn returns the indices of leaf in the log, once a checkpoint covers
// every leaf the log has sequenced.
func copiesIn(t *testing.T, lg *tilelog.Log, leaf []byte) []uint64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cp, err := lg.AwaitCheckpoint(ctx, lg.Sequenced())
	if err != nil {
		t.Fatal(err)
	}
	var at []uint64
	for start := uint64(0); start < cp.Size; {
		es, err := lg.Entries(ctx, start, min(start+transparency.MaxEntries, cp.Size), cp.Size)
		if err != nil {
			t.Fatal(err)
		}
		for j, e := range es {
			if bytes.Equal(e, leaf) {
				at = append(at, start+uint64(j))
			}
		}
		start += uint64(len(es))
	}
	return at
}

// A ceremony whose append ran out of time while the log still had the
// record queued is re-run with the same share in the same process: the log
// ends up with one promo_draw record, not two (the auditor would report the
// second as a draw without a freeze, the appliance's misbehaviour).
func TestDrawResentAfterAbandonedAppendLoggedOnce(t *testing.T) {
	ctx := context.Background()
	r, rulesFile := exampleRules(t)
	a, f, c := openFaultAppliance(t)
	if _, err := a.Freeze(ctx, FreezeRequest{Rules: r, RulesFile: rulesFile, DrawIndex: 0, Entrants: []string{"A1", "A2", "A3", "A4", "A5", "A6"}}); err != nil {
		t.Fatal(err)
	}
	c.t = c.t.Add(24 * time.Hour)
	req := DrawRequest{Draw: "bonus-crescendo/1", Share: "text:first share"}

	dctx, cancel := context.WithCancel(ctx)
	defer cancel()
	f.set(func(f *faultLog) { f.cancelOnAppend = cancel })
	_, err := a.Draw(dctx, req)
	switch {
	case err == nil:
		t.Log("the append was acknowledged before its context was seen cancelled")
	case !errors.Is(err, context.Canceled):
		t.Fatalf("draw whose append ran out of time: %v", err)
	}
	d, err2 := a.Draw(ctx, req)
	switch {
	case err == nil && !errors.Is(err2, ErrDrawn):
		t.Fatalf("second draw after a published one: %v, want ErrDrawn", err2)
	case err != nil && err2 != nil:
		t.Fatalf("re-send of the draw: %v", err2)
	}
	leaf, rerr := os.ReadFile(filepath.Join(a.cfg.Dir, "bonus-crescendo", "1", "draw.leaf"))
	if rerr != nil {
		t.Fatal(rerr)
	}
	at := copiesIn(t, f.Log, leaf)
	if len(at) != 1 {
		t.Fatalf("the promo_draw record is in the log %d times (at %v), want once", len(at), at)
	}
	if d != nil && d.Index != at[0] {
		t.Fatalf("re-send returned index %d, the record is at %d", d.Index, at[0])
	}
	if _, err := a.Certify(ctx, req.Draw); err != nil {
		t.Fatal(err)
	}
}

// A freeze whose append failed is re-sent by the next freeze; in the
// meantime an earlier run's append of that record, given up with its
// context cancelled, was journaled by the log but is in no checkpoint yet.
// The re-send finds it instead of appending it a second time.
func TestFreezeResentAfterTimedOutAppendLoggedOnce(t *testing.T) {
	ctx := context.Background()
	r, rulesFile := exampleRules(t)
	a, f, _ := openFaultAppliance(t)
	req := FreezeRequest{Rules: r, RulesFile: rulesFile, DrawIndex: 0, Entrants: []string{"A1", "A2", "A3"}}
	f.set(func(f *faultLog) { f.failAppends = true })
	if _, err := a.Freeze(ctx, req); !errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("freeze on a failing log: %v", err)
	}
	f.set(func(f *faultLog) { f.failAppends = false })
	leaf, err := os.ReadFile(filepath.Join(a.cfg.Dir, "bonus-crescendo", "1", "freeze.leaf"))
	if err != nil {
		t.Fatal(err)
	}

	before := f.Sequenced()
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := f.Log.Append(cctx, leaf); err == nil {
		t.Log("the append was acknowledged before its context was seen cancelled")
	}
	// The log journals the queued leaf (as Close does before an operator's
	// next run); no checkpoint covers it yet.
	for deadline := time.Now().Add(10 * time.Second); f.Sequenced() == before; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the log did not sequence the queued leaf")
		}
	}

	fz, err := a.Freeze(ctx, req)
	if err != nil {
		t.Fatalf("re-send of the freeze: %v", err)
	}
	at := copiesIn(t, f.Log, leaf)
	if len(at) != 1 {
		t.Fatalf("the promo_freeze record is in the log %d times (at %v), want once", len(at), at)
	}
	if fz.Index != at[0] {
		t.Fatalf("re-send returned index %d, the record is at %d", fz.Index, at[0])
	}
}

// A lookup that fails for any reason but "not found" refuses the append:
// the record may be in the log, and appending it again would duplicate it.
func TestLookupErrorIsNotAbsence(t *testing.T) {
	ctx := context.Background()
	r, rulesFile := exampleRules(t)
	a, f, _ := openFaultAppliance(t)
	req := FreezeRequest{Rules: r, RulesFile: rulesFile, DrawIndex: 0, Entrants: []string{"A1", "A2", "A3"}}
	appends := f.Stats().Appends
	for _, injected := range []error{
		fmt.Errorf("injected: %w: disk", transparency.ErrUnavailable),
		fmt.Errorf("injected: %w: tile does not authenticate", transparency.ErrSecurity),
		fmt.Errorf("injected: %w", context.DeadlineExceeded),
		// A security error that also wraps "not found" is a security error.
		fmt.Errorf("injected: %w: %w", transparency.ErrSecurity, transparency.ErrNotFound),
	} {
		f.set(func(f *faultLog) { f.lookupErr = injected })
		_, err := a.Freeze(ctx, req)
		if err == nil || !errors.Is(err, injected) {
			t.Fatalf("freeze whose lookup failed with %q: %v", injected, err)
		}
		if n := f.Stats().Appends; n != appends {
			t.Fatalf("lookup failed with %q, yet %d appends were made", injected, n-appends)
		}
	}
	f.set(func(f *faultLog) { f.lookupErr = nil })
	fz, err := a.Freeze(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if at := copiesIn(t, f.Log, fz.Leaf); len(at) != 1 || at[0] != fz.Index {
		t.Fatalf("the freeze is at %v, returned index %d", at, fz.Index)
	}
}
