package rngd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"golang.org/x/mod/sumdb/tlog"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/checkpoint"
)

func counterValue(c prometheus.Collector) float64 {
	ch := make(chan prometheus.Metric, 1)
	c.Collect(ch)
	var m dto.Metric
	(<-ch).Write(&m)
	if m.Histogram != nil {
		return float64(m.Histogram.GetSampleCount())
	}
	return m.GetCounter().GetValue()
}

// refusedFor checks that call, over real gRPC, is refused for reason r
// (its code, its ErrorInfo detail, substr in its message) and that the
// refusal moved r's series of tirage_refusals_total, and only it.
func refusedFor(t *testing.T, td *testDaemon, r reason, substr string, call func() error) {
	t.Helper()
	m := td.d.engine.metrics
	series := m.refusals.WithLabelValues(string(r), reasons[r].String())
	before, all := counterValue(series), totalRefusals(m)
	wantRefusal(t, call(), r, substr)
	if got := counterValue(series); got != before+1 {
		t.Errorf("tirage_refusals_total{reason=%q,code=%q}: %v -> %v, want +1", r, reasons[r], before, got)
	}
	if got := totalRefusals(m); got != all+1 {
		t.Errorf("tirage_refusals_total moved by %v for one refusal (%s)", got-all, r)
	}
}

func totalRefusals(m *metrics) float64 {
	ch := make(chan prometheus.Metric, 256)
	go func() { m.refusals.Collect(ch); close(ch) }()
	var n float64
	for x := range ch {
		var d dto.Metric
		x.Write(&d)
		n += d.GetCounter().GetValue()
	}
	return n
}

// Every refusal of a rule, of the game servers' API and of the admin API
// (ImportManifest, a client stream, included), carries its reason in an
// ErrorInfo detail and is counted under it.
func TestRefusalReasons(t *testing.T) {
	td := newTestDaemon(t)
	ctx := context.Background()
	// Closure 2026-11-01: starts until 2026-12-01 00:00 Paris; the clock is
	// at 2026-11-30 10:00 UTC.
	codes1 := td.emission("RS", "2026-11-01", 20)
	a, b, adm := td.client("server-a"), td.client("server-b"), td.admin()

	// A game in play after a good pick.
	var g *qodv1.Game
	next := 0
	for g == nil || g.Status != qodv1.Status_STATUS_PLAYING {
		next++
		g = start(t, a, codes1[next]).Game
		r, err := a.Pick(ctx, &qodv1.PickRequest{RequestId: rid(), GameId: g.GameId, Number: 1})
		if err != nil {
			t.Fatal(err)
		}
		g = r.Game
	}
	id := g.GameId
	pick := func(c qodv1.QuitteOuDoubleClient, req *qodv1.PickRequest) func() error {
		return func() error { _, err := c.Pick(ctx, req); return err }
	}
	decide := func(d qodv1.Decision) func() error {
		return func() error {
			_, err := a.Decide(ctx, &qodv1.DecideRequest{RequestId: rid(), GameId: id, Decision: d})
			return err
		}
	}
	startCode := func(reqID, code string) func() error {
		return func() error {
			_, err := a.StartGame(ctx, &qodv1.StartGameRequest{RequestId: reqID, Code: code})
			return err
		}
	}

	refusedFor(t, td, reasonRequestIDInvalid, "request_id", pick(a, &qodv1.PickRequest{GameId: id, Number: 2}))
	refusedFor(t, td, reasonGameIDMissing, "game_id", pick(a, &qodv1.PickRequest{RequestId: rid(), Number: 2}))
	refusedFor(t, td, reasonUnknownGame, "game_id", pick(a, &qodv1.PickRequest{RequestId: rid(), GameId: "server-a/none", Number: 2}))
	refusedFor(t, td, reasonGameNotOwned, "another game server", pick(b, &qodv1.PickRequest{RequestId: rid(), GameId: id, Number: 2}))
	refusedFor(t, td, reasonNumberRange, "number", pick(a, &qodv1.PickRequest{RequestId: rid(), GameId: id, Number: 31}))
	refusedFor(t, td, reasonNumberPicked, "already picked", pick(a, &qodv1.PickRequest{RequestId: rid(), GameId: id, Number: 1}))
	refusedFor(t, td, reasonNotAtTier, "not at a tier", decide(qodv1.Decision_DECISION_STOP))
	refusedFor(t, td, reasonDecisionInvalid, "decision", decide(qodv1.Decision_DECISION_UNSPECIFIED))
	reused := rid()
	if err := pick(a, &qodv1.PickRequest{RequestId: reused, GameId: id, Number: 2})(); err != nil {
		t.Fatal(err)
	}
	refusedFor(t, td, reasonRequestIDReused, "request_id", pick(a, &qodv1.PickRequest{RequestId: reused, GameId: id, Number: 3}))

	refusedFor(t, td, reasonCodeInvalid, "code", startCode(rid(), "ABC"))
	refusedFor(t, td, reasonUnknownCode, "code", startCode(rid(), "ZZZZZZZZZZZZZZZZZZ"))
	refusedFor(t, td, reasonCodePlayed, "already played", startCode(rid(), codes1[next]))
	// QUITTER and CONTINUER exclude each other (art. 2.2.3).
	if _, err := a.Quit(ctx, &qodv1.QuitRequest{RequestId: rid(), Code: codes1[19]}); err != nil {
		t.Fatal(err)
	}
	refusedFor(t, td, reasonTicketQuit, "code: ticket quit", startCode(rid(), codes1[19]))
	refusedFor(t, td, reasonTicketStarted, "code: ticket already started stage 2", func() error {
		_, err := a.Quit(ctx, &qodv1.QuitRequest{RequestId: rid(), Code: codes1[next]})
		return err
	})

	// A refunded game is over.
	over := start(t, a, codes1[next+1]).Game
	if _, err := adm.RefundGame(ctx, &adminv1.RefundGameRequest{RequestId: rid(), GameId: over.GameId, Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	refusedFor(t, td, reasonGameOver, "game over", pick(a, &qodv1.PickRequest{RequestId: rid(), GameId: over.GameId, Number: 5}))

	// The admin API, ImportManifest (a client stream) included.
	refusedFor(t, td, reasonRefundReasonMissing, "reason", func() error {
		_, err := adm.RefundGame(ctx, &adminv1.RefundGameRequest{RequestId: rid(), GameId: id})
		return err
	})
	refusedFor(t, td, reasonRefundReasonInvalid, "reason", func() error {
		_, err := adm.RefundGame(ctx, &adminv1.RefundGameRequest{RequestId: rid(), GameId: id, Reason: "\u202e"})
		return err
	})
	refusedFor(t, td, reasonEmissionIDInvalid, "emission_id", func() error {
		_, err := adm.CreateEmission(ctx, &adminv1.CreateEmissionRequest{RequestId: rid(), EmissionId: "bad id", ClosureDate: "2026-12-01"})
		return err
	})
	refusedFor(t, td, reasonClosureDateInvalid, "closure_date", func() error {
		_, err := adm.CreateEmission(ctx, &adminv1.CreateEmissionRequest{RequestId: rid(), EmissionId: "E2", ClosureDate: "2026-13-01"})
		return err
	})
	// A duplicate is ALREADY_EXISTS: gRPC's guide for "an entity a client
	// attempted to create", as REQUEST_ID_REUSED.
	alreadyExists := func(call func() error) func() error {
		return func() error {
			err := call()
			if status.Code(err) != codes.AlreadyExists {
				t.Errorf("%v: want ALREADY_EXISTS", err)
			}
			return err
		}
	}
	refusedFor(t, td, reasonEmissionExists, "already registered", alreadyExists(func() error {
		_, err := adm.CreateEmission(ctx, &adminv1.CreateEmissionRequest{RequestId: rid(), EmissionId: "RS", ClosureDate: "2026-11-01"})
		return err
	}))
	calls := td.d.engine.metrics.callSeconds.WithLabelValues("ImportManifest").(prometheus.Histogram)
	imports := counterValue(calls)
	_, tickets := DemoTickets("RS", []byte("test seed"), 3)
	refusedFor(t, td, reasonUnknownEmission, "emission_id", func() error {
		_, err := ImportTickets(ctx, adm, rid(), "NOPE", nil)
		return err
	})
	refusedFor(t, td, reasonManifestInvalid, "count", func() error {
		_, err := ImportTickets(ctx, adm, rid(), "RS", nil)
		return err
	})
	// The header's fields are checked before the upload: a malformed id
	// is not an unknown one.
	refusedFor(t, td, reasonEmissionIDInvalid, "emission", func() error {
		_, err := ImportTickets(ctx, adm, rid(), "bad id", nil)
		return err
	})
	refusedFor(t, td, reasonRequestIDInvalid, "request_id", func() error {
		_, err := ImportTickets(ctx, adm, "bad request id", "RS", nil)
		return err
	})
	refusedFor(t, td, reasonTicketImported, "already imported", alreadyExists(func() error {
		_, err := ImportTickets(ctx, adm, rid(), "RS", tickets)
		return err
	}))
	if got := counterValue(calls); got != imports+5 {
		t.Errorf("tirage_call_seconds{method=\"ImportManifest\"} counted %v calls, want 5", got-imports)
	}

	// Time: past the emission's start deadline, and past the play window
	// of a game in play (one just started: no pick can have lost it, as
	// the pick of 2 above may have lost the first).
	playing := start(t, a, codes1[next+3]).Game
	td.clock.Advance(30 * 24 * time.Hour)
	refusedFor(t, td, reasonDeadlinePassed, "start deadline passed", startCode(rid(), codes1[next+2]))
	refusedFor(t, td, reasonGameExpired, "expired", pick(a, &qodv1.PickRequest{RequestId: rid(), GameId: playing.GameId, Number: 4}))
}

// An id from the request is quoted in part, not echoed whole: a 1 MB game
// id gives a short message.
func TestRefusalQuotesInput(t *testing.T) {
	td := newTestDaemon(t)
	ctx := context.Background()
	// The largest a game server may send (tcpMaxRecvMsgSize); the admin
	// socket takes more.
	long := "server-a/" + strings.Repeat("x", tcpMaxRecvMsgSize-64)
	_, err := td.client("server-a").GetGame(ctx, &qodv1.GetGameRequest{GameId: long})
	wantRefusal(t, err, reasonUnknownGame, "game_id: no game \"server-a/xxx")
	if msg := status.Convert(err).Message(); len(msg) > 200 || !strings.Contains(msg, fmt.Sprintf("%d bytes", len(long))) {
		t.Fatalf("message of %d bytes: %.300s", len(msg), msg)
	}
	huge := "server-a/" + strings.Repeat("x", 1<<20)
	_, err = td.admin().CreateEmission(ctx, &adminv1.CreateEmissionRequest{RequestId: rid(), EmissionId: huge, ClosureDate: "2026-12-01"})
	wantRefusal(t, err, reasonEmissionIDInvalid, "emission_id")
	_, err2 := td.admin().CreateEmission(ctx, &adminv1.CreateEmissionRequest{RequestId: rid(), EmissionId: "E", ClosureDate: huge})
	wantRefusal(t, err2, reasonClosureDateInvalid, "closure_date")
	for _, err := range []error{err, err2} {
		if msg := status.Convert(err).Message(); len(msg) > 200 {
			t.Fatalf("message of %d bytes: %.300s", len(msg), msg)
		}
	}
}

// A secret store that fails reading is UNAVAILABLE (SECRETS_UNAVAILABLE),
// not INTERNAL, wherever a game in play is read: listing the unfinished
// games, and a retry answered from its stored reply.
func TestSecretStoreReadUnavailable(t *testing.T) {
	td := newTestDaemon(t)
	ctx := context.Background()
	codes1 := td.emission("SR", "2026-12-31", 10)
	a := td.client("server-a")
	var g *qodv1.Game
	var req *qodv1.PickRequest
	for i := 1; g == nil || g.Status != qodv1.Status_STATUS_PLAYING; i++ {
		g = start(t, a, codes1[i]).Game
		req = &qodv1.PickRequest{RequestId: rid(), GameId: g.GameId, Number: 1}
		r, err := a.Pick(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		g = r.Game
	}
	e := td.d.engine
	if err := e.store.sync(); err != nil { // the reply is stored as its records
		t.Fatal(err)
	}
	if err := e.secrets.db.Close(); err != nil {
		t.Fatal(err)
	}
	refusedFor(t, td, reasonSecretsUnavailable, "secret store", func() error {
		_, err := a.ListUnfinishedGames(ctx, &qodv1.ListUnfinishedGamesRequest{})
		return err
	})
	refusedFor(t, td, reasonSecretsUnavailable, "secret store", func() error {
		_, err := a.Pick(ctx, req)
		return err
	})
}

// A refusal without a reason of ours is counted, and answered, under its
// code's name; a reason outside the set is not a label.
func TestReasonFallback(t *testing.T) {
	if r := reasonOf(errors.New("plain")); r != "UNKNOWN" {
		t.Errorf("plain error: %s", r)
	}
	if r := reasonOf(status.Error(codes.ResourceExhausted, "x")); r != "RESOURCE_EXHAUSTED" {
		t.Errorf("status without detail: %s", r)
	}
	if r := reasonOf(withReason(status.New(codes.Internal, "x"), "MADE_UP").Err()); r != "INTERNAL" {
		t.Errorf("unknown reason: %s", r)
	}
	err := withFallbackReason(status.Error(codes.Canceled, "gone"))
	if r, ok := reasonDetail(status.Convert(err)); !ok || r != "CANCELLED" || status.Convert(err).Message() != "gone" {
		t.Errorf("fallback detail: %s %v %v", r, ok, err)
	}
	for r, c := range reasons {
		if reasonOf(refuse(r, "m")) != r || status.Code(refuse(r, "m")) != c {
			t.Errorf("refuse(%s)", r)
		}
		if len(r) > 63 || strings.ToUpper(string(r)) != string(r) {
			t.Errorf("reason %q is not UPPER_SNAKE of at most 63 characters", r)
		}
	}
}

// Every reason is documented for game servers and operators.
func TestReasonsDocumented(t *testing.T) {
	var docs []byte
	for _, f := range []string{"api/tirage/qod/v1/qod.proto", "api/tirage/admin/v1/admin.proto", "../docs/rngd.md"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, b...)
	}
	for r := range reasons {
		if !strings.Contains(string(docs), string(r)) {
			t.Errorf("reason %s is not documented", r)
		}
	}
}

// readFailingLog fails the log's reads the transcript makes: Checkpoint
// with cpErr, Entries and InclusionProof with readErr (when set).
type readFailingLog struct {
	transparency.Log
	cpErr, entriesErr, proofErr error
}

func (l readFailingLog) Checkpoint(ctx context.Context) (*checkpoint.Checkpoint, error) {
	if l.cpErr != nil {
		return nil, l.cpErr
	}
	return l.Log.Checkpoint(ctx)
}

func (l readFailingLog) Entries(ctx context.Context, start, end, size uint64) ([][]byte, error) {
	if l.entriesErr != nil {
		return nil, l.entriesErr
	}
	return l.Log.Entries(ctx, start, end, size)
}

func (l readFailingLog) InclusionProof(ctx context.Context, index, size uint64) (tlog.RecordProof, error) {
	if l.proofErr != nil {
		return nil, l.proofErr
	}
	return l.Log.InclusionProof(ctx, index, size)
}

// A transcript the log cannot give is refused for the log's failure, as
// an append would be: LOG_INTEGRITY for a log found rolled back or forked
// (ErrSecurity), LOG_UNAVAILABLE for one that failed or is closed — never
// CHECKPOINT_PENDING, which only says to wait for the next checkpoint.
func TestTranscriptLogFailures(t *testing.T) {
	td := newTestDaemon(t)
	ctx := context.Background()
	codes1 := td.emission("TL", "2026-12-31", 5)
	a := td.client("server-a")
	g := start(t, a, codes1[1]).Game
	transcript := func() error {
		_, err := a.GetTranscript(ctx, &qodv1.GetTranscriptRequest{GameId: g.GameId})
		return err
	}
	// Until a checkpoint covers the game.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		err := transcript()
		if err == nil {
			break
		}
		if reasonOf(err) != reasonCheckpointPending || time.Now().After(deadline) {
			t.Fatalf("transcript: %v", err)
		}
	}
	refusedForLogReads(t, td, transcript, true)
}

// refusedForLogReads checks that call is refused for each failure of the
// log's reads it makes (readFailingLog; the checkpoint's too when
// checkpoint): LOG_INTEGRITY for a log found rolled back or forked,
// LOG_UNAVAILABLE for one that failed or is closed. With the log back,
// call succeeds.
func refusedForLogReads(t *testing.T, td *testDaemon, call func() error, checkpoint bool) {
	t.Helper()
	e := td.d.engine
	tl := e.tlog
	defer func() { e.tlog = tl }()
	forked := fmt.Errorf("tilelog: %w: checkpoint went back from 9 to 4 leaves", transparency.ErrSecurity)
	down := fmt.Errorf("tilelog: %w: disk gone", transparency.ErrUnavailable)
	for _, c := range []struct {
		log    readFailingLog
		r      reason
		substr string
	}{
		{readFailingLog{cpErr: forked}, reasonLogIntegrity, "couldn't read the log's checkpoint"},
		{readFailingLog{cpErr: transparency.ErrClosed}, reasonLogUnavailable, "couldn't read the log's checkpoint (retry later)"},
		{readFailingLog{entriesErr: forked}, reasonLogIntegrity, "transparency log integrity failure: couldn't read log entry"},
		{readFailingLog{entriesErr: down}, reasonLogUnavailable, "transparency log unavailable: couldn't read log entry"},
		{readFailingLog{proofErr: forked}, reasonLogIntegrity, "transparency log integrity failure: couldn't prove log entry"},
		{readFailingLog{proofErr: down}, reasonLogUnavailable, "transparency log unavailable: couldn't prove log entry"},
	} {
		if c.log.cpErr != nil && !checkpoint {
			continue
		}
		c.log.Log = tl
		e.tlog = c.log
		refusedFor(t, td, c.r, c.substr, call)
	}
	e.tlog = tl
	if err := call(); err != nil {
		t.Fatalf("with the log back: %v", err)
	}
}

// closedLog is a log failed closed (transparency.Health), as tilelog after
// a timed-out append: it refuses every append until it is reopened.
type closedLog struct{ transparency.Log }

var errFailedClosed = fmt.Errorf("tilelog: %w: append timed out (appends are refused until the log is reopened)", transparency.ErrUnavailable)

func (closedLog) Health() error { return errFailedClosed }

func (closedLog) Append(context.Context, []byte) (uint64, error) { return 0, errFailedClosed }

// A draw refused by a log that failed closed says that retrying later will
// not do: only a restart of rngd, which reopens the log, clears it. A log
// failing otherwise still says to retry later.
func TestLogFailedClosedRefusal(t *testing.T) {
	td := newTestDaemon(t)
	e := td.d.engine
	ctx := context.Background()
	codes1 := td.emission("LC", "2026-12-31", 5)
	a := td.client("server-a")
	g := start(t, a, codes1[1]).Game
	tl := e.tlog
	defer func() { e.tlog = tl }()
	pick := func() error {
		_, err := a.Pick(ctx, &qodv1.PickRequest{RequestId: "after-restart", GameId: g.GameId, Number: 3})
		return err
	}
	e.tlog = closedLog{tl}
	refusedFor(t, td, reasonLogUnavailable, "until rngd is restarted", pick)
	if err := pick(); strings.Contains(status.Convert(err).Message(), "retry later") {
		t.Fatalf("a log failed closed says to retry later: %v", err)
	}
	e.tlog = failingLog{Log: tl}
	refusedFor(t, td, reasonLogUnavailable, "the record was not sealed (retry later with the same request_id)", pick)
	if err := pick(); strings.Contains(status.Convert(err).Message(), "restart") {
		t.Fatalf("a log failing, not failed closed, asks for a restart: %v", err)
	}
	e.tlog = tl
	if err := pick(); err != nil {
		t.Fatalf("pick with the log back: %v", err)
	}
}
