package tilelog_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/transparency-dev/tessera/api/layout"

	"tirage.fr/tirage/transparency/logtest"
	"tirage.fr/tirage/transparency/tilelog"
)

// Appended faster than tessera's default garbage collection (a minute,
// at most 101 bundles a run: 430 leaves/s) keeps up with, partial tiles
// and bundles that a published checkpoint made obsolete must still be
// removed, well within seconds: otherwise they pile up without bound (a
// disk, and its inodes, filled by a busy log).
func TestPartialsCollected(t *testing.T) {
	dir := t.TempDir()
	// Batches of 100 leaves end inside entry bundles: tessera writes a
	// partial bundle and partial tiles for most of its batches.
	l, err := tilelog.Open(context.Background(), tilelog.Config{Dir: dir, Origin: origin, Signers: testSigners(t), BatchMaxSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx := t.Context()
	tiles := filepath.Join(dir, "tiles")
	// Partials seen while appending: proof that the load wrote some.
	seen, done := make(chan int), make(chan struct{})
	go func() {
		most := 0
		for {
			select {
			case <-done:
				seen <- most
				return
			case <-time.After(20 * time.Millisecond):
			}
			if all, _, err := logtest.Partials(tiles, 0); err == nil {
				most = max(most, len(all))
			}
		}
	}()
	const n = 150 * layout.EntryBundleWidth // more than one collector run frees
	el, _, err := logtest.Load(ctx, 64, n, logtest.AppendOp(l, "gc"))
	close(done)
	most := <-seen
	if err != nil {
		t.Fatal(err)
	}
	if most == 0 {
		t.Fatal("the load wrote no partial tiles or bundles: the test would prove nothing")
	}
	cp, err := l.AwaitCheckpoint(ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d leaves appended in %v (%.0f/s), up to %d partials seen meanwhile; checkpoint of %d published", n, el.Round(time.Millisecond), n/el.Seconds(), most, cp.Size)
	start := time.Now()
	first := -1
	for {
		_, left, err := logtest.Partials(tiles, cp.Size)
		if err != nil {
			t.Fatal(err)
		}
		if first < 0 {
			first = len(left)
		}
		if len(left) == 0 {
			t.Logf("obsolete partials: %d at the checkpoint, none after %v", first, time.Since(start).Round(time.Millisecond))
			return
		}
		if time.Since(start) > 30*time.Second {
			t.Fatalf("%d obsolete partial tiles and bundles below the published size %d still on disk 30 s later (%d at the checkpoint), e.g. %s", len(left), cp.Size, first, left[0])
		}
		time.Sleep(50 * time.Millisecond)
	}
}
