package rngd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/checkpoint"
)

// storeView is what the game servers can read of the store: every game,
// its receipts (without the inclusion proofs, which follow the latest
// checkpoint) and the unfinished list.
type storeView struct {
	games      map[string]*qodv1.Game
	receipts   map[string][]*qodv1.Receipt
	unfinished []string
}

func viewStore(t *testing.T, td *testDaemon, ids []string) storeView {
	t.Helper()
	ctx := context.Background()
	a := td.client("server-a")
	v := storeView{games: map[string]*qodv1.Game{}, receipts: map[string][]*qodv1.Receipt{}}
	for _, id := range ids {
		g, err := a.GetGame(ctx, &qodv1.GetGameRequest{GameId: id})
		if err != nil {
			t.Fatal(err)
		}
		v.games[id] = g
		rs, err := a.GetReceipts(ctx, &qodv1.GetReceiptsRequest{GameId: id})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs.Receipts {
			r.Checkpoint, r.InclusionProof, r.StartInclusionProof = nil, nil, nil
		}
		v.receipts[id] = rs.Receipts
	}
	l, err := a.ListUnfinishedGames(ctx, &qodv1.ListUnfinishedGamesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range l.Games {
		v.unfinished = append(v.unfinished, g.GameId)
	}
	return v
}

func sameView(t *testing.T, when string, got, want storeView) {
	t.Helper()
	for id, g := range want.games {
		if !proto.Equal(got.games[id], g) {
			t.Errorf("%s: game %s\n%v\nwant\n%v", when, id, got.games[id], g)
		}
		if len(got.receipts[id]) != len(want.receipts[id]) {
			t.Errorf("%s: game %s has %d receipts, want %d", when, id, len(got.receipts[id]), len(want.receipts[id]))
			continue
		}
		for i, r := range want.receipts[id] {
			if !proto.Equal(got.receipts[id][i], r) {
				t.Errorf("%s: game %s receipt %d\n%v\nwant\n%v", when, id, i, got.receipts[id][i], r)
			}
		}
	}
	if len(got.unfinished) != len(want.unfinished) {
		t.Errorf("%s: unfinished %v, want %v", when, got.unfinished, want.unfinished)
	}
}

// After a crash, the store is behind the log by the calls whose records
// reached the log but not the store; rngd applies the log's tail from the
// store's prefix instead of replaying the whole log.
//
// First the crash as it happens: the store as it was before a tail of picks
// and decisions (their replies do not wait for the store). Then a tail of
// everything — picks of games started before it, new games, a new emission
// and its manifest, a refund — that the store already holds, its prefix
// put back before it (calls commit in the order they finish, so the store
// may hold records above its prefix): applying it again changes nothing,
// tickets played before or in it stay played. Both come out as the store
// was before, the same as a full rebuild's, and a restart after that finds
// nothing to catch up.
func TestCatchUpFromPrefix(t *testing.T) {
	td := newTestDaemon(t)
	ctx := context.Background()
	codes1 := td.emission("C1", "2026-12-31", 40)
	a := td.client("server-a")
	var ids []string
	for i := 1; i <= 6; i++ {
		g := start(t, a, codes1[i]).Game
		g = playUntil(t, a, g, func(g *qodv1.Game) bool { return len(g.Picks) >= i%3 })
		ids = append(ids, g.GameId)
	}
	state, before := td.snapshotState()
	// 1. A tail of picks and decisions, lost by the store.
	td.start()
	a = td.client("server-a")
	pickAll := func() {
		for _, id := range ids {
			g, err := a.GetGame(ctx, &qodv1.GetGameRequest{GameId: id})
			if err != nil {
				t.Fatal(err)
			}
			playUntil(t, a, g, func(h *qodv1.Game) bool { return len(h.Picks) > len(g.Picks) })
		}
	}
	pickAll()
	want := viewStore(t, td, ids)
	td.stop()
	if err := os.WriteFile(state, before, 0o600); err != nil {
		t.Fatal(err)
	}
	caughtUp := func(when string) {
		t.Helper()
		mark := len(td.logs())
		td.start()
		if logs := td.logs()[mark:]; !bytes.Contains(logs, []byte("applying the log's tail")) || bytes.Contains(logs, []byte("rebuilt from the log")) {
			t.Fatalf("%s: the start did not apply the tail alone:\n%s", when, logs)
		}
		sameView(t, when, viewStore(t, td, ids), want)
	}
	caughtUp("after a tail of picks")

	// 2. A tail of everything, which the store holds already.
	var prefix, applied uint64
	td.stop()
	readMeta(t, state, func(tx *bolt.Tx) { prefix, applied = prefixOf(tx), appliedCount(tx) })
	td.start()
	a = td.client("server-a")
	pickAll()
	for i := 7; i <= 8; i++ {
		g := start(t, a, codes1[i]).Game
		ids = append(ids, playUntil(t, a, g, func(g *qodv1.Game) bool { return len(g.Picks) >= 2 }).GameId)
	}
	codes2 := td.emission("C2", "2026-12-31", 20)
	g := start(t, a, codes2[1]).Game
	ids = append(ids, g.GameId)
	if _, err := td.admin().RefundGame(ctx, &adminv1.RefundGameRequest{RequestId: rid(), GameId: g.GameId, Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	ids = append(ids, start(t, a, codes2[2]).Game.GameId)
	want = viewStore(t, td, ids)
	td.stop()
	readMeta(t, state, func(tx *bolt.Tx) {
		// Stopped cleanly, every record is committed: the writer's prefix
		// followed the commits.
		if p, n := prefixOf(tx), appliedCount(tx); p != n || p <= prefix {
			t.Fatalf("after the tail: prefix %d, applied %d (before it: %d)", p, n, prefix)
		}
	})
	writeMeta(t, state, prefix, applied)
	caughtUp("after a tail the store held")
	a = td.client("server-a")
	for _, code := range []string{codes1[1], codes1[7], codes2[1], codes2[2]} {
		_, err := a.StartGame(ctx, &qodv1.StartGameRequest{RequestId: rid(), Code: code})
		wantStatus(t, err, codes.FailedPrecondition, "already played")
	}

	// A full rebuild gives the same store; a restart then finds nothing to
	// do.
	td.stop()
	if _, err := Rebuild(ctx, td.cfg); err != nil {
		t.Fatal(err)
	}
	td.start()
	sameView(t, "after a rebuild", viewStore(t, td, ids), want)
	mark := len(td.logs())
	td.restart()
	if logs := td.logs()[mark:]; bytes.Contains(logs, []byte("state store")) {
		t.Fatalf("restart after a rebuild touched the store:\n%s", logs)
	}
	sameView(t, "after a restart", viewStore(t, td, ids), want)

	// A store that disagrees with the log below its prefix (a game it
	// should hold, gone) is rebuilt from the whole log instead.
	var gone string
	for _, id := range ids {
		if rs := want.receipts[id]; rs[len(rs)-1].LogIndex >= prefix {
			gone = id
			break
		}
	}
	if gone == "" {
		t.Fatal("no game has records after the prefix")
	}
	td.stop()
	writeMeta(t, state, prefix, applied)
	db, err := bolt.Open(state, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketGames).Delete([]byte(gone)) })
	db.Close()
	mark = len(td.logs())
	td.start()
	if logs := td.logs()[mark:]; !bytes.Contains(logs, []byte("does not apply")) || !bytes.Contains(logs, []byte("rebuilt from the log")) {
		t.Fatalf("a tail that does not apply: no rebuild\n%s", logs)
	}
	sameView(t, "after the fallback rebuild", viewStore(t, td, ids), want)
	// The tail's emission goes on.
	start(t, td.client("server-a"), codes2[3])
}

func readMeta(t *testing.T, path string, f func(tx *bolt.Tx)) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.View(func(tx *bolt.Tx) error { f(tx); return nil })
}

// updateBolt changes a stopped daemon's bbolt file at path in one
// transaction.
func updateBolt(t *testing.T, path string, fn func(tx *bolt.Tx) error) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(fn)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
}

// writeMeta puts a stopped daemon's store prefix and applied count back.
func writeMeta(t *testing.T, path string, prefix, applied uint64) {
	t.Helper()
	updateBolt(t, path, func(tx *bolt.Tx) error {
		if err := tx.Bucket(bucketMeta).Put(keyPrefix, u64(prefix)); err != nil {
			return err
		}
		return tx.Bucket(bucketMeta).Put(keyApplied, u64(applied))
	})
}

// fakeLog is a log whose checkpoints the test sets: latest is the current
// one, await answers AwaitCheckpoint (nil: the wait times out).
type fakeLog struct {
	transparency.Log
	latest, await *checkpoint.Checkpoint
	awaited       []uint64 // the sizes AwaitCheckpoint was asked for
}

func (f *fakeLog) Checkpoint(context.Context) (*checkpoint.Checkpoint, error) { return f.latest, nil }

func (f *fakeLog) AwaitCheckpoint(ctx context.Context, size uint64) (*checkpoint.Checkpoint, error) {
	f.awaited = append(f.awaited, size)
	if f.await == nil {
		return nil, context.DeadlineExceeded
	}
	return f.await, nil
}

// sequencedLog is a fakeLog that knows how many leaves it holds.
type sequencedLog struct {
	*fakeLog
	sequenced uint64
}

func (s sequencedLog) Sequenced() uint64 { return s.sequenced }

// At start-up rngd takes the log's size from its checkpoint, once that covers
// every leaf the log sequenced before the restart (the embedded journal's
// tail, integrated at Open): with a log that knows its size it waits for
// exactly that, not at all when the checkpoint covers it already, and refuses
// to start when no checkpoint comes to cover it, rather than serve without
// records it acknowledged. With a log that does not know (Trillian) it waits
// briefly for one more leaf and goes on with the checkpoint it has.
func TestLogSize(t *testing.T) {
	cp := func(n uint64) *checkpoint.Checkpoint { return &checkpoint.Checkpoint{Origin: "o", Size: n} }
	for _, c := range []struct {
		name      string
		applied   uint64
		latest    uint64
		await     *checkpoint.Checkpoint
		sequenced int64 // -1: the log does not implement transparency.Sequencer
		want      uint64
		wantAwait []uint64
		wantErr   string
	}{
		{name: "checkpoint covers the journal", applied: 7, latest: 10, sequenced: 10, want: 10},
		{name: "journal beyond the checkpoint", applied: 7, latest: 10, sequenced: 12, await: cp(12), want: 12, wantAwait: []uint64{12}},
		{name: "no checkpoint covers the journal", latest: 10, sequenced: 12, wantAwait: []uint64{12}, wantErr: "checkpoint covers only 10"},
		{name: "store ahead of the log", applied: 11, latest: 10, sequenced: 10, wantAwait: []uint64{11}, wantErr: "applied 11 records but the log has only 10"},
		{name: "trillian: one more came", applied: 7, latest: 10, sequenced: -1, await: cp(11), want: 11, wantAwait: []uint64{11}},
		{name: "trillian: none came", applied: 7, latest: 10, sequenced: -1, want: 10, wantAwait: []uint64{11}},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, err := openStore(filepath.Join(t.TempDir(), "state.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer st.close()
			if err := st.db.Update(func(tx *bolt.Tx) error { return markApplied(tx, c.applied) }); err != nil {
				t.Fatal(err)
			}
			f := &fakeLog{latest: cp(c.latest), await: c.await}
			var l transparency.Log = f
			if c.sequenced >= 0 {
				l = sequencedLog{f, uint64(c.sequenced)}
			}
			e := &engine{store: st, tlog: l, cfg: Config{Log: LogConfig{CheckpointInterval: Duration{time.Millisecond}}}}
			got, err := e.logSize(context.Background())
			switch {
			case c.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("got %d, %v; want an error saying %q", got, err, c.wantErr)
				}
			case err != nil || got != c.want:
				t.Fatalf("got %d, %v; want %d", got, err, c.want)
			}
			if !slices.Equal(f.awaited, c.wantAwait) {
				t.Errorf("awaited checkpoints of sizes %v, want %v", f.awaited, c.wantAwait)
			}
		})
	}
}

// A crash in the middle of a manifest import: its tickets were committed
// (they are stored in several commits) and one was played, but not the
// manifest's own last commit. Applying the log's tail imports the manifest
// again; the ticket played stays played, so its code does not play twice.
func TestCatchUpManifestKeepsPlayedTickets(t *testing.T) {
	td := newTestDaemon(t)
	ctx := context.Background()
	codes1 := td.emission("MC", "2026-12-31", 5)
	a := td.client("server-a")
	g := start(t, a, codes1[1]).Game
	td.stop()
	state := filepath.Join(td.cfg.DataDir, "state.db")
	var manifest uint64 // the manifest record's log index
	readMeta(t, state, func(tx *bolt.Tx) {
		var em storedEmission
		getJSON(tx, bucketEmissions, []byte("MC"), &em)
		manifest = em.Index + 1
	})
	db, err := bolt.Open(state, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		var em storedEmission
		if _, err := getJSON(tx, bucketEmissions, []byte("MC"), &em); err != nil {
			return err
		}
		em.Roots, em.Tickets = nil, 0
		return putJSON(tx, bucketEmissions, []byte("MC"), &em)
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	writeMeta(t, state, manifest, manifest)
	mark := len(td.logs())
	td.start()
	if logs := td.logs()[mark:]; !bytes.Contains(logs, []byte("applying the log's tail")) {
		t.Fatalf("the start did not apply the tail:\n%s", logs)
	}
	a = td.client("server-a")
	_, err = a.StartGame(ctx, &qodv1.StartGameRequest{RequestId: rid(), Code: codes1[1]})
	wantStatus(t, err, codes.FailedPrecondition, "already played")
	if got, err := a.GetGame(ctx, &qodv1.GetGameRequest{GameId: g.GameId}); err != nil || got.Status != qodv1.Status_STATUS_PLAYING {
		t.Fatalf("the game played: %v %v", got, err)
	}
}
