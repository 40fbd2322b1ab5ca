package tilelog

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/transparency"
)

// The leaf hash index's runs are tested in internal/hashindex; these tests
// go through the Log.

// staleIndexLog is the config of a log of the leaves repl, closed, in a
// directory whose tree (tiles/, journal/) replaced that of a log of the
// leaves old, whose leaf index (leafhash/, caught up) was left beside it,
// with the same keys: an operator starting a new log in the directory.
func staleIndexLog(t *testing.T, old, repl []string) Config {
	t.Helper()
	cfg := Config{Dir: t.TempDir(), Origin: "example.com/stale", Signers: lagSigners(t)}
	o, _ := openAppended(t, cfg, old...)
	if err := o.catchUpIndex(t.Context(), uint64(len(old))); err != nil {
		t.Fatal(err)
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	other := cfg
	other.Dir = t.TempDir()
	n, _ := openAppended(t, other, repl...)
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"tiles", journalDir} {
		if err := os.RemoveAll(filepath.Join(cfg.Dir, p)); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(other.Dir, p), filepath.Join(cfg.Dir, p)); err != nil {
			t.Fatal(err)
		}
	}
	return cfg
}

// openLogged opens the log of cfg, closed when the test ends, with its
// logger writing to the file logPath (the log writes from its goroutines).
func openLogged(t *testing.T, cfg Config) (l *Log, logPath string) {
	t.Helper()
	logPath = filepath.Join(t.TempDir(), "log")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	cfg.Logger = slog.New(slog.NewTextHandler(f, nil))
	if l, err = Open(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l, logPath
}

// mismatchWarning is the start of the WARN line of an index found not to
// index the tree beside it.
const mismatchWarning = `level=WARN msg="transparency log leaf index: it does not index the tree beside it`

// checkFoundByHash checks that InclusionProofByHash finds each of leaves
// at its index in the latest tree (they are distinct), with a proof that
// checks against the checkpoint.
func checkFoundByHash(t *testing.T, l *Log, leaves []string) {
	t.Helper()
	cp, err := l.Checkpoint(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for i, leaf := range leaves {
		h := tlog.RecordHash([]byte(leaf))
		idx, p, err := l.InclusionProofByHash(t.Context(), h, cp.Size)
		if err != nil || idx != uint64(i) {
			t.Fatalf("InclusionProofByHash(%q) = %d, %v; want %d", leaf, idx, err, i)
		}
		if err := tlog.CheckRecord(p, int64(cp.Size), cp.Hash, int64(idx), h); err != nil {
			t.Fatalf("proof of %q at %d: %v", leaf, idx, err)
		}
	}
}

// A leaf index left beside a tree that replaced its own (a new log started
// in the directory) is found not to match it at the first catch-up,
// removed with a WARN naming its directory, and rebuilt: every leaf of the
// new tree is found, with a valid proof, and a leaf only the old tree held
// is not found (ErrNotFound, no security error). Before, the stale index,
// covering as many leaves as the tree or more, was never caught up: the
// new tree's leaves were not found, and a leaf of the old tree that the
// new one holds elsewhere was ErrSecurity.
func TestLeafIndexOfAnotherTree(t *testing.T) {
	old := []string{"old 0", "old 1", "old 2", "old 3", "old 4", "old 5"}
	for _, tc := range []struct {
		name string
		repl []string
	}{
		// More leaves indexed than the tree holds.
		{"shorter", []string{"old 2", "new 1", "new 2"}},
		// Leaf 0 as the old one's; the last not indexed.
		{"same size", []string{"old 0", "new 1", "old 1", "new 3", "new 4", "new 5"}},
		// The last indexed at an earlier leaf, which is another.
		{"same size, last indexed before", []string{"old 0", "new 1", "new 2", "new 3", "new 4", "old 1"}},
		// The last as the old one's; leaf 0 indexed at another index.
		{"same size, first indexed elsewhere", []string{"old 3", "new 1", "new 2", "new 3", "new 4", "old 5"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, logPath := openLogged(t, staleIndexLog(t, old, tc.repl))
			checkFoundByHash(t, l, tc.repl)
			if _, _, err := l.InclusionProofByHash(t.Context(), tlog.RecordHash([]byte("old 4")), uint64(len(tc.repl))); !errors.Is(err, transparency.ErrNotFound) || errors.Is(err, transparency.ErrSecurity) {
				t.Errorf("InclusionProofByHash of a leaf of the old tree only = %v, want ErrNotFound", err)
			}
			if err := l.Health(); err != nil {
				t.Errorf("Health = %v, want nil", err)
			}
			out := string(mustRead(t, logPath))
			if n := strings.Count(out, mismatchWarning); n != 1 || !strings.Contains(out, "dir="+filepath.Join(l.cfg.Dir, leafIndexDir)) {
				t.Errorf("log = %q, want one WARN of the mismatch naming the index's directory", out)
			}
		})
	}
}

// A tree that cannot be read while the index is checked (a disk error)
// fails the lookup (ErrUnavailable) and leaves the index as it is, even
// one that does not match: once the tree reads again, it is rebuilt.
func TestLeafIndexMatchReadFails(t *testing.T) {
	old := []string{"old 0", "old 1", "old 2"}
	repl := []string{"new 0", "new 1", "new 2"}
	cfg := staleIndexLog(t, old, repl)
	before := runFiles(t, filepath.Join(cfg.Dir, leafIndexDir))
	// The tree's one hash tile, unreadable from Open on (the background
	// catch-up may come first).
	tile := filepath.Join(cfg.Dir, "tiles", "tile", "0", "000.p", "3")
	moved := tile + ".moved"
	if err := os.Rename(tile, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(tile, 0o700); err != nil {
		t.Fatal(err)
	}
	l, logPath := openLogged(t, cfg)
	h := tlog.RecordHash([]byte("new 1"))
	if _, _, err := l.InclusionProofByHash(t.Context(), h, 3); !errors.Is(err, transparency.ErrUnavailable) || errors.Is(err, transparency.ErrSecurity) {
		t.Fatalf("InclusionProofByHash with the tree unreadable = %v, want ErrUnavailable", err)
	}
	checkSameFiles(t, "after a failed check", before, runFiles(t, filepath.Join(cfg.Dir, leafIndexDir)))
	if out := string(mustRead(t, logPath)); strings.Contains(out, mismatchWarning) {
		t.Errorf("log = %q, want no WARN of a mismatch yet", out)
	}
	if err := os.Remove(tile); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(moved, tile); err != nil {
		t.Fatal(err)
	}
	checkFoundByHash(t, l, repl)
	if out := string(mustRead(t, logPath)); strings.Count(out, mismatchWarning) != 1 {
		t.Errorf("log = %q, want one WARN of the mismatch", out)
	}
}

// An index that indexes the tree beside it is kept at Open, its runs as
// they were, even when the last leaf repeats an earlier one (indexed at
// the earlier index).
func TestLeafIndexMatchKept(t *testing.T) {
	cfg := Config{Dir: t.TempDir(), Origin: "example.com/kept", Signers: lagSigners(t)}
	leaves := []string{"a", "b", "c", "d", "b"}
	l, _ := openAppended(t, cfg, leaves...)
	if err := l.catchUpIndex(t.Context(), uint64(len(leaves))); err != nil {
		t.Fatal(err)
	}
	if err := l.index.Compact(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(cfg.Dir, leafIndexDir)
	before := runFiles(t, dir)
	l, logPath := openLogged(t, cfg)
	checkFoundByHash(t, l, leaves[:4])
	if idx, _, err := l.InclusionProofByHash(t.Context(), tlog.RecordHash([]byte("b")), 5); err != nil || idx != 1 {
		t.Errorf("InclusionProofByHash(b) = %d, %v; want 1", idx, err)
	}
	checkSameFiles(t, "after reopening", before, runFiles(t, dir))
	if out := string(mustRead(t, logPath)); strings.Contains(out, mismatchWarning) {
		t.Errorf("log = %q, want no WARN of a mismatch", out)
	}
}

// runFiles is the files in the index's directory dir, by name.
func runFiles(t *testing.T, dir string) []os.FileInfo {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var fis []os.FileInfo
	for _, de := range des {
		fi, err := os.Stat(filepath.Join(dir, de.Name()))
		if err != nil {
			t.Fatal(err)
		}
		fis = append(fis, fi)
	}
	return fis
}

// checkSameFiles checks that after are the files before (runFiles), kept:
// the same names, the same files.
func checkSameFiles(t *testing.T, when string, before, after []os.FileInfo) {
	t.Helper()
	if len(after) != len(before) {
		t.Fatalf("%d run files %s, %d before", len(after), when, len(before))
	}
	for i := range after {
		if after[i].Name() != before[i].Name() || !os.SameFile(after[i], before[i]) {
			t.Errorf("run file %s %s, %s before: want it kept", after[i].Name(), when, before[i].Name())
		}
	}
}
