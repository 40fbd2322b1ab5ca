package rngd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/verifier/record"
)

// A start takes its secret r from the secret store's reserve, committed
// there before it is taken, and its game keeps it under its id; the
// reserve's other secrets are never given to a game after a restart
// (dropOrphanSecrets drops them: one may have been taken by a start that did
// not reach the log), and a game whose move from the reserve a crash lost
// finds its secret again by its start record's commitment, as the store
// catches up with the log.
func TestSecretReserve(t *testing.T) {
	td := newTestDaemon(t)
	codes := td.emission("SR", "2026-12-31", 10)
	state, before := td.snapshotState()
	td.start()
	a := td.client("server-a")
	g1 := start(t, a, codes[0]).Game
	commitOf := func(id string) (c [32]byte) {
		t.Helper()
		if err := td.d.engine.store.sync(); err != nil {
			t.Fatal(err)
		}
		err := td.d.engine.store.db.View(func(tx *bolt.Tx) error {
			start, err := startRecord(tx, id)
			if err == nil {
				c = start.Commit
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c1 := commitOf(g1.GameId)
	td.stop()

	path := filepath.Join(td.cfg.DataDir, "secrets.db")
	old := map[[32]byte]bool{}
	readMeta(t, path, func(tx *bolt.Tx) {
		tx.Bucket(bucketReserve).ForEach(func(k, v []byte) error {
			if record.Commit([32]byte(v)) != [32]byte(k) {
				t.Errorf("reserve: %x under %x, not its commitment", v, k)
			}
			old[[32]byte(k)] = true
			return nil
		})
		if r := tx.Bucket(bucketSecrets).Get([]byte(g1.GameId)); len(r) != 32 || record.Commit([32]byte(r)) != c1 {
			t.Errorf("game %s keeps %x, not the secret its start commits to", g1.GameId, r)
		}
	})
	if len(old) != reserveSize-1 || old[c1] {
		t.Fatalf("the reserve holds %d secrets after a start (its own among them: %v), want %d others", len(old), old[c1], reserveSize-1)
	}

	// A crash lost g1's move from the reserve, and the state store's
	// commit of its start: its secret is in the reserve alone, its start
	// in the log alone (catchUp applies it).
	if err := os.WriteFile(state, before, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		r := tx.Bucket(bucketSecrets).Get([]byte(g1.GameId))
		if err := tx.Bucket(bucketReserve).Put(c1[:], r); err != nil {
			return err
		}
		return tx.Bucket(bucketSecrets).Delete([]byte(g1.GameId))
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}

	td.start()
	if r, ok, err := td.d.engine.secrets.read(g1.GameId); err != nil || !ok || record.Commit(r) != c1 {
		t.Fatalf("after the restart game %s keeps %x (%v, %v), not the secret its start commits to", g1.GameId, r, ok, err)
	}
	g2 := start(t, td.client("server-a"), codes[1]).Game
	if c2 := commitOf(g2.GameId); old[c2] {
		t.Fatal("a secret of the reserve before the restart was given to a game after it")
	}
	// Drawn with it (a loss ends the game and reveals it: one pick in ten).
	if _, err := td.client("server-a").Pick(context.Background(), &qodv1.PickRequest{RequestId: rid(), GameId: g1.GameId, Number: 1}); err != nil {
		t.Fatalf("pick of the game whose secret was in the reserve alone: %v", err)
	}
	td.stop()
	readMeta(t, path, func(tx *bolt.Tx) {
		n := 0
		tx.Bucket(bucketReserve).ForEach(func(k, _ []byte) error {
			n++
			if old[[32]byte(k)] {
				t.Errorf("a secret of the reserve before the restart is still in it: %x", k)
			}
			return nil
		})
		if n != reserveSize-1 {
			t.Errorf("the reserve holds %d secrets after the restart and a start, want %d", n, reserveSize-1)
		}
	})
	if logs := string(td.logs()); !strings.Contains(logs, "moved to their games") || !strings.Contains(logs, "count=1") {
		t.Errorf("the move of g1's secret is not logged:\n%s", logs)
	}
}

// A game read from the state store while its secret's move from the
// reserve is not committed yet (the moves linger) finds its secret in the
// reserve by its start record's commitment: its draws go on, and the
// secret is not counted lost.
func TestSecretReserveBeforeMove(t *testing.T) {
	td := newTestDaemon(t)
	codes := td.emission("SM", "2026-12-31", 10)
	a := td.client("server-a")
	g := start(t, a, codes[0]).Game
	e := td.d.engine
	if err := e.store.sync(); err != nil {
		t.Fatal(err)
	}
	// As committed before the move: the secret in the reserve alone.
	err := e.secrets.hand(storeWrite{fn: func(tx *bolt.Tx) error {
		r := bytes.Clone(tx.Bucket(bucketSecrets).Get([]byte(g.GameId)))
		if len(r) != 32 {
			return fmt.Errorf("game %s keeps no secret", g.GameId)
		}
		c := record.Commit([32]byte(r))
		if err := tx.Bucket(bucketReserve).Put(c[:], r); err != nil {
			return err
		}
		return tx.Bucket(bucketSecrets).Delete([]byte(g.GameId))
	}}, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.games.reset() // read from the store
	if _, err := a.Pick(context.Background(), &qodv1.PickRequest{RequestId: rid(), GameId: g.GameId, Number: 1}); err != nil {
		t.Fatalf("pick of a game whose secret is in the reserve: %v", err)
	}
	if v := counterValue(e.metrics.alarms.WithLabelValues("store")); v != 0 {
		t.Errorf("store alarm %v: the secret was counted lost", v)
	}
}

// A game in play whose secret is in neither secrets.db nor the reserve,
// and whose record 0 in the state store is not a start record (a damaged
// store), is counted lost when rngd starts with a reserve to settle: the
// settle step looks for its start's commitment and finds none, without
// failing the start of rngd.
func TestSecretReserveSettleNoStartRecord(t *testing.T) {
	td := newTestDaemon(t)
	codes := td.emission("SN", "2026-12-31", 10)
	a := td.client("server-a")
	g1 := start(t, a, codes[0]).Game
	g2 := start(t, a, codes[1]).Game
	if _, err := a.Pick(context.Background(), &qodv1.PickRequest{RequestId: rid(), GameId: g2.GameId, Number: 1}); err != nil {
		t.Fatal(err)
	}
	e := td.d.engine
	if err := e.store.sync(); err != nil {
		t.Fatal(err)
	}
	if err := e.secrets.sync(); err != nil {
		t.Fatal(err)
	}
	td.stop()
	// g1's record 0 names g2's pick, not a start record, and g1's secret
	// is gone.
	updateBolt(t, filepath.Join(td.cfg.DataDir, "state.db"), func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketReceipts)
		return b.Put(receiptKey(g1.GameId, 0), bytes.Clone(b.Get(receiptKey(g2.GameId, 1))))
	})
	updateBolt(t, filepath.Join(td.cfg.DataDir, "secrets.db"), func(tx *bolt.Tx) error {
		return tx.Bucket(bucketSecrets).Delete([]byte(g1.GameId))
	})
	td.start()
	if v := counterValue(td.d.engine.metrics.alarms.WithLabelValues("store")); v != 1 {
		t.Errorf("store alarm %v after the start, want 1 (g1's secret lost)", v)
	}
}
