package receipt_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"

	"tirage.fr/tirage/attestations"
	"tirage.fr/tirage/attestations/attestationstest"
	"tirage.fr/tirage/verifier/announce"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// A key announcement given as a trust anchor pins its log key, never its
// attestation key: a note verifier key made from the attestation key's
// Ed25519 public key has the same fingerprint, and pinned it would make a
// checkpoint its holder signs pass as the log's (every receipt, freeze
// receipt and certificate then proven by a forged tree).
func TestAnnouncedAnchorsPinLogKeysOnly(t *testing.T) {
	a, err := attestationstest.New(5, false)
	if err != nil {
		t.Fatal(err)
	}
	_, pins, _ := receipt.AnnouncedAnchors(a.Record)
	anchors := &receipt.Anchors{Pins: pins}
	vkey := func(pub ed25519.PublicKey) string {
		t.Helper()
		k, err := note.NewEd25519VerifierKey("tirage.fr/test-log", pub)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	logKey := vkey(a.Log.Public().(ed25519.PublicKey))
	attKey := vkey(a.Signer.Public().(ed25519.PublicKey))
	got := anchors.TrustedLogKeyTexts([]string{logKey, attKey})
	if !slices.Contains(got, logKey) {
		t.Errorf("the announced log key is not trusted: %q", got)
	}
	if slices.Contains(got, attKey) {
		t.Errorf("a log key made of the announced attestation key is trusted: %q", got)
	}
}

// The envelope file rngctl attest writes ends with a new line that is not
// the envelope's: the digest rngverify shows is the envelope's, the one its
// log record names (rngctl attest log sends it without the new line).
func TestAttestationFileDigest(t *testing.T) {
	a, _, env := signedPaytable(t, 6)
	v := receipt.VerifyAttestation(append(bytes.Clone(env), '\n'), "paytable.json", receipt.AttestationInputs{Announcements: []*record.KeyAnnouncement{a.Record}})
	d := sha256.Sum256(env)
	if j := string(v.JSON()); !strings.Contains(j, record.Hex(d)) || v.Status() != verdict.StatusPass {
		t.Errorf("the file's verdict does not name the envelope's digest %s:\n%s", record.Hex(d), j)
	}
}

// An attestation record saved to a file with a final new line (the record
// line rngctl attest log prints, copied to a file) is read as the record
// alone, as an envelope file's final new line is not the envelope's: it is
// not refused for "trailing bytes after the record".
func TestAttestationRecordFileNewline(t *testing.T) {
	a, st, env := signedPaytable(t, 6)
	leaf, err := record.Format(attestations.NewRecord(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), a.KeyID, env, st))
	if err != nil {
		t.Fatal(err)
	}
	in := receipt.AttestationInputs{Announcements: []*record.KeyAnnouncement{a.Record}}
	for _, b := range [][]byte{leaf, append(bytes.Clone(leaf), '\n')} {
		v := receipt.VerifyAttestation(b, "record.json", in)
		if v.Status() != verdict.StatusPass || v.Find(verdict.CheckRecord) == nil {
			t.Errorf("record file ending %q:\n%s", b[len(b)-1:], v.Text("en"))
		}
	}
}

// A build attestation's keys may come from two announcements (a VRF key
// rotated after the attestation key was announced: rngd announces the new
// VRF key with the log key only): given both, each key is found in the one
// that announces it, as rngd and the audit, which read every announcement
// of the log, find it. It is not refused because no single announcement
// lists them all; a key that none announces still fails.
func TestAttestationBuildKeysAcrossAnnouncements(t *testing.T) {
	a, err := attestationstest.New(7, false)
	if err != nil {
		t.Fatal(err)
	}
	_, lk, _ := ed25519.GenerateKey(nil)
	pub, err := x509.MarshalPKIXPublicKey(lk.Public())
	if err != nil {
		t.Fatal(err)
	}
	later := &record.KeyAnnouncement{Time: a.Record.Time.Add(time.Hour), Keys: []record.Key{{ID: "log-2", Use: announce.UseLog, Suite: announce.Ed25519, PublicKey: pub, Fingerprint: record.Fingerprint(pub)}}}
	leaf, err := announce.Seal(later, func(_ int, m []byte) ([]byte, error) { return ed25519.Sign(lk, m), nil })
	if err != nil {
		t.Fatal(err)
	}
	if later, err = announce.Parse(leaf); err != nil {
		t.Fatal(err)
	}
	info := &debug.BuildInfo{GoVersion: "go1.26.0", Path: "tirage.fr/tirage/cmd/rngd", Main: debug.Module{Path: "tirage.fr/tirage", Version: "(devel)"}}
	check := func(keys []record.Key) *verdict.Check {
		t.Helper()
		st, err := attestations.NewBuildStatement(attestations.BuildInput{Info: info, Executable: [32]byte{1}, Keys: keys})
		if err != nil {
			t.Fatal(err)
		}
		env, err := a.Sign(st)
		if err != nil {
			t.Fatal(err)
		}
		v := receipt.VerifyAttestation(env, "build.json", receipt.AttestationInputs{Announcements: []*record.KeyAnnouncement{a.Record, later}})
		ch := v.Find(receipt.CheckBuildKeys)
		if ch == nil {
			t.Fatalf("no build-keys check:\n%s", v.Text("en"))
		}
		return ch
	}
	if ch := check(append(slices.Clone(a.Record.Keys), later.Keys...)); ch.Status != verdict.StatusPass {
		t.Errorf("keys of two announcements given: %s %s", ch.Status, ch.Reason("en"))
	}
	stranger := later.Keys[0]
	stranger.ID = "log-3"
	if ch := check(append(slices.Clone(a.Record.Keys), stranger)); ch.Status != verdict.StatusFail || !strings.Contains(ch.Reason("en"), `keys[2]: key "log-3" is not announced`) {
		t.Errorf("a key no announcement lists: %s %s", ch.Status, ch.Reason("en"))
	}
}
