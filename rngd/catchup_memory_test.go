package rngd

import (
	"context"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"

	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
)

// A tail applied from far back (a rebuild cut short leaves the prefix at 0:
// the next start applies the whole log) holds in memory only the games
// still in play, as a whole rebuild does: not every ended game the store
// already holds, with all its records.
func TestApplyTailKeepsOnlyGamesInPlay(t *testing.T) {
	td := newTestDaemon(t)
	ctx := context.Background()
	a := td.client("server-a")
	codes := td.emission("TM", "2026-12-31", 8)
	over := func(g *qodv1.Game) bool {
		return g.Status != qodv1.Status_STATUS_PLAYING && g.Status != qodv1.Status_STATUS_AT_TIER
	}
	var ids []string
	unfinished := 0
	for i, code := range codes {
		g := start(t, a, code).Game
		if i%2 == 0 {
			g = playUntil(t, a, g, over)
		} else {
			g = playUntil(t, a, g, func(g *qodv1.Game) bool { return len(g.Picks) >= 1 || over(g) })
			if !over(g) {
				unfinished++
			}
		}
		ids = append(ids, g.GameId)
	}
	want := viewStore(t, td, ids)
	e := td.d.engine
	size, err := e.logSize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.sync(); err != nil {
		t.Fatal(err)
	}
	r := rebuilder{e: e, games: map[string]*rebuildGame{}, incremental: true}
	if err := r.replay(ctx, 0, size); err != nil {
		t.Fatal(err)
	}
	for id, g := range r.games {
		if g.end != nil {
			t.Errorf("ended game %s (%d records) held in memory by the replay", id, len(g.leaves))
		}
	}
	if len(r.games) != unfinished {
		t.Errorf("the replay held %d games, want the %d in play", len(r.games), unfinished)
	}
	e.games.reset()
	sameView(t, "after the tail from 0", viewStore(t, td, ids), want)
}

// The end of a game reaches the log and the state store, but a crash loses
// the secret store's drop of its r (committed apart, without waiting): the
// next start finds the store level with the log and replays nothing, and
// still forgets that secret (the end record reveals it).
func TestEndedGameSecretDroppedAtStart(t *testing.T) {
	td := newTestDaemon(t)
	a := td.client("server-a")
	codes := td.emission("ES", "2026-12-31", 2)
	g := playUntil(t, a, start(t, a, codes[0]).Game, func(g *qodv1.Game) bool {
		return g.Status != qodv1.Status_STATUS_PLAYING && g.Status != qodv1.Status_STATUS_AT_TIER
	})
	kept := start(t, a, codes[1]).Game.GameId
	td.stop()
	path := filepath.Join(td.cfg.DataDir, "secrets.db")
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		var r [32]byte
		copy(r[:], g.Secret)
		return tx.Bucket(bucketSecrets).Put([]byte(g.GameId), r[:])
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	td.start()
	td.stop()
	readMeta(t, path, func(tx *bolt.Tx) {
		b := tx.Bucket(bucketSecrets)
		if b.Get([]byte(g.GameId)) != nil {
			t.Errorf("the secret of ended game %s is still kept", g.GameId)
		}
		if len(b.Get([]byte(kept))) != 32 {
			t.Errorf("the secret of game %s in play was dropped", kept)
		}
	})
}
