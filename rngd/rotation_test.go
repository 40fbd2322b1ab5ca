package rngd

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/hsm/keystore"
	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/rngd/entropy"
	rpromo "tirage.fr/tirage/rngd/promo"
	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/verifier/audit"
	vcheckpoint "tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/promo"
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
	res, err := audit.Run(ctx, audit.Config{Fetch: httpLog("http://" + td.d.Addrs().HTTP), LogKeys: keys, Location: td.d.engine.loc, Workers: 1})
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
	res := auditDaemon(t, td)
	if res.Games != next || res.Proofs < 6 {
		t.Fatalf("audited %d games, %d proofs", res.Games, res.Proofs)
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

// A frozen promotion draw stays on the VRF key of its freeze: rngd refuses
// to rotate while it awaits its ceremony, and allows it once drawn.
func TestVRFRotationWithFrozenDraw(t *testing.T) {
	ctx := context.Background()
	td := newTestDaemon(t)
	td.stop()
	rulesFile, err := readBounded("../examples/bonus-crescendo.yaml", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	rules, err := promo.ParseRules(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	ks, err := keystore.Open(keystore.Config{Dir: td.keysDir(), Passphrase: []byte(testPassphrase), KDF: testKDF})
	if err != nil {
		t.Fatal(err)
	}
	defer ks.Close()
	ent, err := entropy.New(entropy.Config{Sources: []entropy.SourceConfig{{Kind: "hwrng", MinEntropy: 4}, {Kind: "getrandom"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer ent.Close()
	now := time.Date(2016, 6, 20, 16, 0, 0, 0, time.UTC)
	offline := func(label string) (*rpromo.Appliance, transparency.Log) {
		a, lg, err := rpromo.OpenOffline(ctx, rpromo.OfflineConfig{DataDir: td.cfg.DataDir, Origin: td.cfg.Log.Origin, Keys: ks,
			VRFLabel: label, LogLabel: "log", Entropy: ent, Clock: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		return a, lg
	}
	a, lg := offline("vrf")
	if _, err := a.Freeze(ctx, rpromo.FreezeRequest{Rules: rules, RulesFile: rulesFile, DrawIndex: 0, Entrants: []string{"A1", "A2", "A3", "A4", "A5", "A6"}}); err != nil {
		t.Fatal(err)
	}
	lg.Close()

	generateKeysIn(t, ks, []string{"vrf2"})
	td.cfg.Keys.VRFLabel = "vrf2"
	err = td.tryStart()
	if err == nil || !strings.Contains(err.Error(), "1 frozen promotion draws not yet drawn (bonus-crescendo/1)") || !strings.Contains(err.Error(), "keys.vrf_label") {
		t.Fatalf("rotation with a frozen draw: %v", err)
	}

	// The ceremony on the freeze's key, then the rotation.
	now = time.Date(2016, 6, 21, 8, 30, 0, 0, time.UTC)
	a, lg = offline("vrf")
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
