package tilelog_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

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

	// A directory where the index file should be: bbolt cannot open it,
	// even as root.
	index := filepath.Join(dir, "leafhash.db")
	if err := os.Remove(index); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(index, 0o700); err != nil {
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
