package rngd

import (
	"context"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/tilelog"
)

// secretIDs returns the game ids secrets.db holds, once every change handed
// to its writer is committed.
func secretIDs(t *testing.T, e *engine) map[string]bool {
	t.Helper()
	if err := e.secrets.sync(); err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	err := e.secrets.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketSecrets).ForEach(func(k, _ []byte) error {
			ids[string(k)] = true
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// A start the key custody refuses leaves no secret behind: a game server
// retrying one code through an HSM outage, with one request id (a refusal
// stores no reply, so each retry draws again), does not grow secrets.db.
func TestRefusedStartKeepsNoSecret(t *testing.T) {
	td := newTestDaemon(t)
	e := td.d.engine
	codes := td.emission("OSA", "2026-12-31", 10)
	a := td.client("server-a")
	ctx := context.Background()
	g := start(t, a, codes[2]).Game
	prover := e.prover
	e.prover = failingProver{prover}
	for range 200 {
		_, err := a.StartGame(ctx, &qodv1.StartGameRequest{RequestId: "same-retry", Code: codes[1]})
		wantRefusal(t, err, reasonKeysUnavailable, "key custody unavailable")
	}
	e.prover = prover
	if ids := secretIDs(t, e); len(ids) != 1 || !ids[g.GameId] {
		t.Fatalf("secrets.db holds %d secrets after 200 starts refused by the key custody, want only the game in play's", len(ids))
	}
	r, err := a.StartGame(ctx, &qodv1.StartGameRequest{RequestId: "same-retry", Code: codes[1]})
	if err != nil {
		t.Fatalf("the retry once the key custody is back: %v", err)
	}
	if ids := secretIDs(t, e); len(ids) != 2 || !ids[r.Game.GameId] {
		t.Fatalf("secrets.db holds %d secrets, want the two games in play's", len(ids))
	}
}

// A start the log refuses: a log that refuses appends already (failed
// closed, or checkpoints stalled: transparency.Health) is looked at before
// r is drawn, and a leaf the log proves it did not take (an invalid leaf,
// transparency.ErrNotAppended: stalled checkpoints, a QueueLeaf refused
// outright) forgets r. An append whose outcome is
// unknown keeps r — its start may still reach the log — until the log has
// settled it and the store has caught up: at the next start of rngd, or
// once the Trillian log ends its outage (resync).
func TestLogRefusedStartSecrets(t *testing.T) {
	td := newTestDaemon(t)
	e := td.d.engine
	codes := td.emission("OSL", "2026-12-31", 10)
	a := td.client("server-a")
	ctx := context.Background()
	g := start(t, a, codes[1]).Game
	tl := e.tlog
	onlyInPlay := func(what string) {
		t.Helper()
		if ids := secretIDs(t, e); len(ids) != 1 || !ids[g.GameId] {
			t.Fatalf("%s: secrets.db holds %d secrets, want only the game in play's", what, len(ids))
		}
	}
	refuse := func(substr string) {
		t.Helper()
		for range 5 {
			_, err := a.StartGame(ctx, &qodv1.StartGameRequest{RequestId: "retry-start", Code: codes[2]})
			wantRefusal(t, err, reasonLogUnavailable, substr)
		}
	}

	e.tlog = unhealthyLog{Log: tl}
	refuse("nothing was drawn")
	onlyInPlay("log failed closed")

	// As tilelog refuses an append once its checkpoints stall, and as the
	// Trillian log refuses one whose QueueLeaf Trillian refused outright
	// (both proven by their packages' tests): not taken.
	stalled := fmt.Errorf("tilelog: %w: %w: no checkpoint signed", transparency.ErrUnavailable, tilelog.ErrCheckpointStalled)
	e.tlog = failingLog{Log: tl, err: transparency.NotAppended(stalled)}
	refuse("the log cannot publish signed checkpoints")
	onlyInPlay("checkpoints stalled")
	e.tlog = failingLog{Log: tl, err: transparency.NotAppended(fmt.Errorf("trillian: couldn't queue leaf: %w: quota", transparency.ErrUnavailable))}
	refuse("the record was not sealed")
	onlyInPlay("QueueLeaf refused outright")

	e.tlog = failingLog{Log: tl, err: fmt.Errorf("%w: empty", transparency.ErrInvalidLeaf)}
	refuse("the record was not sealed")
	onlyInPlay("invalid leaf")

	// Unknown outcome: kept, one per attempt.
	e.tlog = failingLog{Log: tl}
	refuse("the record was not sealed")
	if ids := secretIDs(t, e); len(ids) != 6 || !ids[g.GameId] {
		t.Fatalf("appends of unknown outcome: secrets.db holds %d secrets, want the game in play's and 5 kept", len(ids))
	}
	// The log is back and resync catches up (as the Trillian log's
	// recovery calls it): the log holds none of those starts, and no
	// start is under way, so their secrets go.
	e.tlog = tl
	if err := e.resync(ctx); err != nil {
		t.Fatal(err)
	}
	onlyInPlay("after resync")
	r, err := a.StartGame(ctx, &qodv1.StartGameRequest{RequestId: "retry-start", Code: codes[2]})
	if err != nil {
		t.Fatalf("the retry once the log is back: %v", err)
	}
	if ids := secretIDs(t, e); len(ids) != 2 || !ids[r.Game.GameId] {
		t.Fatalf("secrets.db holds %d secrets, want the two games in play's", len(ids))
	}
}

// On the Trillian log, the secret of a start refused by the outage whose
// leaf may reach the log is kept (the log's recovery queues it, and the
// start is in the log once it is over); the starts refused at once while
// the log is failed keep none; and once the recovery has caught the store
// up (resync), a secret whose start is not in the log is dropped, without
// a restart.
func TestTrillianOutageStartSecrets(t *testing.T) {
	td, px := outageDaemon(t)
	e := td.d.engine
	ctx := context.Background()
	tickets := td.emission("OUS", "2026-12-31", 6)
	a := td.client("server-a")
	g := start(t, a, tickets[1]).Game
	orphan := "server-a/" + hex.EncodeToString(make([]byte, 16))
	if err := e.secrets.keep(orphan, [32]byte{1}); err != nil {
		t.Fatal(err)
	}

	px.setCut(true)
	first := &qodv1.StartGameRequest{RequestId: "outage-start", Code: tickets[2]}
	if _, err := a.StartGame(ctx, first); reasonOf(err) != reasonLogUnavailable {
		t.Fatalf("start during the outage: %v, want %s", err, reasonLogUnavailable)
	}
	for i := range 5 {
		_, err := a.StartGame(ctx, &qodv1.StartGameRequest{RequestId: rid(), Code: tickets[3]})
		if reasonOf(err) != reasonLogUnavailable {
			t.Fatalf("start %d while the log is failed: %v, want %s", i, err, reasonLogUnavailable)
		}
	}
	if ids := secretIDs(t, e); len(ids) != 3 || !ids[g.GameId] || !ids[orphan] {
		t.Fatalf("during the outage: secrets.db holds %d secrets, want the game in play's, the orphan and the first refused start's", len(ids))
	}

	px.setCut(false)
	var r *qodv1.GameReply
	var err error
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		r, err = a.StartGame(cctx, first)
		cancel()
		if c := status.Code(err); (c != codes.Unavailable && c != codes.DeadlineExceeded) || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatalf("the refused start's retry after the outage: %v", err)
	}
	ids := secretIDs(t, e)
	if len(ids) != 2 || !ids[g.GameId] || !ids[r.Game.GameId] {
		t.Fatalf("after the outage: secrets.db holds %v, want only the games in play's (%s, %s)", ids, g.GameId, r.Game.GameId)
	}
}
