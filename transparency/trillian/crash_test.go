package trillian_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/logtest"
	"tirage.fr/tirage/transparency/trillian"
)

const (
	envCrashTree  = "TIRAGE_TLOG_CRASH_TREE"
	envCrashState = "TIRAGE_TLOG_CRASH_STATE"
	crashOrigin   = "tirage.fr/log/trillian-crash"
)

// crashOpener opens the log on tree, with Config.StateFile state (none if
// empty).
func crashOpener(t *testing.T, tree int64, state string) logtest.Opener {
	conn := dial(t)
	return func() (transparency.Log, error) {
		return trillian.Open(context.Background(), trillian.Config{Conn: conn, TreeID: tree, Origin: crashOrigin, Signers: logtest.SeededSigners("trillian crash"), StateFile: state})
	}
}

// TestCrashChild appends until killed; it runs only as TestCrash's child.
func TestCrashChild(t *testing.T) {
	if os.Getenv(logtest.EnvCrashChild) == "" {
		t.Skip("helper process of TestCrash")
	}
	tree, _ := strconv.ParseInt(os.Getenv(envCrashTree), 10, 64)
	logtest.CrashChild(t, crashOpener(t, tree, os.Getenv(envCrashState)))
}

// TestCrash kills -9 an appliance appending to Trillian under load, with
// its state file as rngd runs it; a second appliance (a replica sharing the
// tree) publishes the checkpoints an auditor sees meanwhile. The leaves the
// kill left in the pending file — those of the appends in flight, written
// before their QueueLeaf — are all in the log once the appliance is
// reopened.
func TestCrash(t *testing.T) {
	if os.Getenv(logtest.EnvCrashChild) != "" {
		t.Skip("in the child")
	}
	conn := dial(t)
	tree := newTree(t, conn)
	state := filepath.Join(t.TempDir(), "trillian-checkpoint")
	open := crashOpener(t, tree, state)
	replica, err := crashOpener(t, tree, "")()
	if err != nil {
		t.Fatal(err)
	}
	defer replica.Close()
	published := func() ([]byte, error) {
		cp, err := replica.Checkpoint(t.Context())
		if err != nil {
			return nil, err
		}
		return cp.Note, nil
	}
	var recorded [][]byte
	reopen := func() (transparency.Log, error) {
		raw, err := os.ReadFile(state + ".pending")
		if err != nil {
			t.Errorf("pending file after the kill: %v", err)
		} else if recorded, _, err = trillian.ParsePending(raw); err != nil {
			t.Errorf("pending file after the kill: %v", err)
		}
		return open()
	}
	env := []string{envCrashTree + "=" + strconv.FormatInt(tree, 10), envCrashState + "=" + state}
	logtest.Crash(t, "TestCrashChild", env, reopen, published, logtest.Ed25519VKey(t, crashOrigin, "trillian crash"))
	// 16 appenders kept appending: some were in flight at the kill.
	if len(recorded) == 0 {
		t.Fatal("the kill left no leaf in the pending file")
	}
	cp, err := replica.Checkpoint(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, leaf := range recorded {
		if _, _, err := replica.InclusionProofByHash(t.Context(), tlog.RecordHash(leaf), cp.Size); err != nil {
			t.Fatalf("leaf %q, in the pending file at the kill, not in the log after reopening: %v", leaf, err)
		}
	}
	t.Logf("%d leaves in the pending file at the kill, all in the log after reopening", len(recorded))
}
