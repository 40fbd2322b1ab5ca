package rngd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/hsm/keystore"
	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/rngd/entropy"
	"tirage.fr/tirage/rngd/internal/boundedfile"
	rpromo "tirage.fr/tirage/rngd/promo"
	"tirage.fr/tirage/transparency"
	tcheckpoint "tirage.fr/tirage/transparency/checkpoint"
	"tirage.fr/tirage/verifier/audit"
	vcheckpoint "tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/vrf"
)

// keysDir is the daemon's software keystore.
func (td *testDaemon) keysDir() string { return filepath.Join(td.cfg.DataDir, "keys") }

// tryStart starts the daemon like td.start but returns Start's error.
func (td *testDaemon) tryStart() error {
	td.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	d, err := Start(ctx, td.cfg)
	if err != nil {
		cancel()
		return err
	}
	if d.engine.demoScan != MaxDemoTickets {
		td.t.Errorf("an import looks among %d demo tickets at least, want MaxDemoTickets (%d)", d.engine.demoScan, MaxDemoTickets)
	}
	d.engine.demoScan = testDemoScan // before Serve: no call yet
	// The sweep Start queued for the sweeper runs here, before the test's
	// first call rather than beside it: tests swap the engine's parts (its
	// entropy, log, prover) once the daemon is up, and the sweeper's
	// readiness check reads them.
	select {
	case <-d.engine.sweepc:
		d.engine.sweepOnce(ctx)
	default:
	}
	td.d, td.cancel, td.done = d, cancel, make(chan error, 1)
	go func() { td.done <- d.Serve(ctx) }()
	td.t.Cleanup(td.stop)
	return nil
}

// generateKeys makes keys in the software keystore dir (rngd stopped), as
// rngctl keys init would: vrf labels get a VRF key, the others a signer.
func generateKeys(t *testing.T, dir string, vrfLabels, signerLabels []string) {
	t.Helper()
	ks, err := keystore.Open(keystore.Config{Dir: dir, Passphrase: []byte(testPassphrase), KDF: testKDF})
	if err != nil {
		t.Fatal(err)
	}
	defer ks.Close()
	for _, l := range vrfLabels {
		if _, err := ks.GenerateVRF(l, vrf.DefaultSuite); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range signerLabels {
		if _, err := ks.GenerateSigner(l, hsm.Ed25519); err != nil {
			t.Fatal(err)
		}
	}
}

// generateKeysIn makes VRF keys in an open keystore.
func generateKeysIn(t *testing.T, ks *keystore.Store, labels []string) {
	t.Helper()
	for _, l := range labels {
		if _, err := ks.GenerateVRF(l, vrf.DefaultSuite); err != nil {
			t.Fatal(err)
		}
	}
}

// httpLog reads the daemon's log as an auditor does: /log/ on HTTP.
type httpLog string

func (h httpLog) Fetch(ctx context.Context, path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", string(h)+"/log/"+path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %s %s", path, resp.Status, b)
	}
	return b, err
}

// auditDaemon runs verifier/audit over the daemon's /log/, once a
// checkpoint covers every record, and requires a passing verdict.
func auditDaemon(t *testing.T, td *testDaemon) *audit.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := td.d.engine.tlog.AwaitCheckpoint(ctx, td.d.engine.tlog.(transparency.Sequencer).Sequenced()); err != nil {
		t.Fatal(err)
	}
	keys, err := vcheckpoint.ParseKeys(td.d.engine.tlog.VerifierKeys()[0])
	if err != nil {
		t.Fatal(err)
	}
	res, err := audit.Run(ctx, audit.Config{Fetch: httpLog("http://" + td.d.Addrs().HTTP), LogKeys: keys, Location: td.d.engine.loc, Workers: 1,
		Now: td.clock.Now}) // the daemon's clock, which tests move forward
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict.Status() != verdict.StatusPass {
		t.Fatalf("audit of the daemon's log:\n%s", res.Verdict.Text("en"))
	}
	return res
}

// A VRF key rotation with games in play is refused at start (their picks
// would be proven under a key announced after they started, which the
// audit rejects: "key … is not known"), naming keys.vrf_label and what to
// do; with the old key back the games go on; once they are ended or
// refunded the rotation is allowed, and the log passes the audit.
func TestVRFRotationWithGamesInPlay(t *testing.T) {
	ctx := context.Background()
	td := newTestDaemon(t)
	codes := td.emission("ROT", "2026-12-31", 40)
	a := td.client("server-a")
	once := func(g *qodv1.Game) bool { return len(g.Picks) >= 1 }
	never := func(*qodv1.Game) bool { return false }
	over := func(g *qodv1.Game) bool {
		return g.Status == qodv1.Status_STATUS_WON || g.Status == qodv1.Status_STATUS_LOST
	}
	// A game in play after one pick (a pick may lose: the next code).
	next := 0
	inPlay := func() *qodv1.Game {
		for ; next < len(codes); next++ {
			if g := playUntil(t, a, start(t, a, codes[next]).Game, once); !over(g) {
				next++
				return g
			}
		}
		t.Fatal("every game lost its first pick")
		return nil
	}
	g1 := inPlay()
	g2 := start(t, a, codes[next]).Game
	next++
	td.stop()
	generateKeys(t, td.keysDir(), []string{"vrf2"}, nil)

	td.cfg.Keys.VRFLabel = "vrf2"
	err := td.tryStart()
	if err == nil {
		t.Fatal("rngd started on a new VRF key with two games in play")
	}
	for _, want := range []string{`keys.vrf_label = "vrf2"`, "2 unfinished games", g1.GameId, g2.GameId, `keys.vrf_label back to "vrf"`, "rngctl qod refund", "docs/keys.md"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not say %q", err, want)
		}
	}

	// Back on the old key: the games go on; one ends, one is refunded.
	td.cfg.Keys.VRFLabel = "vrf"
	td.start()
	a = td.client("server-a")
	if g := playUntil(t, a, g1, never); !over(g) {
		t.Fatalf("game 1: %v", g)
	}
	if _, err := td.admin().RefundGame(ctx, &adminv1.RefundGameRequest{RequestId: rid(), GameId: g2.GameId, Reason: "key rotation"}); err != nil {
		t.Fatal(err)
	}
	td.stop()

	// No game in play: the rotation is allowed and announced.
	td.cfg.Keys.VRFLabel = "vrf2"
	td.start()
	if td.d.engine.keyID != "vrf2" {
		t.Fatalf("key id %q after the rotation", td.d.engine.keyID)
	}
	a = td.client("server-a")
	// The games played on the old key keep their transcripts: the key
	// their records name, announced before they started — asked at once
	// (before a checkpoint covers the new announcement) as later.
	verifyTranscript(t, td, a, g1.GameId)
	verifyTranscript(t, td, a, g2.GameId)
	if g := playUntil(t, a, start(t, a, codes[next]).Game, never); !over(g) {
		t.Fatalf("game 3: %v", g)
	}
	next++
	g4 := inPlay() // left in play
	// A restart on the same key is not a rotation.
	td.restart()
	a = td.client("server-a")
	if g := playUntil(t, a, g4, never); !over(g) {
		t.Fatalf("game 4: %v", g)
	}
	verifyTranscript(t, td, a, g4.GameId)
	verifyTranscript(t, td, a, g1.GameId)
	res := auditDaemon(t, td)
	if res.Games != next || res.Proofs < 6 {
		t.Fatalf("audited %d games, %d proofs", res.Games, res.Proofs)
	}
}

// verifyTranscript gets a game's transcript (waiting out CHECKPOINT_PENDING
// only) and requires it to pass the standalone verifier with the log key
// alone: the VRF key must be the one the game's records name, announced in
// the log before the game started.
func verifyTranscript(t *testing.T, td *testDaemon, c qodv1.QuitteOuDoubleClient, id string) {
	t.Helper()
	var doc []byte
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		tr, err := c.GetTranscript(context.Background(), &qodv1.GetTranscriptRequest{GameId: id})
		if err == nil {
			doc = tr.Document
			break
		}
		if reasonOf(err) != reasonCheckpointPending || time.Now().After(deadline) {
			t.Fatalf("transcript of %s: %v", id, err)
		}
	}
	keys, err := vcheckpoint.ParseKeys(td.d.engine.tlog.VerifierKeys()[0])
	if err != nil {
		t.Fatal(err)
	}
	v := receipt.VerifyTranscript(doc, receipt.Anchors{LogKeys: keys, Location: td.d.engine.loc})
	if err := v.Err(); err != nil {
		t.Fatalf("transcript of %s: %v\n%s\n%s", id, err, v.Text("en"), doc)
	}
}

// The key a game is on is read from its records, so the check holds
// without the state store: after vrf → vrf2 → vrf (going back appends
// nothing: the last announcement is vrf2's) and state.db lost, a game in
// play on vrf refuses a start on vrf2 and goes on on vrf.
func TestVRFRotationBackWithoutStateStore(t *testing.T) {
	td := newTestDaemon(t)
	codes := td.emission("RB", "2026-12-31", 20)
	td.stop()
	generateKeys(t, td.keysDir(), []string{"vrf2"}, nil)
	td.cfg.Keys.VRFLabel = "vrf2"
	td.start()
	td.stop()
	td.cfg.Keys.VRFLabel = "vrf"
	td.start()
	a := td.client("server-a")
	var g *qodv1.Game
	for _, code := range codes {
		g = playUntil(t, a, start(t, a, code).Game, func(g *qodv1.Game) bool { return len(g.Picks) >= 1 })
		if g.Status != qodv1.Status_STATUS_LOST {
			break
		}
	}
	if g.Status == qodv1.Status_STATUS_LOST {
		t.Fatal("every game lost its first pick")
	}
	td.stop()
	if err := os.Remove(filepath.Join(td.cfg.DataDir, "state.db")); err != nil {
		t.Fatal(err)
	}
	td.cfg.Keys.VRFLabel = "vrf2"
	err := td.tryStart()
	if err == nil {
		t.Fatal("rngd started on vrf2 with a game in play on vrf")
	}
	for _, want := range []string{"1 unfinished games", g.GameId, `on VRF key "vrf"`, `keys.vrf_label back to "vrf"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not say %q", err, want)
		}
	}
	td.cfg.Keys.VRFLabel = "vrf"
	if err := td.tryStart(); err != nil {
		t.Fatalf("start on the key of the game in play: %v", err)
	}
	a = td.client("server-a")
	if g = playUntil(t, a, g, func(*qodv1.Game) bool { return false }); g.Status != qodv1.Status_STATUS_WON && g.Status != qodv1.Status_STATUS_LOST {
		t.Fatalf("game: %v", g)
	}
	verifyTranscript(t, td, a, g.GameId)
	auditDaemon(t, td)
}

// A game over whose end could not be sealed and whose secret r was lost
// can be neither ended nor refunded: the rotation refusal sends it to an
// operator, not to a refund.
func TestVRFRotationRefusalOverGameSecretLost(t *testing.T) {
	td := newTestDaemon(t)
	codes := td.emission("RL", "2026-12-31", 20)
	a := td.client("server-a")
	var g *qodv1.Game
	for _, code := range codes {
		if g = playUntil(t, a, start(t, a, code).Game, func(*qodv1.Game) bool { return false }); g.Status == qodv1.Status_STATUS_LOST {
			break
		}
	}
	if g.Status != qodv1.Status_STATUS_LOST {
		t.Fatal("no game lost")
	}
	td.restart() // every commit made
	e := td.d.engine
	// As if its end had not been sealed and secrets.db were lost.
	if err := e.store.db.Update(func(tx *bolt.Tx) error {
		var sg storedGame
		if _, err := getStoredGame(tx, []byte(g.GameId), &sg); err != nil {
			return err
		}
		sg.Ended, sg.HasSecret, sg.Secret = false, false, [32]byte{}
		if err := putGame(tx, &sg, false); err != nil {
			return err
		}
		return tx.Bucket(bucketUnfinished).Put(joinKey(sg.Server, []byte(g.GameId)), u64(uint64(sg.Game.Expires.Unix())))
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.tlog.AwaitCheckpoint(context.Background(), e.tlog.(transparency.Sequencer).Sequenced()); err != nil {
		t.Fatal(err)
	}
	lk, err := e.loggedKeys(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	err = e.checkRotation(lk, keyInUse{id: "vrf2", fp: "00"})
	if err == nil {
		t.Fatal("rotation allowed with a game over, not ended")
	}
	for _, want := range []string{g.GameId, "secret r was lost", "docs/rngd.md"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "refund") && !strings.Contains(err.Error(), "cannot be refunded") {
		t.Errorf("refusal %q suggests a refund", err)
	}
}

// A new key under a label the log already announced with another key (a
// new HSM or keystore set up with rngctl keys init's default labels) is
// refused: auditors know an id by its first announcement and would report
// every later proof as misbehaviour. The same for the log key.
func TestKeyReplacedUnderSameLabelRefused(t *testing.T) {
	td := newTestDaemon(t)
	logged := func() uint64 { return td.d.engine.tlog.(transparency.Sequencer).Sequenced() }
	before := logged()
	td.stop()

	// A new VRF key under the default label "vrf", beside the log key.
	td.cfg.Keys.Dir = filepath.Join(td.dir, "new-keys")
	generateKeys(t, td.cfg.Keys.Dir, []string{"vrf"}, nil)
	logKey, err := os.ReadFile(filepath.Join(td.keysDir(), "log.key"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(td.cfg.Keys.Dir, "log.key"), logKey, 0o600); err != nil {
		t.Fatal(err)
	}
	err = td.tryStart()
	if err == nil {
		t.Fatal("rngd started on another VRF key under the announced id \"vrf\"")
	}
	for _, want := range []string{`vrf key id "vrf" was already announced`, "new label", "keys.vrf_label"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not say %q", err, want)
		}
	}
	// Under a new label the same key is a rotation like any other.
	generateKeys(t, td.cfg.Keys.Dir, []string{"vrf-b"}, nil)

	// Nothing was appended: the old keys start as before.
	td.cfg.Keys.Dir = ""
	td.start()
	if n := logged(); n != before {
		t.Fatalf("the refused start changed the log: %d records, %d before", n, before)
	}
	td.stop()
	td.cfg.Keys.Dir, td.cfg.Keys.VRFLabel = filepath.Join(td.dir, "new-keys"), "vrf-b"
	td.start()
	if td.d.engine.keyID != "vrf-b" {
		t.Fatalf("key id %q", td.d.engine.keyID)
	}
	auditDaemon(t, td)
}

// frozenDraw stops a test daemon and freezes draw 1 of the example Bonus
// Crescendo on its data directory with the VRF key "vrf", at the freeze's
// date (2016-06-20): it returns the daemon (stopped), its keystore and
// offline, which opens the promotion appliance on that directory under a
// VRF label at a date.
func frozenDraw(t *testing.T) (td *testDaemon, ks *keystore.Store, offline func(label string, now time.Time) (*rpromo.Appliance, transparency.Log)) {
	t.Helper()
	ctx := context.Background()
	td = newTestDaemon(t)
	td.stop()
	rulesFile, err := boundedfile.Read("../examples/bonus-crescendo.yaml", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	rules, err := promo.ParseRules(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	if ks, err = keystore.Open(keystore.Config{Dir: td.keysDir(), Passphrase: []byte(testPassphrase), KDF: testKDF}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ks.Close() })
	ent, err := entropy.New(entropy.Config{Sources: td.generatorSources()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ent.Close() })
	offline = func(label string, now time.Time) (*rpromo.Appliance, transparency.Log) {
		a, lg, err := rpromo.OpenOffline(ctx, rpromo.OfflineConfig{DataDir: td.cfg.DataDir, Origin: td.cfg.Log.Origin, Keys: ks,
			VRFLabel: label, LogLabel: "log", Entropy: ent, Clock: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		return a, lg
	}
	a, lg := offline("vrf", time.Date(2016, 6, 20, 16, 0, 0, 0, time.UTC))
	if _, err := a.Freeze(ctx, rpromo.FreezeRequest{Rules: rules, RulesFile: rulesFile, DrawIndex: 0, Entrants: []string{"A1", "A2", "A3", "A4", "A5", "A6"}}); err != nil {
		t.Fatal(err)
	}
	lg.Close()
	return td, ks, offline
}

// A frozen promotion draw stays on the VRF key of its freeze: rngd refuses
// to rotate while it awaits its ceremony, and allows it once drawn.
func TestVRFRotationWithFrozenDraw(t *testing.T) {
	ctx := context.Background()
	td, ks, offline := frozenDraw(t)

	generateKeysIn(t, ks, []string{"vrf2"})
	td.cfg.Keys.VRFLabel = "vrf2"
	// On the draw's date, its ceremony still to hold: refused.
	was := td.clock.Now()
	td.setClock(time.Date(2016, 6, 21, 8, 0, 0, 0, time.UTC))
	err := td.tryStart()
	if err == nil || !strings.Contains(err.Error(), "1 frozen promotion draws not yet drawn (bonus-crescendo/1)") || !strings.Contains(err.Error(), `keys.vrf_label back to "vrf"`) {
		t.Fatalf("rotation with a frozen draw: %v", err)
	}
	td.setClock(was)

	// The ceremony on the freeze's key, then the rotation.
	a, lg := offline("vrf", time.Date(2016, 6, 21, 8, 30, 0, 0, time.UTC))
	if _, err := a.Draw(ctx, rpromo.DrawRequest{Draw: "bonus-crescendo/1", Share: "text:12345678"}); err != nil {
		t.Fatal(err)
	}
	lg.Close()
	if err := td.tryStart(); err != nil {
		t.Fatalf("rotation after the ceremony: %v", err)
	}
	res := auditDaemon(t, td)
	if c := res.Verdict.Find(verdict.CheckPromotions); c == nil || c.Status != verdict.StatusPass {
		t.Fatalf("promotions:\n%s", res.Verdict.Text("en"))
	}
}

// A frozen draw whose ceremony window has closed can never be drawn (the
// ceremony refuses it under any key): it does not hold the rotation back.
func TestVRFRotationFrozenDrawWindowPassed(t *testing.T) {
	td, ks, _ := frozenDraw(t)
	generateKeysIn(t, ks, []string{"vrf2"})
	td.cfg.Keys.VRFLabel = "vrf2"
	// The test clock (2026) is years past the draw's latest date (2016-07-21).
	if err := td.tryStart(); err != nil {
		t.Fatalf("rotation with a draw past its ceremony window: %v", err)
	}
	if td.d.engine.keyID != "vrf2" {
		t.Fatalf("key id %q", td.d.engine.keyID)
	}
}

// shortLog is a log whose checkpoint says it holds no record.
type shortLog struct{ transparency.Log }

func (l shortLog) Checkpoint(ctx context.Context) (*tcheckpoint.Checkpoint, error) {
	cp, err := l.Log.Checkpoint(ctx)
	if err != nil {
		return nil, err
	}
	c := *cp
	c.Size = 0
	return &c, nil
}

// A key announcement the log cannot give is reported clearly: beyond the
// checkpoint, with no ": <nil>"; a log failure, wrapped (a security error
// stays one).
func TestLoggedKeysReadErrors(t *testing.T) {
	td := newTestDaemon(t)
	e := td.d.engine
	ctx := context.Background()
	if _, err := e.tlog.AwaitCheckpoint(ctx, e.tlog.(transparency.Sequencer).Sequenced()); err != nil {
		t.Fatal(err)
	}
	tl := e.tlog
	defer func() { e.tlog = tl }()
	e.tlog = shortLog{tl}
	_, err := e.loggedKeys(ctx)
	if err == nil || strings.Contains(err.Error(), "<nil>") || !strings.Contains(err.Error(), "beyond the log's checkpoint") {
		t.Errorf("announcement beyond the checkpoint: %v", err)
	}
	forked := fmt.Errorf("tilelog: %w: checkpoint went back", transparency.ErrSecurity)
	e.tlog = readFailingLog{Log: tl, entriesErr: forked}
	if _, err := e.loggedKeys(ctx); !errors.Is(err, transparency.ErrSecurity) {
		t.Errorf("log failure: %v is not ErrSecurity", err)
	}
}

// setClock sets the daemon's clock.
func (td *testDaemon) setClock(t time.Time) {
	td.clock.mu.Lock()
	td.clock.t = t
	td.clock.mu.Unlock()
}

// The Trillian plaintext note names what allowed plaintext: the opt-in
// log.trillian_plaintext outside dev mode, dev mode without it.
func TestTrillianPlaintextNote(t *testing.T) {
	for _, c := range []struct {
		dev, optIn bool
		want, not  string
	}{{false, true, "log.trillian_plaintext", "dev mode"}, {true, false, "dev mode", "trillian_plaintext"}, {true, true, "log.trillian_plaintext", "dev mode"}} {
		cfg := Config{Dev: c.dev, Log: LogConfig{Backend: "trillian", TrillianAddress: "127.0.0.1:8090", TrillianPlaintext: c.optIn}}
		notes := insecureNotes(cfg, c.dev)
		if len(notes) != 1 {
			t.Fatalf("dev %v, opt-in %v: notes %+v", c.dev, c.optIn, notes)
		}
		n := notes[0]
		for _, s := range []string{strings.ToLower(n.banner), n.log} {
			if !strings.Contains(s, c.want) || strings.Contains(s, c.not) {
				t.Errorf("dev %v, opt-in %v: %q should say %q, not %q", c.dev, c.optIn, s, c.want, c.not)
			}
		}
	}
}
