package rngd

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"slices"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/verifier/qod"
)

// listAllExpired follows ListExpiredGames' pages of size, and returns the
// games in the order listed and how many pages it took.
func listAllExpired(t *testing.T, adm adminv1.AdminClient, size int32) (games []*qodv1.Game, pages int) {
	t.Helper()
	token := ""
	for {
		l, err := adm.ListExpiredGames(context.Background(), &adminv1.ListExpiredGamesRequest{PageSize: size, PageToken: token})
		if err != nil {
			t.Fatalf("page %d: %v", pages+1, err)
		}
		pages++
		if l.RefundGrace.AsDuration() != 7*24*time.Hour {
			t.Fatalf("page %d: refund_grace %v", pages, l.RefundGrace.AsDuration())
		}
		games = append(games, l.Games...)
		if token = l.NextPageToken; token == "" {
			return games, pages
		}
		if len(l.Games) == 0 {
			t.Fatalf("page %d: empty, with a next_page_token", pages)
		}
		if pages > 10000 {
			t.Fatal("no end to the pages")
		}
	}
}

func gameIDs(games []*qodv1.Game) []string {
	ids := make([]string, len(games))
	for i, g := range games {
		ids[i] = g.GameId
	}
	return ids
}

// byDeadline sorts games as ListExpiredGames lists them: by deadline, then
// game server, then game id.
func byDeadline(games []*qodv1.Game) {
	slices.SortFunc(games, func(a, b *qodv1.Game) int {
		return cmp.Or(a.ExpiresAt.AsTime().Compare(b.ExpiresAt.AsTime()), cmp.Compare(a.Server, b.Server), cmp.Compare(a.GameId, b.GameId))
	})
}

// ListExpiredGames comes in pages, as ListUnfinishedGames does: the
// operator gets every server's games past their deadline across the pages,
// in a stable order (deadline, then server, then id), each once; the last
// page has no next_page_token, and a request without page_size or
// page_token (an older rngctl) gets the first page. A game that ends
// between two pages does not stop the next one.
func TestListExpiredPages(t *testing.T) {
	td := newTestDaemon(t)
	codes := td.emission("XP", "2026-12-31", 12)
	a, b := td.client("server-a"), td.client("server-b")
	var want []*qodv1.Game
	for i := 1; i <= 8; i++ {
		c := a
		if i%3 == 1 {
			c = b
		}
		want = append(want, start(t, c, codes[i]).Game)
		if i%3 == 0 {
			td.clock.Advance(1500e6) // other deadlines; games of one deadline in between
		}
	}
	byDeadline(want)
	td.clock.Advance(want[len(want)-1].ExpiresAt.AsTime().Sub(td.clock.Now()) + time.Minute)
	adm := td.admin()
	ctx := context.Background()

	for _, size := range []int32{1, 2, 3, 7, 8, 9} {
		got, pages := listAllExpired(t, adm, size)
		if !slices.Equal(gameIDs(got), gameIDs(want)) {
			t.Errorf("page_size %d: listed %v, want %v", size, gameIDs(got), gameIDs(want))
		}
		if wantPages := (len(want) + int(size) - 1) / int(size); pages != wantPages {
			t.Errorf("page_size %d: %d pages, want %d", size, pages, wantPages)
		}
		for _, g := range got {
			if g.Status != qodv1.Status_STATUS_EXPIRED {
				t.Errorf("page_size %d: %s listed %s", size, g.GameId, g.Status)
			}
		}
	}
	l, err := adm.ListExpiredGames(ctx, &adminv1.ListExpiredGamesRequest{})
	if err != nil || len(l.Games) != len(want) || l.NextPageToken != "" {
		t.Fatalf("empty request: %d games, token %q, %v; want all %d and no token", len(l.GetGames()), l.GetNextPageToken(), err, len(want))
	}

	// A game that ends between two pages: the next page goes on after it.
	first, err := adm.ListExpiredGames(ctx, &adminv1.ListExpiredGamesRequest{PageSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	refund := &adminv1.RefundGameRequest{RequestId: rid(), GameId: first.Games[2].GameId, Reason: "test: a game ending between two pages"}
	if _, err := adm.RefundGame(ctx, refund); err != nil {
		t.Fatal(err)
	}
	rest, err := adm.ListExpiredGames(ctx, &adminv1.ListExpiredGamesRequest{PageSize: 10, PageToken: first.NextPageToken})
	if err != nil {
		t.Fatal(err)
	}
	if got := gameIDs(rest.Games); !slices.Equal(got, gameIDs(want[3:])) || rest.NextPageToken != "" {
		t.Errorf("after a page whose last game ended: %v (token %q), want %v", got, rest.NextPageToken, gameIDs(want[3:]))
	}
}

// A page_token that is not one ListExpiredGames returned is refused
// (INVALID_ARGUMENT, PAGE_TOKEN_INVALID), a ListUnfinishedGames token
// included; a negative page_size is refused (PAGE_SIZE_INVALID).
func TestListExpiredBadPage(t *testing.T) {
	td := newTestDaemon(t)
	codes := td.emission("XB", "2026-12-31", 6)
	a := td.client("server-a")
	var games []*qodv1.Game
	for i := 1; i <= 3; i++ {
		games = append(games, start(t, a, codes[i]).Game)
	}
	td.clock.Advance(games[2].ExpiresAt.AsTime().Sub(td.clock.Now()) + time.Minute)
	ctx := context.Background()
	adm := td.admin()
	l, err := adm.ListExpiredGames(ctx, &adminv1.ListExpiredGamesRequest{PageSize: 1})
	if err != nil || l.NextPageToken == "" {
		t.Fatalf("first page: token %q, %v", l.GetNextPageToken(), err)
	}
	lu, err := a.ListUnfinishedGames(ctx, &qodv1.ListUnfinishedGamesRequest{PageSize: 1})
	if err != nil || lu.NextPageToken == "" {
		t.Fatalf("ListUnfinishedGames' first page: token %q, %v", lu.GetNextPageToken(), err)
	}
	enc := func(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
	tok := func(version byte, deadline uint64, id string) string {
		return enc(append(binary.BigEndian.AppendUint64([]byte{version}, deadline), id...))
	}
	id := fmt.Sprintf("server-a/%032x", 0xabc)
	for name, token := range map[string]string{
		"ListUnfinishedGames' token": lu.NextPageToken,
		"not base64":                 "!!!!",
		"padded base64":              l.NextPageToken + "=",
		"another version":            tok(2, 1, id),
		"version alone":              enc([]byte{1}),
		"deadline alone":             tok(1, 1, ""),
		"short id":                   tok(1, 1, "server-a/0123"),
		"upper hex":                  tok(1, 1, fmt.Sprintf("server-a/%032X", 0xabc)),
		"no server":                  tok(1, 1, fmt.Sprintf("/%032x", 0xabc)),
		"no slash":                   tok(1, 1, fmt.Sprintf("server-a%033x", 0xabc)),
		"a NUL in the server":        tok(1, 1, "server-a\x00"+id),
		"the operator's namespace":   tok(1, 1, fmt.Sprintf("#admin/%032x", 0xabc)),
		"a token too long":           tok(1, 1, string(make([]byte, 4096))+id),
	} {
		l, err := adm.ListExpiredGames(ctx, &adminv1.ListExpiredGamesRequest{PageToken: token})
		if len(l.GetGames()) != 0 {
			t.Errorf("%s: listed %d games", name, len(l.GetGames()))
		}
		wantRefusal(t, err, reasonPageTokenInvalid, "page_token")
	}
	// A well-formed token at a place where no game is lists the games
	// after that place.
	if l, err := adm.ListExpiredGames(ctx, &adminv1.ListExpiredGamesRequest{PageToken: tok(1, 0, id)}); err != nil || len(l.Games) != 3 {
		t.Errorf("a place before every game: %d games, %v; want 3", len(l.GetGames()), err)
	}
	_, err = adm.ListExpiredGames(ctx, &adminv1.ListExpiredGamesRequest{PageSize: -1})
	wantRefusal(t, err, reasonPageSizeInvalid, "page_size")
}

// page_size 0 lists 500 games, and a page_size above 1000 lists 1000; the
// pages of the largest size carry every game once, in order. Games over
// whose end is not sealed yet (they show their final status) are left out
// without leaving a page short.
func TestListExpiredPageSizes(t *testing.T) {
	td := newTestDaemon(t)
	codes := td.emission("XS", "2026-12-31", 4)
	real := start(t, td.client("server-a"), codes[1]).Game
	e := td.d.engine
	sg, err := e.loadGame(real.GameId, "server-a")
	if err != nil {
		t.Fatal(err)
	}
	td.clock.Advance(real.ExpiresAt.AsTime().Sub(td.clock.Now()) + time.Hour)
	// 1,100 more games past their deadline, of two servers and 60
	// deadlines, and 50 over (lost, their end not sealed) of a later
	// deadline, copies of the real one written straight into the store:
	// starting them would take minutes.
	const extra, over = 1100, 50
	err = e.store.db.Update(func(tx *bolt.Tx) error {
		for i := range extra + over {
			c := *sg
			c.Server = []string{"server-a", "server-b"}[i%2]
			c.Game.ID = fmt.Sprintf("%s/%012x%020x", c.Server, 1, i)
			c.Game.Expires = sg.Game.Expires.Add(-time.Duration(i%60) * time.Second)
			c.Secret, c.HasSecret, c.Records = [32]byte{}, false, 0
			if i >= extra { // listed last, were they listed: the last page ends before them
				c.Game.Phase = qod.Lost
				c.Game.Expires = sg.Game.Expires.Add(30 * time.Minute)
			}
			if err := putGame(tx, &c, true); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	adm := td.admin()
	for _, tc := range []struct {
		size int32
		want int
	}{{0, defaultPageSize}, {maxPageSize, maxPageSize}, {maxPageSize + 1, maxPageSize}, {1 << 30, maxPageSize}} {
		l, err := adm.ListExpiredGames(ctx, &adminv1.ListExpiredGamesRequest{PageSize: tc.size})
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Games) != tc.want || l.NextPageToken == "" {
			t.Errorf("page_size %d: %d games (token %q), want %d and a next_page_token", tc.size, len(l.Games), l.NextPageToken, tc.want)
		}
	}
	games, pages := listAllExpired(t, adm, 1<<30)
	if pages != 2 || len(games) != extra+1 {
		t.Fatalf("pages of the largest size: %d games in %d pages, want %d in 2", len(games), pages, extra+1)
	}
	want := slices.Clone(games)
	byDeadline(want)
	if !slices.Equal(gameIDs(games), gameIDs(want)) {
		t.Error("not listed by deadline, then server, then id")
	}
	seen := map[string]bool{}
	for _, g := range games {
		if seen[g.GameId] || g.Status != qodv1.Status_STATUS_EXPIRED {
			t.Fatalf("%s listed twice, or %s", g.GameId, g.Status)
		}
		seen[g.GameId] = true
	}
	if !seen[real.GameId] {
		t.Error("the real game is not listed")
	}
}
