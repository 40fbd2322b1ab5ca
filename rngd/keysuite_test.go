package rngd

import (
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/hsm/keystore"
	"tirage.fr/tirage/hsm/keystore/keystoretest"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/vrf"
)

// otherSuite is the other ECVRF P-256 suite.
func otherSuite(s vrf.Suite) vrf.Suite {
	if s == vrf.SuiteP256TAI {
		return vrf.SuiteP256SSWU
	}
	return vrf.SuiteP256TAI
}

// The VRF key the log announced, under the other ECVRF P-256 suite — in
// place under its label, or copied under a new one — is refused at start
// with nothing appended: one P-256 key proves under both suites (two
// outputs for each α), which auditors report as misbehaviour. Back on the
// key as made, or on a new key, rngd starts and the log passes the audit.
func TestKeySuiteChangeRefused(t *testing.T) {
	td := newTestDaemon(t)
	codes := td.emission("SUITE", "2026-12-31", 10)
	next := 0
	over := func(g *qodv1.Game) bool {
		return g.Status == qodv1.Status_STATUS_WON || g.Status == qodv1.Status_STATUS_LOST
	}
	never := func(*qodv1.Game) bool { return false }
	play := func() {
		t.Helper()
		a := td.client("server-a")
		if g := playUntil(t, a, start(t, a, codes[next]).Game, never); !over(g) {
			t.Fatalf("game %d: %v", next, g)
		}
		next++
	}
	play()
	e := td.d.engine
	suite, fp := e.suite, hsm.Fingerprint(e.pub)
	if !strings.HasPrefix(string(suite), "ECVRF-P256-") {
		t.Skipf("suite %s: no other suite for its key", suite)
	}
	other := otherSuite(suite)
	logged := func() uint64 { return td.d.engine.tlog.(transparency.Sequencer).Sequenced() }
	before := logged()
	td.stop()

	keyFile := filepath.Join(td.keysDir(), "vrf.key")
	made, err := os.ReadFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	refused := func(label string) {
		t.Helper()
		td.cfg.Keys.VRFLabel = label
		err := td.tryStart()
		if err == nil {
			t.Fatalf("rngd started on the key announced as %s, now under %s as %q", suite, other, label)
		}
		msg := err.Error()
		t.Logf("refused: %s", msg)
		for _, want := range []string{`vrf key "` + label + `"`, fp, string(other), string(suite), "record 0", `as vrf key "vrf"`,
			"two suites", "misbehaviour", "rngctl keys init --vrf-label NEW", "go back to " + string(suite), `keys.vrf_label = "vrf"`} {
			if !strings.Contains(msg, want) {
				t.Errorf("refusal %q does not say %q", msg, want)
			}
		}
		if strings.Contains(msg, "\n") {
			t.Errorf("refusal on more than one line: %q", msg)
		}
	}

	// The same key file, made again under the other suite.
	keystoretest.ResealVRF(t, made, td.keysDir(), "vrf", other, testPassphrase)
	refused("vrf")
	// The key file copied under a new label, with the other suite.
	if err := os.WriteFile(keyFile, made, 0o600); err != nil {
		t.Fatal(err)
	}
	keystoretest.ResealVRF(t, made, td.keysDir(), "vrf-other", other, testPassphrase)
	refused("vrf-other")

	// Back on the key as made: nothing was appended, the games go on.
	td.cfg.Keys.VRFLabel = "vrf"
	td.start()
	if n := logged(); n != before {
		t.Fatalf("the refused starts changed the log: %d records, %d before", n, before)
	}
	play()
	before = logged()
	td.stop()

	// keys.announcement_file announcing a new key under another suite than
	// the key custody's: its proofs would fail the audit.
	generateKeys(t, td.keysDir(), []string{"vrf-c"}, nil)
	made, err = os.ReadFile(filepath.Join(td.keysDir(), "vrf-c.key"))
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(td.dir, "elsewhere")
	if err := os.Mkdir(elsewhere, 0o700); err != nil {
		t.Fatal(err)
	}
	keystoretest.ResealVRF(t, made, elsewhere, "vrf-c", other, testPassphrase)
	ks, err := keystore.Open(keystore.Config{Dir: elsewhere, Passphrase: []byte(testPassphrase), KDF: testKDF})
	if err != nil {
		t.Fatal(err)
	}
	p, err := ks.VRFProver("vrf-c")
	if err != nil {
		t.Fatal(err)
	}
	// The log key in use, announced again (same id, same key).
	inUse, err := keystore.Open(keystore.Config{Dir: td.keysDir(), Passphrase: []byte(testPassphrase), KDF: testKDF})
	if err != nil {
		t.Fatal(err)
	}
	sg, err := inUse.Signer("log")
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := hsm.Announce(td.clock.Now(), []hsm.AnnouncedKey{{Use: hsm.UseVRF, Label: "vrf-c", Prover: p}, {Use: hsm.UseLog, Label: "log", Signer: sg}})
	ks.Close()
	inUse.Close()
	if err != nil {
		t.Fatal(err)
	}
	td.cfg.Keys.AnnouncementFile = filepath.Join(td.dir, "announcement")
	if err := os.WriteFile(td.cfg.Keys.AnnouncementFile, leaf, 0o600); err != nil {
		t.Fatal(err)
	}
	td.cfg.Keys.VRFLabel = "vrf-c"
	if err := td.tryStart(); err == nil {
		t.Fatal("rngd started on an announcement of its key under another suite")
	} else if msg := err.Error(); !strings.Contains(msg, "keys.announcement_file announces the VRF key in use") ||
		!strings.Contains(msg, string(other)) || !strings.Contains(msg, string(suite)) {
		t.Errorf("refusal %q", msg)
	}
	td.cfg.Keys.AnnouncementFile = ""

	// A new key, of either suite, is a rotation like any other.
	td.cfg.Keys.VRFLabel = "vrf-b"
	ks, err = keystore.Open(keystore.Config{Dir: td.keysDir(), Passphrase: []byte(testPassphrase), KDF: testKDF})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ks.GenerateVRF("vrf-b", other); err != nil {
		t.Fatal(err)
	}
	ks.Close()
	td.start()
	if td.d.engine.keyID != "vrf-b" || td.d.engine.suite != other {
		t.Fatalf("key %q %s", td.d.engine.keyID, td.d.engine.suite)
	}
	if n := logged(); n != before+1 {
		t.Fatalf("%d records after the announcement of vrf-b, %d before: the refused start changed the log", n, before)
	}
	play()
	res := auditDaemon(t, td)
	if res.Games != next {
		t.Fatalf("audited %d games, %d played", res.Games, next)
	}
}

// checkNewKeys refuses what auditors would report of an announcement's VRF
// keys, before the id checks, as they do: public key bytes the log
// announced under another suite (under any id), or announced under two
// suites in the announcement itself. The same bytes under the same suite
// and another id auditors accept: not refused.
func TestKeySuiteCheckNewKeys(t *testing.T) {
	key := func() []byte {
		sk, err := vrf.GenerateKey(vrf.SuiteP256SSWU, rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		defer sk.Destroy()
		return sk.Public().Bytes()
	}
	b, c := key(), key()
	sswu, tai := string(vrf.SuiteP256SSWU), string(vrf.SuiteP256TAI)
	first := firstAnnounced{id: "vrf", pub: b, suite: sswu, index: 3}
	lk := &loggedKeys{first: map[keyUse]firstAnnounced{{hsm.UseVRF, "vrf"}: first}, vrfBytes: map[string]firstAnnounced{string(b): first}}
	vrfKey := func(id, suite string, pub []byte) record.Key {
		return record.Key{ID: id, Use: hsm.UseVRF, Suite: suite, PublicKey: pub, Fingerprint: record.Fingerprint(pub)}
	}
	for _, tc := range []struct {
		name string
		keys []record.Key
		want []string // "" for none
	}{
		{"other suite, new id", []record.Key{vrfKey("vrf-tai", tai, b)},
			[]string{`vrf key "vrf-tai"`, hsm.Fingerprint(b), "record 3", `as vrf key "vrf" under ` + sswu, "two suites", "--vrf-label NEW", "keys.announcement_file"}},
		{"other suite, same id", []record.Key{vrfKey("vrf", tai, b)},
			[]string{`vrf key "vrf"`, "record 3", "two suites"}},
		{"same suite, new id", []record.Key{vrfKey("vrf-2", sswu, b)}, nil},
		{"two suites in the announcement", []record.Key{vrfKey("new", sswu, c), vrfKey("new-tai", tai, c)},
			[]string{`vrf key "new"`, hsm.Fingerprint(c), sswu, tai, `"new-tai"`, "two suites"}},
		{"a new key", []record.Key{vrfKey("new", tai, c)}, nil},
	} {
		err := lk.checkNewKeys(&record.KeyAnnouncement{Keys: tc.keys}, true)
		switch {
		case tc.want == nil && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.want != nil && err == nil:
			t.Errorf("%s: not refused", tc.name)
		case err != nil:
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s: refusal %q does not say %q", tc.name, err, w)
				}
			}
		}
	}
}
