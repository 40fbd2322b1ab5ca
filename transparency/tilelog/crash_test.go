package tilelog_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/logtest"
	"tirage.fr/tirage/transparency/tilelog"
)

const (
	envCrashDir = "TIRAGE_TLOG_CRASH_DIR"
	// envCrashSegment, when set, is the journal's segment size in bytes.
	envCrashSegment = "TIRAGE_TLOG_CRASH_SEGMENT"
)

func crashOpener(dir string, segment int64, logger *slog.Logger) logtest.Opener {
	return func() (transparency.Log, error) {
		cfg := tilelog.Config{Dir: dir, Origin: origin, Signers: logtest.SeededSigners("tilelog crash"), Logger: logger}
		return tilelog.Open(context.Background(), tilelog.WithSegmentBytes(cfg, segment))
	}
}

// TestCrashChild appends until killed; it runs only as TestCrash's child.
func TestCrashChild(t *testing.T) {
	segment, _ := strconv.ParseInt(os.Getenv(envCrashSegment), 10, 64)
	logtest.CrashChild(t, crashOpener(os.Getenv(envCrashDir), segment, nil))
}

// TestCrash kills -9 a process appending to the embedded log under load.
func TestCrash(t *testing.T) {
	if os.Getenv(logtest.EnvCrashChild) != "" {
		t.Skip("in the child")
	}
	dir := t.TempDir()
	published := func() ([]byte, error) { return os.ReadFile(filepath.Join(dir, "tiles", "checkpoint")) }
	logtest.Crash(t, "TestCrashChild", []string{envCrashDir + "=" + dir}, crashOpener(dir, 0, nil), published,
		logtest.Ed25519VKey(t, origin, "tilelog crash"))
}

// TestCrashReusedSegments is TestCrash with journal segments of 24 KiB, so
// that the journal reuses its integrated segments all along: kills in a
// row on the same log until one lands in a segment written over an older
// one's groups (the reopening cuts them off, logged at INFO), each
// reopening checked.
func TestCrashReusedSegments(t *testing.T) {
	if os.Getenv(logtest.EnvCrashChild) != "" {
		t.Skip("in the child")
	}
	const segment = 24 << 10
	dir := t.TempDir()
	published := func() ([]byte, error) { return os.ReadFile(filepath.Join(dir, "tiles", "checkpoint")) }
	var logged logtest.Buffer // tessera's goroutines may log after Close
	logger := slog.New(slog.NewTextHandler(&logged, nil))
	for kills := 1; !strings.Contains(logged.String(), "older groups cut off"); kills++ {
		if kills > 8 {
			t.Fatalf("no kill in eight landed in a reused segment; the reopenings logged:\n%s", logged.String())
		}
		logtest.Crash(t, "TestCrashChild", []string{envCrashDir + "=" + dir, envCrashSegment + "=" + strconv.Itoa(segment)},
			crashOpener(dir, segment, logger), published, logtest.Ed25519VKey(t, origin, "tilelog crash"))
	}
}
