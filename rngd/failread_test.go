package rngd

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/verifier/record"
)

// A state store whose file cannot be read (closed under the daemon) does
// not read a stored reply as none: store.request fails with errStoreFailed,
// which the engine refuses with STORE_UNAVAILABLE. It dropped the read's
// error, and a retry was then a new call. Replies found in the index's runs
// and in memory alike.
func TestRequestStoreUnreadable(t *testing.T) {
	st := mustOpenStore(t, filepath.Join(t.TempDir(), "state.db"))
	t0 := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	putIndexed(t, st, "run-", 0, 3, t0)
	putRequests(t, st, "mem-", 0, 3, t0)
	if n := recentCount(st); n != 3 {
		t.Fatalf("%d replies in memory, want the 3 not yet in runs", n)
	}
	for _, prefix := range []string{"run-", "mem-"} {
		wantReplies(t, st, prefix, 0, 3, func(i int) string { return fmt.Sprint(prefix, i) })
	}
	if err := st.db.Close(); err != nil { // the file is gone from under the store
		t.Fatal(err)
	}
	for _, id := range []string{"run-1", "mem-1"} {
		r, ok, err := st.request(record.RequestID("gs", id))
		if !errors.Is(err, errStoreFailed) || !errors.Is(err, bolterrors.ErrDatabaseNotOpen) || ok {
			t.Errorf("%s with the file closed: %q %v %v, want errStoreFailed wrapping %v", id, r.reply, ok, err, bolterrors.ErrDatabaseNotOpen)
		}
	}
	if err := st.health(); !errors.Is(err, errStoreFailed) {
		t.Errorf("store health after a read that could not begin: %v, want errStoreFailed", err)
	}
	// A new request still needs no read of the file.
	if _, ok, err := st.request(record.RequestID("gs", "new")); ok || err != nil {
		t.Errorf("a new request with the file closed: %v %v, want none", ok, err)
	}
	st.close()
}

// moveSecrets fails when it cannot read state.db, where it read that as no
// secrets to move: an older store's secrets would stay behind, and their
// games' draws be refused (SECRET_LOST).
func TestSecretsMoveUnreadable(t *testing.T) {
	dir := t.TempDir()
	st := mustOpenStore(t, filepath.Join(dir, "state.db"))
	defer st.close()
	sec, err := openSecrets(filepath.Join(dir, "secrets.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer sec.close()
	err = st.db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket(bucketSecrets) // format 3's
		if err != nil {
			return err
		}
		return b.Put([]byte("g1"), make([]byte, 32))
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := moveSecrets(st, sec); !errors.Is(err, bolterrors.ErrDatabaseNotOpen) {
		t.Fatalf("moveSecrets of a state.db that cannot be read: %v, want %v", err, bolterrors.ErrDatabaseNotOpen)
	}
	if _, ok, err := sec.read("g1"); ok || err != nil {
		t.Fatalf("secret moved: %v %v", ok, err)
	}
}

// A state store that cannot be read once rngd runs (its file closed under
// it) fails the start's and an outage's recovery steps that read it, with
// the read's error: dropOrphanSecrets read it as "no game lost its
// secret", leaving the store alarm unraised, and catchUp as a store at 0,
// behind the log, applying the whole log to a file it could not read.
func TestStoreUnreadableAtRecovery(t *testing.T) {
	td := newTestDaemon(t)
	e := td.d.engine
	if err := e.store.db.Close(); err != nil {
		t.Fatal(err)
	}
	if size, err := e.logSize(context.Background()); !errors.Is(err, bolterrors.ErrDatabaseNotOpen) {
		t.Errorf("logSize with state.db closed: %d, %v; want %v", size, err, bolterrors.ErrDatabaseNotOpen)
	}
	if err := e.dropOrphanSecrets(false); !errors.Is(err, bolterrors.ErrDatabaseNotOpen) {
		t.Errorf("dropOrphanSecrets with state.db closed: %v, want %v", err, bolterrors.ErrDatabaseNotOpen)
	}
	err := e.catchUp(context.Background())
	if !errors.Is(err, bolterrors.ErrDatabaseNotOpen) || !strings.Contains(err.Error(), "couldn't read how far the state store is") {
		t.Errorf("catchUp with state.db closed: %v, want %v, said as such", err, bolterrors.ErrDatabaseNotOpen)
	}
	if strings.Contains(string(td.logs()), "state store is behind the log") {
		t.Error("catchUp took a state store it could not read for one behind the log")
	}
	// The sweep's read of the unfinished games: STORE_UNAVAILABLE, not
	// "no game due" (it said it ended none).
	ended, err := e.sweep(context.Background())
	wantRefusal(t, err, reasonStoreUnavailable, "state store unavailable")
	if ended != nil {
		t.Errorf("sweep of an unreadable store ended %v", ended)
	}
	// The look-up of the build attestation keeps what the gauge said (it
	// read none, and set it to 0).
	e.cfg.fileSHA256 = make([]byte, 32)
	e.buildAttested.Store(true)
	e.metrics.buildAttested.Set(1)
	e.noteBuildAttested(false)
	if v, _ := gaugeValue(t, td, "tirage_build_attested"); v != 1 || !e.buildAttested.Load() {
		t.Errorf("tirage_build_attested %v after a look-up that could not read the store, want 1 kept", v)
	}
	if !strings.Contains(string(td.logs()), "couldn't look up this rngd's build attestation") {
		t.Error("the failed look-up of the build attestation is not logged")
	}
}

// A replay (rebuild or catch-up) whose request index cannot say where a
// stored reply is (its runs unreadable) fails: keepsReply took that for no
// reply, and the log's call's reply replaced the one stored, a later
// call's once the id was used again.
func TestReplayRequestIndexUnreadable(t *testing.T) {
	st := mustOpenStore(t, filepath.Join(t.TempDir(), "state.db"))
	defer st.close()
	t0 := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	putIndexed(t, st, "run-", 0, 3, t0)
	broken := errors.New("the request index's runs cannot be read")
	st.reqs.broken.Store(&broken)
	cfg := Config{Game: GameConfig{ReplyRetention: Duration{100 * 24 * time.Hour}}}
	r := rebuilder{e: &engine{store: st, cfg: cfg, clock: &testClock{t: t0.Add(2 * time.Hour)}}}
	err := st.db.Update(func(tx *bolt.Tx) error {
		return r.adminReply(tx, record.RequestID("gs", "run-1"), [32]byte{0xff}, t0.Add(time.Hour), &qodv1.QuitResponse{EmissionId: "E"})
	})
	if !errors.Is(err, broken) || !strings.Contains(err.Error(), "couldn't look up the reply stored for request") {
		t.Errorf("adminReply with the index unreadable: %v, want its error", err)
	}
	st.reqs.broken.Store(nil)
	wantReplies(t, st, "run-", 0, 3, func(i int) string { return fmt.Sprint("run-", i) })
}
