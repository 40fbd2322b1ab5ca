package rngd

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	dto "github.com/prometheus/client_model/go"
	bolt "go.etcd.io/bbolt"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/hsm/hsmtest"
	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/rngd/entropy"
	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/vrf"
)

// stuckAfter is a physical source that passes the start-up tests, then
// repeats one byte forever (a stuck noise source).
type stuckAfter struct{ good atomic.Int64 }

func (s *stuckAfter) Name() string   { return "stuck" }
func (s *stuckAfter) Physical() bool { return true }
func (s *stuckAfter) Read(p []byte) (int, error) {
	if s.good.Add(-int64(len(p))) >= 0 {
		return rand.Read(p)
	}
	for i := range p {
		p[i] = 0x5a
	}
	return len(p), nil
}

// failingProver is key custody that has lost its token.
type failingProver struct{ hsm.VRFProver }

func (failingProver) Prove([]byte) (proof, beta []byte, err error) {
	return nil, nil, errors.New("pkcs11: CKR_DEVICE_REMOVED: " + hsm.ErrUnavailable.Error())
}

// tokenGoneProver fails as hsm/pkcs11 does when the token lost the key.
type tokenGoneProver struct{ hsm.VRFProver }

func (tokenGoneProver) Prove([]byte) (proof, beta []byte, err error) {
	return nil, nil, fmt.Errorf("%w: token \"t\": RSA-FDH-VRF prove with key \"vrf\": pkcs11: 0x82: CKR_OBJECT_HANDLE_INVALID", hsm.ErrUnavailable)
}

// betalessProver proves, but returns no β with its proof: a backend's bug.
type betalessProver struct{ hsm.VRFProver }

func (p betalessProver) Prove(alpha []byte) (proof, beta []byte, err error) {
	proof, _, err = p.VRFProver.Prove(alpha)
	return proof, nil, err
}

// failingLog refuses appends as a full disk would (err nil), or with err.
type failingLog struct {
	transparency.Log
	err error
}

func (l failingLog) Append(context.Context, []byte) (uint64, error) {
	if l.err != nil {
		return 0, l.err
	}
	return 0, transparency.ErrUnavailable
}

// Entropy, key and log failures refuse the draw with UNAVAILABLE, raise the
// alarm of their component and change nothing; the game goes on once the
// component is back.
func TestFailClosed(t *testing.T) {
	td := newTestDaemon(t)
	e := td.d.engine
	codes1 := td.emission("FC", "2026-12-31", 20)
	a := td.client("server-a")
	ctx := context.Background()
	g := start(t, a, codes1[1]).Game
	alarm := func(c string) float64 {
		var m dto.Metric
		e.metrics.alarms.WithLabelValues(c).Write(&m)
		return m.GetCounter().GetValue()
	}

	// A stuck hardware source: the health tests trip at the next reseed and
	// the generator refuses to produce r.
	src := &stuckAfter{}
	src.good.Store(1200) // the start-up tests (1,024 samples) and the first seed pass
	gen, err := entropy.New(entropy.Config{Sources: []entropy.SourceConfig{{Source: src, MinEntropy: 4}}, ReseedRequests: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer gen.Close()
	good := e.entropy
	e.entropy = gen
	var refused error
	for i := 2; i < 6 && refused == nil; i++ {
		_, refused = a.StartGame(ctx, &qodv1.StartGameRequest{RequestId: rid(), Code: codes1[i]})
	}
	wantRefusal(t, refused, reasonEntropyUnavailable, "entropy unavailable")
	if !errors.Is(gen.Healthy(), entropy.ErrUnhealthy) || alarm("entropy") == 0 {
		t.Fatalf("generator health %v, alarm %v", gen.Healthy(), alarm("entropy"))
	}
	// Not ready while the generator refuses: the health service and
	// /healthz say so, and name the component.
	wantReady(t, td, false, "entropy")
	e.entropy = good
	wantReady(t, td, true, "")

	prover := e.prover
	e.prover = failingProver{prover}
	unchanged(t, a, g.GameId, reasonKeysUnavailable, "key custody unavailable", func() error {
		_, err := a.Pick(ctx, &qodv1.PickRequest{RequestId: "retry-me", GameId: g.GameId, Number: 5})
		return err
	})
	// Not ready from the failed proof on (its probe fails too), and ready
	// again once a probe proves: no draw needs to be sent first.
	e.keysProbeAt.Store(0)
	wantReady(t, td, false, "keys")
	e.prover = prover
	e.keysProbeAt.Store(0)
	wantReady(t, td, true, "")
	if alarm("keys") != 1 {
		t.Fatalf("keys alarm %v", alarm("keys"))
	}
	// A backend's error as hsm/pkcs11 words it: the game server's reply
	// says "key custody unavailable" once, and nothing of the token (its
	// label, the key's, the PKCS#11 code): those are in the log.
	e.prover = tokenGoneProver{prover}
	_, err = a.Pick(ctx, &qodv1.PickRequest{RequestId: "retry-me", GameId: g.GameId, Number: 5})
	wantRefusal(t, err, reasonKeysUnavailable, "key custody unavailable: nothing was drawn (retry later with the same request_id); the operator is alerted")
	if n := strings.Count(status.Convert(err).Message(), "key custody unavailable"); n != 1 {
		t.Errorf("KEYS_UNAVAILABLE says \"key custody unavailable\" %d times: %q", n, status.Convert(err).Message())
	}
	for _, w := range []string{`token`, `"vrf"`, "pkcs11", "0x82", "CKR_"} {
		if strings.Contains(status.Convert(err).Message(), w) {
			t.Errorf("KEYS_UNAVAILABLE to a game server says %q: %q", w, status.Convert(err).Message())
		}
	}
	if !bytes.Contains(td.logs(), []byte(`RSA-FDH-VRF prove with key \"vrf\": pkcs11: 0x82: CKR_OBJECT_HANDLE_INVALID`)) {
		t.Error("the log does not say why the key custody failed")
	}
	// Nor does /healthz, which anyone reaching http.listen reads: it names
	// the component; rngctl qod status says why.
	e.keysProbeAt.Store(0)
	resp, err := http.Get("http://" + td.d.Addrs().HTTP + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	hz, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	var hzBody struct{ Components map[string]string }
	if err := json.Unmarshal(hz, &hzBody); err != nil || hzBody.Components["keys"] != healthzFailed {
		t.Errorf("/healthz with the token gone: %s (%v), want keys %q", hz, err, healthzFailed)
	}
	for _, w := range []string{`token`, `\"vrf\"`, "pkcs11", "0x82", "CKR_"} {
		if bytes.Contains(hz, []byte(w)) {
			t.Errorf("/healthz says %q: %s", w, hz)
		}
	}
	st, err := td.admin().Status(ctx, &adminv1.StatusRequest{})
	if err != nil || !strings.Contains(st.GetKeysFailure(), "CKR_OBJECT_HANDLE_INVALID") {
		t.Errorf("admin Status keys_failure %q (%v), want the PKCS#11 code", st.GetKeysFailure(), err)
	}
	// A backend that returns its proof without β: refused as the key
	// custody's failure (it was the game rules' ErrBeta).
	e.prover = betalessProver{prover}
	unchanged(t, a, g.GameId, reasonKeysUnavailable, "key custody unavailable", func() error {
		_, err := a.Pick(ctx, &qodv1.PickRequest{RequestId: "retry-me", GameId: g.GameId, Number: 5})
		return err
	})
	e.prover = prover
	e.keysProbeAt.Store(0)
	wantReady(t, td, true, "")

	tl := e.tlog
	e.tlog = failingLog{Log: tl}
	unchanged(t, a, g.GameId, reasonLogUnavailable, "transparency log unavailable", func() error {
		_, err := a.Pick(ctx, &qodv1.PickRequest{RequestId: "retry-me", GameId: g.GameId, Number: 5})
		return err
	})
	// A log found rolled back: no retry helps, an operator must look.
	e.tlog = failingLog{Log: tl, err: fmt.Errorf("trillian: %w: tree 7 went back from 9 to 4 leaves", transparency.ErrSecurity)}
	unchanged(t, a, g.GameId, reasonLogIntegrity, "transparency log integrity failure", func() error {
		_, err := a.Pick(ctx, &qodv1.PickRequest{RequestId: "retry-me", GameId: g.GameId, Number: 5})
		return err
	})
	// A log failed closed (a timed-out append): not ready until reopened.
	e.tlog = unhealthyLog{Log: tl}
	wantReady(t, td, false, "log")
	e.tlog = tl
	wantReady(t, td, true, "")
	if alarm("log") != 2 {
		t.Fatalf("log alarm %v", alarm("log"))
	}

	// Back to health: the retry with the same request id draws, once.
	r, err := a.Pick(ctx, &qodv1.PickRequest{RequestId: "retry-me", GameId: g.GameId, Number: 5})
	if err != nil || len(r.Game.Picks) != 1 {
		t.Fatalf("retry after recovery: %v %v", r, err)
	}
	// No secret in any log line: not the keystore passphrase, not the
	// secret r of a game in play.
	sg, err := e.loadGame(g.GameId, "server-a")
	if err != nil {
		t.Fatal(err)
	}
	logs := td.logs()
	hsmtest.AssertNoSecrets(t, logs, []byte(testPassphrase), sg.Secret[:], []byte(hex.EncodeToString(sg.Secret[:])))
	if !bytes.Contains(logs, []byte("entropy failure")) {
		t.Fatalf("the entropy failure was not logged:\n%s", logs)
	}
	// The daemon's own VRF key verifies what it drew (α recomputed with the
	// game's secret, which only the daemon knows until the game ends: the
	// receipt shows α only when the pick lost, ending the game).
	pk, _ := vrf.ParsePublicKey(e.suite, e.pub)
	alpha := record.PickAlpha(g.GameId, g.EmissionId, sg.Game.Ticket, sg.Secret, 0, 5)
	if beta, err := vrf.Verify(pk, alpha, r.Receipt.VrfProof); err != nil || !bytes.Equal(beta, r.Receipt.VrfOutput) || (len(r.Receipt.VrfAlpha) != 0) != (r.Game.EndedAt != nil) {
		t.Fatalf("pick proof: %v", err)
	}
}

// A state store that can no longer commit: the pick already sealed in the
// log is acknowledged (the log is the source of truth), the store alarm
// rises, every later draw is refused with UNAVAILABLE, and after a restart
// the store is rebuilt from the log with the acknowledged pick in it.
func TestStoreFailure(t *testing.T) {
	td := newTestDaemon(t)
	codes1 := td.emission("SF", "2026-12-31", 10)
	a := td.client("server-a")
	ctx := context.Background()
	g := start(t, a, codes1[1]).Game
	e := td.d.engine
	if err := e.store.db.Close(); err != nil { // the file is gone from under the writer
		t.Fatal(err)
	}
	// The pick is sealed in the log and acknowledged; its commit fails
	// behind the reply.
	picked, err := a.Pick(ctx, &qodv1.PickRequest{RequestId: rid(), GameId: g.GameId, Number: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.sync(); !errors.Is(err, errStoreFailed) {
		t.Fatalf("store after its file was closed: %v, want errStoreFailed", err)
	}
	// Whether the pick lost the game or not, nothing more is drawn.
	_, err = a.Pick(ctx, &qodv1.PickRequest{RequestId: rid(), GameId: g.GameId, Number: 2})
	wantRefusal(t, err, reasonStoreUnavailable, "state store unavailable, nothing was drawn")
	var m dto.Metric
	e.metrics.alarms.WithLabelValues("store").Write(&m)
	if m.GetCounter().GetValue() != 1 {
		t.Fatalf("store alarm %v, want 1", m.GetCounter().GetValue())
	}
	_, err = a.StartGame(ctx, &qodv1.StartGameRequest{RequestId: rid(), Code: codes1[2]})
	wantRefusal(t, err, reasonStoreUnavailable, "state store unavailable, nothing was drawn")

	td.restart()
	a = td.client("server-a")
	got, err := a.GetGame(ctx, &qodv1.GetGameRequest{GameId: g.GameId})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Picks) != len(picked.Game.Picks) || got.Picks[len(got.Picks)-1].Number != picked.Game.Picks[len(picked.Game.Picks)-1].Number {
		t.Fatalf("after restart the game has picks %v, want the acknowledged %v", got.Picks, picked.Game.Picks)
	}
}

// A retry of an acknowledged call whose state.db can no longer be read
// (closed under the daemon, before any commit fails) is refused
// STORE_UNAVAILABLE and draws nothing: its stored reply is not read as
// none (a new call: a pick's was refused NUMBER_PICKED, from the game
// cached in memory, or INTERNAL, by the reads after it), and the log gets
// no record of it. After a restart the retry gets its first reply.
func TestRetryStoreUnreadable(t *testing.T) {
	td := newTestDaemon(t)
	a := td.client("server-a")
	g := start(t, a, td.emission("SU", "2026-12-31", 1)[0]).Game
	req := &qodv1.PickRequest{RequestId: rid(), GameId: g.GameId, Number: 1}
	ctx := t.Context()
	picked, err := a.Pick(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	e := td.d.engine
	if err := e.store.sync(); err != nil {
		t.Fatal(err)
	}
	if err := e.store.db.Close(); err != nil { // the file is gone from under the store
		t.Fatal(err)
	}
	if err := e.store.health(); err != nil {
		t.Fatalf("store health before any commit failed: %v", err)
	}
	alarms, sequenced := counterValue(e.metrics.alarms.WithLabelValues("store")), td.sequenced()
	_, err = a.Pick(ctx, req)
	wantRefusal(t, err, reasonStoreUnavailable, "state store unavailable")
	if n := td.sequenced(); n != sequenced {
		t.Errorf("the refused retry took the log from %d records to %d", sequenced, n)
	}
	// The read that could not begin is the store's failure: alarm and
	// readiness, as a failed commit's (it was neither).
	if n := counterValue(e.metrics.alarms.WithLabelValues("store")); n != alarms+1 {
		t.Errorf("store alarms %v after the unreadable retry, want %v", n, alarms+1)
	}
	wantReady(t, td, false, "store")
	if !strings.Contains(string(td.logs()), "state store failed: draws are refused") {
		t.Error("the store's failure to read is not logged")
	}

	td.restart()
	a = td.client("server-a")
	again, err := a.Pick(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if again.Receipt.LogIndex != picked.Receipt.LogIndex || len(again.Game.Picks) != len(picked.Game.Picks) {
		t.Fatalf("retry after the restart: record %d, picks %v; want the first reply's %d, %v",
			again.Receipt.LogIndex, again.Game.Picks, picked.Receipt.LogIndex, picked.Game.Picks)
	}
}

// A secret store that can no longer commit: once its writer has found it
// out, no start is drawn (no secret could be kept), with UNAVAILABLE and
// the store alarm, and nothing of it reaches the log; the games in play go
// on (their secrets are kept), and after a restart starts are drawn again.
// A start drawn before the failure is found has its secret already: it was
// committed to the reserve before being taken (secretStore.take). Its move
// to the game is what fails; the restart moves it (dropOrphanSecrets), and the
// game plays on.
func TestSecretStoreFailure(t *testing.T) {
	td := newTestDaemon(t)
	codes1 := td.emission("SS", "2026-12-31", 10)
	a := td.client("server-a")
	ctx := context.Background()
	started := start(t, a, codes1[1])
	g := started.Game
	e := td.d.engine
	if err := e.secrets.sync(); err != nil {
		t.Fatal(err)
	}
	if err := e.secrets.db.Close(); err != nil { // the file is gone from under the writer
		t.Fatal(err)
	}
	window := start(t, a, codes1[3]).Game // before the writer finds the failure out
	if err := e.secrets.sync(); err == nil {
		t.Fatal("the secret store's writer committed to a closed file")
	}
	_, err := a.StartGame(ctx, &qodv1.StartGameRequest{RequestId: rid(), Code: codes1[2]})
	wantRefusal(t, err, reasonSecretsUnavailable, "secret store unavailable, nothing was drawn")
	var m dto.Metric
	e.metrics.alarms.WithLabelValues("store").Write(&m)
	if m.GetCounter().GetValue() != 1 {
		t.Fatalf("store alarm %v, want 1", m.GetCounter().GetValue())
	}
	// The game in play goes on; the refused start appended nothing: the
	// pick's record follows the last start in the log.
	picked, err := a.Pick(ctx, &qodv1.PickRequest{RequestId: rid(), GameId: g.GameId, Number: 1})
	if err != nil {
		t.Fatalf("pick with the secret store down: %v", err)
	}
	if got, want := picked.Receipt.LogIndex, started.Receipt.LogIndex+2; got != want {
		t.Fatalf("the pick is at log index %d, want %d: the refused start appended something", got, want)
	}
	td.restart()
	start(t, td.client("server-a"), codes1[2])
	if _, err := td.client("server-a").Pick(ctx, &qodv1.PickRequest{RequestId: rid(), GameId: window.GameId, Number: 1}); err != nil {
		t.Fatalf("pick of the game started before the failure was found, after the restart: %v", err)
	}
}

// A start refused after its secret was kept, by an append whose outcome
// is unknown (the leaf may still be sequenced), leaves the secret behind;
// the next start of rngd drops it, and only it. (A start refused before
// its record could reach the log keeps none: TestRefusedStartKeepsNoSecret.)
func TestOrphanSecretsDropped(t *testing.T) {
	td := newTestDaemon(t)
	e := td.d.engine
	ctx := context.Background()
	codes1 := td.emission("OS", "2026-12-31", 10)
	a := td.client("server-a")
	g := start(t, a, codes1[1]).Game
	tl := e.tlog
	e.tlog = failingLog{Log: tl}
	for _, code := range codes1[2:5] {
		_, err := a.StartGame(ctx, &qodv1.StartGameRequest{RequestId: rid(), Code: code})
		wantRefusal(t, err, reasonLogUnavailable, "transparency log unavailable")
	}
	e.tlog = tl
	td.stop()
	secrets := filepath.Join(td.cfg.DataDir, "secrets.db")
	count := func() (n int, inPlay bool) {
		readMeta(t, secrets, func(tx *bolt.Tx) {
			n = tx.Bucket(bucketSecrets).Stats().KeyN
			inPlay = tx.Bucket(bucketSecrets).Get([]byte(g.GameId)) != nil
		})
		return
	}
	if n, ok := count(); n != 4 || !ok {
		t.Fatalf("%d secrets kept before the restart (game in play's: %v), want 4", n, ok)
	}
	td.start()
	td.stop()
	if n, ok := count(); n != 1 || !ok {
		t.Fatalf("%d secrets kept after the restart (game in play's: %v), want only the game in play's", n, ok)
	}
}

// endFailingLog refuses the appends of game_end records while fail is set.
type endFailingLog struct {
	transparency.Log
	fail *atomic.Bool
}

func (l endFailingLog) Append(ctx context.Context, leaf []byte) (uint64, error) {
	if l.fail.Load() && bytes.Contains(leaf, []byte(`"kind":"game_end"`)) {
		return 0, transparency.ErrUnavailable
	}
	return l.Log.Append(ctx, leaf)
}

// cutLosingPick starts games with codes and picks 1, 2, … in each, until a
// pick is refused because its end record is (the log refuses game_end
// records: endFailingLog): the losing pick sealed, its end not. It returns
// that pick's request.
// cutEndRefused cuts a losing pick short: the log refuses its game's end
// record, so the pick is sealed and the end is not. It returns the pick's
// request, to retry, and restore, which gives the engine its log back.
func cutEndRefused(t *testing.T, e *engine, a qodv1.QuitteOuDoubleClient, codes1 []string) (cut *qodv1.PickRequest, restore func()) {
	t.Helper()
	var fail atomic.Bool
	tl := e.tlog
	e.tlog = endFailingLog{tl, &fail}
	fail.Store(true)
	cut = cutLosingPick(t, a, codes1)
	fail.Store(false)
	return cut, func() { e.tlog = tl }
}

func cutLosingPick(t *testing.T, a qodv1.QuitteOuDoubleClient, codes1 []string) *qodv1.PickRequest {
	t.Helper()
	ctx := context.Background()
	for _, code := range codes1[1:] {
		g := start(t, a, code).Game
		for n := uint64(1); n <= 30; n++ {
			req := &qodv1.PickRequest{RequestId: rid(), GameId: g.GameId, Number: n}
			r, err := a.Pick(ctx, req)
			if err != nil {
				// The pick stands: the message says so, and what is left.
				wantRefusal(t, err, reasonLogUnavailable, "transparency log unavailable: the pick was sealed (log index ")
				wantRefusal(t, err, reasonLogUnavailable, "but the game's end record was not")
				return req
			}
			if r.Game.Status != qodv1.Status_STATUS_PLAYING {
				break // a tier: next game
			}
		}
	}
	t.Fatal("no losing pick met")
	return nil
}

// A call cut short between its records — a losing pick sealed, its end
// refused by the log — is told to retry; its retry seals the end with the
// call's stamp and gets the pick's outcome, as the first attempt would have,
// and a later retry the same reply. The log holds the pick once.
func TestRetryAfterEndRefused(t *testing.T) {
	td := newTestDaemon(t)
	e := td.d.engine
	ctx := context.Background()
	codes1 := td.emission("CS", "2026-12-31", 40)
	a := td.client("server-a")
	cut, restore := cutEndRefused(t, e, a, codes1)
	r, err := a.Pick(ctx, cut)
	if err != nil {
		t.Fatalf("retry of the cut pick: %v", err)
	}
	if r.Pick == nil || !r.Pick.Losing || uint64(r.Pick.Number) != cut.Number || r.Game.Status != qodv1.Status_STATUS_LOST || r.EndReceipt == nil || len(r.Game.Secret) != 32 {
		t.Fatalf("retry of the cut pick: %v", r)
	}
	again, err := a.Pick(ctx, cut)
	if err != nil || !proto.Equal(again.Game, r.Game) || !proto.Equal(again.Pick, r.Pick) || !bytes.Equal(again.EndReceipt.Record, r.EndReceipt.Record) {
		t.Fatalf("second retry: %v %v, first %v", again, err, r)
	}
	restore()
	verifyGame(t, td, a, r.Game)
	rs, err := a.GetReceipts(ctx, &qodv1.GetReceiptsRequest{GameId: cut.GameId})
	if err != nil {
		t.Fatal(err)
	}
	picks := 0
	for _, x := range rs.Receipts {
		if bytes.Contains(x.Record, []byte(fmt.Sprintf(`"kind":"pick","number":%d,`, cut.Number))) {
			picks++
		}
	}
	if picks != 1 {
		t.Fatalf("the cut pick is %d times in the game's records", picks)
	}
}

// A game over but not ended (its losing pick sealed, its end refused) whose
// secret is then lost cannot be ended: its end would have to reveal r. The
// retry is refused, nothing is sealed, the alarm rises, and the log still
// rebuilds (an end with a zero secret is valid for a refund or an expiry
// only).
func TestCutGameWithLostSecret(t *testing.T) {
	td := newTestDaemon(t)
	e := td.d.engine
	ctx := context.Background()
	codes1 := td.emission("CL", "2026-12-31", 40)
	a := td.client("server-a")
	var fail atomic.Bool
	e.tlog = endFailingLog{e.tlog, &fail}
	fail.Store(true)
	cut := cutLosingPick(t, a, codes1)
	td.stop()
	if err := os.Remove(filepath.Join(td.cfg.DataDir, "secrets.db")); err != nil {
		t.Fatal(err)
	}
	td.start()
	a = td.client("server-a")
	_, err := a.Pick(ctx, cut)
	wantRefusal(t, err, reasonSecretLost, "secret r was lost")
	var m dto.Metric
	td.d.engine.metrics.alarms.WithLabelValues("store").Write(&m)
	if m.GetCounter().GetValue() == 0 {
		t.Error("no store alarm")
	}
	td.stop()
	if _, err := Rebuild(ctx, td.cfg); err != nil {
		t.Fatalf("rebuild: %v", err)
	}
}

// wantReady checks the game servers' health service and /healthz: SERVING
// and 200 when ready, NOT_SERVING and 503 naming the failed component
// otherwise.
func wantReady(t *testing.T, td *testDaemon, ready bool, failed string) {
	t.Helper()
	want := healthpb.HealthCheckResponse_SERVING
	if !ready {
		want = healthpb.HealthCheckResponse_NOT_SERVING
	}
	hc := healthpb.NewHealthClient(td.conn("server-a"))
	for _, svc := range []string{"", qodv1.QuitteOuDouble_ServiceDesc.ServiceName} {
		r, err := hc.Check(context.Background(), &healthpb.HealthCheckRequest{Service: svc})
		if err != nil || r.Status != want {
			t.Fatalf("health of %q: %v %v, want %v", svc, r, err, want)
		}
	}
	resp, err := http.Get("http://" + td.d.Addrs().HTTP + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Status     string
		Components map[string]string
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if (resp.StatusCode == http.StatusOK) != ready || body.Status != want.String() {
		t.Fatalf("/healthz: %d %+v, want ready %v", resp.StatusCode, body, ready)
	}
	for name, st := range body.Components {
		if (st != "ok") != (name == failed) {
			t.Fatalf("/healthz components %v, want only %q failed", body.Components, failed)
		}
	}
	if body.Components["store"] == "" || body.Components["entropy"] == "" {
		t.Fatalf("/healthz components %v: want entropy and store reported", body.Components)
	}
}

// unhealthyLog is a log failed closed (transparency.Health).
type unhealthyLog struct{ transparency.Log }

func (unhealthyLog) Health() error {
	return fmt.Errorf("tilelog: %w: append timed out (appends are refused until the log is reopened)", transparency.ErrUnavailable)
}

// Once the store's writer has failed, a retry of a call whose reply it had
// committed is STORE_UNAVAILABLE (a restart rebuilds the store, and the
// retry then gets its reply), not INTERNAL; and a refund, like a draw, is
// refused before anything is sealed.
func TestRetryAndRefundAfterStoreFailure(t *testing.T) {
	td := newTestDaemon(t)
	codes1 := td.emission("SR", "2026-12-31", 10)
	a := td.client("server-a")
	ctx := context.Background()
	g := start(t, a, codes1[1]).Game
	other := start(t, a, codes1[2]).Game
	req := &qodv1.PickRequest{RequestId: rid(), GameId: g.GameId, Number: 1}
	if _, err := a.Pick(ctx, req); err != nil {
		t.Fatal(err)
	}
	e := td.d.engine
	failStore(t, e)
	_, err := a.Pick(ctx, req)
	wantRefusal(t, err, reasonStoreUnavailable, "state store unavailable")
	n := td.sequenced()
	_, err = td.admin().RefundGame(ctx, &adminv1.RefundGameRequest{RequestId: rid(), GameId: other.GameId, Reason: "test"})
	wantRefusal(t, err, reasonStoreUnavailable, "nothing was drawn")
	if td.sequenced() != n {
		t.Fatal("a refund refused for the store was sealed in the log")
	}
}
