package rngd

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
	"google.golang.org/protobuf/proto"

	"tirage.fr/tirage/attestations"
	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/hsm/keystore"
	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/verifier/announce"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// testConfigFile is what the attesting test daemon says its configuration
// file held (Config.fileSHA256): the daemon of newTestDaemon is configured
// in code.
const testConfigFile = "# the test daemon's configuration\n"

// announceAttestationKey makes an Ed25519 attestation key label in ks and
// the announcement, at now, of ks's "vrf" and "log" keys with it.
func announceAttestationKey(t *testing.T, ks *keystore.Store, label string, now time.Time) (hsm.Signer, []byte) {
	t.Helper()
	att, err := ks.GenerateSigner(label, hsm.Ed25519)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ks.VRFProver("vrf")
	if err != nil {
		t.Fatal(err)
	}
	lg, err := ks.Signer("log")
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := hsm.Announce(now, []hsm.AnnouncedKey{{Use: hsm.UseVRF, Label: "vrf", Prover: p},
		{Use: hsm.UseLog, Label: "log", Signer: lg}, {Use: hsm.UseAttestation, Label: label, Signer: att}})
	if err != nil {
		t.Fatal(err)
	}
	return att, leaf
}

// attestingDaemon is a test daemon whose keys are announced as rngctl keys
// init announces them, the attestation key included (keys.announcement_file),
// and which started from a configuration file (testConfigFile). It returns
// the attestation key, from the same keystore, and the announcement.
func attestingDaemon(t *testing.T) (*testDaemon, hsm.Signer, *record.KeyAnnouncement) {
	t.Helper()
	var att hsm.Signer
	var ann *record.KeyAnnouncement
	td := newTestDaemon(t, func(c *Config) {
		ks, err := keystore.Open(keystore.Config{Dir: filepath.Join(c.DataDir, "keys"), Passphrase: []byte(testPassphrase), KDF: testKDF})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ks.Close() })
		var leaf []byte
		att, leaf = announceAttestationKey(t, ks, "attestation", c.Clock.Now())
		if ann, err = hsm.CheckAnnouncement(leaf); err != nil {
			t.Fatal(err)
		}
		c.Keys.AnnouncementFile = filepath.Join(filepath.Dir(c.DataDir), "announcement.json")
		if err := os.WriteFile(c.Keys.AnnouncementFile, leaf, 0o644); err != nil {
			t.Fatal(err)
		}
		d := sha256.Sum256([]byte(testConfigFile))
		c.fileSHA256 = d[:]
	})
	return td, att, ann
}

func signStatement(t *testing.T, sg hsm.Signer, keyID string, st *attestations.Statement) []byte {
	t.Helper()
	env, err := attestations.SignMessage(sg.Public(), keyID, st, sg.Sign)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// sequenced is how many records the daemon's log holds or has queued.
func (td *testDaemon) sequenced() uint64 {
	return td.d.engine.tlog.(transparency.Sequencer).Sequenced()
}

// LogAttestation logs a paytable signed by the announced attestation key:
// the reply's receipt is the log's record, which embeds the envelope, and
// the log passes the audit with its attestations checked. A retry gets the
// first reply (after a crash too, rebuilt from the log); the same request
// id with another envelope is refused.
func TestLogAttestationPaytable(t *testing.T) {
	td, att, _ := attestingDaemon(t)
	ctx := context.Background()
	st, err := attestations.NewPaytableStatement()
	if err != nil {
		t.Fatal(err)
	}
	env := signStatement(t, att, "attestation", st)
	req := &adminv1.LogAttestationRequest{RequestId: rid(), Envelope: env}

	state, before := td.snapshotState()
	td.start()
	r, err := td.admin().LogAttestation(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	d := sha256.Sum256(env)
	if r.Subject != attestations.PaytableSubject || r.PredicateType != attestations.PaytableType || r.KeyId != "attestation" || !bytes.Equal(r.Digest, d[:]) {
		t.Fatalf("reply %v", r)
	}
	cp, err := td.d.engine.tlog.AwaitCheckpoint(ctx, r.Receipt.LogIndex+1)
	if err != nil {
		t.Fatal(err)
	}
	got, err := td.d.engine.tlog.Entries(ctx, r.Receipt.LogIndex, r.Receipt.LogIndex+1, cp.Size)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got[0], r.Receipt.Record) {
		t.Fatalf("log entry %d is %s, the receipt's record %s", r.Receipt.LogIndex, got[0], r.Receipt.Record)
	}
	rec, err := record.Parse(got[0])
	if err != nil {
		t.Fatal(err)
	}
	a, ok := rec.(*record.Attestation)
	if !ok || !bytes.Equal(a.Statement, env) || a.Key != "attestation" || a.Req != record.RequestID(adminServer, req.RequestId) {
		t.Fatalf("the logged record %s is not the attestation of the envelope with its request", got[0])
	}
	res := auditDaemon(t, td)
	if ch := res.Verdict.Find("attestations"); ch == nil || ch.Status != verdict.StatusPass || !strings.Contains(ch.Detail, "1 checked in full") {
		t.Fatalf("audit: attestations check %v\n%s", ch, res.Verdict.Text("en"))
	}

	retried := func(when string) {
		t.Helper()
		n := td.sequenced()
		again, err := td.admin().LogAttestation(ctx, req)
		if err != nil || !proto.Equal(again, r) {
			t.Fatalf("%s: retry: %v, %v\nwant the first reply %v", when, again, err, r)
		}
		other := proto.Clone(req).(*adminv1.LogAttestationRequest)
		other.Envelope = append(bytes.Clone(env), ' ') // other content
		_, err = td.admin().LogAttestation(ctx, other)
		wantRefusal(t, err, reasonRequestIDReused, "already used")
		if td.sequenced() != n {
			t.Fatalf("%s: a retry appended a record", when)
		}
	}
	retried("served")
	// The crash between the log's append and the store's commit.
	td.stop()
	if err := os.WriteFile(state, before, 0o600); err != nil {
		t.Fatal(err)
	}
	td.start()
	retried("after the crash")
	// The store lost altogether: rebuilt from the whole log.
	td.stop()
	if err := os.Remove(state); err != nil {
		t.Fatal(err)
	}
	td.start()
	retried("after losing the store")
}

// A malformed, tampered, unsigned or wrongly signed envelope and a false
// paytable are refused, naming the field, and nothing is appended.
func TestLogAttestationRefused(t *testing.T) {
	td, att, _ := attestingDaemon(t)
	ctx := context.Background()
	st, err := attestations.NewPaytableStatement()
	if err != nil {
		t.Fatal(err)
	}
	good := signStatement(t, att, "attestation", st)
	parsed, err := attestations.ParseEnvelope(good)
	if err != nil {
		t.Fatal(err)
	}
	envelope := func(payload []byte, keyID string, sig []byte) []byte {
		b, err := jsonEnvelope(payload, keyID, sig)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tampered := bytes.Clone(parsed.Payload)
	tampered = bytes.Replace(tampered, []byte(`"game":"quitte-ou-double"`), []byte(`"game":"quitte-ou-triple"`), 1)
	_, stranger, _ := ed25519.GenerateKey(rand.Reader)
	wrongKey, err := attestations.Sign(stranger, "attestation", st)
	if err != nil {
		t.Fatal(err)
	}
	logKey, err := attestations.Sign(stranger, "log", st)
	if err != nil {
		t.Fatal(err)
	}
	wrong := attestations.NewPaytable()
	wrong.Tiers[2].Triple = "59/456"
	falsePaytable := signStatement(t, att, "attestation", &attestations.Statement{Subject: st.Subject, Predicate: wrong})

	for _, c := range []struct {
		name     string
		envelope []byte
		reason   reason
		msg      string
	}{
		{"empty", nil, reasonAttestationInvalid, "envelope: required"},
		{"not JSON", []byte("{"), reasonAttestationInvalid, "envelope:"},
		{"unsigned", envelope(parsed.Payload, "attestation", nil), reasonAttestationInvalid, "envelope: signatures[0].sig"},
		{"tampered", envelope(tampered, "attestation", parsed.Signatures[0].Sig), reasonAttestationInvalid, "envelope: signatures[0].sig"},
		{"another key", wrongKey, reasonAttestationInvalid, "envelope: signatures[0].sig"},
		{"key not announced", envelope(parsed.Payload, "att-2", parsed.Signatures[0].Sig), reasonAttestationKeyUnknown, `keyid: "att-2" is not an attestation key the log announced`},
		{"the log key", logKey, reasonAttestationKeyUnknown, `keyid: "log" is not an attestation key`},
		{"false paytable", falsePaytable, reasonAttestationInvalid, "predicate: bad attestation: https://tirage.fr/attestation/paytable/v1: tiers[2].triple: attested 59/456"},
	} {
		n := td.sequenced()
		_, err := td.admin().LogAttestation(ctx, &adminv1.LogAttestationRequest{RequestId: rid(), Envelope: c.envelope})
		wantRefusal(t, err, c.reason, c.msg)
		if td.sequenced() != n {
			t.Fatalf("%s: refused, but a record was appended", c.name)
		}
	}
}

// A build statement is logged only if it is this rngd's: its executable,
// the configuration file it started with, the log's keys with the VRF key
// it draws with. Another binary, configuration or key is refused with
// nothing appended.
func TestLogAttestationBuild(t *testing.T) {
	td, att, ann := attestingDaemon(t)
	ctx := context.Background()
	info, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("no build information")
	}
	exe, err := executableSHA256()
	if err != nil {
		t.Fatal(err)
	}
	self := attestations.BuildInput{Info: info, Executable: exe, Config: sha256.Sum256([]byte(testConfigFile)), Keys: ann.Keys}
	build := func(mod func(*attestations.BuildInput)) []byte {
		in := self
		in.Keys = append([]record.Key(nil), self.Keys...)
		if mod != nil {
			mod(&in)
		}
		st, err := attestations.NewBuildStatement(in)
		if err != nil {
			t.Fatal(err)
		}
		return signStatement(t, att, "attestation", st)
	}
	for _, c := range []struct {
		name string
		mod  func(*attestations.BuildInput)
		msg  string
	}{
		{"another binary", func(in *attestations.BuildInput) { in.Executable = sha256.Sum256([]byte("another rngd")) }, "subject[0].digest.sha256"},
		{"another config", func(in *attestations.BuildInput) { in.Config = sha256.Sum256([]byte("another config")) }, "predicate.config_sha256"},
		{"another build", func(in *attestations.BuildInput) {
			other := *in.Info
			other.GoVersion = "go1.0"
			in.Info = &other
		}, `predicate.go_version: "\"go1.0\""`},
		{"another dependency", func(in *attestations.BuildInput) {
			other := *in.Info
			other.Deps = append([]*debug.Module{{Path: "example.com/backdoor", Version: "v1.0.0"}}, other.Deps...)
			in.Info = &other
		}, "predicate.deps"},
		{"a key not the log's", func(in *attestations.BuildInput) {
			in.Keys[1].PublicKey = []byte("another log key")
			in.Keys[1].Fingerprint = record.Fingerprint(in.Keys[1].PublicKey)
		}, "predicate.keys[1].fingerprint"},
		{"a key not announced", func(in *attestations.BuildInput) { in.Keys[1].ID = "log-2" }, `predicate.keys[1]: key "log-2" is not announced`},
		// It names the flag that lists it (after a rotation, attest build's
		// default label is not the key in use).
		{"without the VRF key", func(in *attestations.BuildInput) { in.Keys = in.Keys[1:] }, "the VRF key this rngd draws with, \"vrf\" (fingerprint "},
		{"without the VRF key, its flag", func(in *attestations.BuildInput) { in.Keys = in.Keys[1:] }, "is not listed: make the statement with rngctl attest build --vrf-label vrf (keys.vrf_label)"},
		{"without the log key", func(in *attestations.BuildInput) {
			in.Keys = slices.DeleteFunc(in.Keys, func(k record.Key) bool { return k.Use == announce.UseLog })
		}, "the log key this rngd signs checkpoints with"},
	} {
		n := td.sequenced()
		_, err := td.admin().LogAttestation(ctx, &adminv1.LogAttestationRequest{RequestId: rid(), Envelope: build(c.mod)})
		wantRefusal(t, err, reasonAttestationNotSelf, c.msg)
		if td.sequenced() != n {
			t.Fatalf("%s: refused, but a record was appended", c.name)
		}
	}
	// Not attested yet: the gauge and the start's WARN say so (a paytable
	// attestation is no build's).
	paytable, err := attestations.NewPaytableStatement()
	if err != nil {
		t.Fatal(err)
	}
	wantAttested := func(when string, want int) {
		t.Helper()
		if m := scrape(t, td); !strings.Contains(m, fmt.Sprintf("\ntirage_build_attested %d\n", want)) {
			t.Fatalf("%s: want tirage_build_attested %d", when, want)
		}
	}
	if _, err := td.admin().LogAttestation(ctx, &adminv1.LogAttestationRequest{RequestId: rid(), Envelope: signStatement(t, att, "attestation", paytable)}); err != nil {
		t.Fatal(err)
	}
	wantAttested("before", 0)
	if !bytes.Contains(td.logs(), []byte(`level=WARN msg="no build attestation of this rngd in the log`)) {
		t.Fatalf("no WARN at the start of an unattested rngd:\n%s", td.logs())
	}
	r, err := td.admin().LogAttestation(ctx, &adminv1.LogAttestationRequest{RequestId: rid(), Envelope: build(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Subject != attestations.BuildSubject || r.PredicateType != attestations.BuildType {
		t.Fatalf("reply %v", r)
	}
	wantAttested("logged", 1)
	res := auditDaemon(t, td)
	if ch := res.Verdict.Find("attestations"); ch == nil || ch.Status != verdict.StatusPass {
		t.Fatalf("audit: attestations check %v", ch)
	}
	// The store keeps it across a restart, and a rebuild finds it in the log.
	td.restart()
	wantAttested("restarted", 1)
	td.stop()
	if _, err := Rebuild(ctx, td.cfg); err != nil {
		t.Fatal(err)
	}
	td.start()
	wantAttested("rebuilt", 1)
	// Another configuration file: this rngd, so configured, is not attested.
	td.stop()
	other := sha256.Sum256([]byte("another config"))
	td.cfg.fileSHA256 = other[:]
	td.start()
	wantAttested("reconfigured", 0)

	// Configured in code: no configuration file describes it.
	td.stop()
	td.cfg.fileSHA256 = nil
	td.start()
	_, err = td.admin().LogAttestation(ctx, &adminv1.LogAttestationRequest{RequestId: rid(), Envelope: build(nil)})
	wantRefusal(t, err, reasonAttestationNotSelf, "not started from a configuration file")
}

// LoadConfig keeps the SHA-256 of the bytes it read, which a build
// attestation must name.
func TestConfigFileDigest(t *testing.T) {
	f := filepath.Join(t.TempDir(), "rngd.toml")
	content := "data_dir = \"/var/lib/tirage\"\n"
	if err := os.WriteFile(f, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(f)
	if err != nil {
		t.Fatal(err)
	}
	if d := sha256.Sum256([]byte(content)); !bytes.Equal(c.fileSHA256, d[:]) {
		t.Errorf("digest %x, want the file's %x", c.fileSHA256, d)
	}
	if c, err = c.withDefaults(); err == nil && c.fileSHA256 == nil {
		t.Error("withDefaults dropped the digest")
	}
}

func jsonEnvelope(payload []byte, keyID string, sig []byte) ([]byte, error) {
	return json.Marshal(announce.Envelope{Payload: payload, PayloadType: attestations.PayloadType,
		Signatures: []announce.Signature{{KeyID: keyID, Sig: sig}}})
}

// rngd started without a configuration file (dev mode's defaults) runs on
// what an empty file gives: a build attestation names the empty file's
// SHA-256 (rngctl attest build --config /dev/null).
func TestConfigFileDigestDefaults(t *testing.T) {
	if !devBuild {
		t.Skip("dev mode without a file needs a tirage_dev build")
	}
	c, err := ConfigFromFlags("", true)
	if err != nil {
		t.Fatal(err)
	}
	if d := sha256.Sum256(nil); !bytes.Equal(c.fileSHA256, d[:]) {
		t.Errorf("no configuration file: digest %x, want the empty file's %x", c.fileSHA256, d)
	}
}

// A record whose type says build but whose envelope holds another
// statement (rngd never logs one; a log may hold it) attests nothing and
// does not stop a rebuild: putAttestedBuild skips it.
func TestPutAttestedBuildTypeMismatch(t *testing.T) {
	td, att, _ := attestingDaemon(t)
	st, err := attestations.NewPaytableStatement()
	if err != nil {
		t.Fatal(err)
	}
	env := signStatement(t, att, "attestation", st)
	rec := attestations.NewRecord(td.cfg.Clock.Now(), "attestation", env, st)
	rec.Type = attestations.BuildType
	err = td.d.engine.store.db.Update(func(tx *bolt.Tx) error { return putAttestedBuild(tx, rec, 7) })
	if err != nil {
		t.Fatal(err)
	}
	td.d.engine.store.view(func(tx *bolt.Tx) error {
		if n := tx.Bucket(bucketAttested).Stats().KeyN; n != 0 {
			t.Errorf("%d attested builds noted from a paytable", n)
		}
		return nil
	})
}

// rngd signs checkpoints only with a key announced as a log key: started
// with keys.signer_label naming the attestation key (announced, but for
// attestations), it refuses, since auditors pin only the announced log keys
// and would trust none of its checkpoints. (A start over the log of another
// key is refused earlier: the embedded log's checkpoints name the old key.)
func TestSignerNotAnnouncedLogKeyRefused(t *testing.T) {
	td, _, _ := attestingDaemon(t)
	td.stop()
	td.cfg.Keys.Dir = filepath.Join(td.cfg.DataDir, "keys")
	td.cfg.DataDir = filepath.Join(td.dir, "data-2")
	td.cfg.Keys.SignerLabel = "attestation"
	err := td.tryStart()
	if err == nil {
		t.Fatal("rngd started signing checkpoints with the attestation key")
	}
	for _, want := range []string{`keys.signer_label = "attestation"`, "not announced as a log key", `as attestation key "attestation"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not say %q", err, want)
		}
	}
	// With the announced log key it starts, and its first record is the
	// announcement: the refused start appended nothing.
	td.cfg.Keys.SignerLabel = "log"
	td.start()
	if n := td.d.engine.tlog.(transparency.Sequencer).Sequenced(); n != 1 {
		t.Fatalf("%d records after the first start, want the announcement alone", n)
	}
}

// checkLogKey finds the log key among the log's announcements, or the
// announcement about to be appended, by use and public key: announced for
// another use, or not at all, it is refused with what the log says of it.
func TestCheckLogKey(t *testing.T) {
	logKey, attKey, vrfKey := []byte("log key"), []byte("attestation key"), []byte("vrf key")
	lk := &loggedKeys{first: map[keyUse]firstAnnounced{
		{hsm.UseVRF, "vrf"}:                 {id: "vrf", pub: vrfKey},
		{hsm.UseLog, "log"}:                 {id: "log", pub: logKey},
		{hsm.UseAttestation, "attestation"}: {id: "attestation", pub: attKey},
	}}
	ann := &record.KeyAnnouncement{Keys: []record.Key{{ID: "log-2", Use: hsm.UseLog, PublicKey: []byte("log key 2")}}}
	k := KeysConfig{SignerLabel: "x"}
	for _, c := range []struct {
		name string
		pub  []byte
		lk   *loggedKeys
		ann  *record.KeyAnnouncement
		want string // "" for accepted
	}{
		{"announced in the log", logKey, lk, nil, ""},
		{"in the announcement to append", []byte("log key 2"), lk, ann, ""},
		{"in the announcement, no log yet", []byte("log key 2"), nil, ann, ""},
		{"the attestation key", attKey, lk, ann, `(the log announces it as attestation key "attestation")`},
		{"the VRF key's bytes", vrfKey, lk, nil, `as vrf key "vrf"`},
		{"never announced", []byte("another key"), lk, ann, "is not announced as a log key: "},
		{"a log key only in the log not read", logKey, nil, ann, "is not announced as a log key"},
	} {
		err := checkLogKey(k, c.pub, c.lk, c.ann)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// A keys.announcement_file that announces a new attestation key beside the
// VRF key in use, already announced, is not appended (rngd announces keys
// with a new VRF key only): rngd says so at its start, naming the key and
// why, instead of ignoring the file until LogAttestation refuses what the
// new key signs; the log is unchanged.
func TestAnnouncementFileNotAppendedWarns(t *testing.T) {
	td, _, _ := attestingDaemon(t)
	first := td.cfg.Keys.AnnouncementFile
	td.stop()
	ks, err := keystore.Open(keystore.Config{Dir: td.keysDir(), Passphrase: []byte(testPassphrase), KDF: testKDF})
	if err != nil {
		t.Fatal(err)
	}
	defer ks.Close()
	_, leaf := announceAttestationKey(t, ks, "attestation-2", td.clock.Now())
	td.cfg.Keys.AnnouncementFile = filepath.Join(td.dir, "announcement-2.json")
	if err := os.WriteFile(td.cfg.Keys.AnnouncementFile, leaf, 0o644); err != nil {
		t.Fatal(err)
	}
	n := td.sequenced()
	td.start()
	if td.sequenced() != n {
		t.Fatalf("%d records, %d before: the announcement was appended", td.sequenced(), n)
	}
	var warned string
	for _, l := range strings.Split(string(td.logs()), "\n") {
		if strings.Contains(l, "level=WARN") && strings.Contains(l, "keys.announcement_file") {
			warned = l
		}
	}
	if !strings.Contains(warned, `attestation key \"attestation-2\"`) || !strings.Contains(warned, "not appended") {
		t.Fatalf("no WARN naming the key the file announces in vain:\n%s", td.logs())
	}
	// Restarted on the announcement already in the log: nothing to say.
	td.stop()
	td.cfg.Keys.AnnouncementFile = first
	td.logMu.Lock()
	td.logBuf = nil
	td.logMu.Unlock()
	td.start()
	if strings.Contains(string(td.logs()), "not appended") {
		t.Fatalf("warned about the announcement the log holds:\n%s", td.logs())
	}
}
