package receipt_test

import (
	"bytes"
	"os"
	"testing"
	"time"

	"tirage.fr/tirage/attestations"
	"tirage.fr/tirage/attestations/attestationstest"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/record"
)

// TestDetectPromotionAndAttestations: Detect names a promotion's
// certificate and freeze receipt apart (a certificate holds a freeze too),
// an attestation's DSSE envelope and its log record, and the key
// announcement record; an edited document keeps its kind, for its
// verifier (and rngverify, the command to use) to say what is wrong.
func TestDetectPromotionAndAttestations(t *testing.T) {
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, st, env := signedPaytable(t, 9)
	leaf, err := record.Format(attestations.NewRecord(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), a.KeyID, env, st))
	if err != nil {
		t.Fatal(err)
	}
	freeze := read("../promo/testdata/freeze-receipt.json")
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"certificate", read("../cli/testdata/promo-certificate.json"), receipt.DocCertificate},
		{"freeze receipt", freeze, receipt.DocFreezeReceipt},
		{"freeze receipt without its leaf hash", bytes.Replace(freeze, []byte(`"freeze_leaf_hash"`), []byte(`"leaf_hash"`), 1), receipt.DocFreezeReceipt},
		{"freeze receipt without its freeze", bytes.Replace(freeze, []byte(`"freeze":`), []byte(`"frozen":`), 1), receipt.DocFreezeReceipt},
		{"envelope", env, receipt.DocAttestation},
		{"envelope edited", bytes.Replace(env, []byte(`"payload":"`), []byte(`"payload":"AAAA`), 1), receipt.DocAttestation},
		{"attestation record", leaf, receipt.DocAttestation},
		{"key announcement", a.Announcement, receipt.DocKeyRecord},
		{"another kind", []byte(`{"kind":"attestations"}`), ""},
		{"kind not a string", []byte(`{"kind":["attestation"]}`), ""},
	} {
		if got := receipt.Detect(c.b); got != c.want {
			t.Errorf("%s: Detect %q, want %q", c.name, got, c.want)
		}
	}
}

// signedPaytable is the paytable statement signed by the attestation key
// of test appliance seed: the appliance, the statement and its envelope.
func signedPaytable(t *testing.T, seed byte) (*attestationstest.Appliance, *attestations.Statement, []byte) {
	t.Helper()
	a, err := attestationstest.New(seed, false)
	if err != nil {
		t.Fatal(err)
	}
	st, err := attestations.NewPaytableStatement()
	if err != nil {
		t.Fatal(err)
	}
	env, err := a.Sign(st)
	if err != nil {
		t.Fatal(err)
	}
	return a, st, env
}
