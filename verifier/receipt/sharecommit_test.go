package receipt_test

import (
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// TestCertificateShareCommitment: the certificate of a draw announcing a
// drand round says at check share-commitment that the share opens the
// commitment its freeze holds; a freeze logged before freezes held one
// still verifies, the check skipped, saying plainly (in English and
// French) that the beacon then does not rule out a choice of the winners
// by the operator and the bailiff together; without a beacon none is
// needed.
func TestCertificateShareCommitment(t *testing.T) {
	rules, err := os.ReadFile("../../examples/bonus-crescendo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sig123, _ := hex.DecodeString("b75c69d0b72a5d906e854e808ba7e2accb1542ac355ae486d591aa9d43765482e26cd02df835d3546d23c4b13e0dfc92")
	const round123 = "drand:52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971:123"
	uncommitted := func(f *record.PromoFreeze) { f.ShareCommitment = [32]byte{} }
	for _, tc := range []struct {
		name         string
		beacon       string
		edits        []func(*record.PromoFreeze)
		status       verdict.Status
		id           verdict.MsgID
		detail, fr   string
		uncommitFact bool
	}{
		{"committed", round123, nil, verdict.StatusPass, verdict.MsgShareCommitmentOK, "the share opens the commitment the freeze holds", "", false},
		{"a freeze before share commitments", round123, []func(*record.PromoFreeze){uncommitted}, verdict.StatusSkip, verdict.MsgShareUncommitted,
			"the freeze holds no commitment to the bailiff's share (it was logged before freezes held one): the share was not fixed before the beacon round was published, so the beacon does not rule out a choice of the winners by the operator and the bailiff together",
			"le gel ne contient aucun engagement sur la contribution de l'huissier (il a été journalisé avant que les gels n'en contiennent) : la contribution n'était pas fixée avant la publication de la ronde de la balise, si bien que la balise n'exclut pas un choix des gagnants par l'exploitant et l'huissier ensemble", true},
		{"no beacon", "", nil, verdict.StatusSkip, verdict.MsgShareCommitmentNone, "the freeze announced no beacon round and holds no share commitment: none is needed without a beacon", "", false},
	} {
		a, err := receipttest.NewPromo(31)
		if err != nil {
			t.Fatal(err)
		}
		var value []byte
		var rulesRound uint64
		if tc.beacon != "" {
			value, rulesRound = sig123, 123
		}
		cert, _, err := a.RuledCertificate(rules, rulesRound, tc.beacon, value, tc.edits...)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		v := receipt.VerifyCertificate(cert, nil, keyed(t, a))
		if v.Status() != verdict.StatusPass {
			t.Fatalf("%s: the certificate does not verify:\n%s", tc.name, v.Text("en"))
		}
		c := v.Find(promo.CheckShareCommitment)
		if c == nil || c.Status != tc.status || c.Message == nil || c.Message.ID != tc.id || !strings.HasPrefix(c.Detail, tc.detail) ||
			(tc.fr != "" && c.Reason("fr") != tc.fr) {
			t.Errorf("%s: share-commitment %+v, want %s %s\n%s", tc.name, c, tc.status, tc.id, v.Text("en"))
		}
	}
}

// A promotion draw's receipt with its freeze: a draw binding another share
// than the one the freeze committed to (a share tried once the beacon
// round was known) fails chain as misbehaviour, naming the commitment.
func TestReceiptShareCommitment(t *testing.T) {
	a := appliance(t, 57)
	p, err := a.PromoDrawWith("sc", 20, receipttest.PromoCheat{OtherShare: true})
	if err != nil {
		t.Fatal(err)
	}
	v := receipt.VerifyReceipt(a.PromoReceipt(p, true), keyed(t, a))
	expect(t, v, verdict.StatusMisbehaviour, verdict.CheckChain)
	if !hasCheck(v, verdict.CheckChain, verdict.StatusMisbehaviour, verdict.MsgShareCommitmentOpen) {
		t.Errorf("another share than the committed one:\n%s", v.Text("en"))
	}
	good, err := a.PromoDrawWith("sd", 20, receipttest.PromoCheat{})
	if err != nil {
		t.Fatal(err)
	}
	expect(t, receipt.VerifyReceipt(a.PromoReceipt(good, true), keyed(t, a)), verdict.StatusPass, "")
}
