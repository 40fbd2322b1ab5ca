package tilelog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/transparency-dev/tessera"

	"tirage.fr/tirage/transparency"
)

// leaveJournaled appends n leaves to a new log in cfg.Dir whose tessera
// stalls, and closes it: the leaves are acknowledged and journaled, none is
// integrated, and the next Open hands them all to tessera.
func leaveJournaled(t *testing.T, cfg Config, n int) [][]byte {
	t.Helper()
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	cfg.wrapAdd = func(tessera.AddFn) tessera.AddFn {
		return func(context.Context, *tessera.Entry) tessera.IndexFuture {
			return func() (tessera.Index, error) {
				<-release
				return tessera.Index{}, errors.New("tessera stalled")
			}
		}
	}
	cfg.closeTimeout = 100 * time.Millisecond
	l, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var leaves [][]byte
	for i := range n {
		leaf := fmt.Appendf(nil, "journaled %d", i)
		if idx, err := l.Append(context.Background(), leaf); err != nil || idx != uint64(i) {
			t.Fatalf("Append(%q) = %d, %v; want %d", leaf, idx, err, i)
		}
		leaves = append(leaves, leaf)
	}
	if err := l.Close(); !errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("Close with tessera stalled = %v, want ErrUnavailable", err)
	}
	return leaves
}

// swapAfter wraps tessera's Add so that it swaps the two leaves it is
// given after the first skip ones, as a timer flush overtaken by the next
// flush would (integrateLoop): tessera gives each the other's index. The
// first skip leaves wait for release, if not nil, before they resolve.
// Only integrateLoop adds: no lock.
func swapAfter(skip int, release <-chan struct{}) func(tessera.AddFn) tessera.AddFn {
	return func(add tessera.AddFn) tessera.AddFn {
		n := 0
		var held *tessera.Entry
		heldFuture := make(chan tessera.IndexFuture, 1)
		return func(ctx context.Context, e *tessera.Entry) tessera.IndexFuture {
			n++
			switch {
			case n <= skip && release != nil:
				f := add(ctx, e)
				return func() (tessera.Index, error) {
					<-release
					return f()
				}
			case n == skip+1:
				held = e
				return func() (tessera.Index, error) { return (<-heldFuture)() }
			case n == skip+2:
				f := add(ctx, e)
				heldFuture <- add(ctx, held)
				return f
			}
			return add(ctx, e)
		}
	}
}

// checkRefusedForSecurity checks that err is Open's refusal of a log
// whose securityFile exists, naming it, and no outage.
func checkRefusedForSecurity(t *testing.T, dir string, err error) {
	t.Helper()
	if !errors.Is(err, transparency.ErrSecurity) || errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("Open = %v, want ErrSecurity alone", err)
	}
	if path := filepath.Join(dir, securityFile); !strings.Contains(err.Error(), path) {
		t.Fatalf("Open = %v, want it to name %s", err, path)
	}
}

// At Open, the journal's tail goes to tessera one batch at a time, each
// confirmed before the next is added, as in steady state: with the whole
// tail in tessera at once, a flush could overtake another.
func TestRecoverOneBatchAtATime(t *testing.T) {
	const batch, journaled = 4, 10
	cfg := Config{Dir: t.TempDir(), Origin: "example.com/recover", Signers: lagSigners(t), BatchMaxSize: batch}
	leaves := leaveJournaled(t, cfg, journaled)

	var added, confirmed, most atomic.Int64
	cfg.wrapAdd = func(add tessera.AddFn) tessera.AddFn {
		return func(ctx context.Context, e *tessera.Entry) tessera.IndexFuture {
			if n := added.Add(1) - confirmed.Load(); n > most.Load() {
				most.Store(n)
			}
			f := add(ctx, e)
			return func() (tessera.Index, error) {
				idx, err := f()
				confirmed.Add(1)
				return idx, err
			}
		}
	}
	l, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if n := most.Load(); n > batch {
		t.Fatalf("Open had %d leaves in tessera at once, want at most a batch (%d)", n, batch)
	}
	if n := added.Load(); n != journaled {
		t.Fatalf("Open handed tessera %d leaves, want the %d journaled", n, journaled)
	}
	cp, err := l.AwaitCheckpoint(t.Context(), journaled)
	if err != nil {
		t.Fatal(err)
	}
	got, err := l.Entries(t.Context(), 0, journaled, cp.Size)
	if err != nil {
		t.Fatal(err)
	}
	for i := range leaves {
		if !bytes.Equal(got[i], leaves[i]) {
			t.Fatalf("leaf %d = %q, want %q", i, got[i], leaves[i])
		}
	}
}

// Tessera misplaces acknowledged leaves while Open hands it the journal's
// tail: Open fails with ErrSecurity, and so does every later Open, although
// tessera's tree size now covers the leaves: the failure is recorded in
// securityFile, and without it the journal records tessera holds are
// compared with its entry bundles.
func TestRecoverMisplacedLeafRefusesOpen(t *testing.T) {
	cfg := Config{Dir: t.TempDir(), Origin: "example.com/misplaced", Signers: lagSigners(t)}
	leaveJournaled(t, cfg, 3)

	swapped := cfg
	swapped.wrapAdd = swapAfter(0, nil)
	_, err := Open(context.Background(), swapped)
	if !errors.Is(err, transparency.ErrSecurity) || errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("Open with tessera misplacing leaves = %v, want ErrSecurity alone", err)
	}

	_, err = Open(context.Background(), cfg)
	checkRefusedForSecurity(t, cfg.Dir, err)

	// Without the file (an operator removed it, or a crash came before
	// it was written), the journal still holds the misplaced leaves.
	if err := os.Remove(filepath.Join(cfg.Dir, securityFile)); err != nil {
		t.Fatal(err)
	}
	_, err = Open(context.Background(), cfg)
	if !errors.Is(err, transparency.ErrSecurity) || !strings.Contains(err.Error(), "index 0") {
		t.Fatalf("Open of a tree contradicting the journal = %v, want ErrSecurity about index 0", err)
	}
	_, err = Open(context.Background(), cfg)
	checkRefusedForSecurity(t, cfg.Dir, err)
}

// Tessera misplaces acknowledged leaves in steady state: appends are
// refused with ErrSecurity, and the log does not open again.
func TestMisplacedLeafRefusesReopen(t *testing.T) {
	release := make(chan struct{})
	cfg := Config{Dir: t.TempDir(), Origin: "example.com/misplaced", Signers: lagSigners(t)}
	swapped := cfg
	var added atomic.Int64 // leaves integrateLoop handed to tessera
	swapped.wrapAdd = func(add tessera.AddFn) tessera.AddFn {
		swap := swapAfter(1, release)(add)
		return func(ctx context.Context, e *tessera.Entry) tessera.IndexFuture {
			added.Add(1)
			return swap(ctx, e)
		}
	}
	l, err := Open(context.Background(), swapped)
	if err != nil {
		close(release)
		t.Fatal(err)
	}
	// "second" and "third" are journaled while "first" is in tessera:
	// integrateLoop then adds them together. The journal answers an append
	// before it hands the leaf's group on to integrateLoop, so each step
	// is awaited: "first" added to tessera alone, then both later groups
	// queued before "first" is released (added alone, "second" would wait
	// for ever for "third", which swapAfter holds it for).
	for i, leaf := range []string{"first", "second", "third"} {
		if idx, err := l.Append(context.Background(), []byte(leaf)); err != nil || idx != uint64(i) {
			close(release)
			t.Fatalf("Append(%s) = %d, %v; want %d", leaf, idx, err, i)
		}
		if i == 0 {
			waitFor(t, func() bool { return added.Load() == 1 })
		}
	}
	waitFor(t, func() bool { return len(l.integrate) == 2 })
	close(release)
	waitFor(t, func() bool { return l.Health() != nil })
	if err := l.Health(); !errors.Is(err, transparency.ErrSecurity) || errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("Health after tessera misplaced leaves = %v, want ErrSecurity alone", err)
	}
	if _, err := l.Append(context.Background(), []byte("fourth")); !errors.Is(err, transparency.ErrSecurity) {
		t.Fatalf("Append after tessera misplaced leaves = %v, want ErrSecurity", err)
	}
	l.Close() // the pipeline failed: its error is expected

	_, err = Open(context.Background(), cfg)
	checkRefusedForSecurity(t, cfg.Dir, err)
}
