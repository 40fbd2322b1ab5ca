//go:build cgo

package rngd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc/status"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
)

// A real PKCS#11 failure (SoftHSM2's token files moved away under the
// daemon): the game server gets KEYS_UNAVAILABLE with the generic message,
// naming neither the token nor the key nor the PKCS#11 return code; the
// operator's log has them, and the keys alarm counts the failure.
func TestKeysUnavailableHidesToken(t *testing.T) {
	td := newTestDaemon(t, softHSMKeys(t))
	e := td.d.engine
	ctx := context.Background()
	codes1 := td.emission("KH", "2026-12-31", 2)
	a := td.client("server-a")
	g := start(t, a, codes1[0]).Game
	tokens := filepath.Join(filepath.Dir(os.Getenv("SOFTHSM2_CONF")), "tokens")
	ents, err := os.ReadDir(tokens)
	if err != nil || len(ents) != 1 {
		t.Fatalf("SoftHSM2 tokens %s: %d, %v", tokens, len(ents), err)
	}
	files, aside := filepath.Join(tokens, ents[0].Name()), filepath.Join(t.TempDir(), "token")
	if err := os.Rename(files, aside); err != nil {
		t.Fatal(err)
	}
	defer os.Rename(aside, files)
	alarms := counterValue(e.metrics.alarms.WithLabelValues("keys"))
	var msg string
	unchanged(t, a, g.GameId, reasonKeysUnavailable, "key custody unavailable: nothing was drawn (retry later with the same request_id); the operator is alerted", func() error {
		_, err := a.Pick(ctx, &qodv1.PickRequest{RequestId: rid(), GameId: g.GameId, Number: 3})
		msg = status.Convert(err).Message()
		return err
	})
	for _, w := range []string{"tirage-rngd", `"vrf"`, "token", "pkcs11", "CKR_"} {
		if strings.Contains(msg, w) {
			t.Errorf("KEYS_UNAVAILABLE to a game server says %q: %q", w, msg)
		}
	}
	logs := td.logs()
	if !bytes.Contains(logs, []byte("tirage-rngd")) || !bytes.Contains(logs, []byte("CKR_")) {
		t.Errorf("the log does not name the token and the PKCS#11 code:\n%s", logs)
	}
	if got := counterValue(e.metrics.alarms.WithLabelValues("keys")); got <= alarms {
		t.Errorf("keys alarm %v, was %v", got, alarms)
	}
}

// A state store failure: the game server's reply says the store is
// unavailable, not its file's error; the operator's admin socket and log
// say it.
func TestStoreUnavailableHidesCause(t *testing.T) {
	td := newTestDaemon(t)
	ctx := context.Background()
	codes1 := td.emission("SH", "2026-12-31", 2)
	failStore(t, td.d.engine)
	const cause = "write state.db: no space left on device"
	_, err := td.client("server-a").StartGame(ctx, &qodv1.StartGameRequest{RequestId: rid(), Code: codes1[0]})
	wantRefusal(t, err, reasonStoreUnavailable, "state store unavailable")
	if m := status.Convert(err).Message(); strings.Contains(m, "state.db") {
		t.Errorf("STORE_UNAVAILABLE to a game server says the store's file: %q", m)
	}
	_, err = td.admin().CreateEmission(ctx, &adminv1.CreateEmissionRequest{RequestId: rid(), EmissionId: "SH2", ClosureDate: "2026-12-31"})
	wantRefusal(t, err, reasonStoreUnavailable, cause)
	if !bytes.Contains(td.logs(), []byte(cause)) {
		t.Error("the log does not say why the store failed")
	}
}
