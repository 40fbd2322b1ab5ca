package rngd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/rngd/loadtest"
)

// A corrupt state.db or secrets.db refuses the start with an error that
// names the file, says it is corrupt and what to do — the state store is
// made again from the log, the secret store is not — rather than a panic
// of bbolt's (a freelist page gone bad) or a bare "invalid database".
func TestCorruptStoreRefused(t *testing.T) {
	for _, c := range []struct {
		file, advice string
		corrupt      func([]byte) []byte
	}{
		// Both meta pages bad: bbolt refuses the file.
		{"state.db", "rebuilds the state store from the log", func(b []byte) []byte {
			for i := range b {
				b[i] = byte(i*7 + 3)
			}
			return b
		}},
		// The pages after the meta pages bad: bbolt panics reading the
		// freelist.
		{"state.db", "rebuilds the state store from the log", func(b []byte) []byte {
			for i := 2 * os.Getpagesize(); i < len(b); i++ {
				b[i] = 0xff
			}
			return b
		}},
		{"secrets.db", "backup", func(b []byte) []byte {
			for i := 2 * os.Getpagesize(); i < len(b); i++ {
				b[i] = 0xff
			}
			return b
		}},
	} {
		td := newTestDaemon(t)
		a := td.client("server-a")
		start(t, a, td.emission("CS", "2026-12-31", 1)[0])
		td.stop()
		path := filepath.Join(td.cfg.DataDir, c.file)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, c.corrupt(b), 0o600); err != nil {
			t.Fatal(err)
		}
		err = func() (err error) {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%s: the start panicked: %v", c.file, p)
				}
			}()
			return td.tryStart()
		}()
		if err == nil {
			td.stop()
			t.Errorf("%s corrupt: the start went on", c.file)
			continue
		}
		for _, want := range []string{path, "corrupt", c.advice} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s corrupt: %v\ndoes not say %q", c.file, err, want)
			}
		}
	}
}

// A secret in secrets.db that is not the game's — its start record commits
// to H(r) — is not drawn with: picks on it could never be verified, and its
// end would reveal an r that contradicts the start. rngd treats it as lost,
// as a rebuild does (the pick is refused, the game shows its logged
// commitment and can be refunded), and raises the store alarm.
func TestWrongSecretNotDrawnWith(t *testing.T) {
	td := newTestDaemon(t)
	ctx := context.Background()
	a := td.client("server-a")
	g := start(t, a, td.emission("WS", "2026-12-31", 1)[0]).Game
	td.stop()
	path := filepath.Join(td.cfg.DataDir, "secrets.db")
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		r := bytes.Clone(tx.Bucket(bucketSecrets).Get([]byte(g.GameId)))
		r[0] ^= 1 // a bit gone bad
		return tx.Bucket(bucketSecrets).Put([]byte(g.GameId), r)
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	td.start()
	a = td.client("server-a")
	got, err := a.GetGame(ctx, &qodv1.GetGameRequest{GameId: g.GameId})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Commitment, g.Commitment) {
		t.Errorf("commitment %x, want the logged one %x", got.Commitment, g.Commitment)
	}
	_, err = a.Pick(ctx, &qodv1.PickRequest{RequestId: rid(), GameId: g.GameId, Number: loadtest.NextNumber(got)})
	wantRefusal(t, err, reasonSecretLost, "secret")
	if !bytes.Contains(td.logs(), []byte("does not match the commitment")) {
		t.Error("no error logged for the secret that does not match")
	}
	r, err := td.admin().RefundGame(ctx, &adminv1.RefundGameRequest{RequestId: rid(), GameId: g.GameId, Reason: "secret corrupt"})
	if err != nil || r.Game.Status != qodv1.Status_STATUS_REFUNDED || len(r.Game.Secret) != 0 {
		t.Fatalf("refund: %v %v", r, err)
	}
	td.restart()
	got, err = td.client("server-a").GetGame(ctx, &qodv1.GetGameRequest{GameId: g.GameId})
	if err != nil || !bytes.Equal(got.Commitment, g.Commitment) || len(got.Secret) != 0 {
		t.Fatalf("refunded game: %v %v, want its logged commitment %x and no secret", got, err, g.Commitment)
	}
}

// A start on a secrets.db that lacks the secrets of games in play (lost, or
// another data directory's) says so, with the store alarm, before their
// draws are refused one by one.
func TestLostSecretsReportedAtStart(t *testing.T) {
	td := newTestDaemon(t)
	a := td.client("server-a")
	codes := td.emission("LS", "2026-12-31", 2)
	g1, g2 := start(t, a, codes[0]).Game, start(t, a, codes[1]).Game
	td.restart()
	if bytes.Contains(td.logs(), []byte("without their secret")) {
		t.Fatal("games reported without their secret while secrets.db holds them")
	}
	td.stop()
	if err := os.Remove(filepath.Join(td.cfg.DataDir, "secrets.db")); err != nil {
		t.Fatal(err)
	}
	mark := len(td.logs())
	td.start()
	logs := td.logs()[mark:]
	for _, want := range []string{"level=ERROR", "without their secret", "count=2", g1.GameId, g2.GameId} {
		if !bytes.Contains(logs, []byte(want)) {
			t.Errorf("start without the secrets: no %q logged:\n%s", want, logs)
		}
	}
	if n := counterValue(td.d.engine.metrics.alarms.WithLabelValues("store")); n < 1 {
		t.Errorf("store alarm %v, want raised", n)
	}
	// The refusal says what was lost: secrets.db's secret, not a rebuild
	// of the state store (which did not happen here).
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := td.client("server-a").Pick(ctx, &qodv1.PickRequest{RequestId: "ls-pick", GameId: g1.GameId, Number: 1})
	wantRefusal(t, err, reasonSecretLost, "secrets.db does not hold it")
}
