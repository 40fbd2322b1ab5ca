package checkpoint_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/receipt/receipttest"
)

// stateWith is a state trusting one log (a's key), with the members of
// extra (JSON, e.g. `"witnesses": […], "quorum": 1`) added to the log's.
func stateWith(t *testing.T, extra string) []byte {
	t.Helper()
	a, err := receipttest.New(46)
	if err != nil {
		t.Fatal(err)
	}
	keys, _ := checkpoint.ParseKeys(string(a.LogKeyFile()))
	k, _ := json.Marshal(keys[0].Text)
	if extra != "" {
		extra = ", " + extra
	}
	return []byte(`{"v": 1, "logs": {"` + receipttest.Origin + `": {"keys": [` + string(k) + `], "trust": "pinned", "since": "2026-12-01T10:00:00Z"` + extra + `}}}`)
}

// TestStateWitnesses: a state's witnesses and quorum are optional members
// (a state without them, as older rngverify wrote it, requires none), read
// back as they were written; a quorum outside 1 to their number, one
// without witnesses, or a witness key that is not one, is refused naming
// the log.
func TestStateWitnesses(t *testing.T) {
	w1, w2 := receipttest.NewWitness("bailiff.test", 1), receipttest.NewWitness("auditor.test", 2)
	old, err := checkpoint.ParseState(stateWith(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	if ws, q, err := old.Logs[receipttest.Origin].TrustedWitnesses(); len(ws) != 0 || q != 0 || err != nil {
		t.Fatalf("old state: %v %d %v", ws, q, err)
	}
	if strings.Contains(string(old.Marshal()), "witnesses") || strings.Contains(string(old.Marshal()), "quorum") {
		t.Errorf("a state without witnesses gained members:\n%s", old.Marshal())
	}
	both := `"witnesses": ["` + w1.VKey + `", "` + w2.VKey + `"]`
	s, err := checkpoint.ParseState(stateWith(t, both+`, "quorum": 1`))
	if err != nil {
		t.Fatal(err)
	}
	ws, q, err := s.Logs[receipttest.Origin].TrustedWitnesses()
	if len(ws) != 2 || q != 1 || err != nil {
		t.Fatalf("witnesses: %v %d %v", ws, q, err)
	}
	for _, c := range []struct{ extra, want string }{
		{both + `, "quorum": 3`, "witness quorum 3: want 1 to the number of witnesses (2)"},
		{both + `, "quorum": 0`, "witness quorum 0: want 1 to the number of witnesses (2)"},
		{both, "witness quorum 0: want 1"},
		{`"quorum": 1`, "witness quorum 1: want 1 to the number of witnesses (0)"},
		{`"witnesses": ["` + w1.VKey + `"], "quorum": -1`, "witness quorum -1"},
		{`"witnesses": ["bailiff.test+00000000+AAAA"], "quorum": 1`, "witness key"},
		{`"witnesses": ["` + w1.VKey + `", "` + w1.Alias("alias.test").VKey + `"], "quorum": 1`, "one key under two names"},
	} {
		_, err := checkpoint.ParseState(stateWith(t, c.extra))
		if err == nil || !strings.Contains(err.Error(), `log "`+receipttest.Origin+`"`) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.extra, err, c.want)
		}
	}
}

// TestStateWitness: witnesses are recorded for a log the first time they
// are given (their quorum, all of them by default); given again the same
// (in any order), accepted; others, or another quorum, refused, the state
// unchanged; none given changes nothing.
func TestStateWitness(t *testing.T) {
	w1, w2, w3 := receipttest.NewWitness("bailiff.test", 1), receipttest.NewWitness("auditor.test", 2), receipttest.NewWitness("bailiff.test", 3)
	parse := func(ws ...*receipttest.Witness) []*checkpoint.Witness {
		var out []*checkpoint.Witness
		for _, w := range ws {
			p, err := checkpoint.ParseWitness(w.VKey)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, p)
		}
		return out
	}
	s, err := checkpoint.ParseState(stateWith(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	if rec, err := s.Witness(receipttest.Origin, nil, 0, now); rec || err != nil {
		t.Fatalf("none given: %v %v", rec, err)
	}
	if rec, err := s.Witness("other.test/log", parse(w1), 0, now); rec || err != nil {
		t.Fatalf("a log not in the state: %v %v", rec, err)
	}
	if rec, err := s.Witness(receipttest.Origin, parse(w1, w2), 0, now); !rec || err != nil {
		t.Fatalf("first given: %v %v", rec, err)
	}
	l := s.Logs[receipttest.Origin]
	if l.Quorum != 2 || len(l.Witnesses) != 2 || l.WitnessesSince != "2026-12-02T10:00:00Z" {
		t.Fatalf("recorded: %+v", l)
	}
	before := string(s.Marshal())
	if rec, err := s.Witness(receipttest.Origin, parse(w2, w1), 2, now.Add(time.Hour)); rec || err != nil {
		t.Errorf("the same again: %v %v", rec, err)
	}
	for name, c := range map[string]struct {
		ws []*checkpoint.Witness
		q  int
	}{
		"one fewer": {parse(w1), 0}, "one more": {parse(w1, w2, w3), 2}, "another key": {parse(w1, w3), 0}, "another quorum": {parse(w1, w2), 1},
	} {
		_, err := s.Witness(receipttest.Origin, c.ws, c.q, now)
		if err == nil || !strings.Contains(err.Error(), "already requires cosignatures of 2 of the witnesses") || string(s.Marshal()) != before {
			t.Errorf("%s: %v, want a refusal and no change", name, err)
		}
	}
	again, err := checkpoint.ParseState(s.Marshal())
	if err != nil || string(again.Marshal()) != before {
		t.Fatalf("round trip: %v\n%s", err, again.Marshal())
	}
}
