package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/record"
)

// rulesLog writes the tiles of a log holding draw bonus-crescendo/1 (freeze
// and draw) committing to the example's rules file, each of edits changing
// the freeze before it is logged, and the rules file. It returns the tile
// directory, the rules file and the trust flags for the log's keys.
func rulesLog(t *testing.T, dir string, edits ...func(*record.PromoFreeze)) (tiles, rules string, trust []string) {
	t.Helper()
	example, err := os.ReadFile("../../examples/bonus-crescendo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	a, err := receipttest.NewPromo(72) // a promotion appliance's own log
	if err != nil {
		t.Fatal(err)
	}
	if _, example, err = a.RuledCertificate(example, 0, "", nil, edits...); err != nil {
		t.Fatal(err)
	}
	tiles = filepath.Join(dir, "tiles")
	writeTiles(t, tiles, a)
	write(t, tiles, "vkey", a.LogKeyFile())
	return tiles, write(t, dir, "rules.yaml", example), []string{"--log-key", write(t, dir, "log.vkey", a.LogKeyFile()), "--pin", a.VRFPin(), "--quiet"}
}

// TestAuditRulesFlag: rngverify audit --rules FILE (repeatable) checks every
// freeze of the log against the rules file it commits to: a freeze that
// contradicts it is MISBEHAVIOUR PROVEN (exit 1), in English, French and
// JSON; the facts name the freezes not checked and a file no freeze commits
// to. A rules file that cannot be read or is not one is a usage error
// naming it (exit 2, one line); rngverify log takes no --rules.
func TestAuditRulesFlag(t *testing.T) {
	dir := t.TempDir()
	tiles, rules, trust := rulesLog(t, dir)
	audit := func(state string, args ...string) (int, string, string) {
		return runCLI(append(append([]string{"audit", "--dir", tiles, "--state", filepath.Join(dir, state)}, trust...), args...)...)
	}
	other := write(t, dir, "other.yaml", append(must(os.ReadFile(rules)), "# another version\n"...))

	code, out, errs := audit("s1.json", "--rules", rules, "--rules", other)
	if code != ExitOK || !strings.Contains(out, "rules: "+rules+" (SHA-256 ") || !strings.Contains(out, "): 1 freeze(s) committing to it checked against it\n") ||
		!strings.Contains(out, "rules: "+other+" (SHA-256 ") || !strings.Contains(out, "no freeze in the log commits to this file") {
		t.Fatalf("audit --rules, a freeze keeping them and a file none commits to: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = audit("s2.json")
	if code != ExitOK || !strings.Contains(out, "rules: 1 freeze(s) commit to rules files not given (--rules FILE), not checked against them: SHA-256 ") {
		t.Fatalf("audit without --rules: exit %d\n%s%s", code, out, errs)
	}

	// A freeze ranking 2 reserves where its rules ask for 3.
	bad := t.TempDir()
	tiles, rules, trust = rulesLog(t, bad, func(f *record.PromoFreeze) { f.Reserves = 2 })
	if code, out, errs = audit("s3.json"); code != ExitOK {
		t.Fatalf("without --rules the log shows nothing wrong: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = audit("s4.json", "--rules", rules)
	reason := "(freeze, entry 1; rules file " + rules + "): the freeze ranks 2 reserves, the rules ask for 3"
	if code != ExitFail || !strings.Contains(out, "[MISBEHAVIOUR] promotions") || !strings.Contains(out, reason) ||
		!strings.HasPrefix(errs, "rngverify audit: MISBEHAVIOUR PROVEN, check promotions: 1 failing: draw bonus-crescendo/1 "+reason) {
		t.Fatalf("audit --rules, a freeze contradicting them: exit %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "s4.json")); err == nil {
		t.Errorf("the trust state advanced past a log proven to misbehave")
	}
	code, out, errs = audit("s5.json", "--rules", rules, "--lang", "fr")
	if code != ExitFail || !strings.Contains(out, "[MANQUEMENT] promotions") ||
		!strings.Contains(out, "tirage bonus-crescendo/1 (gel, entrée 1 ; règlement "+rules+") : le gel classe 2 suppléants, le règlement en demande 3") ||
		!strings.Contains(out, "règlement : "+rules+" (SHA-256 ") {
		t.Fatalf("audit --rules --lang fr: exit %d\n%s%s", code, out, errs)
	}
	frenchOK(t, "audit --rules", out+errs)
	code, out, errs = audit("s6.json", "--rules", rules, "--json")
	var j struct {
		Verdict string `json:"verdict"`
		Checks  []struct {
			Check, Status string
			Message       struct {
				ID   string            `json:"id"`
				Args []json.RawMessage `json:"args"`
			}
		} `json:"checks"`
		Facts []struct {
			Name  string `json:"name"`
			Label struct {
				ID string `json:"id"`
			} `json:"label"`
		} `json:"facts"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil || code != ExitFail || j.Verdict != "misbehaviour" {
		t.Fatalf("audit --rules --json: exit %d, %v\n%s%s", code, err, out, errs)
	}
	found := false
	for _, c := range j.Checks {
		var issues []struct {
			ID string `json:"id"`
		}
		if c.Check == "promotions" && c.Status == "misbehaviour" && len(c.Message.Args) == 2 && json.Unmarshal(c.Message.Args[1], &issues) == nil {
			found = len(issues) == 1 && issues[0].ID == "audit-freeze-rules"
		}
	}
	if !found {
		t.Errorf("audit --rules --json: no promotions misbehaviour with audit-freeze-rules\n%s", out)
	}
	found = false
	for _, f := range j.Facts {
		found = found || f.Name == "rules" && f.Label.ID == "audit-fact-rules"
	}
	if !found {
		t.Errorf("audit --rules --json: no rules fact in %+v", j.Facts)
	}

	// The files themselves: usage errors naming them, nothing audited.
	missing := filepath.Join(dir, "none.yaml")
	notRules := write(t, dir, "bad.yaml", []byte("version: 1\nnope: 3\n"))
	for _, c := range []struct {
		args     []string
		en, fr   string
		wantCode int
	}{
		{[]string{"--rules", missing}, "rngverify audit: couldn't read the rules: open " + missing + ": no such file or directory (rngverify audit -h for usage)\n",
			"rngverify audit : impossible de lire le règlement : le fichier " + missing + " n'existe pas", ExitUsage},
		{[]string{"--rules", rules, "--rules", notRules}, "rngverify audit: rules file " + notRules + ": ",
			"rngverify audit : règlement " + notRules + " : erreur technique (en anglais) : « ", ExitUsage},
		{[]string{"--rules"}, "flag needs an argument: -rules", "", ExitUsage},
	} {
		for _, lang := range []string{"en", "fr"} {
			want := map[string]string{"en": c.en, "fr": c.fr}[lang]
			code, out, errs := audit("s7.json", append([]string{"--lang", lang}, c.args...)...)
			if code != c.wantCode || out != "" || !strings.Contains(errs, want) || strings.Count(errs, "\n") != 1 {
				t.Errorf("audit %q --lang %s: exit %d, want %d and one line with %q\n%s%s", c.args, lang, code, c.wantCode, want, out, errs)
			}
		}
	}
	if code, _, errs := runCLI("log", "--dir", tiles, "--state", filepath.Join(dir, "s8.json"), "--rules", rules); code != ExitUsage || !strings.Contains(errs, "-rules") {
		t.Errorf("log --rules: exit %d, want %d\n%s", code, ExitUsage, errs)
	}
	// The help says what --rules does.
	for lang, want := range map[string]string{"en": "  --rules FILE  an operation's rules file, repeatable", "fr": "  --rules FICHIER  le règlement d'une opération, répétable"} {
		if code, _, errs := runCLI("audit", "-h", "--lang", lang); code != ExitOK || !strings.Contains(errs, want) {
			t.Errorf("audit -h --lang %s: exit %d, want %q\n%s", lang, code, want, errs)
		}
	}
}

// TestAuditRulesNotFrozenFlag: audit --rules with a copy of the freeze's
// operation's rules whose hash is not the frozen one fails the promotions
// check (exit 1, NOT VERIFIED, not misbehaviour), saying what rngverify
// certificate --rules says: the operator froze other rules than this file,
// or this copy is not the one it froze.
func TestAuditRulesNotFrozenFlag(t *testing.T) {
	dir := t.TempDir()
	tiles, rules, trust := rulesLog(t, dir)
	copied := write(t, dir, "copy.yaml", append(must(os.ReadFile(rules)), "# the bailiff's copy\n"...))
	code, out, errs := runCLI(append(append([]string{"audit", "--dir", tiles, "--state", filepath.Join(dir, "s.json")}, trust...), "--rules", copied)...)
	if code != ExitFail || !strings.Contains(out, "[FAIL] promotions") || strings.Contains(out+errs, "MISBEHAVIOUR") ||
		!strings.HasPrefix(errs, "rngverify audit: NOT VERIFIED, check promotions: 1 failing: draw bonus-crescendo/1 (freeze, entry 1; rules file "+copied+"): the rules file given is for operation bonus-crescendo but hashes to ") ||
		!strings.Contains(errs, "either the operator froze other rules than this file, or this copy is not the one it froze") {
		t.Fatalf("audit --rules, another copy of the operation's rules: exit %d\n%s%s", code, out, errs)
	}
}
