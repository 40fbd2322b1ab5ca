package audit_test

import (
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// A promotion freeze that binds no input files (logged before freezes
// bound them) passes the audit, and a fact lists it, in English and
// French: its entrant list cannot be recomputed from the operator's
// files. A freeze binding them gets no such fact.
func TestAuditFreezeInputsUnbound(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edits []func(*record.PromoFreeze)
		fact  bool
	}{
		{"binding its files", []func(*record.PromoFreeze){func(f *record.PromoFreeze) { f.Inputs = [32]byte{1} }}, false},
		{"binding none", nil, true},
	} {
		a, _ := ruledLog(t, exampleRules(t), 0, "", nil, tc.edits...)
		v := run(t, a, a.Tiles(), nil).Verdict
		if v.Status() != verdict.StatusPass {
			t.Fatalf("%s:\n%s", tc.name, v.Text("en"))
		}
		en, fr := factTexts(v, "inputs not bound")
		if !tc.fact {
			if len(en) > 0 {
				t.Errorf("%s: %q", tc.name, en)
			}
			continue
		}
		if len(en) != 1 || !strings.HasPrefix(en[0], "promotion freezes that bind no input files (logged before freezes bound them): 1 (draw bonus-crescendo/1 (entry ") ||
			!strings.Contains(fr[0], ": 1 (tirage bonus-crescendo/1 (entrée ") || !strings.HasSuffix(fr[0], "(rngverify freeze --rules)") {
			t.Errorf("%s: facts %q / %q\n%s", tc.name, en, fr, v.Text("en"))
		}
	}
}
