package rngd

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/rngd/loadtest"
	vcheckpoint "tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/qod"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/vrf"
)

// wantStatus checks an error's gRPC code and that its message names the
// problem. A refusal of rngd's (any but gRPC's own UNIMPLEMENTED) carries
// a reason of its code (wantRefusal checks which).
func wantStatus(t *testing.T, err error, code codes.Code, substr string) {
	t.Helper()
	if err == nil {
		t.Fatalf("call succeeded, want %v %q", code, substr)
	}
	st := status.Convert(err)
	if st.Code() != code || !strings.Contains(st.Message(), substr) {
		t.Fatalf("got %v %q, want %v containing %q", st.Code(), st.Message(), code, substr)
	}
	if code == codes.Unimplemented {
		return
	}
	r, ok := reasonDetail(st)
	if c, known := reasons[r]; !ok || (known && c != code) || (!known && r != fallback(code)) {
		t.Fatalf("%v %q carries reason %q (detail: %v), want one of %v", st.Code(), st.Message(), r, ok, code)
	}
}

// wantRefusal checks that err is a refusal for reason r: r's code, r in
// its ErrorInfo detail, and a message containing substr.
func wantRefusal(t *testing.T, err error, r reason, substr string) {
	t.Helper()
	wantStatus(t, err, reasons[r], substr)
	if got, _ := reasonDetail(status.Convert(err)); got != r {
		t.Fatalf("%v %q: reason %s, want %s", status.Code(err), status.Convert(err).Message(), got, r)
	}
}

// reasonDetail is the reason of st's ErrorInfo detail in rngd's domain, as
// a game server reads it.
func reasonDetail(st *status.Status) (reason, bool) {
	for _, d := range st.Details() {
		if ei, ok := d.(*errdetails.ErrorInfo); ok && ei.Domain == "tirage.fr" {
			return reason(ei.Reason), true
		}
	}
	return "", false
}

// unchanged runs call, which must be refused for reason r with substr in
// its message, and checks the game did not change.
func unchanged(t *testing.T, c qodv1.QuitteOuDoubleClient, gameID string, r reason, substr string, call func() error) {
	t.Helper()
	before, err := c.GetGame(context.Background(), &qodv1.GetGameRequest{GameId: gameID})
	if err != nil {
		t.Fatal(err)
	}
	wantRefusal(t, call(), r, substr)
	after, err := c.GetGame(context.Background(), &qodv1.GetGameRequest{GameId: gameID})
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(before, after) {
		t.Fatalf("refused call changed the game:\nbefore %v\nafter  %v", before, after)
	}
}

var reqSeq struct {
	sync.Mutex
	n int
}

func rid() string {
	reqSeq.Lock()
	defer reqSeq.Unlock()
	reqSeq.n++
	return fmt.Sprintf("req-%d", reqSeq.n)
}

func start(t *testing.T, c qodv1.QuitteOuDoubleClient, code string) *qodv1.GameReply {
	t.Helper()
	r, err := c.StartGame(context.Background(), &qodv1.StartGameRequest{RequestId: rid(), Code: code})
	if err != nil {
		t.Fatalf("start %s: %v", code, err)
	}
	return r
}

// playUntil picks (continuing at every tier) until stop says so or the game ends.
func playUntil(t *testing.T, c qodv1.QuitteOuDoubleClient, g *qodv1.Game, stop func(*qodv1.Game) bool) *qodv1.Game {
	t.Helper()
	ctx := context.Background()
	for !stop(g) {
		switch g.Status {
		case qodv1.Status_STATUS_PLAYING:
			r, err := c.Pick(ctx, &qodv1.PickRequest{RequestId: rid(), GameId: g.GameId, Number: loadtest.NextNumber(g)})
			if err != nil {
				t.Errorf("pick: %v", err)
				return g
			}
			g = r.Game
		case qodv1.Status_STATUS_AT_TIER:
			r, err := c.Decide(ctx, &qodv1.DecideRequest{RequestId: rid(), GameId: g.GameId, Decision: qodv1.Decision_DECISION_CONTINUE})
			if err != nil {
				t.Errorf("continue: %v", err)
				return g
			}
			g = r.Game
		default:
			return g
		}
	}
	return g
}

// verifyGame checks a game's receipts as an auditor would, offline: every
// VRF proof, the replay of the state machine, the hash chain and the
// inclusion of every record in a signed checkpoint.
func verifyGame(t *testing.T, td *testDaemon, c qodv1.QuitteOuDoubleClient, g *qodv1.Game) {
	t.Helper()
	// GetReceipts waits a few seconds for a checkpoint covering the game;
	// on a loaded machine the records may still be above the newest one
	// then, and a client asks again (as the API says).
	var rs *qodv1.GetReceiptsResponse
	var v VerifiedGame
	for deadline := time.Now().Add(time.Minute); ; {
		var err error
		if rs, err = c.GetReceipts(context.Background(), &qodv1.GetReceiptsRequest{GameId: g.GameId}); err != nil {
			t.Fatal(err)
		}
		if v, err = VerifyReceipts(rs.Receipts, td.d.engine.tlog.VerifierKeys()[0], td.d.engine.pub, td.d.engine.loc); err != nil {
			t.Fatal(err)
		}
		if v.Included == len(rs.Receipts) || time.Now().After(deadline) {
			break
		}
	}
	if !v.Ended || v.Game.Win != g.PrizeCents || v.Included != len(rs.Receipts) {
		t.Fatalf("verified %+v, game says prize %d", v, g.PrizeCents)
	}
	if want := len(g.Picks) + 1; g.StakeCents != qod.MaxStake && v.Proofs != want {
		t.Fatalf("verified %d proofs, want %d", v.Proofs, want)
	}
	// The transcript document passes the standalone verifier (rngverify's code).
	tr, err := c.GetTranscript(context.Background(), &qodv1.GetTranscriptRequest{GameId: g.GameId})
	if err != nil {
		t.Fatal(err)
	}
	keys, err := vcheckpoint.ParseKeys(td.d.engine.tlog.VerifierKeys()[0])
	if err != nil {
		t.Fatal(err)
	}
	pk, _ := vrf.ParsePublicKey(td.d.engine.suite, td.d.engine.pub)
	verdict := receipt.VerifyTranscript(tr.Document, receipt.Anchors{LogKeys: keys, VRFKeys: []*vrf.PublicKey{pk}, Location: td.d.engine.loc})
	if err := verdict.Err(); err != nil {
		t.Fatalf("transcript: %v\n%s\n%s", err, verdict.Text("en"), tr.Document)
	}
	// Each receipt alone, as grpcurl prints it, passes rngverify receipt: a
	// pick's α is bound to the game's commitment by the start it carries.
	for i, r := range rs.Receipts {
		if i > 0 && len(r.StartRecord) == 0 {
			t.Fatalf("receipt %d has no start record", i)
		}
		b, err := protojson.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		v := receipt.VerifyReceipt(b, receipt.Anchors{LogKeys: keys, VRFKeys: []*vrf.PublicKey{pk}, Location: td.d.engine.loc})
		if err := v.Err(); err != nil {
			t.Fatalf("receipt %d alone: %v\n%s", i, err, v.Text("en"))
		}
	}
	// The whole replies, as grpcurl prints them, pass rngverify too.
	for what, reply := range map[string]proto.Message{"GetTranscript": tr, "GetReceipts": rs} {
		b, err := protojson.Marshal(reply)
		if err != nil {
			t.Fatal(err)
		}
		verify := receipt.VerifyReceipt
		if what == "GetTranscript" {
			verify = receipt.VerifyTranscript
		}
		if v := verify(b, receipt.Anchors{LogKeys: keys, VRFKeys: []*vrf.PublicKey{pk}, Location: td.d.engine.loc}); v.Err() != nil {
			t.Fatalf("%s reply: %v\n%s", what, v.Err(), v.Text("en"))
		}
	}
	// A tampered receipt fails.
	bad := proto.Clone(rs.Receipts[len(rs.Receipts)-1]).(*qodv1.Receipt)
	bad.Record = bytes.Replace(bad.Record, []byte(`"tier":`), []byte(`"tier":1`), 1)
	if _, err := VerifyReceipts(append(rs.Receipts[:len(rs.Receipts)-1:len(rs.Receipts)-1], bad), td.d.engine.tlog.VerifierKeys()[0], nil, td.d.engine.loc); err == nil {
		t.Fatal("a tampered end record verified")
	}
}

func TestE2EGameRules(t *testing.T) { testGameRules(t, (*testDaemon).client) }

// TestPlayGameRules is TestE2EGameRules with StartGame, Quit, Pick, Decide
// and GetGame as calls on Play streams (rngd/playstream): the same replies,
// refusals (code, message, reason) and metrics as the unary calls.
func TestPlayGameRules(t *testing.T) { testGameRules(t, (*testDaemon).playClient) }

// testGameRules plays every rule and bad input through the game servers'
// clients that client makes.
func testGameRules(t *testing.T, client func(td *testDaemon, name string) qodv1.QuitteOuDoubleClient) {
	td := newTestDaemon(t)
	codesE1 := td.emission("E1", "2026-12-15", 700)
	a, b := client(td, "server-a"), client(td, "server-b")
	ctx := context.Background()

	t.Run("start", func(t *testing.T) {
		r := start(t, a, codesE1[1]) // 1,000 €
		g := r.Game
		if g.Status != qodv1.Status_STATUS_PLAYING || g.StakeCents != 100_000 || g.Server != "server-a" || len(g.Commitment) != 32 {
			t.Fatalf("start: %v", g)
		}
		amount := g.StakeCents
		for i, m := range g.Multipliers {
			if m != 2 && m != 3 {
				t.Fatalf("multiplier %d = %d", i, m)
			}
			amount *= int64(m)
			if g.TierAmountsCents[i] != amount {
				t.Fatalf("tier %d amount %d, want %d", i+1, g.TierAmountsCents[i], amount)
			}
		}
		rec, err := record.Parse(r.Receipt.Record)
		if err != nil {
			t.Fatal(err)
		}
		gs := rec.(*record.GameStart)
		if gs.Game != g.GameId || gs.Stake != g.StakeCents || !bytes.Equal(gs.Commit[:], g.Commitment) {
			t.Fatalf("start record %+v does not match game %v", gs, g)
		}
		// α contains r: not shown while the game is in play.
		if len(r.Receipt.VrfAlpha) != 0 || !bytes.Equal(r.Receipt.VrfProof, gs.Proof) {
			t.Fatalf("start receipt of a game in play: alpha %x", r.Receipt.VrfAlpha)
		}
		beta, err := vrf.ProofToHash(vrf.Suite(r.Receipt.VrfSuite), r.Receipt.VrfProof)
		if err != nil || !bytes.Equal(beta, gs.Beta) || !bytes.Equal(beta, r.Receipt.VrfOutput) {
			t.Fatalf("start proof: %v", err)
		}
		if m, _ := qod.Multipliers(gs.Stake, beta); m != gs.Multipliers {
			t.Fatalf("multipliers %v, recomputed %v", gs.Multipliers, m)
		}
	})

	t.Run("max stake: all x2, no draw", func(t *testing.T) {
		r := start(t, a, codesE1[0])
		if fmt.Sprint(r.Game.Multipliers) != "[2 2 2 2]" || len(r.Receipt.VrfProof) != 0 || r.Game.TierAmountsCents[3] != 80_000_000 {
			t.Fatalf("50,000 € start: %v %v", r.Game, r.Receipt)
		}
	})

	t.Run("request id replay", func(t *testing.T) {
		req := &qodv1.StartGameRequest{RequestId: "replay-1", Code: codesE1[2]}
		r1, err := a.StartGame(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		r2, err := a.StartGame(ctx, req)
		if err != nil || !proto.Equal(r1, r2) {
			t.Fatalf("retry gave another reply: %v", err)
		}
		_, err = a.StartGame(ctx, &qodv1.StartGameRequest{RequestId: "replay-1", Code: codesE1[3]})
		wantRefusal(t, err, reasonRequestIDReused, "request_id")
		// Nothing changed: the other code still starts.
		start(t, a, codesE1[3])
		// The same request id from another server is another request.
		if _, err := b.StartGame(ctx, &qodv1.StartGameRequest{RequestId: "replay-1", Code: codesE1[4]}); err != nil {
			t.Fatal(err)
		}
		p := &qodv1.PickRequest{RequestId: "replay-pick", GameId: r1.Game.GameId, Number: 7}
		p1, err := a.Pick(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		p2, err := a.Pick(ctx, p)
		if err != nil || !proto.Equal(p1, p2) {
			t.Fatalf("pick retry gave another reply: %v", err)
		}
		if len(p2.Game.Picks) != 1 {
			t.Fatalf("retry drew again: %v", p2.Game.Picks)
		}
		unchanged(t, a, r1.Game.GameId, reasonRequestIDReused, "request_id", func() error {
			_, err := a.Pick(ctx, &qodv1.PickRequest{RequestId: "replay-pick", GameId: r1.Game.GameId, Number: 8})
			return err
		})
	})

	t.Run("bad start", func(t *testing.T) {
		for _, tc := range []struct {
			req    *qodv1.StartGameRequest
			reason reason
			substr string
		}{
			{&qodv1.StartGameRequest{RequestId: rid(), Code: ""}, reasonCodeInvalid, "code"},
			{&qodv1.StartGameRequest{RequestId: rid(), Code: "ABC"}, reasonCodeInvalid, "code"},
			{&qodv1.StartGameRequest{RequestId: rid(), Code: "ABCDEFGHIJKLMNOPQ!"}, reasonCodeInvalid, "code"},
			{&qodv1.StartGameRequest{RequestId: rid(), Code: "ZZZZZZZZZZZZZZZZZZ"}, reasonUnknownCode, "code"},
			{&qodv1.StartGameRequest{RequestId: "", Code: codesE1[5]}, reasonRequestIDInvalid, "request_id"},
			{&qodv1.StartGameRequest{RequestId: "bad id", Code: codesE1[5]}, reasonRequestIDInvalid, "request_id"},
			{&qodv1.StartGameRequest{RequestId: rid(), Code: codesE1[1]}, reasonCodePlayed, "already played"},
			{&qodv1.StartGameRequest{RequestId: rid(), Code: strings.ToLower(codesE1[1])}, reasonCodePlayed, "already played"},
		} {
			_, err := a.StartGame(ctx, tc.req)
			wantRefusal(t, err, tc.reason, tc.substr)
		}
		// codesE1[5] was never started by the refused calls.
		start(t, a, codesE1[5])
	})

	g := start(t, a, codesE1[6]).Game
	t.Run("bad pick", func(t *testing.T) {
		id := g.GameId
		for _, tc := range []struct {
			c      qodv1.QuitteOuDoubleClient
			req    *qodv1.PickRequest
			reason reason
			substr string
		}{
			{a, &qodv1.PickRequest{RequestId: rid(), GameId: id, Number: 0}, reasonNumberRange, "number"},
			{a, &qodv1.PickRequest{RequestId: rid(), GameId: id, Number: 31}, reasonNumberRange, "number"},
			{a, &qodv1.PickRequest{RequestId: rid(), GameId: "", Number: 1}, reasonGameIDMissing, "game_id"},
			{a, &qodv1.PickRequest{RequestId: rid(), GameId: "server-a/nope", Number: 1}, reasonUnknownGame, "game_id"},
			{b, &qodv1.PickRequest{RequestId: rid(), GameId: id, Number: 1}, reasonGameNotOwned, "another game server"},
			{a, &qodv1.PickRequest{RequestId: "", GameId: id, Number: 1}, reasonRequestIDInvalid, "request_id"},
		} {
			unchanged(t, a, id, tc.reason, tc.substr, func() error { _, err := tc.c.Pick(ctx, tc.req); return err })
		}
		_, err := b.GetGame(ctx, &qodv1.GetGameRequest{GameId: id})
		wantRefusal(t, err, reasonGameNotOwned, "another game server")
		_, err = b.GetReceipts(ctx, &qodv1.GetReceiptsRequest{GameId: id})
		wantRefusal(t, err, reasonGameNotOwned, "another game server")
		unchanged(t, a, id, reasonGameNotOwned, "another game server", func() error {
			_, err := b.Decide(ctx, &qodv1.DecideRequest{RequestId: rid(), GameId: id, Decision: qodv1.Decision_DECISION_STOP})
			return err
		})
		unchanged(t, a, id, reasonNotAtTier, "not at a tier", func() error {
			_, err := a.Decide(ctx, &qodv1.DecideRequest{RequestId: rid(), GameId: id, Decision: qodv1.Decision_DECISION_STOP})
			return err
		})
		unchanged(t, a, id, reasonNotAtTier, "not at a tier", func() error {
			_, err := a.Decide(ctx, &qodv1.DecideRequest{RequestId: rid(), GameId: id, Decision: qodv1.Decision_DECISION_CONTINUE})
			return err
		})
		unchanged(t, a, id, reasonDecisionInvalid, "decision", func() error {
			_, err := a.Decide(ctx, &qodv1.DecideRequest{RequestId: rid(), GameId: id})
			return err
		})
		r, err := a.Pick(ctx, &qodv1.PickRequest{RequestId: rid(), GameId: id, Number: 13})
		if err != nil {
			t.Fatal(err)
		}
		if r.Game.Status == qodv1.Status_STATUS_PLAYING {
			unchanged(t, a, id, reasonNumberPicked, "already picked", func() error {
				_, err := a.Pick(ctx, &qodv1.PickRequest{RequestId: rid(), GameId: id, Number: 13})
				return err
			})
		}
	})

	t.Run("list unfinished per server", func(t *testing.T) {
		la, err := a.ListUnfinishedGames(ctx, &qodv1.ListUnfinishedGamesRequest{})
		if err != nil {
			t.Fatal(err)
		}
		lb, err := b.ListUnfinishedGames(ctx, &qodv1.ListUnfinishedGamesRequest{})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range la.Games {
			if x.Server != "server-a" || x.Status == qodv1.Status_STATUS_LOST || x.Status == qodv1.Status_STATUS_WON {
				t.Fatalf("server-a lists %v", x)
			}
		}
		if len(lb.Games) != 1 || lb.Games[0].Server != "server-b" {
			t.Fatalf("server-b lists %v", lb.Games)
		}
	})

	// Play many games as game servers do, in parallel, until every rule has
	// been met: a loss, a stop at a tier, a continue, tier 4.
	var mu sync.Mutex
	var lost, stopped, top *qodv1.Game
	var wg sync.WaitGroup
	next := make(chan string)
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for code := range next {
				// A subtest per game: the helpers' t.Fatal may end it,
				// which it must not do from a goroutine other than its
				// test's (the worker would end, and the sender block).
				t.Run(code, func(t *testing.T) {
					g := start(t, a, code).Game
					mu.Lock()
					wantStop := stopped == nil
					mu.Unlock()
					g = playUntil(t, a, g, func(g *qodv1.Game) bool { return wantStop && g.Status == qodv1.Status_STATUS_AT_TIER })
					if g.Status == qodv1.Status_STATUS_AT_TIER {
						unchanged(t, a, g.GameId, reasonAtTier, "continue or stop first", func() error {
							_, err := a.Pick(ctx, &qodv1.PickRequest{RequestId: rid(), GameId: g.GameId, Number: loadtest.NextNumber(g)})
							return err
						})
						r, err := a.Decide(ctx, &qodv1.DecideRequest{RequestId: rid(), GameId: g.GameId, Decision: qodv1.Decision_DECISION_STOP})
						if err != nil {
							t.Error(err)
							return
						}
						g = r.Game
						if g.Status != qodv1.Status_STATUS_WON || g.PrizeCents != g.TierAmountsCents[g.Tier-1] || r.EndReceipt == nil {
							t.Errorf("stop at tier %d: %v", g.Tier, g)
						}
					}
					mu.Lock()
					switch {
					case g.Status == qodv1.Status_STATUS_LOST && lost == nil:
						lost = g
					case g.Status == qodv1.Status_STATUS_WON && g.Tier < 4 && stopped == nil:
						stopped = g
					case g.Status == qodv1.Status_STATUS_WON && g.Tier == 4 && top == nil:
						top = g
					}
					mu.Unlock()
				})
			}
		}()
	}
	for _, code := range codesE1[10:] {
		mu.Lock()
		done := lost != nil && stopped != nil && top != nil
		mu.Unlock()
		if done {
			break
		}
		next <- code
	}
	close(next)
	wg.Wait()
	if lost == nil || stopped == nil || top == nil {
		t.Fatalf("did not meet every outcome: lost %v stopped %v tier4 %v", lost != nil, stopped != nil, top != nil)
	}

	t.Run("loss", func(t *testing.T) {
		last := lost.Picks[len(lost.Picks)-1]
		if !last.Losing || lost.PrizeCents != 0 || len(lost.Secret) != 32 || lost.EndedAt == nil {
			t.Fatalf("lost game: %v", lost)
		}
		unchanged(t, a, lost.GameId, reasonGameOver, "game over", func() error {
			_, err := a.Pick(ctx, &qodv1.PickRequest{RequestId: rid(), GameId: lost.GameId, Number: loadtest.NextNumber(lost)})
			return err
		})
		verifyGame(t, td, a, lost)
	})
	t.Run("stop", func(t *testing.T) {
		unchanged(t, a, stopped.GameId, reasonGameOver, "game over", func() error {
			_, err := a.Pick(ctx, &qodv1.PickRequest{RequestId: rid(), GameId: stopped.GameId, Number: loadtest.NextNumber(stopped)})
			return err
		})
		unchanged(t, a, stopped.GameId, reasonGameOver, "game over", func() error {
			_, err := a.Decide(ctx, &qodv1.DecideRequest{RequestId: rid(), GameId: stopped.GameId, Decision: qodv1.Decision_DECISION_CONTINUE})
			return err
		})
		verifyGame(t, td, a, stopped)
	})
	t.Run("tier 4 ends the game", func(t *testing.T) {
		if top.GoodCount != 18 || top.PrizeCents != top.TierAmountsCents[3] || len(top.Picks) != 18 {
			t.Fatalf("tier 4: %v", top)
		}
		verifyGame(t, td, a, top)
	})

	t.Run("refund", func(t *testing.T) {
		adm := td.admin()
		g := start(t, b, codesE1[7]).Game
		unchanged(t, b, g.GameId, reasonRefundReasonMissing, "reason", func() error {
			_, err := adm.RefundGame(ctx, &adminv1.RefundGameRequest{RequestId: rid(), GameId: g.GameId})
			return err
		})
		// The reason is sealed in the end record: one line of text.
		unchanged(t, b, g.GameId, reasonRefundReasonInvalid, "reason: must be one line", func() error {
			_, err := adm.RefundGame(ctx, &adminv1.RefundGameRequest{RequestId: rid(), GameId: g.GameId, Reason: "outage\nwon 1000 €"})
			return err
		})
		const why = "panne du serveur de jeu : 30 jours non honorés"
		r, err := adm.RefundGame(ctx, &adminv1.RefundGameRequest{RequestId: rid(), GameId: g.GameId, Reason: why})
		if err != nil {
			t.Fatal(err)
		}
		end, _ := record.Parse(r.EndReceipt.Record)
		if r.Game.Status != qodv1.Status_STATUS_REFUNDED || end.(*record.GameEnd).Refund != qod.TicketPrice || string(end.(*record.GameEnd).Reason) != why {
			t.Fatalf("refund: %v %s", r.Game, r.EndReceipt.Record)
		}
		_, err = adm.RefundGame(ctx, &adminv1.RefundGameRequest{RequestId: rid(), GameId: g.GameId, Reason: "again"})
		wantRefusal(t, err, reasonGameOver, "game over")
		_, err = adm.RefundGame(ctx, &adminv1.RefundGameRequest{RequestId: rid(), GameId: "x/y", Reason: "r"})
		wantRefusal(t, err, reasonUnknownGame, "game_id")
	})

	t.Run("metrics", func(t *testing.T) {
		resp, err := http.Get("http://" + td.d.Addrs().HTTP + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for _, want := range []string{`tirage_draws_total{kind="pick",outcome="losing"}`, `tirage_refusals_total{code="PermissionDenied",reason="GAME_NOT_OWNED"} 4`,
			"tirage_dev_mode 0", "tirage_log_append_seconds_bucket", "tirage_vrf_prove_seconds_count"} {
			if !strings.Contains(string(body), want) {
				t.Errorf("/metrics lacks %s", want)
			}
		}
	})
}

func TestE2ETime(t *testing.T) {
	td := newTestDaemon(t)
	ctx := context.Background()
	a := td.client("server-a")
	// Closure 2026-11-01: starts allowed until 2026-12-01 00:00 Paris
	// (2026-11-30 23:00 UTC); the clock is at 2026-11-30 10:00 UTC.
	codes1 := td.emission("EARLY", "2026-11-01", 20)
	// A game in play after one pick (a first pick loses with p = 1/10).
	var g *qodv1.Game
	for i := 3; g == nil || g.Status != qodv1.Status_STATUS_PLAYING; i++ {
		g = start(t, a, codes1[i]).Game
		r, err := a.Pick(ctx, &qodv1.PickRequest{RequestId: rid(), GameId: g.GameId, Number: 1})
		if err != nil {
			t.Fatal(err)
		}
		g = r.Game
	}

	td.clock.Advance(13 * time.Hour) // 2026-11-30 23:00 UTC = 2026-12-01 00:00 Paris
	_, err := a.StartGame(ctx, &qodv1.StartGameRequest{RequestId: rid(), Code: codes1[2]})
	wantRefusal(t, err, reasonDeadlinePassed, "start deadline passed")

	// 30 days after the start: the game is expired and refuses everything.
	td.clock.Advance(30*24*time.Hour - 13*time.Hour)
	{
		unchanged(t, a, g.GameId, reasonGameExpired, "expired", func() error {
			_, err := a.Pick(ctx, &qodv1.PickRequest{RequestId: rid(), GameId: g.GameId, Number: 2})
			return err
		})
		got, _ := a.GetGame(ctx, &qodv1.GetGameRequest{GameId: g.GameId})
		if got.Status != qodv1.Status_STATUS_EXPIRED {
			t.Fatalf("expired game shows %v", got.Status)
		}
		// The sweeper seals the expiry once game.refund_grace has passed
		// too (until then the operator may refund it: refundgrace_test.go).
		td.clock.Advance(td.d.engine.cfg.Game.refundGrace())
		sw, err := td.admin().SweepExpired(ctx, &adminv1.SweepExpiredRequest{})
		if err != nil || len(sw.ExpiredGameIds) != 1 || sw.ExpiredGameIds[0] != g.GameId {
			t.Fatalf("sweep: %v %v", sw, err)
		}
		rs, err := a.GetReceipts(ctx, &qodv1.GetReceiptsRequest{GameId: g.GameId})
		if err != nil {
			t.Fatal(err)
		}
		end, _ := record.Parse(rs.Receipts[len(rs.Receipts)-1].Record)
		if e, ok := end.(*record.GameEnd); !ok || e.Result != record.ResultExpired {
			t.Fatalf("last record %s", rs.Receipts[len(rs.Receipts)-1].Record)
		}
		unchanged(t, a, g.GameId, reasonGameOver, "game over", func() error {
			_, err := a.Pick(ctx, &qodv1.PickRequest{RequestId: rid(), GameId: g.GameId, Number: 2})
			return err
		})
		if l, _ := a.ListUnfinishedGames(ctx, &qodv1.ListUnfinishedGamesRequest{}); len(l.Games) != 0 {
			t.Fatalf("expired game still listed: %v", l.Games)
		}
	}
}

func TestE2ERestartAndRebuild(t *testing.T) {
	td := newTestDaemon(t)
	ctx := context.Background()
	codes1 := td.emission("R1", "2026-12-31", 30)
	a := td.client("server-a")
	var ids []string
	for i := 1; i <= 6; i++ {
		g := start(t, a, codes1[i]).Game
		g = playUntil(t, a, g, func(g *qodv1.Game) bool { return len(g.Picks) >= i })
		ids = append(ids, g.GameId)
	}
	snapshot := func() map[string]*qodv1.Game {
		c := td.client("server-a")
		m := map[string]*qodv1.Game{}
		for _, id := range ids {
			g, err := c.GetGame(ctx, &qodv1.GetGameRequest{GameId: id})
			if err != nil {
				t.Fatal(err)
			}
			m[id] = g
		}
		return m
	}
	before := snapshot()
	td.restart()
	for id, g := range snapshot() {
		if !proto.Equal(g, before[id]) {
			t.Fatalf("after restart %s:\n%v\nwas\n%v", id, g, before[id])
		}
	}
	td.stop()
	n, err := Rebuild(ctx, td.cfg)
	if err != nil {
		t.Fatal(err)
	}
	if n < 10 {
		t.Fatalf("rebuild replayed %d records", n)
	}
	td.start()
	for id, g := range snapshot() {
		if !proto.Equal(g, before[id]) {
			t.Fatalf("after rebuild %s:\n%v\nwas\n%v", id, g, before[id])
		}
	}
	// The rebuilt games go on, and a played code stays played.
	a = td.client("server-a")
	for _, id := range ids {
		g := before[id]
		if g.Status == qodv1.Status_STATUS_PLAYING {
			if _, err := a.Pick(ctx, &qodv1.PickRequest{RequestId: rid(), GameId: id, Number: loadtest.NextNumber(g)}); err != nil {
				t.Fatalf("pick after rebuild: %v", err)
			}
		}
	}
	_, err = a.StartGame(ctx, &qodv1.StartGameRequest{RequestId: rid(), Code: codes1[1]})
	wantRefusal(t, err, reasonCodePlayed, "already played")

	// The state store lost altogether: the daemon rebuilds it from the
	// log at start, and every game comes back whole, the games in play
	// with their secrets, which are in secrets.db.
	after := snapshot()
	td.stop()
	if err := os.Remove(filepath.Join(td.cfg.DataDir, "state.db")); err != nil {
		t.Fatal(err)
	}
	td.start()
	for id, g := range snapshot() {
		if !proto.Equal(g, after[id]) {
			t.Fatalf("game after losing state.db:\n%v\nwas\n%v", g, after[id])
		}
	}
	// The secrets lost too: ended games come back whole; a game in play
	// lost its secret (the log reveals r only at the end): it refuses
	// draws and can be refunded.
	td.stop()
	for _, f := range []string{"state.db", "secrets.db"} {
		if err := os.Remove(filepath.Join(td.cfg.DataDir, f)); err != nil {
			t.Fatal(err)
		}
	}
	td.start()
	a = td.client("server-a")
	for id, g := range snapshot() {
		was := after[id]
		if was.Status == qodv1.Status_STATUS_PLAYING || was.Status == qodv1.Status_STATUS_AT_TIER {
			// Its commitment H(r) is in its start record: still shown.
			if len(g.Picks) != len(was.Picks) || g.Status != was.Status || len(g.Commitment) != 32 || !bytes.Equal(g.Commitment, was.Commitment) {
				t.Fatalf("game in play after losing the store: %v, was %v", g, was)
			}
			_, err := a.Pick(ctx, &qodv1.PickRequest{RequestId: rid(), GameId: id, Number: loadtest.NextNumber(g)})
			wantRefusal(t, err, reasonSecretLost, "secret r was lost")
			r, err := td.admin().RefundGame(ctx, &adminv1.RefundGameRequest{RequestId: rid(), GameId: id, Reason: "state store lost"})
			if err != nil || r.Game.Status != qodv1.Status_STATUS_REFUNDED {
				t.Fatalf("refund: %v %v", r, err)
			}
			continue
		}
		if !proto.Equal(g, was) {
			t.Fatalf("ended game after losing the store:\n%v\nwas\n%v", g, was)
		}
	}
	// Those refunds ended games without revealing r (lost): the log still
	// rebuilds, and rngd starts on it.
	refunded := snapshot()
	td.stop()
	if _, err := Rebuild(ctx, td.cfg); err != nil {
		t.Fatalf("rebuild after refunds of games whose secret was lost: %v", err)
	}
	td.start()
	for id, g := range snapshot() {
		if !proto.Equal(g, refunded[id]) {
			t.Fatalf("game after the rebuild:\n%v\nwas\n%v", g, refunded[id])
		}
	}
}

func TestE2ETransport(t *testing.T) {
	td := newTestDaemon(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cc := td.conn("server-a")
	h, err := healthpb.NewHealthClient(cc).Check(ctx, &healthpb.HealthCheckRequest{Service: "tirage.qod.v1.QuitteOuDouble"})
	if err != nil || h.Status != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health: %v %v", h, err)
	}
	st, err := reflectionpb.NewServerReflectionClient(cc).ServerReflectionInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}})
	resp, err := st.Recv()
	if err != nil || !strings.Contains(fmt.Sprint(resp.GetListServicesResponse()), "tirage.qod.v1.QuitteOuDouble") {
		t.Fatalf("reflection: %v %v", resp, err)
	}
	// The admin service is not on the game servers' listener.
	_, err = adminv1.NewAdminClient(cc).Status(ctx, &adminv1.StatusRequest{})
	wantStatus(t, err, codes.Unimplemented, "")
	// No client certificate, or one from another CA: refused.
	other, err := GenerateDevPKI(t.TempDir(), "server-a")
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]func() *tls.Config{
		"no certificate": func() *tls.Config {
			c, _ := ClientTLS(td.pki.ClientCert("server-a"), td.pki.ClientKey("server-a"), td.pki.CA())
			c.Certificates = nil
			return c
		},
		"foreign ca": func() *tls.Config {
			c, _ := ClientTLS(other.ClientCert("server-a"), other.ClientKey("server-a"), td.pki.CA())
			return c
		},
	} {
		cc, err := grpc.NewClient(td.d.Addrs().GRPC, grpc.WithTransportCredentials(credentials.NewTLS(tc())))
		if err != nil {
			t.Fatal(err)
		}
		_, err = qodv1.NewQuitteOuDoubleClient(cc).ListUnfinishedGames(ctx, &qodv1.ListUnfinishedGamesRequest{})
		cc.Close()
		if status.Code(err) != codes.Unavailable {
			t.Errorf("%s: got %v, want Unavailable (handshake refused)", name, err)
		}
	}
	// The auditors' surfaces: /log/ on HTTP.
	for _, path := range []string{"/log/checkpoint", "/log/vkey"} {
		resp, err := http.Get("http://" + td.d.Addrs().HTTP + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), "tirage.fr/dev-log") {
			t.Fatalf("GET %s: %d %q", path, resp.StatusCode, body)
		}
	}
	// The key announcement is the log's first record: wait for a
	// checkpoint that covers it (the log signs one per interval).
	if _, err := td.d.engine.tlog.AwaitCheckpoint(ctx, 1); err != nil {
		t.Fatal(err)
	}
	s, err := td.admin().Status(ctx, &adminv1.StatusRequest{})
	if err != nil || s.DevMode || s.LogSize == 0 || s.VrfKeyId == "" {
		t.Fatalf("status: %v %v", s, err)
	}
	_, err = td.admin().CreateEmission(ctx, &adminv1.CreateEmissionRequest{RequestId: rid(), EmissionId: "bad id", ClosureDate: "2026-12-01"})
	wantRefusal(t, err, reasonEmissionIDInvalid, "emission_id")
	_, err = td.admin().CreateEmission(ctx, &adminv1.CreateEmissionRequest{RequestId: rid(), EmissionId: "E", ClosureDate: "2026-13-01"})
	wantRefusal(t, err, reasonClosureDateInvalid, "closure_date")
}

// With log.receipt_wait, a reply carries its checkpoint and inclusion proof.
func TestE2EReceiptWait(t *testing.T) {
	td := newTestDaemon(t, func(c *Config) { c.Log.ReceiptWait = Duration{5 * time.Second} })
	codes1 := td.emission("RW", "2026-12-31", 5)
	a := td.client("server-a")
	r := start(t, a, codes1[1])
	if len(r.Receipt.Checkpoint) == 0 || (r.Receipt.LogIndex > 0 && len(r.Receipt.InclusionProof) == 0) {
		t.Fatalf("start receipt without inclusion proof: %v", r.Receipt)
	}
	v, err := VerifyReceipts([]*qodv1.Receipt{r.Receipt}, td.d.engine.tlog.VerifierKeys()[0], nil, td.d.engine.loc)
	if err != nil || v.Included != 1 {
		t.Fatalf("%+v %v", v, err)
	}
	// Picks made at once after their start (the start's commit to the
	// state store may still linger) carry the start that binds their α.
	for i, code := range codes1[2:] {
		g := start(t, a, code).Game
		p, err := a.Pick(context.Background(), &qodv1.PickRequest{RequestId: rid(), GameId: g.GameId, Number: loadtest.NextNumber(g)})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Receipt.Checkpoint) == 0 || len(p.Receipt.StartRecord) == 0 || len(p.Receipt.StartInclusionProof) == 0 && p.Receipt.StartLogIndex > 0 {
			t.Fatalf("pick %d right after its start: receipt without its start record or proofs: %v", i, p.Receipt)
		}
	}
}

// The admin socket admits only the configured Unix users (kernel peer
// credentials). Allowing another user opens its mode to 0666 (the file
// system lets everyone connect: admin_socket_test.go), so the peer check
// alone refuses the daemon's own user here: PERMISSION_DENIED naming its
// uid (TestAdminRefusedUID has the rest).
func TestAdminPeerCredentials(t *testing.T) {
	td := newTestDaemon(t, func(c *Config) { c.Admin.AllowedUIDs = []int{os.Getuid() + 4242} })
	fi, err := os.Stat(td.d.Addrs().Admin)
	if err != nil || fi.Mode().Perm() != 0o666 {
		t.Fatalf("admin socket mode %v %v", fi.Mode(), err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = td.admin().Status(ctx, &adminv1.StatusRequest{})
	if status.Code(err) != codes.PermissionDenied {
		t.Fatalf("a user not allowed reached the admin API: %v", err)
	}
}

// With log.receipt_wait, a retry's reply carries the checkpoint and the
// inclusion proofs as the first reply did (a game server whose first
// reply was lost gets them too), and is otherwise the same reply; before,
// a retry got the stored reply, without them.
func TestE2EReceiptWaitRetry(t *testing.T) {
	td := newTestDaemon(t, func(c *Config) { c.Log.ReceiptWait = Duration{5 * time.Second} })
	codes1 := td.emission("RWR", "2026-12-31", 2)
	a := td.client("server-a")
	ctx := context.Background()
	sreq := &qodv1.StartGameRequest{RequestId: rid(), Code: codes1[1]}
	first, err := a.StartGame(ctx, sreq)
	if err != nil {
		t.Fatal(err)
	}
	g := first.Game
	preq := &qodv1.PickRequest{RequestId: rid(), GameId: g.GameId, Number: loadtest.NextNumber(g)}
	pick, err := a.Pick(ctx, preq)
	if err != nil {
		t.Fatal(err)
	}
	bare := func(r *qodv1.GameReply) *qodv1.GameReply {
		r = proto.Clone(r).(*qodv1.GameReply)
		for _, rc := range []*qodv1.Receipt{r.Receipt, r.EndReceipt} {
			if rc != nil {
				rc.Checkpoint, rc.InclusionProof = nil, nil
				rc.StartRecord, rc.StartLogIndex, rc.StartInclusionProof = nil, 0, nil
			}
		}
		return r
	}
	vkey := td.d.engine.tlog.VerifierKeys()[0]
	for name, c := range map[string]struct {
		first *qodv1.GameReply
		retry func() (*qodv1.GameReply, error)
	}{
		"start": {first, func() (*qodv1.GameReply, error) { return a.StartGame(ctx, sreq) }},
		"pick":  {pick, func() (*qodv1.GameReply, error) { return a.Pick(ctx, preq) }},
	} {
		again, err := c.retry()
		if err != nil {
			t.Fatalf("%s retry: %v", name, err)
		}
		if !proto.Equal(bare(again), bare(c.first)) {
			t.Fatalf("%s retry: another reply:\n%v\n%v", name, again, c.first)
		}
		r := again.Receipt
		if len(r.Checkpoint) == 0 || (r.LogIndex > 0 && len(r.InclusionProof) == 0) {
			t.Fatalf("%s retry: receipt without its checkpoint and inclusion proof (the first had them: %t)", name, len(c.first.Receipt.Checkpoint) > 0)
		}
		if name == "pick" && len(r.StartRecord) == 0 {
			t.Fatalf("pick retry: receipt without its start record")
		}
		if name != "start" {
			continue
		}
		if v, err := VerifyReceipts([]*qodv1.Receipt{r}, vkey, nil, td.d.engine.loc); err != nil || v.Included != 1 {
			t.Fatalf("%s retry: %+v %v", name, v, err)
		}
	}
}

// A call whose client gave up (deadline passed, cancelled) before rngd
// drew is still drawn, sealed and stored, as docs/rngd.md says: its retry
// with the same request id gets that draw byte for byte, and the game
// holds it once.
func TestCancelledCallDrawnOnce(t *testing.T) {
	td := newTestDaemon(t)
	codes1 := td.emission("CX", "2026-12-31", 2)
	a := td.client("server-a")
	ctx := context.Background()
	gone, cancel := context.WithCancel(ctx)
	cancel()
	sreq := &qodv1.StartGameRequest{RequestId: rid(), Code: codes1[1]}
	first, err := td.d.engine.startGame(gone, "server-a", sreq)
	if err != nil {
		t.Fatalf("start with a cancelled context: %v", err)
	}
	g := first.Game
	preq := &qodv1.PickRequest{RequestId: rid(), GameId: g.GameId, Number: loadtest.NextNumber(g)}
	pfirst, err := td.d.engine.pick(gone, "server-a", preq)
	if err != nil {
		t.Fatalf("pick with a cancelled context: %v", err)
	}
	enc := func(m proto.Message) string {
		b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		return string(b)
	}
	if again, err := a.StartGame(ctx, sreq); err != nil || enc(again) != enc(first) {
		t.Fatalf("start retry: %v\n%v\n%v", err, again, first)
	}
	if again, err := a.Pick(ctx, preq); err != nil || enc(again) != enc(pfirst) {
		t.Fatalf("pick retry: %v\n%v\n%v", err, again, pfirst)
	}
	got, err := a.GetGame(ctx, &qodv1.GetGameRequest{GameId: g.GameId})
	if err != nil || len(got.Picks) != 1 {
		t.Fatalf("game after a cancelled pick and its retry: %v %v", got, err)
	}
}
