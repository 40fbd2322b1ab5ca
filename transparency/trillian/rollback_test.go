package trillian_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	tpb "github.com/google/trillian"
	"google.golang.org/grpc"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/trillian"
)

// dsnRE parses TRILLIAN_MYSQL_URI (go-sql-driver form, as scripts/trillian.sh writes it).
var dsnRE = regexp.MustCompile(`^([^:]+):(.*)@tcp\(([^)]+):(\d+)\)/(\w+)$`)

// sqlExec runs statements on the stack's Trillian database with the mariadb
// client (the password goes through MYSQL_PWD, never the command line).
func sqlExec(t *testing.T, stmts string) {
	t.Helper()
	m := dsnRE.FindStringSubmatch(stack(t)["TRILLIAN_MYSQL_URI"])
	if m == nil {
		t.Fatal(".run/trillian.env lacks a TRILLIAN_MYSQL_URI of the form user:pass@tcp(host:port)/db")
	}
	client, err := exec.LookPath("mariadb")
	if err != nil {
		t.Fatalf("mariadb client not found (the Trillian stack needs MariaDB): %v", err)
	}
	cmd := exec.Command(client, "--no-defaults", "--protocol=tcp", "-h", m[3], "-P", m[4], "-u", m[1], m[5])
	cmd.Env = append(os.Environ(), "MYSQL_PWD="+m[2])
	cmd.Stdin = strings.NewReader(stmts)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mariadb: %v\n%s", err, out)
	}
}

// treeTables are the tables holding a log tree's state, parents before children.
var treeTables = []string{"TreeHead", "Subtree", "LeafData", "SequencedLeafData", "Unsequenced"}

// snapshot copies the tree's rows (a backup) and returns a func restoring
// them, as an operator restoring that backup would.
func snapshot(t *testing.T, tree int64) (restore func()) {
	t.Helper()
	var snap, drop strings.Builder
	for _, tb := range treeTables {
		fmt.Fprintf(&snap, "CREATE TABLE snap_%d_%s AS SELECT * FROM %s WHERE TreeId = %d;\n", tree, tb, tb, tree)
		fmt.Fprintf(&drop, "DROP TABLE IF EXISTS snap_%d_%s;\n", tree, tb)
	}
	sqlExec(t, drop.String()+snap.String())
	t.Cleanup(func() { sqlExec(t, drop.String()) })
	return func() {
		var b strings.Builder
		b.WriteString("START TRANSACTION;\n")
		for i := len(treeTables) - 1; i >= 0; i-- {
			fmt.Fprintf(&b, "DELETE FROM %s WHERE TreeId = %d;\n", treeTables[i], tree)
		}
		for _, tb := range treeTables {
			fmt.Fprintf(&b, "INSERT INTO %s SELECT * FROM snap_%d_%s;\n", tb, tree, tb)
		}
		b.WriteString("COMMIT;\n")
		sqlExec(t, b.String())
	}
}

// The Trillian database is restored from an older backup while the
// appliance runs: the next append, and the next checkpoint, fail with
// ErrSecurity naming the sizes, instead of the append hanging until its
// deadline ("queued but not integrated") and the old checkpoint being served.
func TestRollbackWhileRunning(t *testing.T) {
	conn := dial(t)
	tree := newTree(t, conn)
	l, err := trillian.Open(t.Context(), trillian.Config{Conn: conn, TreeID: tree, Origin: "tirage.fr/log/rollback",
		Signers: signers(t), RollbackGrace: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx := t.Context()
	for i := range 2 {
		if _, err := l.Append(ctx, []byte{'a', byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.AwaitCheckpoint(ctx, 2); err != nil {
		t.Fatal(err)
	}
	restore := snapshot(t, tree)
	for i := range 3 {
		if _, err := l.Append(ctx, []byte{'b', byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.AwaitCheckpoint(ctx, 5); err != nil {
		t.Fatal(err)
	}
	restore() // back to 2 leaves

	actx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	start := time.Now()
	idx, err := l.Append(actx, []byte("after the rollback"))
	if !errors.Is(err, transparency.ErrSecurity) {
		t.Fatalf("Append after a rollback from 5 to 2 leaves = %d, %v (after %v), want ErrSecurity", idx, err, time.Since(start).Round(time.Millisecond))
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("rollback reported after %v", d)
	}
	if msg := err.Error(); !strings.Contains(msg, "5") || !strings.Contains(msg, "2") {
		t.Errorf("error does not name the sizes: %v", err)
	}
	t.Logf("Append: %v", err)
	if _, err := l.Checkpoint(ctx); !errors.Is(err, transparency.ErrSecurity) {
		t.Fatalf("Checkpoint after the rollback = %v, want ErrSecurity", err)
	}
	// Fail closed: later appends are refused at once.
	if _, err := l.Append(ctx, []byte("later")); !errors.Is(err, transparency.ErrSecurity) {
		t.Fatalf("second Append after the rollback = %v, want ErrSecurity", err)
	}
}

// A rollback seen by Checkpoint alone (no append waiting) is reported too,
// rather than the previous checkpoint being returned.
func TestRollbackCheckpoint(t *testing.T) {
	conn := dial(t)
	tree := newTree(t, conn)
	l, err := trillian.Open(t.Context(), trillian.Config{Conn: conn, TreeID: tree, Origin: "tirage.fr/log/rollback",
		Signers: signers(t), RollbackGrace: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx := t.Context()
	restore := snapshot(t, tree) // empty tree
	for i := range 2 {
		if _, err := l.Append(ctx, []byte{'c', byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.AwaitCheckpoint(ctx, 2); err != nil {
		t.Fatal(err)
	}
	restore()
	if _, err := l.Checkpoint(ctx); !errors.Is(err, transparency.ErrSecurity) {
		t.Fatalf("Checkpoint after a rollback from 2 to 0 leaves: err = %v, want ErrSecurity", err)
	}
}

// staleConn serves, while stale is set, an old log root (as a lagging
// database replica would) instead of the latest.
type staleConn struct {
	grpc.ClientConnInterface
	mu    sync.Mutex
	stale *tpb.GetLatestSignedLogRootResponse
	reads int // stale roots served
}

func (c *staleConn) Invoke(ctx context.Context, method string, args, reply any, opts ...grpc.CallOption) error {
	if method == tpb.TrillianLog_GetLatestSignedLogRoot_FullMethodName {
		c.mu.Lock()
		s := c.stale
		if s != nil {
			c.reads++
		}
		c.mu.Unlock()
		if s != nil {
			reply.(*tpb.GetLatestSignedLogRootResponse).SignedLogRoot = s.GetSignedLogRoot()
			return nil
		}
	}
	return c.ClientConnInterface.Invoke(ctx, method, args, reply, opts...)
}

// A root older than one already seen, for less than RollbackGrace, is
// replica lag, not a rollback: appends and checkpoints carry on.
func TestStaleRootIsNotRollback(t *testing.T) {
	real := dial(t)
	tree := newTree(t, real)
	conn := &staleConn{ClientConnInterface: real}
	l, err := trillian.Open(t.Context(), trillian.Config{Conn: conn, TreeID: tree, Origin: "tirage.fr/log/stale",
		Signers: signers(t), RollbackGrace: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx := t.Context()
	old, err := tpb.NewTrillianLogClient(real).GetLatestSignedLogRoot(ctx, &tpb.GetLatestSignedLogRootRequest{LogId: tree})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := l.Append(ctx, []byte{'d', byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.AwaitCheckpoint(ctx, 3); err != nil {
		t.Fatal(err)
	}
	conn.mu.Lock()
	conn.stale = old
	conn.mu.Unlock()
	go func() {
		time.Sleep(300 * time.Millisecond)
		conn.mu.Lock()
		conn.stale = nil
		conn.mu.Unlock()
	}()
	done := make(chan error, 1)
	go func() {
		_, err := l.Append(ctx, []byte("during the lag"))
		done <- err
	}()
	if cp, err := l.Checkpoint(ctx); err != nil {
		t.Fatalf("Checkpoint during replica lag: %v", err)
	} else if cp.Size < 3 {
		t.Fatalf("Checkpoint during replica lag went back to %d leaves", cp.Size)
	}
	if err := <-done; err != nil {
		t.Fatalf("Append during replica lag: %v", err)
	}
	if _, err := l.AwaitCheckpoint(ctx, 4); err != nil {
		t.Fatalf("AwaitCheckpoint(4) after the lag: %v", err)
	}
	conn.mu.Lock()
	defer conn.mu.Unlock()
	if conn.reads == 0 {
		t.Fatal("no stale root was served")
	}
}
