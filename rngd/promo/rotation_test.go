package promo

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/hsm/keystore"
	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/tilelog"
	"tirage.fr/tirage/verifier/audit"
	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/vrf"
)

// logHTTP reads a log as auditors do, through its /log/ handler.
type logHTTP struct{ h http.Handler }

func (l logHTTP) Fetch(ctx context.Context, path string) ([]byte, error) {
	rec := httptest.NewRecorder()
	l.h.ServeHTTP(rec, httptest.NewRequestWithContext(ctx, "GET", "/log/"+path, nil))
	if rec.Code != http.StatusOK {
		return nil, fmt.Errorf("GET /log/%s: %d %s", path, rec.Code, rec.Body)
	}
	return rec.Body.Bytes(), nil
}

// rotationAppliance is a promotion appliance's keys and data directory at
// the clock c (20 June 2016, 16:00 UTC, after draw 1's period), and open,
// which opens it on VRF key label (and returns the log's closer).
func rotationAppliance(t *testing.T) (c *clock, keys hsm.Backend, data string, open func(label string) (*Appliance, func())) {
	tmp := t.TempDir()
	c = &clock{t: time.Date(2016, 6, 20, 16, 0, 0, 0, time.UTC)}
	keys = testKeys(t, filepath.Join(tmp, "keys"))
	ent := testEntropy(t)
	data = filepath.Join(tmp, "data")
	open = func(label string) (*Appliance, func()) {
		a, lg, err := OpenOffline(context.Background(), OfflineConfig{DataDir: data, Origin: "tirage.test/promo", Keys: keys,
			VRFLabel: label, LogLabel: "log", Entropy: ent, Clock: c.now})
		if err != nil {
			t.Fatal(err)
		}
		return a, func() { lg.Close() }
	}
	return c, keys, data, open
}

// announceVRF2 makes VRF key "vrf2" in keys and announces it, with the log
// key, in the log of data directory data at now (as rngd does at a
// rotation).
func announceVRF2(t *testing.T, keys hsm.Backend, data string, now time.Time) {
	t.Helper()
	ctx := context.Background()
	if _, err := keys.(*keystore.Store).GenerateVRF("vrf2", vrf.SuiteP256SSWU); err != nil {
		t.Fatal(err)
	}
	prover, _ := keys.VRFProver("vrf2")
	signer, _ := keys.Signer("log")
	lg, err := tilelog.Open(ctx, tilelog.Config{Dir: filepath.Join(data, "log"), Origin: "tirage.test/promo",
		Signers: []crypto.Signer{checkpointSigner{signer}}})
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Close()
	leaf, err := hsm.Announce(now, []hsm.AnnouncedKey{{Use: hsm.UseVRF, Label: "vrf2", Prover: prover}, {Use: hsm.UseLog, Label: "log", Signer: signer}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lg.Append(ctx, leaf); err != nil {
		t.Fatal(err)
	}
}

// A freeze, then a VRF key rotation (the new key announced after the
// freeze), then the ceremony: on the new key it is refused before anything
// is locked (an auditor counts a draw only under a key announced before its
// freeze: "draw key unannounced"); on the freeze's key it runs, and the
// log passes the audit.
func TestCeremonyAfterRotation(t *testing.T) {
	ctx := context.Background()
	r, rulesFile := exampleRules(t)
	c, keys, data, open := rotationAppliance(t)
	a, closeLog := open("vrf")
	if _, err := a.Freeze(ctx, FreezeRequest{Rules: r, RulesFile: rulesFile, DrawIndex: 0, Entrants: []string{"A1", "A2", "A3", "A4", "A5", "A6"}}); err != nil {
		t.Fatal(err)
	}
	closeLog()

	// The rotation: a new VRF key, announced (as rngd does) after the freeze.
	announceVRF2(t, keys, data, c.now())

	c.t = time.Date(2016, 6, 21, 8, 30, 0, 0, time.UTC)
	a, closeLog = open("vrf2")
	_, err := a.Draw(ctx, DrawRequest{Draw: "bonus-crescendo/1", Share: "text:12345678"})
	if !errors.Is(err, ErrKeyAfterFreeze) || !strings.Contains(err.Error(), `VRF key "vrf2" was announced at record`) || !strings.Contains(err.Error(), "nothing was drawn") {
		t.Fatalf("ceremony on a key announced after the freeze: %v", err)
	}
	dir, _ := a.drawDir("bonus-crescendo/1")
	if _, err := os.Stat(filepath.Join(dir, "draw.lock")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the refused ceremony left draw.lock: %v", err)
	}
	if u, err := Undrawn(filepath.Join(data, "promo"), c.now()); err != nil || len(u) != 1 || u[0].Draw != "bonus-crescendo/1" || u[0].FreezeIndex != 1 {
		t.Fatalf("undrawn: %v %v", u, err)
	}
	// Once its ceremony window has closed (latest date 2016-07-21), Draw
	// refuses it under any key: it is no longer awaiting a ceremony.
	if u, err := Undrawn(filepath.Join(data, "promo"), time.Date(2016, 7, 21, 21, 59, 59, 0, time.UTC)); err != nil || len(u) != 1 {
		t.Fatalf("undrawn on the latest date: %v %v", u, err)
	}
	if u, err := Undrawn(filepath.Join(data, "promo"), time.Date(2016, 7, 21, 22, 0, 0, 0, time.UTC)); err != nil || len(u) != 0 {
		t.Fatalf("undrawn after its window: %v %v", u, err)
	}
	closeLog()

	a, closeLog = open("vrf")
	defer closeLog()
	if _, err := a.Draw(ctx, DrawRequest{Draw: "bonus-crescendo/1", Share: "text:12345678"}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Certify(ctx, "bonus-crescendo/1"); err != nil {
		t.Fatal(err)
	}
	if u, err := Undrawn(filepath.Join(data, "promo"), c.now()); err != nil || len(u) != 0 {
		t.Fatalf("undrawn after the ceremony: %v %v", u, err)
	}
	if _, err := a.cfg.Log.AwaitCheckpoint(ctx, a.cfg.Log.(transparency.Sequencer).Sequenced()); err != nil {
		t.Fatal(err)
	}
	lk, err := checkpoint.ParseKeys(a.cfg.Log.VerifierKeys()[0])
	if err != nil {
		t.Fatal(err)
	}
	res, err := audit.Run(ctx, audit.Config{Fetch: logHTTP{transparency.NewHTTPHandler(a.cfg.Log)}, LogKeys: lk, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict.Status() != verdict.StatusPass {
		t.Fatalf("audit:\n%s", res.Verdict.Text("en"))
	}
	if c := res.Verdict.Find(verdict.CheckPromotions); c == nil || c.Status != verdict.StatusPass {
		t.Fatalf("promotions:\n%s", res.Verdict.Text("en"))
	}
}

// A cached announcement index the log does not reach is reported clearly
// (no ": <nil>").
func TestOfflineAnnouncementIndexBeyondLog(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	keys := testKeys(t, filepath.Join(tmp, "keys"))
	data := filepath.Join(tmp, "data")
	cfg := OfflineConfig{DataDir: data, Origin: "tirage.test/promo", Keys: keys, VRFLabel: "vrf", LogLabel: "log", Entropy: testEntropy(t)}
	_, lg, err := OpenOffline(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	lg.Close()
	if err := os.WriteFile(filepath.Join(data, "promo", "announcement.idx"), []byte("99\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = OpenOffline(ctx, cfg)
	if err == nil || strings.Contains(err.Error(), "<nil>") || !strings.Contains(err.Error(), "beyond the log's checkpoint") {
		t.Fatalf("announcement.idx beyond the log: %v", err)
	}
}

// The reviewer's scenario at the appliance: two VRF keys announced before
// a freeze (a rotation), the freeze made on "vrf" names it; a ceremony on
// "vrf2" — announced before the freeze, so the older rule let it draw — is
// refused before anything is locked or proven, naming both keys, and the
// frozen draw is listed as drawable by "vrf" only (Undrawn, DrawableBy);
// on "vrf" it runs, and the log passes the audit.
func TestCeremonyOnlyFreezeKey(t *testing.T) {
	ctx := context.Background()
	r, rulesFile := exampleRules(t)
	c, keys, data, open := rotationAppliance(t)
	_, closeLog := open("vrf") // the log and the first announcement
	closeLog()
	announceVRF2(t, keys, data, c.now())

	a, closeLog := open("vrf")
	f, err := a.Freeze(ctx, FreezeRequest{Rules: r, RulesFile: rulesFile, DrawIndex: 0, Entrants: []string{"A1", "A2", "A3", "A4", "A5", "A6"}})
	if err != nil {
		t.Fatal(err)
	}
	if f.Record.Key != "vrf" {
		t.Fatalf("the freeze names VRF key %q, want the appliance's, vrf", f.Record.Key)
	}
	closeLog()

	c.t = time.Date(2016, 6, 21, 8, 30, 0, 0, time.UTC)
	a, closeLog = open("vrf2")
	size := func() uint64 {
		cp, err := a.cfg.Log.Checkpoint(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return cp.Size
	}
	before := size()
	_, err = a.Draw(ctx, DrawRequest{Draw: "bonus-crescendo/1", Share: "text:12345678"})
	if !errors.Is(err, ErrKeyNotFrozen) || !strings.Contains(err.Error(), `this ceremony is on VRF key "vrf2", the freeze (record 2) names VRF key "vrf"`) ||
		!strings.Contains(err.Error(), "nothing was drawn") {
		t.Fatalf("ceremony on another key than the freeze's: %v", err)
	}
	dir, _ := a.drawDir("bonus-crescendo/1")
	for _, name := range []string{"draw.lock", "draw.leaf"} {
		if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("the refused ceremony left %s: %v", name, err)
		}
	}
	if n := size(); n != before {
		t.Fatalf("the refused ceremony logged %d records", n-before)
	}
	u, err := Undrawn(filepath.Join(data, "promo"), c.now())
	if err != nil || len(u) != 1 || u[0].Key != "vrf" || u[0].FreezeIndex != 2 {
		t.Fatalf("undrawn: %+v %v", u, err)
	}
	if u[0].DrawableBy("vrf2", 1) || !u[0].DrawableBy("vrf", 0) || u[0].DrawableBy("vrf", 3) {
		t.Fatalf("DrawableBy: only vrf, announced before the freeze, can draw %+v", u[0])
	}
	closeLog()

	a, closeLog = open("vrf")
	defer closeLog()
	if _, err := a.Draw(ctx, DrawRequest{Draw: "bonus-crescendo/1", Share: "text:12345678"}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Certify(ctx, "bonus-crescendo/1"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.cfg.Log.AwaitCheckpoint(ctx, a.cfg.Log.(transparency.Sequencer).Sequenced()); err != nil {
		t.Fatal(err)
	}
	lk, err := checkpoint.ParseKeys(a.cfg.Log.VerifierKeys()[0])
	if err != nil {
		t.Fatal(err)
	}
	res, err := audit.Run(ctx, audit.Config{Fetch: logHTTP{transparency.NewHTTPHandler(a.cfg.Log)}, LogKeys: lk, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Verdict.Find(verdict.CheckPromotions); res.Verdict.Status() != verdict.StatusPass || c == nil || c.Status != verdict.StatusPass {
		t.Fatalf("audit:\n%s", res.Verdict.Text("en"))
	}
}
