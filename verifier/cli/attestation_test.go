package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/attestations"
	"tirage.fr/tirage/attestations/attestationstest"
	"tirage.fr/tirage/verifier/announce"
	"tirage.fr/tirage/verifier/record"
)

// TestAttestationCommand: rngverify attestation on good, tampered and
// misplaced attestations, with the exit code and the failing check of each.
func TestAttestationCommand(t *testing.T) {
	dir := t.TempDir()
	a, err := attestationstest.New(5, false)
	if err != nil {
		t.Fatal(err)
	}
	other, err := attestationstest.New(6, true)
	if err != nil {
		t.Fatal(err)
	}
	ann := write(t, dir, "announcement.json", a.Announcement)
	otherAnn := write(t, dir, "other-announcement.json", other.Announcement)
	st, err := attestations.NewPaytableStatement()
	if err != nil {
		t.Fatal(err)
	}
	env, err := a.Sign(st)
	if err != nil {
		t.Fatal(err)
	}
	good := write(t, dir, "paytable.dsse.json", env)
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	leaf := func(r *record.Attestation) []byte {
		b, err := record.Format(r)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	rec := attestations.NewRecord(now, a.KeyID, env, st)
	goodRecord := write(t, dir, "record.json", leaf(rec))
	bare := *rec
	bare.Statement = nil
	digestOnly := write(t, dir, "digest-only.json", leaf(&bare))
	wrongSubject := *rec
	wrongSubject.Subject = "qod/other"
	wrongSubjectRecord := write(t, dir, "record-subject.json", leaf(&wrongSubject))
	// A record whose digest is not its envelope's: record.Format refuses
	// to write one, so the leaf is edited.
	editedDigest := bytes.Replace(leaf(rec), []byte(record.Hex(rec.Digest)), []byte(record.Hex(sha256.Sum256(nil))), 1)
	badDigestRecord := write(t, dir, "record-digest.json", editedDigest)

	// A wrong figure, signed by the appliance: misbehaviour.
	bad, _ := attestations.NewPaytableStatement()
	bad.Predicate.(*attestations.Paytable).Tiers[1].Triple = "86/970"
	badEnv, err := a.Sign(bad)
	if err != nil {
		t.Fatal(err)
	}
	badFigure := write(t, dir, "figure.dsse.json", badEnv)
	// The same figure edited after signing: the signature fails.
	var e announce.Envelope
	if err := json.Unmarshal(env, &e); err != nil {
		t.Fatal(err)
	}
	e.Payload = bytes.Replace(e.Payload, []byte(`"86/969"`), []byte(`"86/970"`), 1)
	edited := write(t, dir, "edited.dsse.json", must(json.Marshal(e)))
	otherSigned := write(t, dir, "other.dsse.json", must(other.Sign(st)))
	notJSON := write(t, dir, "hello.txt", []byte("hello"))
	keyRecord := write(t, dir, "key-record.json", a.Announcement)
	unknownType := write(t, dir, "health.dsse.json", a.SignPayload(bytes.Replace(must(attestations.Format(st)), []byte(attestations.PaytableType), []byte("https://tirage.fr/attestation/health/v1"), 1)))

	// A build attestation, with its configuration and executable.
	config := write(t, dir, "rngd.toml", []byte("listen = \":8443\"\n"))
	exe := write(t, dir, "rngd", []byte("\x7fELF rngd"))
	bst, err := attestations.NewBuildStatement(attestations.BuildInput{
		Info:       &debug.BuildInfo{GoVersion: "go1.27.3", Path: "tirage.fr/tirage/cmd/rngd", Main: debug.Module{Path: "tirage.fr/tirage", Version: "v1.0.0"}},
		Executable: sha256.Sum256([]byte("\x7fELF rngd")),
		Config:     sha256.Sum256([]byte("listen = \":8443\"\n")),
		Keys:       a.Record.Keys,
	})
	if err != nil {
		t.Fatal(err)
	}
	build := write(t, dir, "build.dsse.json", must(a.Sign(bst)))
	otherConfig := write(t, dir, "other.toml", []byte("listen = \":9443\"\n"))
	// A build that names a key the announcement does not have.
	keys := append([]record.Key{}, a.Record.Keys...)
	keys[0].Fingerprint = other.Record.Keys[0].Fingerprint
	bst2, err := attestations.NewBuildStatement(attestations.BuildInput{Info: &debug.BuildInfo{GoVersion: "go1.27.3", Path: "p", Main: debug.Module{Path: "m"}}, Executable: [32]byte{1}, Keys: keys})
	if err != nil {
		t.Fatal(err)
	}
	buildOtherKeys := write(t, dir, "build-keys.dsse.json", must(a.Sign(bst2)))

	fp := record.Hex(a.Key().Fingerprint)
	for _, tc := range []struct {
		name  string
		args  []string
		code  int
		check string // the failing check named on stderr ("" for a pass)
	}{
		{"envelope", []string{good, "--attestation-key", ann}, ExitOK, ""},
		{"record", []string{goodRecord, "--attestation-key", ann}, ExitOK, ""},
		{"pinned", []string{good, "--attestation-key", ann, "--pin", fp}, ExitOK, ""},
		{"two announcements", []string{good, "--attestation-key", otherAnn, "--attestation-key", ann}, ExitOK, ""},
		{"two announcements, other order", []string{good, "--attestation-key", ann, "--attestation-key", otherAnn}, ExitOK, ""},
		{"two announcements, pinned", []string{good, "--attestation-key", otherAnn, "--attestation-key", ann, "--pin", fp}, ExitOK, ""},
		{"two announcements, other pinned", []string{good, "--attestation-key", ann, "--attestation-key", otherAnn, "--pin", record.Hex(other.Key().Fingerprint)}, ExitFail, "NOT VERIFIED, check attestation-signature"},
		{"build", []string{build, "--attestation-key", ann, "--config", config, "--binary", exe}, ExitOK, ""},
		{"figure", []string{badFigure, "--attestation-key", ann}, ExitFail, "MISBEHAVIOUR PROVEN, check predicate: tiers[1].triple: attested 86/970, the rules give 86/969"},
		{"edited", []string{edited, "--attestation-key", ann}, ExitFail, "NOT VERIFIED, check attestation-signature"},
		{"other key", []string{otherSigned, "--attestation-key", ann}, ExitFail, "NOT VERIFIED, check attestation-signature"},
		{"other announcement", []string{good, "--attestation-key", otherAnn}, ExitFail, "NOT VERIFIED, check attestation-signature"},
		{"not pinned", []string{good, "--attestation-key", ann, "--pin", record.Hex(other.Key().Fingerprint)}, ExitFail, "NOT VERIFIED, check attestation-key"},
		{"digest only", []string{digestOnly, "--attestation-key", ann}, ExitFail, "NOT VERIFIED, check record"},
		{"record subject", []string{wrongSubjectRecord, "--attestation-key", ann}, ExitFail, `NOT VERIFIED, check record: bad attestation: record: subject "qod/other"`},
		{"record digest", []string{badDigestRecord, "--attestation-key", ann}, ExitFail, "NOT VERIFIED, check record"},
		{"unknown type", []string{unknownType, "--attestation-key", ann}, ExitFail, "NOT VERIFIED, check statement"},
		{"config", []string{build, "--attestation-key", ann, "--config", otherConfig}, ExitFail, "NOT VERIFIED, check config-digest"},
		{"binary", []string{build, "--attestation-key", ann, "--binary", config}, ExitFail, "NOT VERIFIED, check binary-digest"},
		{"empty config", []string{build, "--attestation-key", ann, "--config", write(t, dir, "empty.toml", nil)}, ExitFail, "NOT VERIFIED, check config-digest"},
		{"build keys", []string{build, "--attestation-key", otherAnn, "--attestation-key", ann}, ExitOK, ""},
		{"build other keys", []string{buildOtherKeys, "--attestation-key", ann}, ExitFail, "NOT VERIFIED, check build-keys: keys[0].fingerprint: attested " + record.Hex(other.Record.Keys[0].Fingerprint)},
		{"not json", []string{notJSON, "--attestation-key", ann}, ExitUsage, "unreadable input"},
		{"key record", []string{keyRecord, "--attestation-key", ann}, ExitUsage, "is a key record, not an attestation"},
		{"no key", []string{good}, ExitUsage, "--attestation-key is required"},
		{"log key", []string{good, "--attestation-key", ann, "--log-key", ann}, ExitUsage, "--log-key does not apply"},
		{"two files", []string{good, good, "--attestation-key", ann}, ExitUsage, "want exactly one FILE"},
		{"bad announcement", []string{good, "--attestation-key", good}, ExitUsage, "--attestation-key " + good},
		{"missing", []string{filepath.Join(dir, "nope.json"), "--attestation-key", ann}, ExitUsage, "couldn't read"},
		{"missing binary", []string{build, "--attestation-key", ann, "--binary", filepath.Join(dir, "nope")}, ExitUsage, "--binary"},
		{"stdin", []string{"-", "--attestation-key", ann}, ExitUsage, "unreadable input"},
		{"lang", []string{good, "--attestation-key", ann, "--lang", "de"}, ExitUsage, "de"},
	} {
		code, out, errs := run(t, append([]string{"attestation"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errs, tc.check) {
			t.Errorf("%s: exit %d, want %d with %q\nstdout:\n%sstderr:\n%s", tc.name, code, tc.code, tc.check, out, errs)
			continue
		}
		if code != ExitUsage && !strings.HasPrefix(out, "checked: attestation "+tc.args[0]+"\n") {
			t.Errorf("%s: first line:\n%s", tc.name, out)
		}
		if code == ExitUsage && out != "" {
			t.Errorf("%s: exit 2 with a verdict on stdout:\n%s", tc.name, out)
		}
	}

	// The build's keys against an announcement that lacks them.
	code, out, _ := run(t, "attestation", build, "--attestation-key", otherAnn)
	if code != ExitFail {
		t.Errorf("build signed by a key the announcement lacks: exit %d\n%s", code, out)
	}

	// What a passing verdict says.
	_, out, _ = run(t, "attestation", goodRecord, "--attestation-key", ann)
	for _, want := range []string{"[PASS] attestation-key", "[PASS] attestation-signature", "[PASS] statement", "[PASS] record", "[PASS] predicate", attestations.PaytableType, "VERDICT: every check passed."} {
		if !strings.Contains(out, want) {
			t.Errorf("verdict lacks %q:\n%s", want, out)
		}
	}

	// In French.
	code, out, errs := run(t, "attestation", badFigure, "--attestation-key", ann, "--lang", "fr")
	if code != ExitFail || !strings.HasPrefix(out, "contrôlé : attestation ") ||
		!regexp.MustCompile(`\[MANQUEMENT\] predicate +contenu attesté — tiers\[1\]\.triple : attesté 86/970, le règlement donne 86/969`).MatchString(out) ||
		!strings.Contains(errs, "MANQUEMENT PROUVÉ, vérification predicate") {
		t.Errorf("French: exit %d\n%s%s", code, out, errs)
	}
	code, _, errs = run(t, "attestation", good, "--lang", "fr")
	if code != ExitUsage || !strings.Contains(errs, "--attestation-key est obligatoire") {
		t.Errorf("French usage: exit %d\n%s", code, errs)
	}

	// --json: the verdict for scripts.
	code, out, _ = run(t, "attestation", good, "--attestation-key", ann, "--json")
	var j struct {
		Verdict string `json:"verdict"`
		Kind    string `json:"kind"`
	}
	if code != ExitOK || json.Unmarshal([]byte(out), &j) != nil || j.Verdict != "pass" || j.Kind != "attestation" {
		t.Errorf("--json: exit %d\n%s", code, out)
	}

	// Help, in both languages, and the command list.
	for _, lang := range []string{"en", "fr"} {
		code, _, errs := run(t, "attestation", "-h", "--lang", lang)
		if code != ExitOK || !strings.Contains(errs, "rngverify attestation") || !strings.Contains(errs, "--attestation-key") {
			t.Errorf("help %s: exit %d\n%s", lang, code, errs)
		}
	}
	if _, _, errs := run(t, "help"); !strings.Contains(errs, "attestation") {
		t.Errorf("the command list lacks attestation:\n%s", errs)
	}
}
