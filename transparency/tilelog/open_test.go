package tilelog_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/tilelog"
)

// logGoroutines returns the stacks of the goroutines running the log's or
// tessera's code.
func logGoroutines() []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var out []string
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		if strings.Contains(g, "tirage/transparency/tilelog.") || strings.Contains(g, "transparency-dev/tessera") {
			out = append(out, g)
		}
	}
	return out
}

// awaitNoLogGoroutines fails the test unless the log's and tessera's
// goroutines are gone within a few seconds.
func awaitNoLogGoroutines(t *testing.T, when string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		gs := logGoroutines()
		if len(gs) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d goroutines left running:\n\n%s", when, len(gs), strings.Join(gs, "\n\n"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// openFilesUnder returns the files under dir this process holds open
// (Linux; nil elsewhere).
func openFilesUnder(t *testing.T, dir string) []string {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil
	}
	var out []string
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && strings.HasPrefix(target, dir+string(filepath.Separator)) {
			out = append(out, target)
		}
	}
	return out
}

// When the leaf index cannot be opened, Open fails saying so and leaves
// nothing running or open: the log opens once the index is repaired, with
// its leaves.
func TestOpenLeafIndexFailure(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg := tilelog.Config{Dir: dir, Origin: origin, Signers: testSigners(t)}
	l, err := tilelog.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(t.Context(), []byte("first")); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	awaitNoLogGoroutines(t, "after Close")

	// A file where the index's directory should be: it cannot be opened,
	// even as root.
	index := filepath.Join(dir, "leafhash")
	if err := os.RemoveAll(index); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(index, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = tilelog.Open(context.Background(), cfg)
	if !errors.Is(err, transparency.ErrUnavailable) || !strings.Contains(err.Error(), "leaf index") {
		t.Fatalf("Open with a directory for the leaf index = %v, want ErrUnavailable about the leaf index", err)
	}
	awaitNoLogGoroutines(t, "after the failed Open")
	if open := openFilesUnder(t, dir); len(open) > 0 {
		t.Fatalf("after the failed Open, files left open: %v", open)
	}

	if err := os.Remove(index); err != nil {
		t.Fatal(err)
	}
	l, err = tilelog.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if idx, err := l.Append(t.Context(), []byte("second")); err != nil || idx != 1 {
		t.Fatalf("Append after reopening = %d, %v; want 1", idx, err)
	}
	cp, err := l.AwaitCheckpoint(t.Context(), 2)
	if err != nil {
		t.Fatal(err)
	}
	got, err := l.Entries(t.Context(), 0, 2, cp.Size)
	if err != nil || string(got[0]) != "first" || string(got[1]) != "second" {
		t.Fatalf("Entries = %q, %v; want first, second", got, err)
	}
}

// The leaf index of an older version (leafhash.db, a bbolt file) is removed
// at Open and the index built again from the tree: the leaves logged
// before are found by hash.
func TestOpenRemovesOldLeafIndex(t *testing.T) {
	dir := t.TempDir()
	cfg := tilelog.Config{Dir: dir, Origin: origin, Signers: testSigners(t)}
	l, err := tilelog.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	appendLeaves(t, l, 0, 3)
	if _, err := l.AwaitCheckpoint(t.Context(), 3); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(dir, "leafhash.db")
	if err := os.RemoveAll(filepath.Join(dir, "leafhash")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(old, []byte("an older version's bbolt file"), 0o600); err != nil {
		t.Fatal(err)
	}
	if l, err = tilelog.Open(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := os.Stat(old); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s after Open: %v, want removed", old, err)
	}
	for i := range 3 {
		idx, _, err := l.InclusionProofByHash(t.Context(), tlog.RecordHash(fmt.Appendf(nil, "leaf %d", i)), 3)
		if err != nil || idx != uint64(i) {
			t.Errorf("InclusionProofByHash(leaf %d) = %d, %v", i, idx, err)
		}
	}
}
