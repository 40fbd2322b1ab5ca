package rngd

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
)

// Once the state store has failed, Status does not count the unfinished
// games (it said 0, read as none, with a game in play): it says why in
// store_failure, the rest of its answer given as before.
func TestStatusAfterStoreFailure(t *testing.T) {
	td := newTestDaemon(t)
	ctx := context.Background()
	codes := td.emission("SFS", "2026-12-31", 3)
	start(t, td.client("server-a"), codes[0])
	adm := td.admin()
	st, err := adm.Status(ctx, &adminv1.StatusRequest{})
	if err != nil || st.GamesUnfinished != 1 || st.StoreFailure != "" {
		t.Fatalf("Status with a game in play: %v, %d unfinished, store failure %q; want 1 and none", err, st.GetGamesUnfinished(), st.GetStoreFailure())
	}
	e := td.d.engine
	failStore(t, e)
	st, err = adm.Status(ctx, &adminv1.StatusRequest{})
	if err != nil {
		t.Fatalf("Status after the store failed: %v", err)
	}
	if want := "the state store failed; restart rngd to rebuild it from the log: write state.db: no space left on device"; st.StoreFailure != want {
		t.Errorf("Status after the store failed: store_failure %q, want %q", st.StoreFailure, want)
	}
	if st.GamesUnfinished != 0 || st.GamesInRefundGrace != 0 || st.LogOrigin == "" {
		t.Errorf("Status after the store failed: %d unfinished, %d in grace, origin %q: want the counts left out, the rest answered", st.GamesUnfinished, st.GamesInRefundGrace, st.LogOrigin)
	}
}

// unhealthy is a random source whose health tests have failed.
type unhealthy struct{ io.Reader }

func (unhealthy) Healthy() error { return errors.New("hwrng: repetition count test failed") }

// Status says which other component refuses draws and why — the entropy,
// the secret store — as it says the log's and the state store's failures;
// it named none of them.
func TestStatusNamesFailedComponents(t *testing.T) {
	td := newTestDaemon(t)
	ctx := context.Background()
	adm := td.admin()
	st, err := adm.Status(ctx, &adminv1.StatusRequest{})
	if err != nil || st.EntropyFailure != "" || st.KeysFailure != "" || st.SecretsFailure != "" {
		t.Fatalf("Status of a healthy rngd: %v, %v", st, err)
	}
	e := td.d.engine
	good := e.entropy
	e.entropy = unhealthy{good}
	defer func() { e.entropy = good }()
	e.secrets.mu.Lock() // as the writer records a refused commit
	e.secrets.failed = errors.New("write secrets.db: no space left on device")
	e.secrets.mu.Unlock()
	if st, err = adm.Status(ctx, &adminv1.StatusRequest{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(st.EntropyFailure, "repetition count test failed") || !strings.Contains(st.SecretsFailure, "no space left on device") || st.KeysFailure != "" {
		t.Errorf("Status with the entropy and the secret store failed: entropy %q, secrets %q, keys %q", st.EntropyFailure, st.SecretsFailure, st.KeysFailure)
	}
}
