package promo

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/hsm/keystore"
	"tirage.fr/tirage/hsm/keystore/keystoretest"
	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/tilelog"
	"tirage.fr/tirage/verifier/audit"
	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/vrf"
)

// testPassphrase is testKeys's.
const testPassphrase = "promo test passphrase"

// The VRF key the log announced under ECVRF-P256-SHA256-SSWU, opened by
// the offline promotion tool under ECVRF-P256-SHA256-TAI — re-sealed in
// place under its label, or copied under a new one; with the cached
// announcement index or without — is refused with nothing appended: one
// P-256 key proves under both suites (two outputs for each α), auditors
// hold its bytes to the suite first announced and count no proof under
// the other, so every draw certificate would fail the audit. Back on the
// key as made, the frozen draw is drawn and the log passes the audit.
func TestOfflineKeySuiteChangeRefused(t *testing.T) {
	ctx := context.Background()
	r, rulesFile := exampleRules(t)
	tmp := t.TempDir()
	keysDir := filepath.Join(tmp, "keys")
	data := filepath.Join(tmp, "data")
	c := &clock{t: time.Date(2016, 6, 20, 16, 0, 0, 0, time.UTC)}
	cfg := OfflineConfig{DataDir: data, Origin: "tirage.test/promo", Keys: testKeys(t, keysDir),
		VRFLabel: "vrf", LogLabel: "log", Entropy: rand.Reader, Clock: c.now}
	prover, err := cfg.Keys.VRFProver("vrf")
	if err != nil {
		t.Fatal(err)
	}
	suite, other := string(prover.Suite()), string(vrf.SuiteP256TAI)
	if suite != string(vrf.SuiteP256SSWU) {
		t.Fatalf("testKeys's VRF key is %s", suite)
	}
	fp := hsm.Fingerprint(prover.PublicKey().Bytes())

	a, lg, err := OpenOffline(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Freeze(ctx, FreezeRequest{Rules: r, RulesFile: rulesFile, DrawIndex: 0, Entrants: []string{"A1", "A2", "A3", "A4", "A5", "A6"}}); err != nil {
		t.Fatal(err)
	}
	before := lg.(transparency.Sequencer).Sequenced()
	lg.Close()
	idxFile := filepath.Join(data, "promo", "announcement.idx")
	cached, err := os.ReadFile(idxFile)
	if err != nil || string(cached) != "0\n" {
		t.Fatalf("announcement.idx: %q %v", cached, err)
	}

	keyFile := filepath.Join(keysDir, "vrf.key")
	made, err := os.ReadFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	openKeys := func() hsm.Backend {
		t.Helper()
		ks, err := keystore.Open(keystore.Config{Dir: keysDir, Passphrase: []byte(testPassphrase), KDF: keystore.KDFParams{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ks.Close() })
		return ks
	}
	refused := func(label string) {
		t.Helper()
		ks := openKeys()
		if p, err := ks.VRFProver(label); err != nil || string(p.Suite()) != other || hsm.Fingerprint(p.PublicKey().Bytes()) != fp {
			t.Fatalf("the re-sealed key %q: %v", label, err)
		}
		cfg := cfg
		cfg.Keys, cfg.VRFLabel = ks, label
		_, lg, err := OpenOffline(ctx, cfg)
		if err == nil {
			lg.Close()
			t.Fatalf("the offline tool opened the key announced as %s, now under %s as %q", suite, other, label)
		}
		msg := err.Error()
		t.Logf("refused: %s", msg)
		for _, want := range []string{`vrf key "` + label + `"`, fp, "is an " + other + " key", "record 0", `as vrf key "vrf" under ` + suite,
			"two suites", "misbehaviour", "nothing was appended", "rngctl keys init --vrf-label NEW", "go back to " + suite, `--vrf-label "vrf"`} {
			if !strings.Contains(msg, want) {
				t.Errorf("refusal %q does not say %q", msg, want)
			}
		}
		if strings.Contains(msg, "\n") {
			t.Errorf("refusal on more than one line: %q", msg)
		}
	}

	// The same key file, made again under the other suite: the cached
	// announcement index names its bytes under the first suite.
	keystoretest.ResealVRF(t, made, keysDir, "vrf", vrf.SuiteP256TAI, testPassphrase)
	refused("vrf")
	if b, err := os.ReadFile(idxFile); err != nil || !bytes.Equal(b, cached) {
		t.Fatalf("the refused open changed announcement.idx: %q %v", b, err)
	}
	// The key file copied under a new label, with the other suite.
	if err := os.WriteFile(keyFile, made, 0o600); err != nil {
		t.Fatal(err)
	}
	keystoretest.ResealVRF(t, made, keysDir, "vrf-tai", vrf.SuiteP256TAI, testPassphrase)
	refused("vrf-tai")
	// Without the cached index: found in the log.
	keystoretest.ResealVRF(t, made, keysDir, "vrf", vrf.SuiteP256TAI, testPassphrase)
	if err := os.Remove(idxFile); err != nil {
		t.Fatal(err)
	}
	refused("vrf")
	if _, err := os.Stat(idxFile); !os.IsNotExist(err) {
		t.Fatalf("the refused open wrote announcement.idx: %v", err)
	}

	// Back on the key as made: nothing was appended, the ceremony runs and
	// the log passes the audit.
	if err := os.WriteFile(keyFile, made, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg.Keys = openKeys()
	c.t = time.Date(2016, 6, 21, 8, 30, 0, 0, time.UTC)
	a, lg, err = OpenOffline(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Close()
	if n := lg.(transparency.Sequencer).Sequenced(); n != before {
		t.Fatalf("the refused opens changed the log: %d records, %d before", n, before)
	}
	if a.cfg.KeyID != "vrf" || a.cfg.KeysIndex != 0 {
		t.Fatalf("key %q announced at %d", a.cfg.KeyID, a.cfg.KeysIndex)
	}
	if _, err := a.Draw(ctx, DrawRequest{Draw: "bonus-crescendo/1", Share: "text:12345678"}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Certify(ctx, "bonus-crescendo/1"); err != nil {
		t.Fatal(err)
	}
	if _, err := lg.AwaitCheckpoint(ctx, lg.(transparency.Sequencer).Sequenced()); err != nil {
		t.Fatal(err)
	}
	lk, err := checkpoint.ParseKeys(lg.VerifierKeys()[0])
	if err != nil {
		t.Fatal(err)
	}
	res, err := audit.Run(ctx, audit.Config{Fetch: logHTTP{transparency.NewHTTPHandler(lg)}, LogKeys: lk, Workers: 1})
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

// The offline tool's key is its bytes and its suite: in a log that first
// announced the bytes under the other suite (under another id, before the
// key's announcement under its own suite) the key is refused, naming that
// first announcement, with nothing appended; the key whose suite the log
// first announced its bytes under opens, on that first announcement.
func TestOfflineKeyFirstAnnouncedUnderOtherSuite(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	keysDir := filepath.Join(tmp, "keys")
	data := filepath.Join(tmp, "data")
	c := &clock{t: time.Date(2016, 6, 20, 16, 0, 0, 0, time.UTC)}
	keys := testKeys(t, keysDir)
	made, err := os.ReadFile(filepath.Join(keysDir, "vrf.key"))
	if err != nil {
		t.Fatal(err)
	}
	keystoretest.ResealVRF(t, made, keysDir, "vrf-tai", vrf.SuiteP256TAI, testPassphrase)
	ks, err := keystore.Open(keystore.Config{Dir: keysDir, Passphrase: []byte(testPassphrase), KDF: keystore.KDFParams{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ks.Close() })
	sswu, err := keys.VRFProver("vrf")
	if err != nil {
		t.Fatal(err)
	}
	tai, err := ks.VRFProver("vrf-tai")
	if err != nil {
		t.Fatal(err)
	}
	signer, err := keys.Signer("log")
	if err != nil {
		t.Fatal(err)
	}
	fp := hsm.Fingerprint(sswu.PublicKey().Bytes())
	if tai.Suite() != vrf.SuiteP256TAI || hsm.Fingerprint(tai.PublicKey().Bytes()) != fp {
		t.Fatalf("the re-sealed key: %s %s", tai.Suite(), hsm.Fingerprint(tai.PublicKey().Bytes()))
	}

	// The log: the bytes under TAI as "vrf-tai" (record 0), then under
	// SSWU as "vrf" (record 1).
	tl, err := tilelog.Open(ctx, tilelog.Config{Dir: filepath.Join(data, "log"), Origin: "tirage.test/promo",
		Signers: []crypto.Signer{checkpointSigner{signer}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []hsm.AnnouncedKey{{Use: hsm.UseVRF, Label: "vrf-tai", Prover: tai}, {Use: hsm.UseVRF, Label: "vrf", Prover: sswu}} {
		leaf, err := hsm.Announce(c.now(), []hsm.AnnouncedKey{k, {Use: hsm.UseLog, Label: "log", Signer: signer}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tl.Append(ctx, leaf); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tl.AwaitCheckpoint(ctx, 2); err != nil {
		t.Fatal(err)
	}
	tl.Close()

	cfg := OfflineConfig{DataDir: data, Origin: "tirage.test/promo", Keys: keys,
		VRFLabel: "vrf", LogLabel: "log", Entropy: rand.Reader, Clock: c.now}
	var msg string
	if _, lg, err := OpenOffline(ctx, cfg); err == nil {
		lg.Close()
		t.Fatal("the offline tool opened its SSWU key, whose bytes the log first announced under TAI")
	} else {
		msg = err.Error()
	}
	for _, want := range []string{`vrf key "vrf"`, fp, "is an " + string(vrf.SuiteP256SSWU) + " key", "record 0", `as vrf key "vrf-tai" under ` + string(vrf.SuiteP256TAI),
		"two suites", "nothing was appended", "rngctl keys init --vrf-label NEW", "go back to " + string(vrf.SuiteP256TAI), `--vrf-label "vrf-tai"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("refusal %q does not say %q", msg, want)
		}
	}
	if _, err := os.Stat(filepath.Join(data, "promo", "announcement.idx")); !os.IsNotExist(err) {
		t.Fatalf("the refused open wrote announcement.idx: %v", err)
	}

	// The key under TAI, as the log first announced it.
	cfg.Keys, cfg.VRFLabel = ks, "vrf-tai"
	a, lg, err := OpenOffline(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Close()
	if n := lg.(transparency.Sequencer).Sequenced(); n != 2 {
		t.Fatalf("%d records, 2 appended: the refused open changed the log", n)
	}
	if a.cfg.KeyID != "vrf-tai" || a.cfg.KeysIndex != 0 {
		t.Fatalf("key %q announced at %d", a.cfg.KeyID, a.cfg.KeysIndex)
	}
}
