package promo

import (
	"errors"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/record"
)

// TestDrawBeforeItsFreezeFails: the draw record is logged after its
// freeze, and its time (signed by the same appliance) cannot precede the
// freeze's: a ceremony timed before its own freeze says the appliance's
// clock was set back between them — the clock the dates and the beacon's
// "published after the freeze" are checked by. Both dates may still lie
// within the rules' (a freeze on 22 June, a ceremony stamped 21 June).
func TestDrawBeforeItsFreezeFails(t *testing.T) {
	f := runFlow(t, accounts(50), "text:huissier Maître Dupont 21/06", 0)
	var c Certificate
	mustUnmarshal(t, f.cert, &c)
	fr, _ := record.Parse([]byte(c.Freeze.Record))
	dr, _ := record.Parse([]byte(c.DrawRecord.Record))
	d := dr.(*record.PromoDraw)
	d.Time = fr.(*record.PromoFreeze).Time.Add(-time.Second)
	_, err := Verify(f.forge(t, fr, d), f.list, Anchors{Reserves: 0})
	var ce *CheckError
	if !errors.As(err, &ce) || ce.Check != CheckLink || !strings.Contains(ce.Err.Error(), "before its freeze") {
		t.Fatalf("got %v, want %s naming the times", err, CheckLink)
	}

	// The ceremony itself refuses to be timed before its freeze.
	f2 := runFlow(t, accounts(5), "text:huissier Maître Dupont 21/06", 0)
	mustUnmarshal(t, f2.cert, &c)
	fr, _ = record.Parse([]byte(c.Freeze.Record))
	frz := fr.(*record.PromoFreeze)
	tree, _ := f2.list.Tree()
	dr, _ = record.Parse([]byte(c.DrawRecord.Record))
	cer := &Ceremony{Freeze: frz, Tree: tree, R: dr.(*record.PromoDraw).Secret, Share: "text:12345678", KeyID: frz.Key,
		Prover: f2.prover, Now: frz.Time.Add(-time.Second)}
	if _, err := cer.Run(); err == nil || !strings.Contains(err.Error(), "before its freeze") {
		t.Fatalf("a ceremony timed before its freeze: %v", err)
	}
}
