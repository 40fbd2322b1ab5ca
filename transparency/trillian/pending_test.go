package trillian_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tpb "github.com/google/trillian"
	"golang.org/x/mod/sumdb/tlog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/trillian"
)

// pendingFixture is a fake Trillian and the appliance's data directory,
// reopened as rngd would be restarted.
type pendingFixture struct {
	t     *testing.T
	f     *fakeTrillian
	conn  grpc.ClientConnInterface
	state string
	cfg   trillian.Config
}

func newPendingFixture(t *testing.T, n int) *pendingFixture {
	f := newFakeTrillian(t, n)
	state := filepath.Join(t.TempDir(), "trillian-checkpoint")
	return &pendingFixture{t: t, f: f, conn: fakeConn{t, f}, state: state, cfg: trillian.Config{
		TreeID: 1, Origin: "tirage.fr/log/pending", Signers: signers(t), StateFile: state,
		// Short, for the tests whose appends time out. It covers the
		// write ahead and the follower's checkpoint saves too (fsyncs):
		// the tests whose appends must succeed set a longer one.
		AppendTimeout: 300 * time.Millisecond, PendingTimeout: 400 * time.Millisecond,
	}}
}

func (p *pendingFixture) open(cfg trillian.Config) (*trillian.Log, error) {
	if cfg.Conn == nil {
		cfg.Conn = p.conn
	}
	return trillian.Open(p.t.Context(), cfg)
}

func (p *pendingFixture) mustOpen(cfg trillian.Config) *trillian.Log {
	p.t.Helper()
	l, err := p.open(cfg)
	if err != nil {
		p.t.Fatal(err)
	}
	p.t.Cleanup(func() { l.Close() })
	return l
}

// stall stops (or with false restarts) the fake's signer: QueueLeaf only
// queues.
func (p *pendingFixture) stall(on bool) {
	p.f.mu.Lock()
	p.f.hold = on
	p.f.mu.Unlock()
}

func (p *pendingFixture) pendingFile() []byte {
	p.t.Helper()
	raw, err := os.ReadFile(p.state + ".pending")
	if err != nil {
		p.t.Fatalf("pending file: %v", err)
	}
	return raw
}

// noRecords fails unless the pending file is absent or emptied (its header
// alone): no leaf recorded in it is outstanding.
func (p *pendingFixture) noRecords(when string) {
	p.t.Helper()
	raw, err := os.ReadFile(p.state + ".pending")
	if errors.Is(err, os.ErrNotExist) {
		return
	}
	if err != nil || string(raw) != trillian.PendingHeader {
		p.t.Fatalf("pending file %s: %q, %v; want none or its header alone", when, raw, err)
	}
}

// count returns how many times leaf is in the fake's tree.
func (p *pendingFixture) count(leaf []byte) int {
	p.f.mu.Lock()
	defer p.f.mu.Unlock()
	n := 0
	for _, lf := range p.f.leaves {
		if bytes.Equal(lf, leaf) {
			n++
		}
	}
	return n
}

func (p *pendingFixture) queueLeafCalls() int {
	p.f.mu.Lock()
	defer p.f.mu.Unlock()
	return p.f.calls[tpb.TrillianLog_QueueLeaf_FullMethodName]
}

// The reviewer's scenario: appends time out with the signer stalled (one,
// and one woken by the log failing closed); their leaves stay queued. A
// restart must not let a retried draw run before they are in the log:
// their leaves are recorded in the pending file before the errors are
// returned; reopening with the signer still stalled fails (rngd does not
// start); reopening with the signer back queues them again (deduplicated),
// returns once they are integrated, at the right indices, and removes the
// file.
func TestPendingAfterTimeout(t *testing.T) {
	const n = 3
	p := newPendingFixture(t, n)
	l := p.mustOpen(p.cfg)
	p.stall(true)
	timedOut, woken := []byte("start, timed out"), []byte("pick, woken by fail")
	errc := make(chan error, 2)
	go func() { _, err := l.Append(context.Background(), timedOut); errc <- err }()
	time.Sleep(150 * time.Millisecond) // its deadline falls after the first's
	go func() { _, err := l.Append(context.Background(), woken); errc <- err }()
	for range 2 {
		err := <-errc
		if !errors.Is(err, transparency.ErrUnavailable) || errors.Is(err, transparency.ErrNotAppended) {
			t.Fatalf("Append with the signer stalled = %v, want ErrUnavailable, not ErrNotAppended (queued, it may be integrated yet)", err)
		}
		if !strings.Contains(err.Error(), p.state+".pending") {
			t.Errorf("Append's error does not name the pending file: %v", err)
		}
		t.Logf("Append: %v", err)
	}
	raw := p.pendingFile()
	for _, leaf := range [][]byte{timedOut, woken} {
		if !bytes.Contains(raw, leaf) {
			t.Errorf("pending file lacks %q", leaf)
		}
	}
	if err := l.Health(); !errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("Health after a timed-out append = %v, want failed closed", err)
	}
	l.Close()

	// Restart with the signer still stalled: Open fails after
	// PendingTimeout, naming the leaves; the file stays.
	start := time.Now()
	if l, err := p.open(p.cfg); !errors.Is(err, transparency.ErrUnavailable) || !strings.Contains(err.Error(), "2 of the 2") {
		if err == nil {
			l.Close()
		}
		t.Fatalf("Open with pending leaves and the signer stalled = %v, want ErrUnavailable naming 2 leaves", err)
	} else {
		t.Logf("Open: %v", err)
	}
	if d := time.Since(start); d < p.cfg.PendingTimeout || d > 10*time.Second {
		t.Errorf("Open failed after %v, PendingTimeout %v", d, p.cfg.PendingTimeout)
	}
	if got := p.pendingFile(); !bytes.Equal(got, raw) {
		t.Fatal("pending file changed by a failed Open")
	}

	// Restart with the signer coming back during Open: Open returns once
	// both are integrated (each once: Trillian deduplicated them).
	cfg := p.cfg
	cfg.PendingTimeout = 10 * time.Second
	cfg.AppendTimeout = 10 * time.Second // the retried draw below succeeds
	queued := p.queueLeafCalls()
	go func() {
		time.Sleep(200 * time.Millisecond)
		p.stall(false)
		p.f.integrate(t)
	}()
	l = p.mustOpen(cfg)
	if got := p.queueLeafCalls() - queued; got != 2 {
		t.Errorf("Open sent %d QueueLeaf, want 2 (one per pending leaf)", got)
	}
	for _, leaf := range [][]byte{timedOut, woken} {
		if c := p.count(leaf); c != 1 {
			t.Fatalf("%q %d times in the tree, want once", leaf, c)
		}
	}
	if _, err := os.Stat(p.state + ".pending"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("pending file after its leaves were integrated: %v", err)
	}
	ctx := t.Context()
	cp, err := l.Checkpoint(ctx)
	if err != nil || cp.Size != n+2 {
		t.Fatalf("Checkpoint after Open = %+v, %v; want %d leaves", cp, err, n+2)
	}
	es, err := l.Entries(ctx, n, n+2, n+2)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(es, func(e []byte) bool { return bytes.Equal(e, timedOut) }) ||
		!slices.ContainsFunc(es, func(e []byte) bool { return bytes.Equal(e, woken) }) {
		t.Fatalf("entries %d..%d = %q, want the two pending leaves", n, n+2, es)
	}
	for _, leaf := range [][]byte{timedOut, woken} {
		idx, _, err := l.InclusionProofByHash(ctx, tlog.RecordHash(leaf), cp.Size)
		if err != nil || !bytes.Equal(es[idx-n], leaf) {
			t.Fatalf("InclusionProofByHash(%q) = %d, %v", leaf, idx, err)
		}
	}
	if idx, err := l.Append(ctx, []byte("the retried draw")); err != nil || idx != n+2 {
		t.Fatalf("Append after the pending leaves = %d, %v; want %d", idx, err, n+2)
	}
	if err := l.Health(); err != nil {
		t.Fatalf("Health = %v", err)
	}
}

// lossyConn loses the replies of QueueLeaf (the leaf queued, the caller
// told DeadlineExceeded) while lose is set.
type lossyConn struct {
	grpc.ClientConnInterface
	lose *atomic.Int32 // replies still to lose; < 0: all
}

func (c lossyConn) Invoke(ctx context.Context, method string, args, reply any, opts ...grpc.CallOption) error {
	err := c.ClientConnInterface.Invoke(ctx, method, args, reply, opts...)
	if method == tpb.TrillianLog_QueueLeaf_FullMethodName && err == nil {
		if n := c.lose.Load(); n < 0 || n > 0 && c.lose.CompareAndSwap(n, n-1) {
			return status.Error(codes.DeadlineExceeded, "reply lost")
		}
	}
	return err
}

// A QueueLeaf whose reply is lost may have queued the leaf: it is sent
// again (Trillian deduplicates it) and the append completes at the leaf's
// one index. Lost for the whole AppendTimeout, the leaf is recorded as
// pending and the log fails closed, as for a stalled signer; the next
// Open integrates it, once.
func TestPendingLostReply(t *testing.T) {
	const n = 4
	p := newPendingFixture(t, n)
	var lose atomic.Int32
	cfg := p.cfg
	cfg.Conn = lossyConn{p.conn, &lose}
	l := p.mustOpen(cfg)
	ctx := t.Context()

	lose.Store(2)
	leaf := []byte("reply lost twice")
	if idx, err := l.Append(ctx, leaf); err != nil || idx != n {
		t.Fatalf("Append with two lost replies = %d, %v; want %d", idx, err, n)
	}
	if c := p.count(leaf); c != 1 {
		t.Fatalf("leaf %d times in the tree, want once", c)
	}
	p.noRecords("after an acknowledged append")
	if err := l.Health(); err != nil {
		t.Fatalf("Health = %v", err)
	}

	lose.Store(-1)
	p.stall(true) // the lost leaf stays queued
	lost := []byte("every reply lost")
	if _, err := l.Append(ctx, lost); !errors.Is(err, transparency.ErrUnavailable) || errors.Is(err, transparency.ErrNotAppended) {
		t.Fatalf("Append with every reply lost = %v, want ErrUnavailable, not ErrNotAppended (it may be queued)", err)
	}
	if !bytes.Contains(p.pendingFile(), lost) {
		t.Fatal("pending file lacks the leaf whose replies were lost")
	}
	if _, err := l.Append(ctx, []byte("retried")); !errors.Is(err, transparency.ErrUnavailable) || !errors.Is(err, transparency.ErrNotAppended) {
		t.Fatalf("Append after a lost reply = %v, want refused (failed closed) before it was queued (ErrNotAppended)", err)
	}
	l.Close()

	lose.Store(0)
	p.stall(false)
	p.f.integrate(t)
	cfg = p.cfg
	cfg.AppendTimeout = 10 * time.Second
	l = p.mustOpen(cfg)
	if c := p.count(lost); c != 1 {
		t.Fatalf("lost leaf %d times in the tree, want once", c)
	}
	if idx, err := l.Append(ctx, []byte("next")); err != nil || idx != n+2 {
		t.Fatalf("Append after reopening = %d, %v; want %d", idx, err, n+2)
	}
}

// A leaf queued but never seen by Trillian (lost before it got there) and
// recorded as pending is queued again by Open: it is integrated then, and
// the file removed.
func TestPendingNeverQueued(t *testing.T) {
	p := newPendingFixture(t, 2)
	// Every QueueLeaf fails with Unavailable: the leaf may or may not be
	// queued (here it is not).
	down := deadConn{p.conn}
	cfg := p.cfg
	cfg.Conn = down
	l := p.mustOpen(cfg)
	leaf := []byte("never got there")
	if _, err := l.Append(t.Context(), leaf); !errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("Append with QueueLeaf unavailable = %v, want ErrUnavailable", err)
	}
	l.Close()
	if c := p.count(leaf); c != 0 {
		t.Fatal("the fake queued the leaf")
	}
	p.mustOpen(p.cfg)
	if c := p.count(leaf); c != 1 {
		t.Fatalf("pending leaf %d times in the tree after Open, want once", c)
	}
	if _, err := os.Stat(p.state + ".pending"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("pending file after Open: %v", err)
	}
}

// deadConn fails every QueueLeaf with Unavailable before it reaches Trillian.
type deadConn struct{ grpc.ClientConnInterface }

func (c deadConn) Invoke(ctx context.Context, method string, args, reply any, opts ...grpc.CallOption) error {
	if method == tpb.TrillianLog_QueueLeaf_FullMethodName {
		return status.Error(codes.Unavailable, "connection refused")
	}
	return c.ClientConnInterface.Invoke(ctx, method, args, reply, opts...)
}

// A QueueLeaf refused outright (here: no such tree) queued nothing: the
// append fails, the record written ahead of it is removed before the error
// is returned (the caller may retry at once: the next Open must not queue
// it), and the log stays open.
func TestPendingNotForRefusedLeaf(t *testing.T) {
	p := newPendingFixture(t, 2)
	cfg := p.cfg
	cfg.Conn = refusingConn{p.conn}
	l := p.mustOpen(cfg)
	if _, err := l.Append(t.Context(), []byte("refused")); !errors.Is(err, transparency.ErrInvalidRequest) || !errors.Is(err, transparency.ErrNotAppended) {
		t.Fatalf("Append refused by Trillian = %v, want ErrInvalidRequest and ErrNotAppended", err)
	}
	p.noRecords("after a refused leaf")
	if err := l.Health(); err != nil {
		t.Fatalf("Health after a refused leaf = %v", err)
	}
}

type refusingConn struct{ grpc.ClientConnInterface }

func (c refusingConn) Invoke(ctx context.Context, method string, args, reply any, opts ...grpc.CallOption) error {
	if method == tpb.TrillianLog_QueueLeaf_FullMethodName {
		return status.Error(codes.InvalidArgument, "bad leaf")
	}
	return c.ClientConnInterface.Invoke(ctx, method, args, reply, opts...)
}

// refuseLeafConn answers the QueueLeaf calls of one leaf with the errors
// of answers, in turn (the last one repeated), as Trillian would refuse
// them, before they reach the fake (codes.OK passes the call on); when it
// is set, onRefuse runs first.
type refuseLeafConn struct {
	grpc.ClientConnInterface
	leaf     []byte
	answers  []codes.Code
	calls    *atomic.Int32
	onRefuse func()
}

func (c refuseLeafConn) Invoke(ctx context.Context, method string, args, reply any, opts ...grpc.CallOption) error {
	if method == tpb.TrillianLog_QueueLeaf_FullMethodName && bytes.Equal(args.(*tpb.QueueLeafRequest).GetLeaf().GetLeafValue(), c.leaf) {
		i := int(c.calls.Add(1)) - 1
		if code := c.answers[min(i, len(c.answers)-1)]; code != codes.OK {
			if c.onRefuse != nil {
				c.onRefuse()
			}
			return status.Error(code, "refused by the test")
		}
	}
	return c.ClientConnInterface.Invoke(ctx, method, args, reply, opts...)
}

// An append refused by Trillian as invalid, rngd killed before the rewrite
// that removes its record (the file as it was on disk when the refusal
// came): the next Open queues the leaf again, is refused again, and fails,
// the file kept byte for byte, naming the refusal. A refusal proves only
// that that QueueLeaf queued nothing: dropping the record on it dropped
// every recorded leaf of a tree that refuses them all (a PREORDERED_LOG
// named by mistake), and on the ACTIVE LOG tree Open checked Trillian
// refuses no leaf that passed CheckLeaf as invalid — the operator finds
// out why before the file goes. The other leaves are still waited for.
func TestPendingRefusedBeforeKill(t *testing.T) {
	p := newPendingFixture(t, 2)
	invalid := []byte("refused by Trillian, rngd killed before its record was removed")
	var atKill []byte
	var calls atomic.Int32
	cfg := p.cfg
	cfg.AppendTimeout = 10 * time.Second // the refusal is the append's end: no deadline on a loaded machine
	cfg.Conn = refuseLeafConn{p.conn, invalid, []codes.Code{codes.InvalidArgument}, &calls, func() {
		if atKill == nil {
			atKill = p.pendingFile()
		}
	}}
	l := p.mustOpen(cfg)
	if _, err := l.Append(t.Context(), invalid); !errors.Is(err, transparency.ErrInvalidRequest) {
		t.Fatalf("Append refused by Trillian = %v, want ErrInvalidRequest", err)
	}
	l.Close()
	if !bytes.Contains(atKill, invalid) {
		t.Fatal("the refused leaf was not recorded when its QueueLeaf was refused")
	}
	// Killed then: the file holds the refused leaf's record, and a leaf in
	// flight (queued, the signer behind).
	inFlight := []byte("in flight at the kill")
	p.stall(true)
	if err := p.conn.Invoke(t.Context(), tpb.TrillianLog_QueueLeaf_FullMethodName, &tpb.QueueLeafRequest{Leaf: &tpb.LogLeaf{LeafValue: inFlight}}, &tpb.QueueLeafResponse{}); err != nil {
		t.Fatal(err)
	}
	atKill = trillian.AppendPendingRecord(atKill, inFlight)
	if err := os.WriteFile(p.state+".pending", atKill, 0o600); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(100 * time.Millisecond)
		p.stall(false)
		p.f.integrate(t)
	}()
	cfg.Conn = refuseLeafConn{p.conn, invalid, []codes.Code{codes.InvalidArgument}, &calls, nil}
	cfg.PendingTimeout = 10 * time.Second
	calls.Store(0)
	l, err := p.open(cfg)
	if err == nil {
		l.Close()
		t.Fatal("Open with the record of a leaf Trillian refuses as invalid succeeded: its record was dropped")
	}
	if !errors.Is(err, transparency.ErrUnavailable) || !strings.Contains(err.Error(), "refused by Trillian (InvalidArgument)") {
		t.Fatalf("Open with the record of a leaf Trillian refuses as invalid = %v, want ErrUnavailable naming the refusal", err)
	}
	if calls.Load() == 0 {
		t.Fatal("Open did not queue the refused leaf again")
	}
	if c := p.count(inFlight); c != 1 {
		t.Fatalf("the leaf in flight %d times in the tree, want once", c)
	}
	if got := p.pendingFile(); !bytes.Equal(got, atKill) {
		t.Fatalf("pending file after the refused Open changed: %q, want %q", got, atKill)
	}
}

// No answer to Open's QueueLeaf drops a recorded leaf. A refusal says
// this QueueLeaf queued nothing, not that the one sent before the restart
// did not — invalid (every leaf sent to a PREORDERED_LOG tree), a tree not
// found (deleted), draining (its queued leaves are still integrated) or
// frozen, a quota, a configuration — and a transient error may hide a
// queued leaf: Open fails, as for a leaf not integrated, and the file is
// kept as it was.
func TestPendingRefusedKept(t *testing.T) {
	for name, answers := range map[string][]codes.Code{
		"invalid argument":          {codes.InvalidArgument},
		"not found":                 {codes.NotFound},
		"permission denied":         {codes.PermissionDenied},
		"failed precondition":       {codes.FailedPrecondition},
		"resource exhausted":        {codes.ResourceExhausted},
		"unauthenticated":           {codes.Unauthenticated},
		"unavailable":               {codes.Unavailable},
		"deadline exceeded":         {codes.DeadlineExceeded},
		"out of range":              {codes.OutOfRange},
		"invalid after unavailable": {codes.Unavailable, codes.InvalidArgument},
	} {
		t.Run(name, func(t *testing.T) {
			p := newPendingFixture(t, 1)
			leaf := []byte("recorded before the restart, maybe queued")
			p.writePendingFile([][]byte{leaf})
			before := p.pendingFile()
			var calls atomic.Int32
			cfg := p.cfg
			cfg.Conn = refuseLeafConn{p.conn, leaf, answers, &calls, nil}
			l, err := p.open(cfg)
			if err == nil {
				l.Close()
				t.Fatalf("Open with a recorded leaf refused (%v) succeeded: its record was dropped", answers)
			}
			if !errors.Is(err, transparency.ErrUnavailable) || !strings.Contains(err.Error(), "1 of the 1") {
				t.Fatalf("Open with a recorded leaf refused (%v) = %v, want ErrUnavailable naming 1 leaf", answers, err)
			}
			if calls.Load() == 0 {
				t.Fatal("Open did not queue the recorded leaf")
			}
			if got := p.pendingFile(); !bytes.Equal(got, before) {
				t.Fatalf("pending file after a failed Open changed: %q, want %q", got, before)
			}
		})
	}
}

// Closing the log while an append waits (rngd stopping with the signer
// stalled) records its leaf before Close returns.
func TestPendingOnClose(t *testing.T) {
	p := newPendingFixture(t, 1)
	cfg := p.cfg
	cfg.AppendTimeout = time.Minute
	l := p.mustOpen(cfg)
	p.stall(true)
	leaf := []byte("waiting at close")
	errc := make(chan error, 1)
	go func() { _, err := l.Append(context.Background(), leaf); errc <- err }()
	for p.queueLeafCalls() == 0 {
		time.Sleep(time.Millisecond)
	}
	l.Close()
	if !bytes.Contains(p.pendingFile(), leaf) {
		t.Fatal("pending file lacks the leaf waiting at Close")
	}
	if err := <-errc; !errors.Is(err, transparency.ErrClosed) {
		t.Fatalf("Append interrupted by Close = %v, want ErrClosed", err)
	}
}

// A pending file that does not parse is refused: Open fails, saying so,
// rather than dropping leaves it may have listed. A torn tail (a crash while
// a record was written, before its append returned) is not corruption: Open
// drops it with a warning, keeps the whole records before it and waits for
// them.
func TestPendingCorrupt(t *testing.T) {
	p := newPendingFixture(t, 2)
	l := p.mustOpen(p.cfg)
	p.stall(true)
	if _, err := l.Append(context.Background(), []byte("stalled")); !errors.Is(err, transparency.ErrUnavailable) {
		t.Fatal(err)
	}
	l.Close()
	p.stall(false)
	p.f.integrate(t)
	good := p.pendingFile()
	header := good[:strings.Index(string(good), "\n")+1]
	record := good[len(header):]
	twice := append(bytes.Clone(good), record...)
	flip := func(b []byte, i int) []byte { b = bytes.Clone(b); b[i] ^= 1; return b }
	for name, data := range map[string][]byte{
		"not a pending file":             []byte("hello\n"),
		"another header":                 append([]byte("tirage trillian pending leaves v9\n"), record...),
		"byte flipped":                   flip(good, len(good)-6),
		"byte flipped, a record after":   flip(twice, len(header)+6),
		"length flipped, a record after": flip(twice, len(header)+1),
		"length out of range":            append(bytes.Clone(good), 0xff, 0, 0, 0, 1),
		"trailing garbage":               append(bytes.Clone(good), "garbage after the record"...),
		"bytes that begin no record":     append(bytes.Clone(good), 0xff, 0xff),
		"byte flipped, then zeros":       append(flip(good, len(good)-6), make([]byte, 512)...),
	} {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(p.state+".pending", data, 0o600); err != nil {
				t.Fatal(err)
			}
			l, err := p.open(p.cfg)
			if err == nil {
				l.Close()
				t.Fatal("Open with a corrupt pending file succeeded")
			}
			if !strings.Contains(err.Error(), "corrupt") || !strings.Contains(err.Error(), p.state+".pending") {
				t.Fatalf("Open with a corrupt pending file = %v, want an error naming the file as corrupt", err)
			}
			if got, _ := os.ReadFile(p.state + ".pending"); !bytes.Equal(got, data) {
				t.Fatal("a corrupt pending file was changed")
			}
		})
	}
	for name, data := range map[string][]byte{
		"empty":                    {},
		"header torn":              header[:9],
		"record torn":              good[:len(good)-1],
		"length torn":              good[:len(header)+2],
		"torn after a record":      twice[:len(twice)-3],
		"length torn after record": append(bytes.Clone(good), 0, 0),
		"record torn, then zeros":  append(bytes.Clone(good[:len(good)-6]), make([]byte, 512)...),
	} {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(p.state+".pending", data, 0o600); err != nil {
				t.Fatal(err)
			}
			var logs strings.Builder
			cfg := p.cfg
			cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			l, err := p.open(cfg)
			if err != nil {
				t.Fatalf("Open with a torn pending file = %v", err)
			}
			l.Close()
			if _, err := os.Stat(p.state + ".pending"); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("pending file after Open: %v", err)
			}
			if !strings.Contains(logs.String(), "dropped_bytes=") {
				t.Fatalf("no warning naming the dropped bytes: %s", logs.String())
			}
		})
	}
	// The header alone is an emptied file: nothing to wait for, no
	// warning, the file kept.
	t.Run("header only", func(t *testing.T) {
		if err := os.WriteFile(p.state+".pending", header, 0o600); err != nil {
			t.Fatal(err)
		}
		var logs strings.Builder
		cfg := p.cfg
		cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
		l, err := p.open(cfg)
		if err != nil {
			t.Fatalf("Open with an emptied pending file = %v", err)
		}
		l.Close()
		if strings.Contains(logs.String(), "pending") {
			t.Fatalf("Open with an emptied pending file logged: %s", logs.String())
		}
		if got := p.pendingFile(); !bytes.Equal(got, header) {
			t.Fatalf("emptied pending file after Open = %q, want its header", got)
		}
	})
	// A torn tail after a whole record whose leaf is not in the tree,
	// with the signer stalled: Open waits for that leaf (and fails), the
	// file rewritten without the tail.
	leaf := []byte("queued, never integrated")
	rec := binary.BigEndian.AppendUint32(nil, uint32(len(leaf)))
	rec = append(rec, leaf...)
	rec = binary.BigEndian.AppendUint32(rec, crc32.Checksum(rec, crc32.MakeTable(crc32.Castagnoli)))
	kept := append(bytes.Clone(header), rec...)
	if err := os.WriteFile(p.state+".pending", append(bytes.Clone(kept), record[:len(record)-3]...), 0o600); err != nil {
		t.Fatal(err)
	}
	p.stall(true)
	if l, err := p.open(p.cfg); !errors.Is(err, transparency.ErrUnavailable) || !strings.Contains(err.Error(), "1 of the 1") {
		if err == nil {
			l.Close()
		}
		t.Fatalf("Open with a record and a torn tail, the signer stalled = %v, want ErrUnavailable naming its leaf", err)
	}
	if got := p.pendingFile(); !bytes.Equal(got, kept) {
		t.Fatalf("pending file after dropping a torn tail = %q, want %q", got, kept)
	}
	p.stall(false)
	go func() {
		time.Sleep(100 * time.Millisecond)
		p.f.integrate(t)
	}()
	cfg := p.cfg
	cfg.PendingTimeout = 10 * time.Second
	p.mustOpen(cfg)
	if c := p.count(leaf); c != 1 {
		t.Fatalf("the kept record's leaf %d times in the tree, want once", c)
	}
}

// killableConn is the connection of an appliance that can be killed: once
// dead is set, every call fails at once, as for a process that no longer
// runs (its goroutines, left behind, reach neither Trillian nor the disk).
type killableConn struct {
	grpc.ClientConnInterface
	dead *atomic.Bool
}

func (c killableConn) Invoke(ctx context.Context, method string, args, reply any, opts ...grpc.CallOption) error {
	if c.dead.Load() {
		return status.Error(codes.Unavailable, "killed")
	}
	return c.ClientConnInterface.Invoke(ctx, method, args, reply, opts...)
}

// rngd killed (SIGKILL, power loss) while an append waits: its QueueLeaf
// was sent and the leaf sits in Trillian's queue (the signer has not run
// yet), but the append never returned nor reached its failure path. The
// leaf must be in the pending file already, written before the QueueLeaf:
// the restarted appliance then waits for it before anything else, instead
// of catching up to a log without it and appending the retried draw (a new
// record) beside it.
func TestPendingKilledWhileWaiting(t *testing.T) {
	const n = 2
	p := newPendingFixture(t, n)
	var dead atomic.Bool
	cfg := p.cfg
	cfg.Conn = killableConn{p.conn, &dead}
	cfg.AppendTimeout = time.Hour // it does not end by itself
	l := p.mustOpen(cfg)
	p.stall(true)
	leaf := []byte("start, queued when rngd was killed")
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { _, err := l.Append(ctx, leaf); errc <- err }()
	// Before l.Close (cleanups run last first): end the abandoned append.
	t.Cleanup(func() { cancel(); <-errc })
	for p.queueLeafCalls() == 0 {
		time.Sleep(time.Millisecond)
	}
	dead.Store(true) // killed: l is abandoned, never closed
	notReturned := func() {
		t.Helper()
		select {
		case err := <-errc:
			t.Fatalf("the killed append returned (%v): the kill is not simulated", err)
		default:
		}
	}
	notReturned()

	// Restarted with the signer still behind: Open finds the leaf and
	// waits for it, failing after PendingTimeout; rngd does not start.
	if l, err := p.open(p.cfg); !errors.Is(err, transparency.ErrUnavailable) || !strings.Contains(err.Error(), "1 of the 1") {
		if err == nil {
			l.Close()
		}
		t.Fatalf("Open after a kill, the killed append's leaf queued, not integrated = %v; want ErrUnavailable naming 1 leaf", err)
	}
	if !bytes.Contains(p.pendingFile(), leaf) {
		t.Fatal("pending file lacks the killed append's leaf")
	}

	// The signer back during Open: Open returns once the leaf is in the
	// log, once, and the retried draw follows it.
	cfg = p.cfg
	cfg.PendingTimeout = 10 * time.Second
	cfg.AppendTimeout = 10 * time.Second
	go func() {
		time.Sleep(200 * time.Millisecond)
		p.stall(false)
		p.f.integrate(t)
	}()
	l2 := p.mustOpen(cfg)
	if c := p.count(leaf); c != 1 {
		t.Fatalf("the killed append's leaf %d times in the tree, want once", c)
	}
	if _, err := os.Stat(p.state + ".pending"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("pending file after its leaves were integrated: %v", err)
	}
	if idx, err := l2.Append(t.Context(), []byte("the retried draw")); err != nil || idx != n+1 {
		t.Fatalf("Append after reopening = %d, %v; want %d", idx, err, n+1)
	}
	p.noRecords("after the retried draw")
	notReturned()
}

// aheadConn counts the QueueLeaf calls sent while their leaf is not in the
// pending file.
type aheadConn struct {
	grpc.ClientConnInterface
	path    string
	missing *atomic.Int32
}

func (c aheadConn) Invoke(ctx context.Context, method string, args, reply any, opts ...grpc.CallOption) error {
	if method == tpb.TrillianLog_QueueLeaf_FullMethodName {
		raw, _ := os.ReadFile(c.path)
		if !bytes.Contains(raw, args.(*tpb.QueueLeafRequest).GetLeaf().GetLeafValue()) {
			c.missing.Add(1)
		}
	}
	return c.ClientConnInterface.Invoke(ctx, method, args, reply, opts...)
}

// Each leaf is in the pending file before its QueueLeaf is sent, and the
// file does not grow with the appends acknowledged: it is emptied (its
// header alone) once none is outstanding — after each of appends one at a
// time, and once concurrent ones have all returned.
func TestPendingWriteAhead(t *testing.T) {
	const n = 1
	p := newPendingFixture(t, n)
	var missing atomic.Int32
	cfg := p.cfg
	cfg.Conn = aheadConn{p.conn, p.state + ".pending", &missing}
	cfg.AppendTimeout = 10 * time.Second // appends succeed: no deadline on a loaded machine
	l := p.mustOpen(cfg)
	ctx := t.Context()
	emptied := func(when string) {
		t.Helper()
		if got := p.pendingFile(); string(got) != trillian.PendingHeader {
			t.Fatalf("pending file %s holds %d bytes, want its %d-byte header alone", when, len(got), len(trillian.PendingHeader))
		}
	}
	for i := range 20 {
		if idx, err := l.Append(ctx, fmt.Appendf(nil, "sequential draw %d", i)); err != nil || idx != uint64(n+i) {
			t.Fatalf("Append %d = %d, %v", i, idx, err)
		}
		emptied(fmt.Sprintf("after append %d", i))
	}
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() {
			if _, err := l.Append(ctx, fmt.Appendf(nil, "concurrent draw %d", i)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	emptied("after 64 concurrent appends")
	if got := p.queueLeafCalls(); got != 84 {
		t.Errorf("%d QueueLeaf calls, want 84", got)
	}
	if m := missing.Load(); m != 0 {
		t.Fatalf("%d QueueLeaf sent before their leaf was in the pending file", m)
	}
	if err := l.Health(); err != nil {
		t.Fatalf("Health = %v", err)
	}
}

// A leaf that cannot be recorded ahead is not queued: the append fails
// before its QueueLeaf, and the log fails closed (the record may be whole
// on disk, and the next Open would queue it).
func TestPendingWriteAheadFailure(t *testing.T) {
	p := newPendingFixture(t, 1)
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := p.cfg
	cfg.StateFile = filepath.Join(dir, "trillian-checkpoint")
	l := p.mustOpen(cfg)
	if err := os.RemoveAll(dir); err != nil { // the pending file cannot be created
		t.Fatal(err)
	}
	_, err := l.Append(t.Context(), []byte("not recorded"))
	if !errors.Is(err, transparency.ErrUnavailable) || !strings.Contains(err.Error(), "before queueing it") {
		t.Fatalf("Append with the pending file unwritable = %v, want ErrUnavailable, not queued", err)
	}
	if got := p.queueLeafCalls(); got != 0 {
		t.Fatalf("%d QueueLeaf sent for a leaf not recorded", got)
	}
	if err := l.Health(); !errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("Health after a failed record = %v, want failed closed", err)
	}
	if _, err := l.Append(t.Context(), []byte("next")); !errors.Is(err, transparency.ErrUnavailable) || p.queueLeafCalls() != 0 {
		t.Fatalf("Append after a failed record = %v, want refused before queueing", err)
	}
}

// peakConn delays each call and records the most calls in flight at once.
type peakConn struct {
	grpc.ClientConnInterface
	delay    time.Duration
	in, peak *atomic.Int32
}

func (c peakConn) Invoke(ctx context.Context, method string, args, reply any, opts ...grpc.CallOption) error {
	n := c.in.Add(1)
	defer c.in.Add(-1)
	for p := c.peak.Load(); n > p && !c.peak.CompareAndSwap(p, n); p = c.peak.Load() {
	}
	time.Sleep(c.delay)
	return c.ClientConnInterface.Invoke(ctx, method, args, reply, opts...)
}

// writePendingFile writes a pending file listing leaves, as a killed
// appliance leaves it (not fsynced).
func (p *pendingFixture) writePendingFile(leaves [][]byte) {
	p.t.Helper()
	b := []byte(trillian.PendingHeader)
	for _, leaf := range leaves {
		b = trillian.AppendPendingRecord(b, leaf)
	}
	if err := os.WriteFile(p.state+".pending", b, 0o600); err != nil {
		p.t.Fatal(err)
	}
}

// A kill under load leaves hundreds of records: the outstanding ones, and
// up to 64 (pendingCompactRecords) whose appends were acknowledged.
// Open queues them all again and looks each up, but a few at a time: all
// at once, hundreds of QueueLeaf and inclusion-proof calls overran the
// database and timed out (TestCrash), and the appliance could not start.
func TestPendingSettleBounded(t *testing.T) {
	p := newPendingFixture(t, 2)
	var leaves [][]byte
	for i := range 300 {
		leaf := fmt.Appendf(nil, "acknowledged before the kill %d", i)
		leaves = append(leaves, leaf)
		if i < 280 { // the rest: queued, integrated during Open
			p.f.add(t, leaf)
		}
	}
	p.writePendingFile(leaves)
	var in, peak atomic.Int32
	cfg := p.cfg
	cfg.Conn = peakConn{p.conn, time.Millisecond, &in, &peak}
	cfg.PendingTimeout = time.Minute
	p.mustOpen(cfg)
	for _, leaf := range leaves {
		if c := p.count(leaf); c != 1 {
			t.Fatalf("%q %d times in the tree, want once", leaf, c)
		}
	}
	if _, err := os.Stat(p.state + ".pending"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("pending file after Open: %v", err)
	}
	if got := peak.Load(); got > 24 {
		t.Fatalf("Open sent up to %d Trillian calls at once for %d pending leaves, want a bounded number", got, len(leaves))
	}
	t.Logf("at most %d calls at once", peak.Load())
}

// eventList records events from several goroutines, in order.
type eventList struct {
	mu   sync.Mutex
	list []string
}

func (l *eventList) add(e string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.list = append(l.list, e)
}

// take returns the events recorded since the last take.
func (l *eventList) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	got := l.list
	l.list = nil
	return got
}

// A pending file the killed appliance wrote but had not fsynced yet (or
// whose directory entry it had not) is in the page cache only: Open must
// make it durable before it queues its leaves again, or a power cut then
// loses the file while Trillian holds the leaves.
func TestPendingOpenSyncsFirst(t *testing.T) {
	p := newPendingFixture(t, 1)
	leaf := []byte("written, not fsynced, when rngd was killed")
	p.writePendingFile([][]byte{leaf})
	var ev eventList
	event := ev.add
	trillian.SetPendingSyncs(t, func(f *os.File) error {
		event("sync " + filepath.Base(f.Name()))
		return f.Sync()
	}, func(dir string) error {
		event("sync dir")
		return os.ErrInvalid // the real one is not needed
	})
	cfg := p.cfg
	cfg.Conn = eventConn{p.conn, event}
	_, err := p.open(cfg)
	events := ev.take()
	first := slices.Index(events, "QueueLeaf")
	if f, d := slices.Index(events, "sync "+filepath.Base(p.state)+".pending"), slices.Index(events, "sync dir"); f < 0 || d < 0 || first >= 0 && (f > first || d > first) {
		t.Fatalf("Open: %q; want the pending file and its directory fsynced before any QueueLeaf", events)
	}
	// The directory fsync failed: Open refuses, naming the file, and
	// queues nothing.
	if !errors.Is(err, transparency.ErrUnavailable) || !strings.Contains(err.Error(), p.state+".pending") || first >= 0 {
		t.Fatalf("Open with the directory fsync failing = %v (events %q), want ErrUnavailable naming the file, nothing queued", err, events)
	}
}

// eventConn reports each QueueLeaf.
type eventConn struct {
	grpc.ClientConnInterface
	event func(string)
}

func (c eventConn) Invoke(ctx context.Context, method string, args, reply any, opts ...grpc.CallOption) error {
	if method == tpb.TrillianLog_QueueLeaf_FullMethodName {
		c.event("QueueLeaf")
	}
	return c.ClientConnInterface.Invoke(ctx, method, args, reply, opts...)
}

// removingConn removes the pending file when a QueueLeaf is sent: the
// cut that follows the append fails.
type removingConn struct {
	grpc.ClientConnInterface
	path string
}

func (c removingConn) Invoke(ctx context.Context, method string, args, reply any, opts ...grpc.CallOption) error {
	if method == tpb.TrillianLog_QueueLeaf_FullMethodName {
		os.Remove(c.path)
	}
	return c.ClientConnInterface.Invoke(ctx, method, args, reply, opts...)
}

// A cut that fails (here the file vanished) leaves the pending file
// written no more: the log fails closed at once — Health says so — rather
// than at the next append.
func TestPendingCutFailure(t *testing.T) {
	p := newPendingFixture(t, 1)
	cfg := p.cfg
	cfg.Conn = removingConn{p.conn, p.state + ".pending"}
	cfg.AppendTimeout = 10 * time.Second // the append succeeds: no deadline on a loaded machine
	l := p.mustOpen(cfg)
	if _, err := l.Append(t.Context(), []byte("acknowledged, then the cut fails")); err != nil {
		t.Fatalf("Append = %v (the leaf is acknowledged; the cut after it is the file's)", err)
	}
	if err := l.Health(); !errors.Is(err, transparency.ErrUnavailable) || !strings.Contains(err.Error(), p.state+".pending") {
		t.Fatalf("Health after a failed cut = %v, want failed closed, naming the pending file", err)
	}
	queued := p.queueLeafCalls()
	if _, err := l.Append(t.Context(), []byte("next")); !errors.Is(err, transparency.ErrUnavailable) || p.queueLeafCalls() != queued {
		t.Fatalf("Append after a failed cut = %v, want refused before queueing", err)
	}
}

// A disk that hangs (the write ahead never returns) does not hold appends
// beyond Config.AppendTimeout: they fail, before their QueueLeaf, and the
// log fails closed (the record may yet land). Close returns once the write
// does.
func TestPendingWriteAheadHung(t *testing.T) {
	p := newPendingFixture(t, 1)
	l := p.mustOpen(p.cfg) // AppendTimeout 300 ms
	release := make(chan struct{})
	l.SetPendingWriteAt(func(f *os.File, b []byte, off int64) (int, error) {
		<-release
		return f.WriteAt(b, off)
	})
	var once sync.Once
	unhang := func() { once.Do(func() { close(release) }) }
	t.Cleanup(unhang)
	errc := make(chan error, 3)
	for i := range 3 {
		go func() {
			_, err := l.Append(context.Background(), fmt.Appendf(nil, "disk hung %d", i))
			errc <- err
		}()
	}
	start := time.Now()
	for range 3 {
		select {
		case err := <-errc:
			if !errors.Is(err, transparency.ErrUnavailable) || !strings.Contains(err.Error(), p.state+".pending") {
				t.Fatalf("Append with the disk hung = %v, want ErrUnavailable naming the pending file", err)
			}
			t.Logf("Append after %v: %v", time.Since(start).Round(time.Millisecond), err)
		case <-time.After(5 * time.Second):
			t.Fatal("Append still waiting for a hung write 5 s on (AppendTimeout 300 ms)")
		}
	}
	if got := p.queueLeafCalls(); got != 0 {
		t.Fatalf("%d QueueLeaf sent for leaves not recorded", got)
	}
	if err := l.Health(); !errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("Health with the disk hung = %v, want failed closed", err)
	}
	closed := make(chan error, 1)
	go func() { closed <- l.Close() }()
	unhang()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close still waiting 5 s after the write returned")
	}
}

// The record is durable before its QueueLeaf: the file fsynced, and its
// directory too when the write creates it; a later write fsyncs the file
// alone; the cut after the append fsyncs the file.
func TestPendingWriteAheadSyncs(t *testing.T) {
	p := newPendingFixture(t, 1)
	var ev eventList
	event := ev.add
	trillian.SetPendingSyncs(t, func(f *os.File) error {
		event("sync file")
		return f.Sync()
	}, func(dir string) error {
		event("sync dir")
		return nil
	})
	cfg := p.cfg
	cfg.Conn = eventConn{p.conn, event}
	cfg.AppendTimeout = 10 * time.Second // appends succeed: no deadline on a loaded machine
	l := p.mustOpen(cfg)
	for i, want := range [][]string{
		{"sync file", "sync dir", "QueueLeaf", "sync file"}, // created, cut
		{"sync file", "QueueLeaf", "sync file"},             // written after the header, cut
	} {
		ev.take()
		if _, err := l.Append(t.Context(), fmt.Appendf(nil, "draw %d", i)); err != nil {
			t.Fatal(err)
		}
		got := ev.take()
		if !slices.Equal(got, want) {
			t.Fatalf("append %d: %q, want %q", i, got, want)
		}
	}
}
