package trillian_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tpb "github.com/google/trillian"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/checkpoint"
	"tirage.fr/tirage/transparency/logtest"
	"tirage.fr/tirage/transparency/trillian"
)

// outageConn passes calls to the Trillian stack, but plays an outage while
// it is stalled:
//
//   - "signer": a stalled signer or database: QueueLeaf reaches Trillian
//     (the leaf is queued, and the real signer integrates it), but the
//     roots read stay the last one read before the stall;
//   - "down": the log server unreachable: every call fails with
//     Unavailable before it reaches Trillian (a leaf sent then is not
//     queued).
//
// It counts the QueueLeaf calls sent for each leaf, stalled or not, and
// tampers with as many leaf ranges read as tamper says (a wrong index: a
// misbehaving Trillian).
type outageConn struct {
	grpc.ClientConnInterface
	mode   string
	tamper atomic.Int32

	mu      sync.Mutex
	stalled bool
	root    *tpb.SignedLogRoot // the last read while not stalled
	queued  map[string]int
}

func newOutageConn(conn grpc.ClientConnInterface, mode string) *outageConn {
	return &outageConn{ClientConnInterface: conn, mode: mode, queued: make(map[string]int)}
}

func (c *outageConn) stall(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stalled = on
}

// sent returns how many QueueLeaf calls were sent for leaf.
func (c *outageConn) sent(leaf []byte) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.queued[string(leaf)]
}

func (c *outageConn) Invoke(ctx context.Context, method string, args, reply any, opts ...grpc.CallOption) error {
	c.mu.Lock()
	stalled, root := c.stalled, c.root
	if method == tpb.TrillianLog_QueueLeaf_FullMethodName {
		c.queued[string(args.(*tpb.QueueLeafRequest).GetLeaf().GetLeafValue())]++
	}
	c.mu.Unlock()
	if stalled {
		switch {
		case c.mode == "down":
			return status.Error(codes.Unavailable, "Trillian down (test)")
		case method == tpb.TrillianLog_GetLatestSignedLogRoot_FullMethodName && root != nil:
			reply.(*tpb.GetLatestSignedLogRootResponse).SignedLogRoot = root
			return nil
		}
	}
	err := c.ClientConnInterface.Invoke(ctx, method, args, reply, opts...)
	switch {
	case err != nil:
	case method == tpb.TrillianLog_GetLatestSignedLogRoot_FullMethodName && !stalled:
		c.mu.Lock()
		c.root = reply.(*tpb.GetLatestSignedLogRootResponse).GetSignedLogRoot()
		c.mu.Unlock()
	case method == tpb.TrillianLog_GetLeavesByRange_FullMethodName:
		if leaves := reply.(*tpb.GetLeavesByRangeResponse).GetLeaves(); len(leaves) > 0 {
			if n := c.tamper.Load(); n > 0 && c.tamper.CompareAndSwap(n, n-1) {
				leaves[0].LeafIndex += 1000
			}
		}
	}
	return err
}

// eventually polls cond every 20 ms until it holds, failing after limit.
func eventually(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after %v", what, limit)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// outageFixture is a log on a fresh tree of the stack, through an
// outageConn, with a state file (as rngd runs it) and Config.Resync.
type outageFixture struct {
	conn    *outageConn
	tree    int64
	cfg     trillian.Config
	logs    *logtest.Buffer
	resyncs atomic.Int32
	resyncd atomic.Uint64 // the size of the checkpoint Resync was given
}

func newOutageFixture(t *testing.T, mode string) *outageFixture {
	conn := dial(t)
	f := &outageFixture{conn: newOutageConn(conn, mode), tree: newTree(t, conn), logs: &logtest.Buffer{}}
	f.cfg = trillian.Config{Conn: f.conn, TreeID: f.tree, Origin: "tirage.fr/log/outage", Signers: signers(t),
		StateFile:     filepath.Join(t.TempDir(), "trillian-checkpoint"),
		AppendTimeout: 3 * time.Second, PendingTimeout: 2 * time.Second,
		Logger: slog.New(slog.NewTextHandler(f.logs, nil)),
		Resync: func(ctx context.Context, cp *checkpoint.Checkpoint) error {
			f.resyncs.Add(1)
			f.resyncd.Store(cp.Size)
			return nil
		},
	}
	return f
}

// entries returns the whole tree, checked against a checkpoint the log
// signed.
func entries(t *testing.T, l *trillian.Log) [][]byte {
	t.Helper()
	ctx := t.Context()
	cp, err := l.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var all [][]byte
	for uint64(len(all)) < cp.Size {
		es, err := l.Entries(ctx, uint64(len(all)), cp.Size, cp.Size)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, es...)
	}
	return all
}

// An outage — the signer or database stalled, or Trillian unreachable —
// past AppendTimeout fails the appends waiting then and the log closed
// (ErrUnavailable), and later appends and checkpoints are refused at once,
// queueing nothing. Once Trillian answers again the log recovers by
// itself, without being reopened: every leaf recorded in the pending file
// (those of the failed appends) is integrated, exactly once, in a tree the
// log signed and verified, Config.Resync is called once, and appends are
// acknowledged again. Appenders run all along (go test -race): every
// acknowledged leaf is at its index, once; every leaf whose QueueLeaf was
// sent is in the tree once; every other is not in it.
func TestRecoverAfterOutage(t *testing.T) {
	for _, mode := range []string{"signer", "down"} {
		t.Run(mode, func(t *testing.T) {
			f := newOutageFixture(t, mode)
			l, err := trillian.Open(t.Context(), f.cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			ctx := t.Context()

			type result struct {
				leaf []byte
				idx  uint64
				err  error
			}
			var mu sync.Mutex
			var results []result
			acked := func() int {
				mu.Lock()
				defer mu.Unlock()
				n := 0
				for _, r := range results {
					if r.err == nil {
						n++
					}
				}
				return n
			}
			appendOne := func(leaf []byte) error {
				idx, err := l.Append(context.Background(), leaf)
				mu.Lock()
				results = append(results, result{leaf, idx, err})
				mu.Unlock()
				return err
			}
			stop := make(chan struct{})
			var wg sync.WaitGroup
			for g := range 4 {
				wg.Go(func() {
					for i := 0; ; i++ {
						select {
						case <-stop:
							return
						default:
						}
						if appendOne(fmt.Appendf(nil, "appender %d, draw %d", g, i)) != nil {
							time.Sleep(20 * time.Millisecond)
						}
					}
				})
			}
			defer func() {
				select {
				case <-stop:
				default:
					close(stop)
				}
				wg.Wait()
			}()
			eventually(t, 30*time.Second, "appends before the outage", func() bool { return acked() >= 8 })

			f.conn.stall(true)
			// Sent in the outage, before the log fails: queued but not
			// integrated (signer), or never queued (down).
			inOutage := []byte("sent in the outage")
			wg.Go(func() { _ = appendOne(inOutage) })
			eventually(t, 30*time.Second, "the log failed closed by the outage", func() bool { return l.Health() != nil })
			if err := l.Health(); !errors.Is(err, transparency.ErrUnavailable) || errors.Is(err, transparency.ErrSecurity) {
				t.Fatalf("Health in the outage = %v, want ErrUnavailable", err)
			}
			// Refused at once, with nothing queued: no draw waits on a
			// log that cannot take it, none is accepted unseen.
			refused := []byte("refused in the outage")
			start := time.Now()
			if _, err := l.Append(ctx, refused); !errors.Is(err, transparency.ErrUnavailable) {
				t.Fatalf("Append in the outage = %v, want ErrUnavailable", err)
			}
			if _, err := l.Checkpoint(ctx); !errors.Is(err, transparency.ErrUnavailable) {
				t.Fatalf("Checkpoint in the outage = %v, want ErrUnavailable", err)
			}
			if d := time.Since(start); d >= f.cfg.AppendTimeout {
				t.Errorf("Append and Checkpoint refused after %v in the outage, want at once (AppendTimeout %v)", d, f.cfg.AppendTimeout)
			}
			if n := f.conn.sent(refused); n != 0 {
				t.Fatalf("%d QueueLeaf sent for an append refused in the outage", n)
			}
			// The recovery tries while Trillian is still out, and fails
			// (PendingTimeout); then the outage ends.
			eventually(t, 30*time.Second, "a recovery attempt failing in the outage", func() bool {
				return strings.Contains(f.logs.String(), "outage goes on")
			})
			if err := l.Health(); !errors.Is(err, transparency.ErrUnavailable) {
				t.Fatalf("Health with Trillian still out = %v, want ErrUnavailable", err)
			}
			f.conn.stall(false)

			eventually(t, 60*time.Second, "the log recovered by itself", func() bool { return l.Health() == nil })
			after := []byte("after the outage, without reopening")
			idx, err := l.Append(ctx, after)
			if err != nil {
				t.Fatalf("Append after the outage = %v", err)
			}
			n := acked()
			eventually(t, 30*time.Second, "appends after the outage", func() bool { return acked() >= n+8 })
			close(stop)
			wg.Wait()
			results = append(results, result{refused, 0, errors.New("refused")}, result{after, idx, nil})

			if got := f.resyncs.Load(); got != 1 {
				t.Errorf("Config.Resync called %d times, want once", got)
			}
			tree := entries(t, l)
			if got := f.resyncd.Load(); got == 0 || got > uint64(len(tree)) {
				t.Errorf("Config.Resync given a checkpoint of %d leaves (tree: %d)", got, len(tree))
			}
			count := make(map[string]int)
			for _, e := range tree {
				count[string(e)]++
			}
			failedSent := 0
			for _, r := range results {
				c := count[string(r.leaf)]
				switch {
				case r.err == nil:
					if c != 1 || !bytes.Equal(tree[r.idx], r.leaf) {
						t.Errorf("acknowledged %q at %d: %d times in the tree, want once, there", r.leaf, r.idx, c)
					}
				case f.conn.sent(r.leaf) > 0:
					// Recorded in the pending file before its QueueLeaf.
					failedSent++
					if c != 1 {
						t.Errorf("%q, failed after its QueueLeaf (%v): %d times in the tree, want once", r.leaf, r.err, c)
					}
				case c != 0:
					t.Errorf("%q, refused before its QueueLeaf: %d times in the tree, want none", r.leaf, c)
				}
			}
			if failedSent == 0 || f.conn.sent(inOutage) == 0 || count[string(inOutage)] != 1 {
				t.Fatalf("%d appends failed after their QueueLeaf; the one sent in the outage %d times, in the tree %d times: the outage was not played", failedSent, f.conn.sent(inOutage), count[string(inOutage)])
			}
			t.Logf("%d appends, %d failed after their QueueLeaf, tree of %d leaves", len(results), failedSent, len(tree))
			raw, err := os.ReadFile(f.cfg.StateFile + ".pending")
			if err == nil && string(raw) != trillian.PendingHeader {
				t.Errorf("pending file after the outage, no append outstanding: %d bytes, want its header alone", len(raw))
			} else if err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Fatal(err)
			}
			out := f.logs.String()
			if !strings.Contains(out, "level=ERROR msg=\"trillian: outage:") || !strings.Contains(out, "level=INFO msg=\"trillian: outage over") {
				t.Errorf("the outage's start and end not logged:\n%s", out)
			}
		})
	}
}

// Close during the recovery (Trillian still out, an attempt waiting for the
// recorded leaf) returns promptly; the leaf stays recorded, and the next
// Open integrates it, once.
func TestRecoverClose(t *testing.T) {
	f := newOutageFixture(t, "signer")
	f.cfg.PendingTimeout = time.Minute // only Close ends the attempt
	l, err := trillian.Open(t.Context(), f.cfg)
	if err != nil {
		t.Fatal(err)
	}
	f.conn.stall(true)
	leaf := []byte("timed out, then closed during the recovery")
	if _, err := l.Append(context.Background(), leaf); !errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("Append in the outage = %v, want ErrUnavailable", err)
	}
	eventually(t, 30*time.Second, "the recovery queueing the recorded leaf", func() bool {
		return strings.Contains(f.logs.String(), "recorded before or during the outage")
	})
	closed := make(chan error, 1)
	go func() { closed <- l.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("Close = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close during the recovery still waiting 10 s on")
	}
	if _, err := l.Append(t.Context(), []byte("after Close")); !errors.Is(err, transparency.ErrClosed) {
		t.Fatalf("Append after Close = %v, want ErrClosed", err)
	}
	if f.resyncs.Load() != 0 {
		t.Fatal("Config.Resync called though the outage never ended")
	}
	f.conn.stall(false)
	cfg := f.cfg
	cfg.Resync = nil
	l, err = trillian.Open(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	n := 0
	for _, e := range entries(t, l) {
		if bytes.Equal(e, leaf) {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("the recorded leaf %d times in the tree after reopening, want once", n)
	}
}

// A security failure never recovers, Config.Resync or not, even once its
// cause is gone: Trillian answering once with a wrong leaf index, in normal
// operation or during the recovery from an outage (after which the
// recovery stops), or the database rolled back during an outage (found by
// the recovery once Trillian answers: the tree below the checkpoint
// signed). The log stays failed closed with ErrSecurity, Resync is never
// called.
func TestRecoverNotFromSecurityFailure(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode string
		// outage plays the failure, from a log of 5 leaves, with the
		// outage conn not stalled; it returns with it not stalled.
		outage func(t *testing.T, f *outageFixture, l *trillian.Log, rollback func())
	}{
		{"tampered answer", "down", func(t *testing.T, f *outageFixture, l *trillian.Log, _ func()) {
			f.conn.tamper.Store(1)
			if _, err := l.Append(t.Context(), []byte("its index misreported")); !errors.Is(err, transparency.ErrSecurity) {
				t.Fatalf("Append with its index misreported = %v, want ErrSecurity", err)
			}
		}},
		{"tampered answer during the recovery", "down", func(t *testing.T, f *outageFixture, l *trillian.Log, _ func()) {
			f.conn.stall(true)
			if _, err := l.Append(t.Context(), []byte("in the outage")); !errors.Is(err, transparency.ErrUnavailable) {
				t.Fatalf("Append in the outage = %v, want ErrUnavailable", err)
			}
			f.conn.tamper.Store(1)
			f.conn.stall(false)
		}},
		{"rollback during an outage", "down", func(t *testing.T, f *outageFixture, l *trillian.Log, rollback func()) {
			f.conn.stall(true)
			if _, err := l.Append(t.Context(), []byte("in the outage")); !errors.Is(err, transparency.ErrUnavailable) {
				t.Fatalf("Append in the outage = %v, want ErrUnavailable", err)
			}
			rollback() // back to 2 leaves, below the 5 signed
			f.conn.stall(false)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newOutageFixture(t, tc.mode)
			f.cfg.RollbackGrace = 300 * time.Millisecond
			l, err := trillian.Open(t.Context(), f.cfg)
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
			rollback := snapshot(t, f.tree)
			for i := range 3 {
				if _, err := l.Append(ctx, []byte{'b', byte(i)}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := l.AwaitCheckpoint(ctx, 5); err != nil {
				t.Fatal(err)
			}
			tc.outage(t, f, l, rollback)
			eventually(t, 60*time.Second, "the security failure found", func() bool { return errors.Is(l.Health(), transparency.ErrSecurity) })
			// For good: it stays so while a recovery would have had every
			// chance to end an outage.
			deadline := time.Now().Add(3 * time.Second)
			for time.Now().Before(deadline) {
				if err := l.Health(); !errors.Is(err, transparency.ErrSecurity) {
					t.Fatalf("Health after the security failure = %v, want ErrSecurity for ever", err)
				}
				time.Sleep(100 * time.Millisecond)
			}
			if _, err := l.Append(ctx, []byte("after the security failure")); !errors.Is(err, transparency.ErrSecurity) {
				t.Fatalf("Append after the security failure = %v, want ErrSecurity", err)
			}
			if _, err := l.Checkpoint(ctx); !errors.Is(err, transparency.ErrSecurity) {
				t.Fatalf("Checkpoint after the security failure = %v, want ErrSecurity", err)
			}
			if n := f.resyncs.Load(); n != 0 {
				t.Fatalf("Config.Resync called %d times after a security failure", n)
			}
			if strings.Contains(f.logs.String(), "outage over") {
				t.Fatal("the outage logged as over after a security failure")
			}
		})
	}
}
