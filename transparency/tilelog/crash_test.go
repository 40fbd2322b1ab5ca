package tilelog_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/logtest"
	"tirage.fr/tirage/transparency/tilelog"
)

const envCrashDir = "TIRAGE_TLOG_CRASH_DIR"

func crashOpener(dir string) logtest.Opener {
	return func() (transparency.Log, error) {
		return tilelog.Open(context.Background(), tilelog.Config{Dir: dir, Origin: origin, Signers: logtest.SeededSigners("tilelog crash")})
	}
}

// TestCrashChild appends until killed; it runs only as TestCrash's child.
func TestCrashChild(t *testing.T) { logtest.CrashChild(t, crashOpener(os.Getenv(envCrashDir))) }

// TestCrash kills -9 a process appending to the embedded log under load.
func TestCrash(t *testing.T) {
	if os.Getenv(logtest.EnvCrashChild) != "" {
		t.Skip("in the child")
	}
	dir := t.TempDir()
	published := func() ([]byte, error) { return os.ReadFile(filepath.Join(dir, "tiles", "checkpoint")) }
	logtest.Crash(t, "TestCrashChild", []string{envCrashDir + "=" + dir}, crashOpener(dir), published,
		logtest.Ed25519VKey(t, origin, "tilelog crash"))
}
