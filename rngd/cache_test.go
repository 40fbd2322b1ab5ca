package rngd

import (
	"context"
	"testing"
	"time"

	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/transparency"
)

// heldAppendLog holds every append until gate is closed.
type heldAppendLog struct {
	transparency.Log
	gate chan struct{}
}

func (l heldAppendLog) Append(ctx context.Context, leaf []byte) (uint64, error) {
	<-l.gate
	return l.Log.Append(ctx, leaf)
}

// A game's new state is shown to readers (GetGame, GetReceipts) only once
// its change is handed to the store's writer: a reader that sees the new
// record count then waits for that change (store.view) and finds every
// record. Before, the cache showed it first, and a GetReceipts in between
// failed with INTERNAL "record n missing from the state store".
func TestCacheAfterHandOver(t *testing.T) {
	td := newTestDaemon(t)
	codes1 := td.emission("CH", "2026-12-15", 10)
	e := td.d.engine
	ctx := context.Background()
	g := start(t, td.client("server-a"), codes1[3]).Game
	var before storedGame
	e.games.get(g.GameId, &before)

	gl := heldAppendLog{e.tlog, make(chan struct{})}
	e.tlog = gl
	done := make(chan error, 1)
	go func() {
		_, err := e.pick(ctx, "server-a", &qodv1.PickRequest{RequestId: rid(), GameId: g.GameId, Number: 5})
		done <- err
	}()
	// The pick waits in its append; the store's writer then takes no
	// change (its mutex held) while the pick is sealed and committed.
	time.Sleep(50 * time.Millisecond)
	e.store.mu.Lock()
	close(gl.gate)
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		var now storedGame
		if e.games.get(g.GameId, &now); now.Records != before.Records {
			e.store.mu.Unlock()
			t.Fatalf("the game's new state (%d records) is shown before its change reaches the store's writer", now.Records)
		}
		time.Sleep(5 * time.Millisecond)
	}
	e.store.mu.Unlock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel() // no wait for a checkpoint
	rs, err := e.receipts(cctx, "server-a", g.GameId)
	if err != nil || len(rs) < 2 {
		t.Fatalf("receipts after the pick: %d, %v", len(rs), err)
	}
}

// A game got from the cache is the caller's: changing it, as a call
// changes the game it loaded, leaves the cache as it was put.
func TestGameCacheCopies(t *testing.T) {
	var c gameCache
	put := &storedGame{Records: 3}
	put.Game.ID = "server-a/g"
	c.put(put)
	var got storedGame
	if !c.get("server-a/g", &got) || got.Records != 3 {
		t.Fatalf("get = %+v, want the game put", got)
	}
	got.Records++
	var again storedGame
	if c.get("server-a/g", &again); again.Records != 3 {
		t.Fatalf("the cache shows %d records after a caller changed its copy, want 3", again.Records)
	}
	if c.get("server-a/other", &again) {
		t.Fatal("get found a game never put")
	}
	ended := *put
	ended.Ended = true
	c.put(&ended)
	if c.get("server-a/g", &again) {
		t.Fatal("an ended game stays in the cache")
	}
}
