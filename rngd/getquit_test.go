package rngd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	bolt "go.etcd.io/bbolt"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/prometheus/client_golang/prometheus"

	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/checkpoint"
	vcheckpoint "tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/verdict"
)

// getQuit asks game server c for the quit of code.
func getQuit(c qodv1.QuitteOuDoubleClient, code string) (*qodv1.QuitResponse, error) {
	return c.GetQuit(context.Background(), &qodv1.GetQuitRequest{Code: code})
}

// TestGetQuit: with the default log.receipt_wait ("0s") a Quit's receipt
// has no checkpoint, and proves nothing in a dispute; GetQuit returns the
// quit with its receipt — the very record, leaf hash and log index Quit
// gave — and the signed checkpoint and inclusion proof, which
// rngd.VerifyQuitReceipt and rngverify receipt accept. It is the quitting
// game server's only (QUIT_NOT_OWNED to another); a ticket not quit is
// TICKET_NOT_QUIT, a started one TICKET_STARTED, a malformed or unknown
// code as for Quit. It seals nothing, and answers the same after the state
// store was lost (the quit's index rebuilt from the log).
func TestGetQuit(t *testing.T) {
	td := newTestDaemon(t)
	cs := td.emission("GQ", "2026-12-31", 6)
	a, b := td.client("server-a"), td.client("server-b")
	vkey := td.d.engine.tlog.VerifierKeys()[0]
	keys, err := vcheckpoint.ParseKeys(vkey)
	if err != nil {
		t.Fatal(err)
	}
	first, err := quitCode(a, rid(), cs[1])
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Receipt.Checkpoint) > 0 {
		t.Fatalf("Quit's receipt carries a checkpoint without log.receipt_wait: the gap this test is about is gone")
	}
	proven := func(when string, got *qodv1.QuitResponse) {
		t.Helper()
		// Quit's reply, plus the checkpoint and proof.
		bare := proto.Clone(got).(*qodv1.QuitResponse)
		bare.Receipt.Checkpoint, bare.Receipt.InclusionProof = nil, nil
		if !proto.Equal(bare, first) {
			t.Fatalf("%s: GetQuit %v, want Quit's reply %v with proofs", when, got, first)
		}
		v, err := VerifyQuitReceipt(got.Receipt, vkey)
		if err != nil || v.CheckpointSize <= got.Receipt.LogIndex || v.Quit.Server != "server-a" {
			t.Fatalf("%s: VerifyQuitReceipt %+v %v, want the record proven in a checkpoint", when, v, err)
		}
		j, err := protojson.Marshal(got.Receipt)
		if err != nil {
			t.Fatal(err)
		}
		vd := receipt.VerifyReceipt(j, receipt.Anchors{LogKeys: keys, Location: td.d.engine.loc})
		if c := vd.Find(verdict.CheckInclusion); vd.Status() != verdict.StatusPass || c == nil || c.Status != verdict.StatusPass {
			t.Fatalf("%s: rngverify receipt, want a pass with inclusion:\n%s", when, vd.Text("en"))
		}
	}
	size := td.d.engine.tlog.(transparency.Sequencer).Sequenced()
	got, err := getQuit(a, cs[1])
	if err != nil {
		t.Fatal(err)
	}
	proven("GetQuit", got)
	// The code is case-insensitive, as Quit's.
	if got, err = getQuit(a, strings.ToLower(cs[1])); err != nil {
		t.Fatal(err)
	}
	proven("GetQuit in lower case", got)

	get := func(c qodv1.QuitteOuDoubleClient, code string) func() error {
		return func() error { _, err := getQuit(c, code); return err }
	}
	refusedFor(t, td, reasonQuitNotOwned, "code: the ticket was quit by another game server", get(b, cs[1]))
	if st := status.Convert(get(b, cs[1])()); st.Code() != codes.PermissionDenied {
		t.Errorf("another game server's quit: %v, want PERMISSION_DENIED", st.Code())
	}
	refusedFor(t, td, reasonCodeInvalid, "code", get(a, "ABC"))
	refusedFor(t, td, reasonUnknownCode, "code: no ticket", get(a, "ZZZZZZZZZZZZZZZZZZ"))
	refusedFor(t, td, reasonTicketNotQuit, "code: the ticket was not quit", get(a, cs[2]))
	if st := status.Convert(get(b, cs[2])()); st.Code() != codes.NotFound {
		t.Errorf("a ticket not quit: %v, want NOT_FOUND", st.Code())
	}
	start(t, a, cs[3])
	refusedFor(t, td, reasonTicketStarted, "code: ticket already started stage 2", get(a, cs[3]))
	refusedFor(t, td, reasonTicketStarted, "code", get(b, cs[3]))
	if now := td.d.engine.tlog.(transparency.Sequencer).Sequenced(); now != size+1 { // the start
		t.Fatalf("GetQuit sealed %d records", now-size-1)
	}
	// The ticket not quit is still free.
	if _, err := quitCode(b, rid(), cs[2]); err != nil {
		t.Fatalf("quit after GetQuit: %v", err)
	}

	td.stop()
	if err := os.Remove(filepath.Join(td.cfg.DataDir, "state.db")); err != nil {
		t.Fatal(err)
	}
	td.start()
	a = td.client("server-a")
	if got, err = getQuit(a, cs[1]); err != nil {
		t.Fatal(err)
	}
	proven("after losing state.db", got)
}

// storeQuit makes the state store keep the quit of ticket as edit changes
// it (a corrupt store, or one an older rngd wrote).
func storeQuit(t *testing.T, td *testDaemon, ticket [32]byte, edit func(*storedQuit)) {
	t.Helper()
	err := td.d.engine.store.db.Update(func(tx *bolt.Tx) error {
		var st storedTicket
		if ok, err := getJSON(tx, bucketTickets, ticket[:], &st); err != nil || !ok {
			return fmt.Errorf("ticket: %v %v", ok, err)
		}
		edit(st.Quit)
		return putJSON(tx, bucketTickets, ticket[:], &st)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A state store that names as a ticket's quit a log record that is not its
// ticket_quit (another kind, another ticket's quit) is the operator's to
// investigate: GetQuit answers INTERNAL, saying nothing of the records,
// raises the store's alarm, and never shows the other record.
func TestGetQuitStoreMismatch(t *testing.T) {
	td := newTestDaemon(t)
	cs, tickets := DemoTickets("GM", []byte("test seed"), 4)
	td.emission("GM", "2026-12-31", 4)
	a := td.client("server-a")
	q1, err := quitCode(a, rid(), cs[1])
	if err != nil {
		t.Fatal(err)
	}
	q2, err := quitCode(a, rid(), cs[2])
	if err != nil {
		t.Fatal(err)
	}
	alarms := td.d.engine.metrics.alarms.WithLabelValues("store")
	for what, idx := range map[string]uint64{"the manifest": q1.Receipt.LogIndex - 1, "another ticket's quit": q2.Receipt.LogIndex} {
		storeQuit(t, td, tickets[1].TicketHash, func(q *storedQuit) { q.Index = idx })
		before := counterValue(alarms)
		var got *qodv1.QuitResponse
		refusedFor(t, td, reasonInternal, "internal error: the operator is alerted", func() error {
			var err error
			got, err = getQuit(a, cs[1])
			return err
		})
		if got != nil {
			t.Fatalf("%s: a reply %v", what, got)
		}
		if counterValue(alarms) != before+1 {
			t.Errorf("%s: the store's alarm was not raised", what)
		}
		msg := status.Convert(func() error { _, err := getQuit(a, cs[1]); return err }()).Message()
		if strings.Contains(msg, "log index") || strings.Contains(msg, "ticket_quit") || strings.Contains(msg, "manifest") {
			t.Errorf("%s: the game server reads the cause: %q", what, msg)
		}
		if !bytes.Contains(td.logs(), []byte("is not its ticket_quit")) {
			t.Errorf("%s: the cause is not in rngd's log", what)
		}
	}
	storeQuit(t, td, tickets[1].TicketHash, func(q *storedQuit) { q.Index = q1.Receipt.LogIndex })
	if _, err := getQuit(a, cs[1]); err != nil {
		t.Fatalf("the store mended: %v", err)
	}
	// A store naming another game server than the log's record: the
	// log's is not shown to the one the store names, and the operator is
	// alerted.
	storeQuit(t, td, tickets[1].TicketHash, func(q *storedQuit) { q.Server = "server-b" })
	before := counterValue(alarms)
	refusedFor(t, td, reasonInternal, "internal error: the operator is alerted", func() error {
		_, err := getQuit(td.client("server-b"), cs[1])
		return err
	})
	if counterValue(alarms) != before+1 {
		t.Errorf("another game server stored: the store's alarm was not raised")
	}
	if !bytes.Contains(td.logs(), []byte("its game server is not the one the store keeps")) {
		t.Errorf("another game server stored: the cause is not in rngd's log")
	}
}

// heldLog is a log whose checkpoints are held back (staleLog: none covers
// a later record) and which counts what it is asked for: checkpoints and
// entries.
type heldLog struct {
	staleLog
	asked *atomic.Int64
}

func (l heldLog) Checkpoint(ctx context.Context) (*checkpoint.Checkpoint, error) {
	l.asked.Add(1)
	return l.staleLog.Checkpoint(ctx)
}

func (l heldLog) AwaitCheckpoint(ctx context.Context, size uint64) (*checkpoint.Checkpoint, error) {
	l.asked.Add(1)
	return l.staleLog.AwaitCheckpoint(ctx, size)
}

func (l heldLog) Entries(ctx context.Context, start, end, size uint64) ([][]byte, error) {
	l.asked.Add(1)
	return l.staleLog.Entries(ctx, start, end, size)
}

// Another game server's GetQuit is refused QUIT_NOT_OWNED from the state
// store, which keeps the quit's game server: with the log's checkpoints
// held back it asks the log nothing — before, it waited up to receiptWait
// for a checkpoint covering the quit, and read the record, to refuse a
// reply it would never give (here: CHECKPOINT_PENDING). The quitting game
// server's own GetQuit does ask the log (the held log is in its path). The
// store keeps the game server across a catch-up from the log, a rebuild
// (rngctl state rebuild) and a lost state store.
func TestGetQuitNotOwnedAtOnce(t *testing.T) {
	td := newTestDaemon(t)
	ctx := context.Background()
	cs := td.emission("GN", "2026-12-31", 3)
	e := td.d.engine
	held, err := e.tlog.AwaitCheckpoint(ctx, e.tlog.(transparency.Sequencer).Sequenced())
	if err != nil {
		t.Fatal(err)
	}
	state, unquit := td.snapshotState()
	td.start()
	if _, err := quitCode(td.client("server-a"), rid(), cs[1]); err != nil {
		t.Fatal(err)
	}
	atOnce := func(when string) {
		t.Helper()
		e := td.d.engine
		asked := new(atomic.Int64)
		tl := e.tlog
		e.tlog = heldLog{staleLog{tl, held}, asked}
		defer func() { e.tlog = tl }()
		a, b := td.client("server-a"), td.client("server-b")
		ok := t.Run(when, func(t *testing.T) {
			refusedFor(t, td, reasonQuitNotOwned, "code: the ticket was quit by another game server", func() error {
				_, err := getQuit(b, cs[1])
				return err
			})
			if n := asked.Load(); n != 0 {
				t.Errorf("another game server's GetQuit asked the log %d times, want none", n)
			}
			_, err := getQuit(a, cs[1])
			wantRefusal(t, err, reasonCheckpointPending, "no checkpoint covers the ticket's quit")
			if asked.Load() == 0 {
				t.Errorf("the quitting game server's GetQuit did not ask the held log")
			}
		})
		if !ok {
			t.FailNow()
		}
	}
	atOnce("after the quit")
	for _, step := range []struct {
		when string
		do   func() error // on the stopped daemon's data directory
	}{
		// The store as it was before the quit: Open catches it up from
		// the log.
		{"after a catch-up from the log", func() error { return os.WriteFile(state, unquit, 0o600) }},
		{"after a rebuild", func() error { _, err := Rebuild(ctx, td.cfg); return err }},
		{"after losing state.db", func() error { return os.Remove(state) }},
	} {
		td.stop()
		if err := step.do(); err != nil {
			t.Fatalf("%s: %v", step.when, err)
		}
		td.start()
		atOnce(step.when)
	}
}

// A quit stored without its game server (by an older rngd, in the same
// store format 6) is checked against the log as before: another game
// server is refused QUIT_NOT_OWNED once the record is read, the quitting
// one gets its receipt.
func TestGetQuitStoredWithoutServer(t *testing.T) {
	td := newTestDaemon(t)
	cs, tickets := DemoTickets("GO", []byte("test seed"), 3)
	td.emission("GO", "2026-12-31", 3)
	a, b := td.client("server-a"), td.client("server-b")
	first, err := quitCode(a, rid(), cs[1])
	if err != nil {
		t.Fatal(err)
	}
	storeQuit(t, td, tickets[1].TicketHash, func(q *storedQuit) { q.Server = "" })
	raw := func() []byte {
		var b []byte
		td.d.engine.store.db.View(func(tx *bolt.Tx) error {
			b = bytes.Clone(tx.Bucket(bucketTickets).Get(tickets[1].TicketHash[:]))
			return nil
		})
		return b
	}()
	if bytes.Contains(raw, []byte("Server")) {
		t.Fatalf("a quit stored without its game server: %s", raw)
	}
	refusedFor(t, td, reasonQuitNotOwned, "code: the ticket was quit by another game server", func() error {
		_, err := getQuit(b, cs[1])
		return err
	})
	got, err := getQuit(a, cs[1])
	if err != nil || got.Receipt.LogIndex != first.Receipt.LogIndex || len(got.Receipt.Checkpoint) == 0 {
		t.Fatalf("the quitting game server's GetQuit: %v %v", got, err)
	}
}

// staleLog is a log whose checkpoint stays cp: no checkpoint covers a
// later record.
type staleLog struct {
	transparency.Log
	cp *checkpoint.Checkpoint
}

func (l staleLog) Checkpoint(context.Context) (*checkpoint.Checkpoint, error) { return l.cp, nil }

func (l staleLog) AwaitCheckpoint(ctx context.Context, size uint64) (*checkpoint.Checkpoint, error) {
	if size <= l.cp.Size {
		return l.cp, nil
	}
	return nil, context.DeadlineExceeded
}

// A quit the log cannot show is refused for the log's failure, as a
// transcript is: CHECKPOINT_PENDING while no checkpoint covers it yet
// (retry in a moment), LOG_INTEGRITY for a log found forked, LOG_UNAVAILABLE
// for one that failed — never a receipt without its proof.
func TestGetQuitLogFailures(t *testing.T) {
	td := newTestDaemon(t)
	e := td.d.engine
	ctx := context.Background()
	cs := td.emission("GL", "2026-12-31", 3)
	a := td.client("server-a")
	before, err := e.tlog.AwaitCheckpoint(ctx, e.tlog.(transparency.Sequencer).Sequenced())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := quitCode(a, rid(), cs[1]); err != nil {
		t.Fatal(err)
	}
	get := func() error { _, err := getQuit(a, cs[1]); return err }
	tl := e.tlog
	e.tlog = staleLog{tl, before}
	defer func() { e.tlog = tl }()
	refusedFor(t, td, reasonCheckpointPending, "no checkpoint covers the ticket's quit", get)
	e.tlog = tl
	// The checkpoint is awaited (AwaitCheckpoint): its read is the
	// checkpoint's failure only once the wait failed.
	refusedForLogReads(t, td, get, false)
}

// Every method of the game servers' service, GetQuit included, and every
// call Play carries, goes through the daemon's interceptors and checks: timed by method
// (tirage_call_seconds), refused IDENTITY_INVALID for a certificate naming
// no usable identity, and RESOURCE_EXHAUSTED for a request over
// tcpMaxRecvMsgSize. A method added without its identity check fails here.
func TestGameServerMethods(t *testing.T) {
	td := newTestDaemon(t)
	ctx := context.Background()
	odd := td.connAs("#admin")
	cc := td.conn("server-a")
	names := map[string]bool{}
	for _, m := range qodv1.QuitteOuDouble_ServiceDesc.Methods {
		names[m.MethodName] = true
		full := "/" + qodv1.QuitteOuDouble_ServiceDesc.ServiceName + "/" + m.MethodName
		calls := td.d.engine.metrics.callSeconds.WithLabelValues(m.MethodName).(prometheus.Histogram)
		n := counterValue(calls)
		var out []byte
		empty := []byte{}
		err := odd.Invoke(ctx, full, &empty, &out, grpc.ForceCodec(rawCodec{}))
		wantRefusal(t, err, reasonIdentityInvalid, "identity")
		if got := counterValue(calls); got != n+1 {
			t.Errorf("%s: tirage_call_seconds counted %v calls, want 1", m.MethodName, got-n)
		}
		big := bytes.Repeat([]byte{0}, tcpMaxRecvMsgSize+1)
		if err := cc.Invoke(ctx, full, &big, &out, grpc.ForceCodec(rawCodec{})); status.Code(err) != codes.ResourceExhausted {
			t.Errorf("%s with a %d-byte request: %v, want RESOURCE_EXHAUSTED", m.MethodName, len(big), err)
		}
	}
	if !names["GetQuit"] || len(qodv1.QuitteOuDouble_ServiceDesc.Streams) != 1 || qodv1.QuitteOuDouble_ServiceDesc.Streams[0].StreamName != "Play" {
		t.Fatalf("the service's methods: %v, streams %v", names, qodv1.QuitteOuDouble_ServiceDesc.Streams)
	}
	// Play's calls are its methods': the same checks, as results.
	ps, err := qodv1.NewQuitteOuDoubleClient(odd).Play(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []*qodv1.PlayCall{
		{Call: &qodv1.PlayCall_StartGame{StartGame: &qodv1.StartGameRequest{}}},
		{Call: &qodv1.PlayCall_Quit{Quit: &qodv1.QuitRequest{}}},
		{Call: &qodv1.PlayCall_Pick{Pick: &qodv1.PickRequest{}}},
		{Call: &qodv1.PlayCall_Decide{Decide: &qodv1.DecideRequest{}}},
		{Call: &qodv1.PlayCall_GetGame{GetGame: &qodv1.GetGameRequest{}}},
	} {
		m := c.ProtoReflect()
		method := string(m.WhichOneof(m.Descriptor().Oneofs().ByName("call")).Message().Name())
		method = strings.TrimSuffix(method, "Request")
		calls := td.d.engine.metrics.callSeconds.WithLabelValues(method).(prometheus.Histogram)
		n := counterValue(calls)
		c.Tag = uint64(i)
		if err := ps.Send(c); err != nil {
			t.Fatal(err)
		}
		r, err := ps.Recv()
		if err != nil || r.Tag != uint64(i) {
			t.Fatalf("%s on Play: %v %v", method, r, err)
		}
		wantRefusal(t, refusalErr(r), reasonIdentityInvalid, "identity")
		if got := counterValue(calls); got != n+1 {
			t.Errorf("%s on Play: tirage_call_seconds counted %v calls, want 1", method, got-n)
		}
	}
	big, err := qodv1.NewQuitteOuDoubleClient(cc).Play(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Send(&qodv1.PlayCall{Call: &qodv1.PlayCall_GetGame{GetGame: &qodv1.GetGameRequest{GameId: strings.Repeat("x", tcpMaxRecvMsgSize)}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := big.Recv(); status.Code(err) != codes.ResourceExhausted {
		t.Errorf("Play with a call over %d bytes: %v, want RESOURCE_EXHAUSTED", tcpMaxRecvMsgSize, err)
	}
}
