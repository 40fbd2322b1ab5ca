package cli

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/receipt/receipttest"
)

// collectGarbage deletes, under the tile directory dir, every partial tile
// and bundle directory (<N>.p/) whose full tile or bundle exists, as
// tessera's POSIX storage does every minute (c2sp.org/tlog-tiles lets a
// log do so).
func collectGarbage(t *testing.T, dir string) {
	t.Helper()
	var partials []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && strings.HasSuffix(p, ".p") {
			partials = append(partials, p)
			return fs.SkipDir
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range partials {
		if _, err := os.Stat(strings.TrimSuffix(p, ".p")); err == nil {
			if err := os.RemoveAll(p); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestAuditDirCollectedPartialTiles: rngverify audit --dir on a live
// tessera directory whose log crossed a 256-entry boundary after the
// checkpoint it audits was read: the partial tile and bundle that
// checkpoint names are gone, the full ones are read instead (the
// consistency proof from the trusted state too), and the honest log
// passes. With the full tile gone as well, the audit stops, naming the
// partial tile.
func TestAuditDirCollectedPartialTiles(t *testing.T) {
	dir := t.TempDir()
	a := newAppliance(t, 31)
	games := 0
	grow := func(size int64) {
		for ; a.Size() < size; games++ {
			playGame(t, a, receipttest.Play{Game: fmt.Sprintf("g-%03d", games), StopAt: games % 4})
		}
	}
	grow(40)
	tiles, _, audit := auditCLI(t, dir, a)
	if code, out, errs := audit("state.json"); code != ExitOK {
		t.Fatalf("first audit: exit %d\n%s%s", code, out, errs)
	}
	trusted := a.Size()
	grow(300)
	old := a.Size()
	writeTiles(t, tiles, a)
	grow((old/256 + 1) * 256)
	writeTiles(t, tiles, a)
	collectGarbage(t, tiles)
	write(t, tiles, "checkpoint", a.CheckpointAt(old))
	partial := filepath.Join(tiles, "tile", "0", fmt.Sprintf("%03d.p", old/256), fmt.Sprint(old%256))
	if _, err := os.Stat(partial); err == nil || old%256 == 0 {
		t.Fatalf("%s not collected (log of %d entries)", partial, old)
	}

	code, out, errs := audit("state.json")
	if code != ExitOK || !strings.Contains(out, fmt.Sprintf("log consistency — size %d extends the trusted size %d", old, trusted)) ||
		!strings.Contains(out, fmt.Sprintf("log entries — %d entries match the signed tree", old)) {
		t.Fatalf("partial tiles collected: exit %d\n%s%s", code, out, errs)
	}

	if err := os.Remove(strings.TrimSuffix(filepath.Dir(partial), ".p")); err != nil {
		t.Fatal(err)
	}
	code, out, errs = audit("state.json")
	if code != ExitFail || !strings.Contains(errs, "NOT VERIFIED, check entries: audit stopped after 0 of "+fmt.Sprint(old)+
		" entries: couldn't read the hash tiles of entries 0..255: open "+partial+": no such file or directory") {
		t.Fatalf("full tile gone too: exit %d\n%s%s", code, out, errs)
	}
}
