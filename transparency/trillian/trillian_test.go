package trillian_test

import (
	"bufio"
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cloudflare/circl/sign/mldsa/mldsa44"
	tpb "github.com/google/trillian"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"tirage.fr/tirage/internal/peertest"
	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/logtest"
	"tirage.fr/tirage/transparency/trillian"
)

// stack reads .run/trillian.env (written by scripts/trillian.sh up), found by
// walking up from the test's directory. Without it the test skips locally
// and fails in CI ([peertest.Absent]), where make test starts the stack.
func stack(t testing.TB) map[string]string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("module root not found")
		}
		dir = parent
	}
	f, err := os.Open(filepath.Join(dir, ".run", "trillian.env"))
	if err != nil {
		peertest.Absent(t, "Trillian stack not running (no .run/trillian.env): start it with `bash scripts/trillian.sh up` (make test does)")
	}
	defer f.Close()
	env := map[string]string{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		if k, v, ok := strings.Cut(s.Text(), "="); ok {
			env[k] = v
		}
	}
	if env["TRILLIAN_LOG_ADDR"] == "" {
		t.Fatal(".run/trillian.env lacks TRILLIAN_LOG_ADDR")
	}
	return env
}

func dial(t testing.TB) *grpc.ClientConn {
	env := stack(t)
	// Loopback test stack without TLS.
	conn, err := grpc.NewClient(env["TRILLIAN_LOG_ADDR"], grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func signers(t testing.TB) []crypto.Signer {
	_, ed, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	_, ml, err := mldsa44.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return []crypto.Signer{ed, ml}
}

func newTree(t testing.TB, conn *grpc.ClientConn) int64 {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	id, err := trillian.CreateTree(ctx, conn, "tirage-test-"+strconv.Itoa(os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	// The signer visits every active tree at each pass: leave none behind.
	t.Cleanup(func() {
		tpb.NewTrillianAdminClient(conn).DeleteTree(context.Background(), &tpb.DeleteTreeRequest{TreeId: id})
	})
	return id
}

func opener(t *testing.T) logtest.Opener {
	conn := dial(t)
	tree := newTree(t, conn)
	s := signers(t)
	return func() (transparency.Log, error) {
		return trillian.Open(context.Background(), trillian.Config{Conn: conn, TreeID: tree, Origin: "tirage.fr/log/trillian-test", Signers: s})
	}
}

func TestConformance(t *testing.T) { logtest.Run(t, opener) }

// A duplicate leaf gets the index of the original.
func TestDuplicateLeaf(t *testing.T) {
	l, err := opener(t)()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx := t.Context()
	a, err := l.Append(ctx, []byte("same leaf"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(ctx, []byte("other leaf")); err != nil {
		t.Fatal(err)
	}
	b, err := l.Append(ctx, []byte("same leaf"))
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Fatalf("duplicate leaf got index %d, original %d", b, a)
	}
}

// When Trillian cannot be reached the append fails with ErrUnavailable (the
// draw is refused) and is counted. QueueLeaf is retried until AppendTimeout
// (its leaf might be queued, the reply lost), then the log fails closed.
func TestAppendFailure(t *testing.T) {
	env := stack(t)
	conn, err := grpc.NewClient(env["TRILLIAN_LOG_ADDR"], grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	l, err := trillian.Open(t.Context(), trillian.Config{Conn: conn, TreeID: newTree(t, dial(t)), Origin: "tirage.fr/log/fail", Signers: signers(t),
		AppendTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	conn.Close()
	_, err = l.Append(t.Context(), []byte("lost"))
	if !errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("Append with Trillian gone = %v, want ErrUnavailable", err)
	}
	if s := l.Stats(); s.Failures != 1 || s.Appends != 0 {
		t.Fatalf("Stats = %+v", s)
	}
}

// The last signed checkpoint survives a restart: a Trillian tree that does
// not extend it (here: another, shorter tree, as after a database rollback)
// is refused with ErrSecurity rather than signed.
func TestStateFileDetectsRollback(t *testing.T) {
	conn := dial(t)
	s := signers(t)
	state := filepath.Join(t.TempDir(), "trillian-checkpoint")
	open := func(tree int64) (transparency.Log, error) {
		return trillian.Open(t.Context(), trillian.Config{Conn: conn, TreeID: tree, Origin: "tirage.fr/log/state", Signers: s, StateFile: state})
	}
	tree := newTree(t, conn)
	l, err := open(tree)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := l.Append(t.Context(), []byte{'s', byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.AwaitCheckpoint(t.Context(), 3); err != nil {
		t.Fatal(err)
	}
	l.Close()
	l, err = open(tree) // same tree: fine
	if err != nil {
		t.Fatalf("reopen with state file: %v", err)
	}
	l.Close()
	if _, err := open(newTree(t, conn)); !errors.Is(err, transparency.ErrSecurity) {
		t.Fatalf("open on a tree shorter than the signed checkpoint = %v, want ErrSecurity", err)
	}
}
