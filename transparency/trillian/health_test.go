package trillian_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	tpb "github.com/google/trillian"
	"github.com/google/trillian/types"
	"golang.org/x/mod/sumdb/tlog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/trillian"
)

// logServerPID returns the stack's trillian_log_server process, from
// .run/trillian_log_server.pid, checked to be that program (as
// scripts/trillian.sh's alive does: a stale file's PID is never signalled).
func logServerPID(t *testing.T) int {
	t.Helper()
	stack(t)
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		dir = filepath.Dir(dir)
	}
	raw, err := os.ReadFile(filepath.Join(dir, ".run", "trillian_log_server.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatalf(".run/trillian_log_server.pid: %v", err)
	}
	exe, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
	if err != nil || filepath.Base(strings.TrimSuffix(exe, " (deleted)")) != "trillian_log_server" {
		t.Fatalf("pid %d of .run/trillian_log_server.pid is not trillian_log_server (%q, %v)", pid, exe, err)
	}
	return pid
}

// waitHealth waits (generously: no wall-clock assertion) until Health
// satisfies ok, and returns its last value.
func waitHealth(t *testing.T, l *trillian.Log, ok func(error) bool, what string) error {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := l.Health()
		if ok(err) {
			return err
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: Health = %v after 30 s", what, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// An idle appliance whose log server stops answering reports it in Health
// (rngd's /healthz, tirage_log_up) within the probe's period, before any
// draw is refused, and reports it no more once the log server answers
// again — without failing the log closed: appends are taken at once.
// The log server is frozen (SIGSTOP), not killed, so that other tests on
// the stack only wait for it.
func TestHealthIdleLogServerDown(t *testing.T) {
	conn := dial(t)
	tree := newTree(t, conn)
	pid := logServerPID(t)
	l, err := trillian.Open(t.Context(), trillian.Config{Conn: conn, TreeID: tree, Origin: "tirage.fr/log/health",
		Signers: signers(t), HealthInterval: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Append(t.Context(), []byte("before the outage")); err != nil {
		t.Fatal(err)
	}
	if err := l.Health(); err != nil {
		t.Fatalf("Health after an append = %v, want nil", err)
	}

	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
				t.Error(err)
			}
		}
	}
	defer resume()
	err = waitHealth(t, l, func(err error) bool { return err != nil }, "idle, log server stopped")
	if !errors.Is(err, transparency.ErrUnavailable) || !strings.Contains(err.Error(), "health probe: the log server or its database did not answer") {
		t.Fatalf("Health with the log server stopped = %v, want ErrUnavailable naming the log server", err)
	}
	resume()
	waitHealth(t, l, func(err error) bool { return err == nil }, "log server back")
	// The probe never failed the log closed: an append is taken at once.
	if _, err := l.Append(t.Context(), []byte("after the outage")); err != nil {
		t.Fatalf("Append once the log server answers again: %v", err)
	}
}

// rootConn is a Trillian whose root the test sets: size leaves (hash
// fixed), or no answer at all when size is negative.
type rootConn struct {
	stalledConn
	size *atomic.Int64
}

func (c rootConn) Invoke(ctx context.Context, method string, args, reply any, opts ...grpc.CallOption) error {
	if method != tpb.TrillianLog_GetLatestSignedLogRoot_FullMethodName {
		return c.stalledConn.Invoke(ctx, method, args, reply, opts...)
	}
	n := c.size.Load()
	if n < 0 {
		return status.Error(codes.Unavailable, "connection refused")
	}
	h := make([]byte, tlog.HashSize)
	h[0] = byte(n)
	root, err := (&types.LogRootV1{TreeSize: uint64(n), RootHash: h}).MarshalBinary()
	if err != nil {
		return err
	}
	reply.(*tpb.GetLatestSignedLogRootResponse).SignedLogRoot = &tpb.SignedLogRoot{LogRoot: root}
	return nil
}

// The probe reports a root below the one signed without accepting it or
// failing the log closed (replica lag is for checkRoot to tell from a
// rollback), and a Trillian that does not answer; Health is nil again
// once the root the log signed is read back.
func TestHealthProbeAcceptsNoSmallerRoot(t *testing.T) {
	var size atomic.Int64
	size.Store(5)
	var queued atomic.Int32
	l, err := trillian.Open(t.Context(), trillian.Config{Conn: rootConn{stalledConn{&queued}, &size}, TreeID: 1,
		Origin: "tirage.fr/log/probe", Signers: signers(t), HealthInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	size.Store(3)
	err = waitHealth(t, l, func(err error) bool { return err != nil }, "root below the one signed")
	if !errors.Is(err, transparency.ErrUnavailable) || errors.Is(err, transparency.ErrSecurity) || !strings.Contains(err.Error(), "root of 3 leaves below the 5 already seen") {
		t.Fatalf("Health with a root below the one signed = %v, want ErrUnavailable naming 3 and 5, not ErrSecurity", err)
	}
	size.Store(-1)
	err = waitHealth(t, l, func(err error) bool { return err != nil && strings.Contains(err.Error(), "did not answer") }, "Trillian not answering")
	if !errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("Health with Trillian not answering = %v, want ErrUnavailable", err)
	}
	size.Store(5)
	waitHealth(t, l, func(err error) bool { return err == nil }, "the signed root read back")
	cp, err := l.Checkpoint(t.Context())
	if err != nil || cp.Size != 5 {
		t.Fatalf("Checkpoint after the probe saw a smaller root = %v, %v; want the 5 leaves signed", cp, err)
	}
}
