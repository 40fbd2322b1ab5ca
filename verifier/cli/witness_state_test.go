package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/receipt/receipttest"
)

// TestWitnessState: the witnesses and quorum given to log (or audit) with
// --state are recorded in the state, said on stderr; later runs with that
// state require their cosignatures without --witness — log, audit, and the
// commands that only read the state (receipt) — so that a forgotten
// --witness does not accept an unwitnessed checkpoint. Other witnesses, or
// another quorum, for that log are refused (exit 2), naming the flag, the
// state file and how to change them, in English and French.
func TestWitnessState(t *testing.T) {
	dir := t.TempDir()
	a := newAppliance(t, 15)
	g := playGame(t, a, receipttest.Play{Game: "g-1"})
	key := write(t, dir, "log.vkey", a.LogKeyFile())
	t1 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	tiles := filepath.Join(dir, "tiles")
	writeTiles(t, tiles, a)
	state := filepath.Join(dir, "state.json")
	write(t, tiles, "checkpoint", wBailiff.Cosign(wAuditor.Cosign(a.Checkpoint(), t1), t1))

	code, out, errs := run(t, "log", "--dir", tiles, "--state", state, "--log-key", key, "--witness", wBailiff.VKey, "--witness", wAuditor.VKey, "--witness-quorum", "1")
	if code != ExitOK || !strings.Contains(errs, "witnesses recorded in "+state) || !strings.Contains(errs, "the cosignatures of 1 of them") {
		t.Fatalf("first run: exit %d\n%s%s", code, out, errs)
	}
	var st checkpoint.State
	if err := json.Unmarshal(must(os.ReadFile(state)), &st); err != nil {
		t.Fatal(err)
	}
	ls := st.Logs[receipttest.Origin]
	if ls == nil || len(ls.Witnesses) != 2 || ls.Quorum != 1 || ls.WitnessesSince == "" {
		t.Fatalf("state: %+v", ls)
	}
	// Given again, the same: accepted, nothing recorded anew.
	code, out, errs = run(t, "log", "--dir", tiles, "--state", state, "--witness", wAuditor.VKey, "--witness", wBailiff.VKey, "--witness-quorum", "1")
	if code != ExitOK || strings.Contains(errs, "recorded") {
		t.Fatalf("same witnesses: exit %d\n%s%s", code, out, errs)
	}

	// Cosigned by one: the quorum is met, --witness given or not.
	write(t, tiles, "checkpoint", wAuditor.Cosign(a.Checkpoint(), t1))
	code, out, errs = run(t, "log", "--dir", tiles, "--state", state)
	if code != ExitOK || !strings.Contains(out, "cosigned by 1 of 2 witness(es) (quorum 1)") {
		t.Fatalf("state's witnesses, quorum met: exit %d\n%s%s", code, out, errs)
	}
	// Cosigned by none: without --witness, the state still requires them.
	write(t, tiles, "checkpoint", a.Checkpoint())
	for _, cmd := range []string{"log", "audit"} {
		code, out, errs := run(t, cmd, "--dir", tiles, "--state", state, "--pin", a.VRFPin(), "--quiet")
		if code != ExitFail || !strings.Contains(out, "[FAIL] witness-cosignatures") || !strings.Contains(out, "0 valid cosignature(s), 1 required (quorum of 2 witness(es))") {
			t.Errorf("%s without --witness, not cosigned: exit %d, want %d\n%s%s", cmd, code, ExitFail, out, errs)
		}
	}
	code, out, errs = run(t, "receipt", write(t, dir, "r.json", a.Receipt(g, 0, true)), "--state", state, "--pin", a.VRFPin())
	if code != ExitFail || !strings.Contains(out, "[FAIL] witness-cosignatures") {
		t.Errorf("receipt --state, not cosigned: exit %d\n%s%s", code, out, errs)
	}

	// Other witnesses, or another quorum: refused, naming the flag.
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"--witness", wOther.VKey}, "--witness"},
		{[]string{"--witness", wBailiff.VKey, "--witness-quorum", "1"}, "--witness"},
		{[]string{"--witness", wBailiff.VKey, "--witness", wAuditor.VKey}, "--witness"}, // all of them: another quorum
		{[]string{"--witness", wBailiff.VKey, "--witness", wAuditor.VKey, "--witness-quorum", "2"}, "--witness-quorum"},
	} {
		for _, cmd := range []string{"log", "receipt"} {
			args := []string{cmd, "--dir", tiles}
			if cmd == "receipt" {
				args = []string{cmd, filepath.Join(dir, "r.json"), "--pin", a.VRFPin()}
			}
			code, out, errs := run(t, append(append(args, "--state", state), c.args...)...)
			want := c.flag + ": state file " + state + ": log \"" + receipttest.Origin + "\" already requires cosignatures of 1 of the witnesses "
			if code != ExitUsage || out != "" || !strings.Contains(errs, want) || !strings.Contains(errs, `edit the state file (its "witnesses" and "quorum")`) || strings.Count(errs, "\n") != 1 {
				t.Errorf("%s %q: exit %d, want %d and %q\n%s%s", cmd, c.args, code, ExitUsage, want, out, errs)
			}
		}
	}
	code, _, errs = run(t, "log", "--dir", tiles, "--state", state, "--witness", wOther.VKey, "--lang", "fr")
	if code != ExitUsage || !strings.Contains(errs, "exige déjà les cosignatures de 1 des témoins") {
		t.Errorf("fr: exit %d %s", code, errs)
	}
	if b := must(os.ReadFile(state)); !strings.Contains(string(b), `"quorum": 1`) {
		t.Errorf("the state changed:\n%s", b)
	}
}

// TestWitnessStateOld: a state without witnesses (written by an older
// rngverify, or without --witness) requires none; witnesses first given
// on a later run are recorded then. Read-only commands refuse a state
// whose logs require different witnesses, unless --witness gives one's.
func TestWitnessStateOld(t *testing.T) {
	dir := t.TempDir()
	a := newAppliance(t, 16)
	key := write(t, dir, "log.vkey", a.LogKeyFile())
	tiles := filepath.Join(dir, "tiles")
	writeTiles(t, tiles, a)
	state := filepath.Join(dir, "state.json")
	if code, out, errs := run(t, "log", "--dir", tiles, "--state", state, "--log-key", key); code != ExitOK || strings.Contains(string(must(os.ReadFile(state))), "witnesses") {
		t.Fatalf("no witness: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := run(t, "log", "--dir", tiles, "--state", state); code != ExitOK || strings.Contains(out, "witness") {
		t.Fatalf("old state: exit %d\n%s%s", code, out, errs)
	}
	write(t, tiles, "checkpoint", wBailiff.Cosign(a.Checkpoint(), time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)))
	code, out, errs := run(t, "log", "--dir", tiles, "--state", state, "--witness", wBailiff.VKey, "--lang", "fr")
	if code != ExitOK || !strings.Contains(errs, "témoins enregistrés dans "+state) {
		t.Fatalf("witness added: exit %d\n%s%s", code, out, errs)
	}

	// A second log requiring another witness.
	s, err := checkpoint.ParseState(must(os.ReadFile(state)))
	if err != nil {
		t.Fatal(err)
	}
	other := *s.Logs[receipttest.Origin]
	other.Witnesses = []string{wAuditor.VKey}
	other.Checkpoint = ""
	s.Logs["other.test/log"] = &other
	two := write(t, dir, "two.json", s.Marshal())
	g := playGame(t, a, receipttest.Play{Game: "g-1"})
	rc := write(t, dir, "r.json", a.Receipt(g, 0, true))
	code, out, errs = run(t, "receipt", rc, "--state", two, "--pin", a.VRFPin())
	if code != ExitUsage || !strings.Contains(errs, `--state: logs "other.test/log" and "`+receipttest.Origin+`" require different witnesses`) {
		t.Errorf("two logs, two witness sets: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = run(t, "receipt", rc, "--state", two, "--pin", a.VRFPin(), "--witness", wBailiff.VKey, "--lang", "fr")
	if code != ExitFail || !strings.Contains(out, "witness-cosignatures") {
		t.Errorf("two logs, --witness of one: exit %d\n%s%s", code, out, errs)
	}
	// --witness of the other log, which cosigned the receipt's checkpoint:
	// the receipt's log still requires its own witness, as its state says.
	var m map[string]any
	if err := json.Unmarshal(must(os.ReadFile(rc)), &m); err != nil {
		t.Fatal(err)
	}
	m["checkpoint"] = string(wAuditor.Cosign([]byte(m["checkpoint"].(string)), time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)))
	byOther := write(t, dir, "r-other.json", must(json.Marshal(m)))
	code, out, errs = run(t, "receipt", byOther, "--state", two, "--pin", a.VRFPin(), "--witness", wAuditor.VKey)
	if code != ExitFail || !strings.Contains(out, "[FAIL] witness-cosignatures") || !strings.Contains(out, "missing: "+wBailiff.Name) {
		t.Errorf("two logs, --witness of the other one: exit %d\n%s%s", code, out, errs)
	}
}
