package rngd

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"slices"
	"testing"

	bolt "go.etcd.io/bbolt"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
)

// listAll follows ListUnfinishedGames' pages of size, and returns the game
// ids in the order listed and how many pages it took.
func listAll(t *testing.T, c qodv1.QuitteOuDoubleClient, size int32) (ids []string, pages int) {
	t.Helper()
	token := ""
	for {
		l, err := c.ListUnfinishedGames(context.Background(), &qodv1.ListUnfinishedGamesRequest{PageSize: size, PageToken: token})
		if err != nil {
			t.Fatalf("page %d: %v", pages+1, err)
		}
		pages++
		for _, g := range l.Games {
			ids = append(ids, g.GameId)
		}
		if token = l.NextPageToken; token == "" {
			return ids, pages
		}
		if len(l.Games) == 0 {
			t.Fatalf("page %d: empty, with a next_page_token", pages)
		}
		if pages > 10000 {
			t.Fatal("no end to the pages")
		}
	}
}

// ListUnfinishedGames comes in pages: a game server with more games than
// a page gets them all across its pages, in a stable order (start time,
// then id), each once; the last page has no next_page_token. A request
// without page_size or page_token (an older client) gets the first page.
func TestListUnfinishedPages(t *testing.T) {
	td := newTestDaemon(t)
	codes := td.emission("LP", "2026-12-31", 12)
	a, b := td.client("server-a"), td.client("server-b")
	var want []string
	for i := 1; i <= 7; i++ {
		want = append(want, start(t, a, codes[i]).Game.GameId)
		if i%3 == 0 {
			td.clock.Advance(1500e6) // starts of other milliseconds
		}
	}
	start(t, b, codes[8])
	start(t, b, codes[9])
	slices.Sort(want)

	for _, size := range []int32{1, 2, 3, 6, 7, 8} {
		got, pages := listAll(t, a, size)
		if !slices.Equal(got, want) {
			t.Errorf("page_size %d: listed %v, want %v", size, got, want)
		}
		if wantPages := (7 + int(size) - 1) / int(size); pages != wantPages {
			t.Errorf("page_size %d: %d pages, want %d", size, pages, wantPages)
		}
	}
	l, err := a.ListUnfinishedGames(context.Background(), &qodv1.ListUnfinishedGamesRequest{})
	if err != nil || len(l.Games) != 7 || l.NextPageToken != "" {
		t.Fatalf("empty request: %d games, token %q, %v; want all 7 and no token", len(l.GetGames()), l.GetNextPageToken(), err)
	}
	if got, _ := listAll(t, b, 1); len(got) != 2 {
		t.Errorf("server-b lists %d games, want its 2", len(got))
	}

	// A game that ends between two pages: the next page goes on after it.
	first, err := a.ListUnfinishedGames(context.Background(), &qodv1.ListUnfinishedGamesRequest{PageSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	last := first.Games[2]
	refund := &adminv1.RefundGameRequest{RequestId: rid(), GameId: last.GameId, Reason: "test: a game ending between two pages"}
	if _, err := td.admin().RefundGame(context.Background(), refund); err != nil {
		t.Fatal(err)
	}
	rest, err := a.ListUnfinishedGames(context.Background(), &qodv1.ListUnfinishedGamesRequest{PageSize: 10, PageToken: first.NextPageToken})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range rest.Games {
		got = append(got, g.GameId)
	}
	if !slices.Equal(got, want[3:]) || rest.NextPageToken != "" {
		t.Errorf("after a page whose last game ended: %v (token %q), want %v", got, rest.NextPageToken, want[3:])
	}
}

// A page_token that is not one ListUnfinishedGames returned to the caller
// is refused (INVALID_ARGUMENT, PAGE_TOKEN_INVALID), another game server's
// included: it lists nothing of that server's games. A negative page_size
// is refused (PAGE_SIZE_INVALID).
func TestListUnfinishedBadPage(t *testing.T) {
	td := newTestDaemon(t)
	codes := td.emission("LB", "2026-12-31", 10)
	a, b := td.client("server-a"), td.client("server-b")
	for i := 1; i <= 3; i++ {
		start(t, a, codes[i])
		start(t, b, codes[3+i])
	}
	ctx := context.Background()
	lb, err := b.ListUnfinishedGames(ctx, &qodv1.ListUnfinishedGamesRequest{PageSize: 1})
	if err != nil || lb.NextPageToken == "" {
		t.Fatalf("server-b's first page: token %q, %v", lb.GetNextPageToken(), err)
	}
	la, err := a.ListUnfinishedGames(ctx, &qodv1.ListUnfinishedGamesRequest{PageSize: 1})
	if err != nil || la.NextPageToken == "" {
		t.Fatalf("server-a's first page: token %q, %v", la.GetNextPageToken(), err)
	}
	enc := func(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
	raw, _ := base64.RawURLEncoding.DecodeString(la.NextPageToken)
	for name, token := range map[string]string{
		"server-b's token":    lb.NextPageToken,
		"not base64":          "!!!!",
		"padded base64":       la.NextPageToken + "=",
		"another version":     enc(append([]byte{2}, raw[1:]...)),
		"version alone":       enc([]byte{1}),
		"server-b's game id":  enc(append([]byte{1}, "server-b/"+hex.EncodeToString(make([]byte, 16))...)),
		"server-a, short id":  enc(append([]byte{1}, "server-a/0123"...)),
		"server-a, upper hex": enc(append([]byte{1}, "server-a/"+fmt.Sprintf("%032X", 0xabc)...)),
		"server-a as prefix":  enc(append([]byte{1}, "server-a"+"\x00server-b/"+hex.EncodeToString(make([]byte, 16))...)),
		"a token too long":    enc(append(raw, make([]byte, 4096)...)),
	} {
		l, err := a.ListUnfinishedGames(ctx, &qodv1.ListUnfinishedGamesRequest{PageToken: token})
		if len(l.GetGames()) != 0 {
			t.Errorf("%s: listed %d games", name, len(l.GetGames()))
		}
		wantRefusal(t, err, reasonPageTokenInvalid, "page_token")
	}
	// A well-formed token naming a game id of server-a that never was
	// lists server-a's games after it, and only those.
	forged := enc(append([]byte{1}, "server-a/"+hex.EncodeToString(make([]byte, 16))...))
	if l, err := a.ListUnfinishedGames(ctx, &qodv1.ListUnfinishedGamesRequest{PageToken: forged}); err != nil || len(l.Games) != 3 {
		t.Errorf("server-a's own zero id: %d games, %v; want its 3", len(l.GetGames()), err)
	}
	_, err = a.ListUnfinishedGames(ctx, &qodv1.ListUnfinishedGamesRequest{PageSize: -1})
	wantRefusal(t, err, reasonPageSizeInvalid, "page_size")
}

// page_size 0 lists 500 games, and a page_size above 1000 lists 1000; the
// pages of the largest size carry every game once.
func TestListUnfinishedPageSizes(t *testing.T) {
	td := newTestDaemon(t)
	codes := td.emission("LS", "2026-12-31", 4)
	a := td.client("server-a")
	real := start(t, a, codes[1]).Game
	e := td.d.engine
	// 1,100 more unfinished games of server-a, copies of the real one
	// under other ids, written straight into the store: starting them
	// would take minutes.
	sg, err := e.loadGame(real.GameId, "server-a")
	if err != nil {
		t.Fatal(err)
	}
	const extra = 1100
	err = e.store.db.Update(func(tx *bolt.Tx) error {
		for i := range extra {
			c := *sg
			c.Game.ID = fmt.Sprintf("server-a/%012x%020x", 1, i)
			c.Secret, c.HasSecret, c.Records = [32]byte{}, false, 0
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
	for _, tc := range []struct {
		size int32
		want int
	}{{0, defaultPageSize}, {maxPageSize, maxPageSize}, {maxPageSize + 1, maxPageSize}, {1 << 30, maxPageSize}} {
		l, err := a.ListUnfinishedGames(ctx, &qodv1.ListUnfinishedGamesRequest{PageSize: tc.size})
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Games) != tc.want || l.NextPageToken == "" {
			t.Errorf("page_size %d: %d games (token %q), want %d and a next_page_token", tc.size, len(l.Games), l.NextPageToken, tc.want)
		}
	}
	ids, pages := listAll(t, a, 1<<30)
	if pages != 2 || len(ids) != extra+1 {
		t.Fatalf("pages of the largest size: %d games in %d pages, want %d in 2", len(ids), pages, extra+1)
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("%s listed twice", id)
		}
		seen[id] = true
	}
	if !seen[real.GameId] || !slices.IsSorted(ids) {
		t.Errorf("the real game listed: %v; sorted: %v", seen[real.GameId], slices.IsSorted(ids))
	}
}
