package audit_test

import (
	"encoding/hex"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// The audit checks a promotion draw's share against the commitment its
// freeze holds: another share than the one committed to (tried once the
// beacon round was known), properly proven, is misbehaviour naming the
// commitment.
func TestAuditShareCommitment(t *testing.T) {
	a := logWith(t, 1, nil)
	if _, err := a.PromoDrawWith("sc", 20, receipttest.PromoCheat{OtherShare: true}); err != nil {
		t.Fatal(err)
	}
	v := run(t, a, a.Tiles(), nil).Verdict
	c := v.Find(verdict.CheckPromotions)
	if c == nil || c.Status != verdict.StatusMisbehaviour || !strings.Contains(c.Detail, "does not open the commitment the freeze holds") {
		t.Fatalf("a draw whose share does not open its freeze's commitment:\n%s", v.Text("en"))
	}
}

// A draw binding a beacon round whose freeze holds no share commitment (a
// freeze logged before freezes held one) passes the audit, and a fact says
// plainly, in English and French, that its beacon does not rule out a
// choice by operator and bailiff together; a committed one gets no such
// fact.
func TestAuditShareUncommitted(t *testing.T) {
	sig657413, _ := hex.DecodeString("b713718a38ae728dfd477991af2822e08d2f305e47718cef9f7848ce4050e7be41076862b98fad56e91a6b85b89cd97b")
	const round = "drand:52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971:657413"
	for _, tc := range []struct {
		name  string
		edits []func(*record.PromoFreeze)
		fact  bool
	}{
		{"committed", nil, false},
		{"a freeze before share commitments", []func(*record.PromoFreeze){func(f *record.PromoFreeze) { f.ShareCommitment = [32]byte{} }}, true},
	} {
		a, _ := ruledLog(t, exampleRules(t), 657413, round, sig657413, tc.edits...)
		v := run(t, a, a.Tiles(), nil).Verdict
		if v.Status() != verdict.StatusPass {
			t.Fatalf("%s:\n%s", tc.name, v.Text("en"))
		}
		en, fr := factTexts(v, "share not committed")
		if !tc.fact {
			if len(en) > 0 {
				t.Errorf("%s: %q", tc.name, en)
			}
			continue
		}
		if len(en) != 1 || !strings.HasPrefix(en[0], "promotion draws whose freeze holds no commitment to the bailiff's share though they bind a beacon round (freezes logged before freezes held one): 1 (draw bonus-crescendo/1 (entry ") ||
			!strings.HasSuffix(en[0], "the beacon does not rule out a choice of the winners by the operator and the bailiff together") ||
			!strings.Contains(fr[0], ": 1 (tirage bonus-crescendo/1 (entrée ") || !strings.HasSuffix(fr[0], "la balise n'exclut pas un choix des gagnants par l'exploitant et l'huissier ensemble") {
			t.Errorf("%s: facts %q / %q\n%s", tc.name, en, fr, v.Text("en"))
		}
	}
}

// factTexts are the texts, in English and French, of v's facts called name.
func factTexts(v *verdict.Verdict, name string) (en, fr []string) {
	for _, f := range v.Facts {
		if f.Name == name {
			_, e := f.Text("en")
			_, r := f.Text("fr")
			en, fr = append(en, e), append(fr, r)
		}
	}
	return en, fr
}
