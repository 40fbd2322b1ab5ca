package rngd

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
	"google.golang.org/protobuf/proto"

	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/rngd/loadtest"
)

// A record's leaf is kept under its log index (records), its game keeps
// only the index (receipts): a commit appends the leaves instead of
// dirtying a page of every game in play. The records a store of format 7
// kept with their games (index ‖ leaf) are read where they are: after the
// upgrade, the game in play comes back (stored as JSON, as format 8 and
// older stored the games), a retry of each call gets its first
// reply (made again from its records), and the game plays on.
func TestStoreUpgradeFormat7Records(t *testing.T) {
	td := newTestDaemon(t)
	ctx := context.Background()
	tickets := td.emission("R7", "2026-12-31", 10)
	type call struct {
		do    func() (*qodv1.GameReply, error)
		first *qodv1.GameReply
	}
	var calls []call
	send := func(do func() (*qodv1.GameReply, error)) *qodv1.Game {
		t.Helper()
		r, err := do()
		if err != nil {
			t.Fatalf("call %d: %v", len(calls), err)
		}
		calls = append(calls, call{do, r})
		return r.Game
	}
	var g *qodv1.Game
	for _, code := range tickets {
		start := &qodv1.StartGameRequest{RequestId: rid(), Code: code}
		g = send(func() (*qodv1.GameReply, error) { return td.client("server-a").StartGame(ctx, start) })
		pick := &qodv1.PickRequest{RequestId: rid(), GameId: g.GameId, Number: loadtest.NextNumber(g)}
		if g = send(func() (*qodv1.GameReply, error) { return td.client("server-a").Pick(ctx, pick) }); g.Status == qodv1.Status_STATUS_PLAYING {
			break
		}
	}
	if g.Status != qodv1.Status_STATUS_PLAYING {
		t.Fatalf("every game lost its first pick: %v", g)
	}
	if err := td.d.engine.store.sync(); err != nil {
		t.Fatal(err)
	}
	stored := func(db *bolt.DB, n uint32) (leaves [][]byte, indices []uint64) {
		t.Helper()
		err := db.View(func(tx *bolt.Tx) error {
			var err error
			leaves, indices, err = gameRecords(tx, g.GameId, n)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return leaves, indices
	}
	leaves, indices := stored(td.d.engine.store.db, 2)
	td.d.engine.store.db.View(func(tx *bolt.Tx) error {
		for i, leaf := range leaves {
			if v := tx.Bucket(bucketReceipts).Get(receiptKey(g.GameId, uint32(i))); !bytes.Equal(v, u64(indices[i])) {
				t.Errorf("record %d under its game: %x, want its log index %d alone", i, v, indices[i])
			}
			if v := tx.Bucket(bucketRecords).Get(u64(indices[i])); !bytes.Equal(v, leaf) || len(leaf) == 0 {
				t.Errorf("record %d under its log index %d: %q, want its leaf %q", i, indices[i], v, leaf)
			}
		}
		return nil
	})
	td.stop()

	// The store as format 7 wrote it.
	path := filepath.Join(td.cfg.DataDir, "state.db")
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		receipts, records := tx.Bucket(bucketReceipts), tx.Bucket(bucketRecords)
		var keys, vals [][]byte
		err := receipts.ForEach(func(k, v []byte) error {
			keys, vals = append(keys, bytes.Clone(k)), append(vals, append(bytes.Clone(v), records.Get(v)...))
			return nil
		})
		if err != nil {
			return err
		}
		for i := range keys {
			if err := receipts.Put(keys[i], vals[i]); err != nil {
				return err
			}
		}
		if err := tx.DeleteBucket(bucketRecords); err != nil {
			return err
		}
		// Its games in JSON, as format 8 and older wrote them.
		games := tx.Bucket(bucketGames)
		keys = keys[:0]
		if err := games.ForEach(func(k, _ []byte) error { keys = append(keys, bytes.Clone(k)); return nil }); err != nil {
			return err
		}
		for _, k := range keys {
			var sg storedGame
			if _, err := getStoredGame(tx, k, &sg); err != nil {
				return err
			}
			if err := putJSON(tx, bucketGames, k, &sg); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketMeta).Put(keyFormat, u64(7))
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}

	td.start()
	for i, c := range calls {
		r, err := c.do()
		if err != nil || !proto.Equal(r, c.first) {
			t.Fatalf("retry of call %d after the upgrade: %v\n%v\nwant the first reply\n%v", i, err, r, c.first)
		}
	}
	got, err := td.client("server-a").GetGame(ctx, &qodv1.GetGameRequest{GameId: g.GameId})
	if err != nil || !proto.Equal(got, g) {
		t.Fatalf("the game in play after the upgrade: %v %v, want %v", got, err, g)
	}
	pick := &qodv1.PickRequest{RequestId: rid(), GameId: g.GameId, Number: loadtest.NextNumber(g)}
	picked, err := td.client("server-a").Pick(ctx, pick)
	if err != nil {
		t.Fatalf("a pick after the upgrade: %v", err)
	}
	records := uint32(3) // the start, the first pick and this one
	if picked.Game.Status == qodv1.Status_STATUS_LOST {
		records++ // and the end it sealed (P(losing) = 3/29)
	}
	if err := td.d.engine.store.sync(); err != nil {
		t.Fatal(err)
	}
	after, _ := stored(td.d.engine.store.db, 3)
	for i := range leaves {
		if !bytes.Equal(after[i], leaves[i]) {
			t.Errorf("record %d after the upgrade: %q, want %q", i, after[i], leaves[i])
		}
	}
	td.d.engine.store.db.View(func(tx *bolt.Tx) error {
		if f := beUint64(tx.Bucket(bucketMeta).Get(keyFormat)); f != storeFormat {
			t.Errorf("format %d after the upgrade, want %d", f, storeFormat)
		}
		if v := tx.Bucket(bucketReceipts).Get(receiptKey(g.GameId, 2)); len(v) != 8 || !bytes.Equal(tx.Bucket(bucketRecords).Get(v), after[2]) {
			t.Errorf("the record stored after the upgrade: %x under its game", v)
		}
		// The game, changed by the pick, is written again compactly.
		var sg storedGame
		raw := tx.Bucket(bucketGames).Get([]byte(g.GameId))
		if ok, err := getStoredGame(tx, []byte(g.GameId), &sg); !ok || err != nil || sg.Records != records {
			t.Errorf("the game after the upgrade and a pick: %v %v, %d records, want %d", ok, err, sg.Records, records)
		}
		if js, _ := json.Marshal(&sg); len(raw) == 0 || raw[0] != gameEncoding || len(raw) > len(js)/3 {
			t.Errorf("the game after the upgrade and a pick: %d bytes, first %#x, want the compact encoding (its JSON: %d bytes)", len(raw), raw[:min(len(raw), 1)], len(js))
		}
		return nil
	})
}
