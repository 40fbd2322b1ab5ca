package audit_test

import (
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/verdict"
)

// A freeze's time is what its beacon round must be published after, so it
// is timed against log order as game records are: a freeze (and its draw)
// dated years before records logged before it fails the record check
// instead of being trusted (the audit left promotion records out of it).
func TestAuditPromoTimeOrder(t *testing.T) {
	a := logWith(t, 1, nil)                                                       // records of 2026
	if _, _, err := a.RuledCertificate(exampleRules(t), 0, "", nil); err != nil { // a freeze and a draw dated June 2016
		t.Fatal(err)
	}
	v := runRules(t, a)
	c := v.Find(verdict.CheckRecord)
	if c == nil || c.Status == verdict.StatusPass {
		t.Fatalf("a freeze dated 2016 after records of 2026 passes the record check:\n%s", v.Text("en"))
	}
	if text := v.Text("en"); !strings.Contains(text, "(promo_freeze) is timed 2016-06-20T18:00:00Z") || !strings.Contains(text, "(promo_draw) is timed 2016-06-21T10:00:00Z") {
		t.Errorf("the freeze and the draw not named:\n%s", text)
	}
}
