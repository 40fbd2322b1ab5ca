package rngd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
	"google.golang.org/grpc/status"

	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/verifier/record"
)

// getRequest returns the reply stored for req as tx sees it (the replies
// tx stored itself included): false when there is none, an error when the
// store or its index cannot say.
func (s *store) getRequest(tx *bolt.Tx, req [32]byte) (storedRequest, bool, error) {
	seq, ok, err := s.reqs.locate(s, tx, req)
	if err != nil {
		return storedRequest{}, false, err
	}
	return s.requestAt(tx, req, seq, ok)
}

// Stored replies older than the retention are pruned from the request log,
// oldest first by the time they were stored, limit at a time; newer ones
// stay and read back intact — one stored first with a time ahead of the
// others (a clock set forward, then back) holds up none of those after it
// — and so does a request stored again after its first time was pruned
// (its latest reply).
func TestPruneRequests(t *testing.T) {
	st, err := openStore(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	t0 := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	cutoff := t0.AddDate(0, 0, -100)
	const n = 3000
	old := func(i int) bool { return i < 2*n/3 }
	id := func(i int) string { return fmt.Sprintf("req-%d", i) }
	ahead := record.RequestID("gs", "ahead")
	err = st.db.Update(func(tx *bolt.Tx) error {
		if err := st.putRequest(tx, ahead, storedRequest{at: t0.AddDate(1, 0, 0).Unix(), reply: []byte("ahead")}); err != nil {
			return err
		}
		for i := range n {
			at := t0.Add(time.Duration(i) * time.Second)
			if old(i) {
				at = t0.AddDate(0, 0, -200).Add(time.Duration(i) * time.Second)
			}
			if err := st.putRequest(tx, record.RequestID("gs", id(i)), storedRequest{digest: [32]byte{byte(i)}, at: at.Unix(), reply: []byte(id(i))}); err != nil {
				return err
			}
		}
		// Stored again, after the cutoff: its first reply is due, its
		// second is not.
		return st.putRequest(tx, record.RequestID("gs", id(1)), storedRequest{digest: [32]byte{1}, at: t0.Unix(), reply: []byte("again")})
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := st.pruneRequests(cutoff, 10); err != nil || got != 10 {
		t.Fatalf("pruned %d (limit 10): %v", got, err)
	}
	if got, err := st.pruneRequests(cutoff, n); err != nil || got != 2*n/3-10 {
		t.Fatalf("pruned %d, want %d: %v", got, 2*n/3-10, err)
	}
	if got, err := st.pruneRequests(cutoff, n); err != nil || got != 0 {
		t.Fatalf("pruned %d more: %v", got, err)
	}
	st.db.View(func(tx *bolt.Tx) error {
		for i := range n {
			r, ok, err := st.getRequest(tx, record.RequestID("gs", id(i)))
			switch {
			case err != nil:
				t.Errorf("%s: %v", id(i), err)
			case i == 1:
				if !ok || string(r.reply) != "again" || r.at != t0.Unix() {
					t.Errorf("%s stored again: %+v %v", id(i), r, ok)
				}
			case old(i):
				if ok {
					t.Errorf("%s not pruned", id(i))
				}
			case !ok || string(r.reply) != id(i) || r.digest[0] != byte(i) || r.at < t0.Unix():
				t.Errorf("%s: %+v %v", id(i), r, ok)
			}
		}
		if r, ok, err := st.getRequest(tx, ahead); !ok || err != nil || string(r.reply) != "ahead" {
			t.Errorf("the reply stored ahead: %q %v %v", r.reply, ok, err)
		}
		if got, want := tx.Bucket(bucketRequestLog).Stats().KeyN, n/3+2; got != want {
			t.Errorf("the request log holds %d replies, want %d", got, want)
		}
		if got, want := tx.Bucket(bucketReqByTime).Stats().KeyN, n/3+2; got != want {
			t.Errorf("requests-by-time holds %d entries, want %d", got, want)
		}
		return nil
	})
}

// The replies an older rngd stored in the requests bucket (formats up to 6)
// are pruned as they were, by time: every one of them (a bbolt cursor that
// deletes would skip some), limit at a time, after the request log's, and
// newer ones stay and read back intact, and so does a request stored again
// after its first time was indexed.
func TestPruneLegacyRequests(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	st, err := openStore(path)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	cutoff := t0.AddDate(0, 0, -100)
	// Old and new requests interleaved in key order, over many pages.
	const n = 3000
	old := func(i int) bool { return i%3 != 0 }
	id := func(i int) string { return fmt.Sprintf("req-%d", i) }
	err = st.db.Update(func(tx *bolt.Tx) error {
		for i := range n {
			at := t0.Add(time.Duration(i) * time.Second)
			if old(i) {
				at = t0.AddDate(0, 0, -200).Add(time.Duration(i) * time.Second)
			}
			if err := putLegacyRequest(tx, record.RequestID("gs", id(i)), storedRequest{digest: [32]byte{byte(i)}, at: at.Unix(), reply: []byte(id(i))}); err != nil {
				return err
			}
		}
		// Stored again, at a time after the cutoff: its first index
		// entry is due, the request is not.
		return putLegacyRequest(tx, record.RequestID("gs", id(1)), storedRequest{digest: [32]byte{1}, at: t0.Unix(), reply: []byte(id(1))})
	})
	if err != nil {
		t.Fatal(err)
	}
	st.close()
	if st, err = openStore(path); err != nil {
		t.Fatal(err)
	}
	defer st.close()
	if got, err := st.pruneRequests(cutoff, 1); err != nil || got != 0 {
		// The oldest index entry is request 1's first time.
		t.Fatalf("pruned %d (limit 1, the re-stored request first): %v", got, err)
	}
	if got, err := st.pruneRequests(cutoff, 10); err != nil || got != 10 {
		t.Fatalf("pruned %d (limit 10): %v", got, err)
	}
	if got, err := st.pruneRequests(cutoff, n); err != nil || got != 2*n/3-1-10 {
		t.Fatalf("pruned %d, want %d: %v", got, 2*n/3-1-10, err)
	}
	if got, err := st.pruneRequests(cutoff, n); err != nil || got != 0 {
		t.Fatalf("pruned %d more: %v", got, err)
	}
	st.db.View(func(tx *bolt.Tx) error {
		for i := range n {
			r, ok, _ := st.getRequest(tx, record.RequestID("gs", id(i)))
			if old(i) && i != 1 {
				if ok {
					t.Errorf("%s not pruned", id(i))
				}
			} else if !ok || string(r.reply) != id(i) || r.digest[0] != byte(i) || r.at < t0.Unix() {
				t.Errorf("%s: %+v %v", id(i), r, ok)
			}
		}
		if got, want := tx.Bucket(bucketReqByTime).Stats().KeyN, n/3+1; got != want {
			t.Errorf("requests-by-time holds %d entries, want %d", got, want)
		}
		return nil
	})
}

// putLegacyRequest stores r as rngd did up to format 6: in the requests
// bucket, indexed by time.
func putLegacyRequest(tx *bolt.Tx, req [32]byte, r storedRequest) error {
	if err := tx.Bucket(bucketRequests).Put(req[:], encodeRequest(r)); err != nil {
		return err
	}
	return tx.Bucket(bucketReqByTime).Put(timeKey(r.at, req[:]), nil)
}

// storedReplies is the number of replies the store holds, in its request
// log and in an older format's requests bucket.
func storedReplies(tx *bolt.Tx) int {
	return tx.Bucket(bucketRequestLog).Stats().KeyN + tx.Bucket(bucketRequests).Stats().KeyN
}

// indexed reports whether requests-by-time indexes every stored request.
func indexed(t *testing.T, tx *bolt.Tx) {
	t.Helper()
	byTime := tx.Bucket(bucketReqByTime)
	tx.Bucket(bucketRequests).ForEach(func(k, v []byte) error {
		if byTime.Get(timeKey(int64(beUint64(v[32:])), k)) == nil {
			t.Errorf("request %x not in requests-by-time", k)
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
		r, ok, _ := st.getRequest(tx, req)
		if !ok || string(r.reply) != "reply bytes" || r.at != 1_700_000_000 || r.game != "" {
			t.Errorf("upgraded reply: %+v %v", r, ok)
		}
		if n := appliedCount(tx); n != 0 {
			t.Errorf("applied after upgrade: %d, want 0 (rebuild)", n)
		}
		indexed(t, tx)
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
		if r, ok, _ := st.getRequest(tx, req); !ok || string(r.reply) != "reply bytes" || appliedCount(tx) != 7 {
			t.Errorf("second open: %+v %v applied %d", r, ok, appliedCount(tx))
		}
		return nil
	})
	st.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(keyFormat, u64(storeFormat+1)) })
	st.close()
	// Refused naming the format in decimal and what to do (it said
	// "format 0000000000000007 … a newer rngd wrote it?").
	want := fmt.Sprintf("state store format %d is newer than this rngd reads (up to %d): a newer rngd wrote it; run that rngd, or move state.db aside", storeFormat+1, storeFormat)
	if _, err := openStore(path); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "docs/rngd.md, Upgrading") {
		t.Fatalf("open of a newer format: %v, want %q and where to read more", err, want)
	}
}

// rngd says in its log when it upgrades the state store's format (after
// which an older rngd refuses the file), once: not for a new store, not at
// the next start. It said nothing on 5 → 6 (the upgrade walk-through).
func TestStoreUpgradeLogged(t *testing.T) {
	td := newTestDaemon(t)
	a := td.client("server-a")
	g := start(t, a, td.emission("UL", "2026-12-31", 1)[0]).Game
	const said = "state store upgraded"
	if bytes.Contains(td.logs(), []byte(said)) {
		t.Errorf("a new store logged %q:\n%s", said, td.logs())
	}
	td.stop()
	state := filepath.Join(td.cfg.DataDir, "state.db")
	db, err := bolt.Open(state, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(keyFormat, u64(5)) })
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	mark := len(td.logs())
	td.start()
	logs := td.logs()[mark:]
	if want := fmt.Sprintf("from_format=5 format=%d file=%s", storeFormat, state); !bytes.Contains(logs, []byte(said)) || !bytes.Contains(logs, []byte(want)) {
		t.Errorf("upgrade from format 5: want %q with %q in the log:\n%s", said, want, logs)
	}
	if _, err := td.client("server-a").GetGame(context.Background(), &qodv1.GetGameRequest{GameId: g.GameId}); err != nil {
		t.Fatalf("the game in play after the upgrade: %v", err)
	}
	td.stop()
	mark = len(td.logs())
	td.start()
	if logs := td.logs()[mark:]; bytes.Contains(logs, []byte(said)) {
		t.Errorf("logged %q again at the next start:\n%s", said, logs)
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
		return putLegacyRequest(tx, req, ref)
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
		r, ok, _ := st.getRequest(tx, req)
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
		if err := tx.DeleteBucket(bucketReqByTime); err != nil {
			return err
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
		if n := storedReplies(tx); n < len(ids) {
			t.Errorf("%d stored replies for %d starts", n, len(ids))
		}
		indexed(t, tx)
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

// The sweeper prunes every reply stored longer than game.reply_retention
// ago, however many (several transactions of pruneChunk), and keeps the
// newer: a retry of a pruned request id is a new call, one of a kept one
// gets its reply.
func TestSweeperPrunesReplies(t *testing.T) {
	td := newTestDaemon(t)
	a := td.client("server-a")
	codes := td.emission("PR", "2027-12-31", 1)
	e := td.d.engine
	// The operator's calls above are due too.
	td.clock.Advance(e.cfg.Game.ReplyRetention.Duration + time.Hour)
	t0 := td.clock.Now()
	due := pruneChunk + 7
	var operator int
	err := e.store.db.Update(func(tx *bolt.Tx) error {
		operator = tx.Bucket(bucketRequestLog).Stats().KeyN
		for i := range due {
			at := t0.Add(-e.cfg.Game.ReplyRetention.Duration - time.Duration(due-i)*time.Second)
			if err := e.store.putRequest(tx, record.RequestID("server-a", fmt.Sprint("old-", i)), storedRequest{at: at.Unix(), reply: []byte("x")}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	req := &qodv1.StartGameRequest{RequestId: "kept", Code: codes[0]}
	first, err := a.StartGame(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	e.prune(context.Background())
	e.store.view(func(tx *bolt.Tx) error {
		if n := storedReplies(tx); n != 1 {
			t.Errorf("%d stored replies after pruning, want 1 (the start's)", n)
		}
		return nil
	})
	if !bytes.Contains(td.logs(), []byte(fmt.Sprintf("stored replies pruned\" count=%d ", operator+due))) {
		t.Errorf("no log of %d replies pruned:\n%s", operator+due, td.logs())
	}
	again, err := a.StartGame(context.Background(), req)
	if err != nil || again.Game.GameId != first.Game.GameId {
		t.Fatalf("retry of the kept start: %v, %v", again, err)
	}
}

// The secret r of a game in play is in secrets.db alone, never in state.db
// (its copies and backups hold no secret); a game read back from state.db
// gets it from secrets.db. A state.db an older rngd wrote with secrets in
// its games is scrubbed at start, each secret kept in secrets.db first — it
// may be the only copy left.
func TestSecretNotInStateStore(t *testing.T) {
	td := newTestDaemon(t)
	ctx := context.Background()
	a := td.client("server-a")
	var games []*qodv1.Game
	for _, code := range td.emission("SN", "2026-12-31", 3)[1:] {
		games = append(games, start(t, a, code).Game)
	}
	td.stop()
	state, secrets := filepath.Join(td.cfg.DataDir, "state.db"), filepath.Join(td.cfg.DataDir, "secrets.db")
	kept := map[string][32]byte{}
	readMeta(t, secrets, func(tx *bolt.Tx) {
		for _, g := range games {
			kept[g.GameId] = [32]byte(tx.Bucket(bucketSecrets).Get([]byte(g.GameId)))
		}
	})
	storedSecrets := func() (n int) {
		readMeta(t, state, func(tx *bolt.Tx) {
			for _, g := range games {
				var sg storedGame
				getStoredGame(tx, []byte(g.GameId), &sg)
				if !sg.HasSecret {
					t.Errorf("game %s stored without HasSecret", g.GameId)
				}
				if !sg.Ended && sg.Secret != ([32]byte{}) {
					n++
				}
			}
		})
		return n
	}
	if n := storedSecrets(); n != 0 {
		t.Fatalf("%d secrets of games in play in state.db", n)
	}
	// As an older rngd left them: r in state.db's (JSON) games, and the first
	// game's gone from secrets.db.
	updateBolt(t, state, func(tx *bolt.Tx) error {
		for _, g := range games {
			var sg storedGame
			getStoredGame(tx, []byte(g.GameId), &sg)
			sg.Secret = kept[g.GameId]
			if err := putJSON(tx, bucketGames, []byte(g.GameId), &sg); err != nil {
				return err
			}
		}
		return nil
	})
	updateBolt(t, secrets, func(tx *bolt.Tx) error { return tx.Bucket(bucketSecrets).Delete([]byte(games[0].GameId)) })
	td.start()
	a = td.client("server-a")
	for _, g := range games {
		got, err := a.GetGame(ctx, &qodv1.GetGameRequest{GameId: g.GameId})
		if err != nil {
			t.Fatal(err)
		}
		c := record.Commit(kept[g.GameId])
		if !bytes.Equal(got.Commitment, c[:]) || !bytes.Equal(got.Commitment, g.Commitment) {
			t.Errorf("game %s: commitment %x, want %x", g.GameId, got.Commitment, c)
		}
		r, err := a.Pick(ctx, &qodv1.PickRequest{RequestId: rid(), GameId: g.GameId, Number: 1})
		if err != nil {
			t.Fatalf("pick in game %s: %v", g.GameId, err)
		}
		if r.Game.EndedAt != nil {
			// Lost: the end revealed r, which opens the commitment.
			if want := kept[g.GameId]; !bytes.Equal(r.Game.Secret, want[:]) {
				t.Errorf("game %s revealed %x, want %x", g.GameId, r.Game.Secret, want)
			}
			delete(kept, g.GameId)
		}
	}
	td.stop()
	if n := storedSecrets(); n != 0 {
		t.Fatalf("%d secrets of games in play left in state.db", n)
	}
	readMeta(t, secrets, func(tx *bolt.Tx) {
		for id, r := range kept {
			if v := tx.Bucket(bucketSecrets).Get([]byte(id)); !bytes.Equal(v, r[:]) {
				t.Errorf("game %s in play: secret %x in secrets.db, want %x", id, v, r)
			}
		}
	})
}

// A stored reply state.db no longer holds as rngd wrote it (bbolt checks no
// data page) refuses the retry of its call, INTERNAL: it is neither an
// empty reply (the records of no game) nor a new call made again (a value
// too short or of an unknown kind).
func TestCorruptStoredRequestRefused(t *testing.T) {
	td := newTestDaemon(t)
	a := td.client("server-a")
	codes := td.emission("CR", "2026-12-31", 3)
	reqs := make([]*qodv1.StartGameRequest, len(codes))
	for i, code := range codes {
		reqs[i] = &qodv1.StartGameRequest{RequestId: fmt.Sprint("corrupt-", i), Code: code}
		if _, err := a.StartGame(context.Background(), reqs[i]); err != nil {
			t.Fatal(err)
		}
	}
	td.stop()
	// Each keeps the digest and time of the call (so its retry is the
	// same call) and loses the rest.
	corrupt := [][]byte{
		{replyRecords, 0, 0, 0, 0, 0, 0, 0, 1}, // the records of no game
		{},                                     // no kind
		{9, 'x'},                               // an unknown kind
	}
	db, err := bolt.Open(filepath.Join(td.cfg.DataDir, "state.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for i, v := range corrupt {
			req := record.RequestID("server-a", reqs[i].RequestId)
			seq, old := loggedRequest(tx, req)
			if len(old) < requestHeader {
				return fmt.Errorf("stored reply of %s: %x", reqs[i].RequestId, old)
			}
			if err := tx.Bucket(bucketRequestLog).Put(seq, append(append(req[:], old[:requestHeader]...), v...)); err != nil {
				return err
			}
		}
		return nil
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	td.start()
	a = td.client("server-a")
	for _, req := range reqs {
		t.Run(req.RequestId, func(t *testing.T) {
			reply, err := a.StartGame(context.Background(), req)
			if err == nil {
				t.Fatalf("replied %v", reply)
			}
			// The store's words are the operator's: in the log, not in
			// the game server's reply.
			wantRefusal(t, err, reasonInternal, "state store failure: the operator is alerted")
			if strings.Contains(status.Convert(err).Message(), "corrupt request-log entry") || !bytes.Contains(td.logs(), []byte("corrupt request-log entry")) {
				t.Errorf("the store's error: in the reply %q, or not logged", status.Convert(err).Message())
			}
		})
	}
}

// A log holding a record of a kind this rngd does not know (a newer
// rngd's: an upgrade rolled back) refuses the start naming the record and
// what to do; it said only `log record 79: record: kind "ticket_quit":
// unknown record kind` (the upgrade walk-through, rngd of 9282edc).
func TestNewerRecordRefused(t *testing.T) {
	idx, err := startOnRecord(t, `{"kind":"from_a_newer_rngd","v":1}`)
	want := fmt.Sprintf(`log record %d: record: kind "from_a_newer_rngd": unknown record kind: a newer rngd appended it: run that rngd (docs/rngd.md, Upgrading)`, idx)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("start on a log with a newer rngd's record: %v, want %q", err, want)
	}
}

// startOnRecord appends leaf to a test daemon's log, and starts it again:
// the record's index, and the start's error.
func startOnRecord(t *testing.T, leaf string) (uint64, error) {
	t.Helper()
	td := newTestDaemon(t)
	idx, err := td.d.engine.tlog.Append(context.Background(), []byte(leaf))
	if err != nil {
		t.Fatal(err)
	}
	td.stop()
	return idx, td.tryStart()
}

// A log record refused as of an unknown version or kind that no rngd
// writes (a version below 1, a kind not named as kinds are: a damaged or
// forged log) refuses the start as that, not as a newer rngd's record
// ("run that rngd": there is none). Every ErrVersion or ErrUnknownKind was
// read as an upgrade rolled back.
func TestNotNewerRecordRefused(t *testing.T) {
	idx, err := startOnRecord(t, `{"kind":"game_start","v":0}`)
	want := fmt.Sprintf(`log record %d: record: `, idx)
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "damaged or forged") || strings.Contains(err.Error(), "newer rngd") {
		t.Fatalf("start on a log with a record of version 0: %v, want %q… damaged or forged, no newer rngd", err, want)
	}
}

// A request stored twice (a call cut short before its end record, then its
// retry, which seals the end: resumeCut), the second time while the first
// is being committed: the first commit does not take the second reply out
// of the pending replies, which answer the call's retries until the second
// is committed — and after, should that commit fail (the reply was
// acknowledged; the store's file holds only the first, which names the
// records without the end).
func TestPendingReplyOfLaterWrite(t *testing.T) {
	st, err := openStore(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	req := record.RequestID("gs", "cut")
	cut := storedRequest{digest: [32]byte{1}, at: 1, game: "gs/game", first: 1, end: 2}
	done := storedRequest{digest: [32]byte{1}, at: 2, game: "gs/game", first: 1, end: 3, msg: &qodv1.GameReply{}}
	// The writer is held inside the first commit while the second is
	// handed over; the second commit fails.
	release, holding := make(chan struct{}), make(chan struct{})
	let := sync.OnceFunc(func() { close(release) })
	defer let() // before st.close, even when the test fails
	first := storeWrite{req: req, fn: func(tx *bolt.Tx) error {
		close(holding)
		<-release
		return st.putRequest(tx, req, cut)
	}}
	if err := st.write(first, &cut, false); err != nil {
		t.Fatal(err)
	}
	<-holding
	second := storeWrite{req: req, fn: func(*bolt.Tx) error { return fmt.Errorf("no space left on device") }}
	if err := st.write(second, &done, false); err != nil {
		t.Fatal(err)
	}
	let()
	if err := st.sync(); !errors.Is(err, errStoreFailed) {
		t.Fatalf("sync: %v, want the second commit's failure", err)
	}
	if r, ok, err := st.request(req); err != nil || !ok || r.end != done.end || r.msg == nil {
		t.Fatalf("request after the second commit failed: %+v %v %v, want the second reply, pending", r, ok, err)
	}
}

// loggedRequest is the key and value (after the request key) of req's
// latest reply in the request log, or nil.
func loggedRequest(tx *bolt.Tx, req [32]byte) (key, value []byte) {
	tx.Bucket(bucketRequestLog).ForEach(func(k, v []byte) error {
		if bytes.HasPrefix(v, req[:]) {
			key, value = bytes.Clone(k), bytes.Clone(v[32:])
		}
		return nil
	})
	return key, value
}
