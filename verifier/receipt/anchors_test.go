package receipt_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"

	"tirage.fr/tirage/attestations/attestationstest"
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
	_, pins := receipt.AnnouncedAnchors(a.Record)
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
