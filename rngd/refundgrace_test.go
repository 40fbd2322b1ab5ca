package rngd

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/verifier/qod"
	"tirage.fr/tirage/verifier/record"
)

// inPlay starts games from codes[from:] until one is still in play after a
// pick (a first pick loses with p = 1/10); it returns the game and the
// next code's index.
func inPlay(t *testing.T, a qodv1.QuitteOuDoubleClient, codes []string, from int) (*qodv1.Game, int) {
	t.Helper()
	for i := from; i < len(codes); i++ {
		g := start(t, a, codes[i]).Game
		r, err := a.Pick(context.Background(), &qodv1.PickRequest{RequestId: rid(), GameId: g.GameId, Number: 1})
		if err != nil {
			t.Fatal(err)
		}
		if r.Game.Status == qodv1.Status_STATUS_PLAYING {
			return r.Game, i + 1
		}
	}
	t.Fatal("no game left in play")
	return nil, 0
}

// gameEnd is the end record of a game reply.
func gameEnd(t *testing.T, r *qodv1.GameReply) *record.GameEnd {
	t.Helper()
	if r.GetEndReceipt() == nil {
		t.Fatalf("no end receipt: %v", r)
	}
	rec, err := record.Parse(r.EndReceipt.Record)
	if err != nil {
		t.Fatal(err)
	}
	end, ok := rec.(*record.GameEnd)
	if !ok {
		t.Fatalf("end receipt holds a %s", rec.Kind())
	}
	return end
}

// lastEnd is the end record among a game's receipts.
func lastEnd(t *testing.T, a qodv1.QuitteOuDoubleClient, id string) *record.GameEnd {
	t.Helper()
	rs, err := a.GetReceipts(context.Background(), &qodv1.GetReceiptsRequest{GameId: id})
	if err != nil {
		t.Fatal(err)
	}
	return gameEnd(t, &qodv1.GameReply{EndReceipt: rs.Receipts[len(rs.Receipts)-1]})
}

// Article 2.2.11 after the deadline: an outage that ate the end of a
// player's window is typically known only once it is over. A game past its
// deadline refuses the player's events and shows as expired (art. 2.2.10),
// but is not swept within game.refund_grace (default 7 days), and the
// operator may refund it then: the end record, dated after the deadline,
// passes the standalone verifier, and a rebuild from the log replays it.
// Once the grace has passed the refund is refused and the sweeper seals the
// expiry; a refund after that is refused, naming the game and the setting.
func TestRefundGrace(t *testing.T) {
	td := newTestDaemon(t)
	ctx := context.Background()
	a := td.client("server-a")
	adm := td.admin()
	if g := td.d.engine.cfg.Game.RefundGrace; g == nil || g.Duration != 7*24*time.Hour {
		t.Fatalf("game.refund_grace defaults to %v, want 168h", g)
	}
	grace := 7 * 24 * time.Hour
	codes := td.emission("GRACE", "2026-12-31", 30)
	refunded, next := inPlay(t, a, codes, 0)
	expired, _ := inPlay(t, a, codes, next)
	deadline := refunded.ExpiresAt.AsTime()
	if !expired.ExpiresAt.AsTime().Equal(deadline) {
		t.Fatalf("deadlines %s and %s: the clock moved", deadline, expired.ExpiresAt.AsTime())
	}
	sweep := func() []string {
		t.Helper()
		sw, err := adm.SweepExpired(ctx, &adminv1.SweepExpiredRequest{})
		if err != nil {
			t.Fatal(err)
		}
		return sw.ExpiredGameIds
	}

	// Past the deadline: expired to the player, not swept.
	td.clock.Advance(deadline.Sub(td.clock.Now()) + time.Hour)
	for _, g := range []*qodv1.Game{refunded, expired} {
		unchanged(t, a, g.GameId, reasonGameExpired, "expired", func() error {
			_, err := a.Pick(ctx, &qodv1.PickRequest{RequestId: rid(), GameId: g.GameId, Number: 2})
			return err
		})
		if got, err := a.GetGame(ctx, &qodv1.GetGameRequest{GameId: g.GameId}); err != nil || got.Status != qodv1.Status_STATUS_EXPIRED || got.EndedAt != nil {
			t.Fatalf("game past its deadline: %v %v, want STATUS_EXPIRED, not ended", got, err)
		}
	}
	if ended := sweep(); len(ended) != 0 {
		t.Fatalf("swept within game.refund_grace: %v", ended)
	}
	td.clock.Advance(grace - time.Hour - time.Second) // the last second of the grace
	if ended := sweep(); len(ended) != 0 {
		t.Fatalf("swept a second before the end of game.refund_grace: %v", ended)
	}
	if l, err := a.ListUnfinishedGames(ctx, &qodv1.ListUnfinishedGamesRequest{}); err != nil || len(l.Games) != 2 {
		t.Fatalf("unfinished games within the grace: %v %v, want both", l, err)
	}

	// The operator refunds one: the ticket's price, no gain, dated now.
	r, err := adm.RefundGame(ctx, &adminv1.RefundGameRequest{RequestId: rid(), GameId: refunded.GameId, Reason: "outage: the game servers were down for the last 3 days of the window"})
	if err != nil {
		t.Fatalf("refund within game.refund_grace: %v", err)
	}
	end := gameEnd(t, r)
	if r.Game.Status != qodv1.Status_STATUS_REFUNDED || end.Result != record.ResultRefunded || end.Refund != qod.TicketPrice || end.Win != 0 ||
		!end.Time.After(deadline) || !end.Time.Equal(td.clock.Now()) || end.SecretLost() {
		t.Fatalf("refund after the deadline: %v, end %+v", r.Game, end)
	}
	verifyTranscript(t, td, a, refunded.GameId) // rngverify's replay

	// The grace is over: no refund, and the sweeper seals the expiry.
	td.clock.Advance(time.Second)
	unchanged(t, a, expired.GameId, reasonGameExpired, "game.refund_grace (168h0m0s)", func() error {
		_, err := adm.RefundGame(ctx, &adminv1.RefundGameRequest{RequestId: rid(), GameId: expired.GameId, Reason: "too late"})
		return err
	})
	if ended := sweep(); len(ended) != 1 || ended[0] != expired.GameId {
		t.Fatalf("sweep at the end of game.refund_grace: %v, want %s", ended, expired.GameId)
	}
	if e := lastEnd(t, a, expired.GameId); e.Result != record.ResultExpired || !e.Time.Equal(deadline.Add(grace)) {
		t.Fatalf("sweeper's end %+v, want expired at %s", e, deadline.Add(grace))
	}
	verifyTranscript(t, td, a, expired.GameId)
	for _, g := range []*qodv1.Game{expired, refunded} {
		unchanged(t, a, g.GameId, reasonGameOver, "game over", func() error {
			_, err := adm.RefundGame(ctx, &adminv1.RefundGameRequest{RequestId: rid(), GameId: g.GameId, Reason: "later still"})
			if g == expired {
				wantRefusal(t, err, reasonGameOver, "game.refund_grace (168h0m0s)")
				if msg := err.Error(); !strings.Contains(msg, expired.GameId) || !strings.Contains(msg, "sealed its expiry") {
					t.Fatalf("refusal %q names neither the game nor the sealed expiry", msg)
				}
			}
			return err
		})
	}
	if l, err := a.ListUnfinishedGames(ctx, &qodv1.ListUnfinishedGamesRequest{}); err != nil || len(l.Games) != 0 {
		t.Fatalf("unfinished games after the sweep: %v %v", l, err)
	}

	// The state rebuilt from the log alone: both ends replay.
	snapshot := func() map[string]*qodv1.Game {
		m := map[string]*qodv1.Game{}
		for _, g := range []*qodv1.Game{refunded, expired} {
			got, err := adm.GetGame(ctx, &qodv1.GetGameRequest{GameId: g.GameId})
			if err != nil {
				t.Fatal(err)
			}
			m[g.GameId] = got
		}
		return m
	}
	before := snapshot()
	td.stop()
	if _, err := Rebuild(ctx, td.cfg); err != nil {
		t.Fatalf("rebuild: %v", err)
	}
	td.start()
	adm = td.admin()
	for id, g := range snapshot() {
		if !proto.Equal(g, before[id]) {
			t.Fatalf("after rebuild %s:\n%v\nwas\n%v", id, g, before[id])
		}
	}
}

// refund_grace = "0s" is the rule before the setting: from the deadline no
// refund, and the sweeper seals the expiry at once.
func TestRefundGraceZero(t *testing.T) {
	var banner bytes.Buffer
	td := newTestDaemon(t, func(c *Config) { c.Game.RefundGrace, c.Banner = &Duration{}, &banner })
	if !strings.Contains(banner.String(), ", refund grace 0s\n") {
		t.Errorf("the start summary does not print game.refund_grace:\n%s", banner.String())
	}
	ctx := context.Background()
	a := td.client("server-a")
	adm := td.admin()
	codes := td.emission("GRACE0", "2026-12-31", 20)
	g, _ := inPlay(t, a, codes, 0)
	td.clock.Advance(g.ExpiresAt.AsTime().Sub(td.clock.Now()))
	refund := func() error {
		_, err := adm.RefundGame(ctx, &adminv1.RefundGameRequest{RequestId: rid(), GameId: g.GameId, Reason: "too late"})
		return err
	}
	unchanged(t, a, g.GameId, reasonGameExpired, "game.refund_grace (0s)", refund)
	sw, err := adm.SweepExpired(ctx, &adminv1.SweepExpiredRequest{})
	if err != nil || len(sw.ExpiredGameIds) != 1 || sw.ExpiredGameIds[0] != g.GameId {
		t.Fatalf("sweep at the deadline: %v %v", sw, err)
	}
	unchanged(t, a, g.GameId, reasonGameOver, "game.refund_grace (0s)", refund)
}

// gameGauges reads tirage_games_unfinished and tirage_games_in_refund_grace
// on /metrics (-1 for a series it lacks).
func gameGauges(t *testing.T, td *testDaemon) (inPlay, inGrace int) {
	t.Helper()
	m := scrape(t, td)
	for name, v := range map[string]*int{"tirage_games_unfinished": &inPlay, "tirage_games_in_refund_grace": &inGrace} {
		if _, err := fmt.Sscanf(grepLines(m, name+" "), name+" %d", v); err != nil {
			*v = -1
		}
	}
	return inPlay, inGrace
}

// The games past their deadline are told apart from those in play, for the
// operator: tirage_games_unfinished counts the games before their deadline
// and tirage_games_in_refund_grace those past it that a refund still takes,
// at the start, after each sweep and after a refund; Status counts both
// at the call; ListExpiredGames lists the latter, whatever their server,
// by deadline; ListUnfinishedGames keeps listing them to their game server,
// STATUS_EXPIRED, until their end is sealed.
func TestRefundGraceCounted(t *testing.T) {
	td := newTestDaemon(t)
	ctx := context.Background()
	a, b := td.client("server-a"), td.client("server-b")
	codes := td.emission("COUNT", "2026-12-31", 40)
	first, next := inPlay(t, b, codes, 0) // server-b's, listed first by deadline
	td.clock.Advance(time.Hour)
	second, next := inPlay(t, a, codes, next)
	td.clock.Advance(24 * time.Hour)
	third, _ := inPlay(t, a, codes, next)
	grace := 7 * 24 * time.Hour

	check := func(when string, inPlay, inGrace int, expired ...*qodv1.Game) {
		t.Helper()
		if p, g := gameGauges(t, td); p != inPlay || g != inGrace {
			t.Errorf("%s: tirage_games_unfinished %d, tirage_games_in_refund_grace %d; want %d, %d", when, p, g, inPlay, inGrace)
		}
		st, err := td.admin().Status(ctx, &adminv1.StatusRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if st.GamesUnfinished != uint64(inPlay+inGrace) || st.GamesInRefundGrace != uint64(inGrace) {
			t.Errorf("%s: Status games_unfinished %d, games_in_refund_grace %d; want %d, %d", when, st.GamesUnfinished, st.GamesInRefundGrace, inPlay+inGrace, inGrace)
		}
		l, err := td.admin().ListExpiredGames(ctx, &adminv1.ListExpiredGamesRequest{})
		if err != nil {
			t.Errorf("%s: ListExpiredGames: %v", when, err)
			return
		}
		if l.RefundGrace.AsDuration() != grace || len(l.Games) != len(expired) {
			t.Errorf("%s: ListExpiredGames: %d games, grace %v; want %d, %v", when, len(l.Games), l.RefundGrace.AsDuration(), len(expired), grace)
			return
		}
		for i, g := range l.Games {
			if g.GameId != expired[i].GameId || g.Server != expired[i].Server || g.Status != qodv1.Status_STATUS_EXPIRED || g.EndedAt != nil {
				t.Errorf("%s: ListExpiredGames[%d] = %s %s %s, want %s %s STATUS_EXPIRED", when, i, g.GameId, g.Server, g.Status, expired[i].GameId, expired[i].Server)
			}
		}
	}
	sweep := func() {
		t.Helper()
		if _, err := td.admin().SweepExpired(ctx, &adminv1.SweepExpiredRequest{}); err != nil {
			t.Fatal(err)
		}
	}

	td.restart()
	a = td.client("server-a")
	check("at the start", 3, 0)

	// The first two pass their deadline; the third is still in play.
	td.clock.Advance(second.ExpiresAt.AsTime().Sub(td.clock.Now()))
	sweep()
	check("after the sweep past two deadlines", 1, 2, first, second)
	la, err := a.ListUnfinishedGames(ctx, &qodv1.ListUnfinishedGamesRequest{})
	if err != nil || len(la.Games) != 2 {
		t.Fatalf("server-a's unfinished games: %v %v, want 2", la, err)
	}
	for _, g := range la.Games {
		if want := map[bool]qodv1.Status{true: qodv1.Status_STATUS_EXPIRED, false: qodv1.Status_STATUS_PLAYING}[g.GameId == second.GameId]; g.Status != want {
			t.Errorf("server-a lists %s %s, want %s", g.GameId, g.Status, want)
		}
	}
	td.restart()
	a = td.client("server-a")
	check("at a start past two deadlines", 1, 2, first, second)

	// A refund shows at once, not at the next sweep.
	if _, err := td.admin().RefundGame(ctx, &adminv1.RefundGameRequest{RequestId: rid(), GameId: first.GameId, Reason: "outage"}); err != nil {
		t.Fatal(err)
	}
	check("after a refund", 1, 1, second)

	// The second's grace is over: the sweeper seals its expiry. The third
	// is past its deadline (a day after the second's) by then.
	td.clock.Advance(second.ExpiresAt.AsTime().Add(grace).Sub(td.clock.Now()))
	sweep()
	check("after the sweep at the end of a grace", 0, 1, third)
	if la, err := a.ListUnfinishedGames(ctx, &qodv1.ListUnfinishedGamesRequest{}); err != nil || len(la.Games) != 1 || la.Games[0].GameId != third.GameId {
		t.Fatalf("server-a's unfinished games once the second's expiry is sealed: %v %v, want the third alone", la, err)
	}
}
