package trillian_test

import (
	"context"
	"os"
	"strconv"
	"testing"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/logtest"
	"tirage.fr/tirage/transparency/trillian"
)

const (
	envCrashTree = "TIRAGE_TLOG_CRASH_TREE"
	crashOrigin  = "tirage.fr/log/trillian-crash"
)

func crashOpener(t *testing.T, tree int64) logtest.Opener {
	conn := dial(t)
	return func() (transparency.Log, error) {
		return trillian.Open(context.Background(), trillian.Config{Conn: conn, TreeID: tree, Origin: crashOrigin, Signers: logtest.SeededSigners("trillian crash")})
	}
}

// TestCrashChild appends until killed; it runs only as TestCrash's child.
func TestCrashChild(t *testing.T) {
	if os.Getenv(logtest.EnvCrashChild) == "" {
		t.Skip("helper process of TestCrash")
	}
	tree, _ := strconv.ParseInt(os.Getenv(envCrashTree), 10, 64)
	logtest.CrashChild(t, crashOpener(t, tree))
}

// TestCrash kills -9 an appliance appending to Trillian under load; a second
// appliance (a replica sharing the tree) publishes the checkpoints an
// auditor sees meanwhile.
func TestCrash(t *testing.T) {
	if os.Getenv(logtest.EnvCrashChild) != "" {
		t.Skip("in the child")
	}
	conn := dial(t)
	tree := newTree(t, conn)
	open := crashOpener(t, tree)
	replica, err := open()
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
	logtest.Crash(t, "TestCrashChild", []string{envCrashTree + "=" + strconv.FormatInt(tree, 10)}, open, published,
		logtest.Ed25519VKey(t, crashOrigin, "trillian crash"))
}
