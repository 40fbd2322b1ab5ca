package qod

import (
	"errors"
	"testing"
	"time"
	_ "time/tzdata" // Europe/Paris without the host's zoneinfo, as rngverify embeds it

	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// TestViolationMessages: a rule broken on replay keeps its English text and
// ErrTranscript, and carries its message for readers in French.
func TestViolationMessages(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	_, err1 := Replay(nil, ReplayConfig{})
	err2 := CheckEmission(&record.Emission{Emission: "e-1", Closure: "2026-12-31", StartDeadline: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)}, paris)
	for _, tc := range []struct {
		err    error
		en, fr string
	}{
		{err1, "no records: game transcript violates the rules", "aucun enregistrement"},
		{err2, "emission e-1: start_deadline 2027-01-01T00:00:00Z, closure 2026-12-31 gives 2027-01-29T23:00:00Z: game transcript violates the rules",
			"émission e-1 : date limite de démarrage 2027-01-01T00:00:00Z, alors que la clôture du 2026-12-31 donne 2027-01-29T23:00:00Z"},
	} {
		var me *verdict.MsgError
		if tc.err == nil || tc.err.Error() != tc.en || !errors.Is(tc.err, ErrTranscript) || !errors.As(tc.err, &me) || me.Msg.Text("fr") != tc.fr {
			t.Errorf("%v: want %q, in French %q", tc.err, tc.en, tc.fr)
		}
	}
}
