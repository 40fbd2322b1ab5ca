package rngd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/verifier/record"
)

// Stored replies older than the retention are pruned; newer ones stay and
// read back intact.
func TestPruneRequests(t *testing.T) {
	st, err := openStore(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	t0 := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	err = st.db.Update(func(tx *bolt.Tx) error {
		for i, id := range []string{"old-1", "old-2", "new"} {
			at := t0.AddDate(0, 0, -200)
			if id == "new" {
				at = t0
			}
			if err := putRequest(tx, record.RequestID("gs", id), storedRequest{digest: [32]byte{byte(i)}, at: at.Unix(), reply: []byte(id)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := st.pruneRequests(t0.AddDate(0, 0, -100), 1); err != nil || n != 1 {
		t.Fatalf("pruned %d (limit 1): %v", n, err)
	}
	if n, err := st.pruneRequests(t0.AddDate(0, 0, -100), 10); err != nil || n != 1 {
		t.Fatalf("pruned %d: %v", n, err)
	}
	st.db.View(func(tx *bolt.Tx) error {
		for _, id := range []string{"old-1", "old-2"} {
			if _, ok := getRequest(tx, record.RequestID("gs", id)); ok {
				t.Errorf("%s not pruned", id)
			}
		}
		r, ok := getRequest(tx, record.RequestID("gs", "new"))
		if !ok || string(r.reply) != "new" || r.digest[0] != 2 || r.at != t0.Unix() {
			t.Errorf("new request: %+v %v", r, ok)
		}
		return nil
	})
}

// A store of format 1 (whole replies, no "format" key) is upgraded when
// opened: its replies read back whole, and its applied count is reset so
// that Open rebuilds the rest from the log. A format this rngd does not
// know is refused.
func TestStoreUpgrade(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	req := record.RequestID("gs", "old")
	err = db.Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucket(bucketMeta)
		if err != nil {
			return err
		}
		if err := meta.Put(keyApplied, u64(42)); err != nil {
			return err
		}
		b, err := tx.CreateBucket(bucketRequests)
		if err != nil {
			return err
		}
		v := append(make([]byte, 32, 64), u64(1_700_000_000)...) // digest 0, at
		return b.Put(req[:], append(v, "reply bytes"...))
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	st, err := openStore(path)
	if err != nil {
		t.Fatal(err)
	}
	if !st.upgraded {
		t.Error("not reported as upgraded")
	}
	st.db.View(func(tx *bolt.Tx) error {
		r, ok := getRequest(tx, req)
		if !ok || string(r.reply) != "reply bytes" || r.at != 1_700_000_000 || r.game != "" {
			t.Errorf("upgraded reply: %+v %v", r, ok)
		}
		if n := appliedCount(tx); n != 0 {
			t.Errorf("applied after upgrade: %d, want 0 (rebuild)", n)
		}
		return nil
	})
	// Opened again, it is not upgraded twice.
	st.db.Update(func(tx *bolt.Tx) error { return markApplied(tx, 7) })
	st.close()
	if st, err = openStore(path); err != nil {
		t.Fatal(err)
	}
	if st.upgraded {
		t.Error("upgraded twice")
	}
	st.db.View(func(tx *bolt.Tx) error {
		if r, ok := getRequest(tx, req); !ok || string(r.reply) != "reply bytes" || appliedCount(tx) != 7 {
			t.Errorf("second open: %+v %v applied %d", r, ok, appliedCount(tx))
		}
		return nil
	})
	st.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(keyFormat, u64(storeFormat+1)) })
	st.close()
	if _, err := openStore(path); err == nil || !strings.Contains(err.Error(), "format") {
		t.Fatalf("open of a newer format: %v", err)
	}
}

// A store of format 2 (no prefix) keeps its stored replies as they are and
// is rebuilt from the log.
func TestStoreUpgradeFormat2(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	st, err := openStore(path)
	if err != nil {
		t.Fatal(err)
	}
	req := record.RequestID("gs", "ref")
	ref := storedRequest{digest: [32]byte{7}, at: 1_700_000_000, game: "gs/0001", first: 2, end: 4}
	st.db.Update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		meta.Put(keyFormat, u64(2))
		meta.Delete(keyPrefix)
		meta.Put(keyApplied, u64(9))
		return putRequest(tx, req, ref)
	})
	st.close()
	if st, err = openStore(path); err != nil {
		t.Fatal(err)
	}
	defer st.close()
	if !st.upgraded || st.prefix != 0 {
		t.Errorf("upgraded %v, prefix %d", st.upgraded, st.prefix)
	}
	st.db.View(func(tx *bolt.Tx) error {
		r, ok := getRequest(tx, req)
		if !ok || r.game != ref.game || r.first != 2 || r.end != 4 || r.digest != ref.digest {
			t.Errorf("reference after the upgrade: %+v %v", r, ok)
		}
		if appliedCount(tx) != 0 || beUint64(tx.Bucket(bucketMeta).Get(keyFormat)) != storeFormat {
			t.Errorf("applied %d, format %x", appliedCount(tx), tx.Bucket(bucketMeta).Get(keyFormat))
		}
		return nil
	})
}

// A game's secret r is kept apart, in secrets.db, from before its start
// until its end, whose record reveals it: the secret store holds the
// unfinished games' secrets and no other, as played and after a rebuild
// from the log, which also drops the secret of a game that ended while an
// older rngd still kept it.
func TestSecretsKeptUntilEnd(t *testing.T) {
	td := newTestDaemon(t)
	a := td.client("server-a")
	codes := td.emission("SK", "2026-12-31", 6)
	over := func(g *qodv1.Game) bool {
		return g.Status != qodv1.Status_STATUS_PLAYING && g.Status != qodv1.Status_STATUS_AT_TIER
	}
	var unfinished, ended []string
	for i, code := range codes {
		g := start(t, a, code).Game
		if i%2 == 0 {
			g = playUntil(t, a, g, over)
			ended = append(ended, g.GameId)
		} else {
			unfinished = append(unfinished, g.GameId)
		}
	}
	path := filepath.Join(td.cfg.DataDir, "secrets.db")
	secrets := func(when string) {
		t.Helper()
		readMeta(t, path, func(tx *bolt.Tx) {
			b := tx.Bucket(bucketSecrets)
			if n := b.Stats().KeyN; n != len(unfinished) {
				t.Errorf("%s: %d secrets kept, want %d (the unfinished games')", when, n, len(unfinished))
			}
			for _, id := range unfinished {
				if len(b.Get([]byte(id))) != 32 {
					t.Errorf("%s: unfinished game %s has no secret", when, id)
				}
			}
		})
	}
	td.stop()
	secrets("as played")
	// An older rngd kept the secrets of ended games.
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketSecrets).Put([]byte(ended[0]), make([]byte, 32))
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Rebuild(context.Background(), td.cfg); err != nil {
		t.Fatal(err)
	}
	secrets("after a rebuild")
	// The unfinished games go on with their secrets.
	td.start()
	a = td.client("server-a")
	for _, id := range unfinished {
		g, err := a.GetGame(context.Background(), &qodv1.GetGameRequest{GameId: id})
		if err != nil {
			t.Fatal(err)
		}
		playUntil(t, a, g, over)
	}
}

// A data directory of store format 3 kept the secrets in a bucket of
// state.db: rngd moves them to secrets.db when it opens it, without
// rebuilding the rest, and the games in play go on with them.
func TestStoreUpgradeFormat3(t *testing.T) {
	td := newTestDaemon(t)
	a := td.client("server-a")
	var ids []string
	for _, code := range td.emission("F3", "2026-12-31", 3) {
		g := start(t, a, code).Game
		ids = append(ids, g.GameId)
	}
	td.stop()
	state, secrets := filepath.Join(td.cfg.DataDir, "state.db"), filepath.Join(td.cfg.DataDir, "secrets.db")
	// Format 3: the secrets in state.db, no secrets.db.
	kept := map[string][]byte{}
	readMeta(t, secrets, func(tx *bolt.Tx) {
		tx.Bucket(bucketSecrets).ForEach(func(k, v []byte) error { kept[string(k)] = bytes.Clone(v); return nil })
	})
	if len(kept) != len(ids) {
		t.Fatalf("%d secrets kept for %d games in play", len(kept), len(ids))
	}
	if err := os.Remove(secrets); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(state, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket(bucketSecrets)
		if err != nil {
			return err
		}
		for k, v := range kept {
			if err := b.Put([]byte(k), v); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketMeta).Put(keyFormat, u64(3))
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	mark := len(td.logs())
	td.start()
	if logs := td.logs()[mark:]; bytes.Contains(logs, []byte("rebuil")) {
		t.Errorf("format 3 was rebuilt from the log:\n%s", logs)
	}
	a = td.client("server-a")
	over := func(g *qodv1.Game) bool {
		return g.Status != qodv1.Status_STATUS_PLAYING && g.Status != qodv1.Status_STATUS_AT_TIER
	}
	for _, id := range ids {
		g, err := a.GetGame(context.Background(), &qodv1.GetGameRequest{GameId: id})
		if err != nil {
			t.Fatal(err)
		}
		if g = playUntil(t, a, g, over); g.Status == qodv1.Status_STATUS_PLAYING || g.Status == qodv1.Status_STATUS_AT_TIER {
			t.Fatalf("game %s did not end: %v", id, g.Status)
		}
	}
	td.stop()
	readMeta(t, state, func(tx *bolt.Tx) {
		if tx.Bucket(bucketSecrets) != nil {
			t.Error("state.db still has a secrets bucket")
		}
		if f := beUint64(tx.Bucket(bucketMeta).Get(keyFormat)); f != storeFormat {
			t.Errorf("format %d, want %d", f, storeFormat)
		}
	})
	readMeta(t, secrets, func(tx *bolt.Tx) {
		if n := tx.Bucket(bucketSecrets).Stats().KeyN; n != 0 {
			t.Errorf("%d secrets left after every game ended", n)
		}
	})
}

// A start's ticket reads as played from the moment the start hands its
// change to the writer, before the commit (a start reads tickets without
// waiting for the writer), and from the file after.
func TestTicketPlayedBeforeCommit(t *testing.T) {
	st, err := openStore(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	hash := record.Commit([32]byte{1}) // any 32 bytes
	if err := st.write(storeWrite{fn: func(tx *bolt.Tx) error {
		return putJSON(tx, bucketTickets, hash[:], &storedTicket{Emission: "E", Stake: 100})
	}}, nil, true); err != nil {
		t.Fatal(err)
	}
	// The writer is held inside a commit while the start is handed over.
	release, holding := make(chan struct{}), make(chan struct{})
	let := sync.OnceFunc(func() { close(release) })
	defer let() // before st.close, even when the test fails
	st.write(storeWrite{fn: func(*bolt.Tx) error { close(holding); <-release; return nil }}, nil, false)
	<-holding
	err = st.write(storeWrite{ticket: hash, started: "gs/game", fn: func(tx *bolt.Tx) error {
		return putJSON(tx, bucketTickets, hash[:], &storedTicket{Emission: "E", Stake: 100, Game: "gs/game"})
	}}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if tk, found, err := st.ticket(hash); err != nil || !found || tk.Game != "gs/game" || tk.Stake != 100 {
		t.Fatalf("before the commit: %+v %v %v, want played by gs/game", tk, found, err)
	}
	let()
	if err := st.sync(); err != nil {
		t.Fatal(err)
	}
	st.mu.Lock()
	left := len(st.started)
	st.mu.Unlock()
	if left != 0 {
		t.Errorf("%d started tickets kept after the commit", left)
	}
	if tk, found, err := st.ticket(hash); err != nil || !found || tk.Game != "gs/game" {
		t.Fatalf("after the commit: %+v %v %v", tk, found, err)
	}
	if _, found, err := st.ticket([32]byte{9}); err != nil || found {
		t.Fatalf("unknown ticket: found %v, %v", found, err)
	}
}
