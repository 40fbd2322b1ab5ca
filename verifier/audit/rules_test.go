package audit_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/audit"
	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// exampleRules is the operator's rules file of the worked example.
func exampleRules(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../../examples/bonus-crescendo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ruledLog is a log with a game and draw bonus-crescendo/1 (freeze and
// draw) committing to rules (receipttest's RuledCertificate: its draw 1
// announcing quicknet round rulesRound, none when 0; the freeze announces
// freezeBeacon, the draw binds value), each of edits changing the freeze
// before it is logged. It returns the log and the rules file as frozen.
func ruledLog(t *testing.T, rules []byte, rulesRound uint64, freezeBeacon string, value []byte, edits ...func(*record.PromoFreeze)) (*receipttest.Appliance, []byte) {
	t.Helper()
	a, err := receipttest.NewPromo(9) // a promotion appliance's own log
	if err != nil {
		t.Fatal(err)
	}
	_, frozen, err := a.RuledCertificate(rules, rulesRound, freezeBeacon, value, edits...)
	if err != nil {
		t.Fatal(err)
	}
	return a, frozen
}

// runRules audits a's log with the rules files given.
func runRules(t *testing.T, a *receipttest.Appliance, rules ...audit.RulesFile) *verdict.Verdict {
	t.Helper()
	return runWith(t, a, func(c *audit.Config) { c.Rules = rules })
}

// runWith audits a's log, pinning its VRF key, with the config edit makes.
func runWith(t *testing.T, a *receipttest.Appliance, edit func(*audit.Config)) *verdict.Verdict {
	t.Helper()
	keys, err := checkpoint.ParseKeys(string(a.LogKeyFile()))
	if err != nil {
		t.Fatal(err)
	}
	cfg := audit.Config{Fetch: files(a.Tiles()), LogKeys: keys, Workers: 2, Location: a.Location, VRFPins: []string{a.VRFFingerprint()}}
	edit(&cfg)
	res, err := audit.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res.Verdict
}

// rulesFacts are the verdict's "rules" facts, in lang.
func rulesFacts(v *verdict.Verdict, lang string) []string {
	var out []string
	for _, f := range v.Facts {
		if f.Label != nil && f.Label.ID == verdict.MsgAuditFactRules {
			_, value := f.Text(lang)
			out = append(out, value)
		}
	}
	return out
}

func sha(b []byte) string {
	h := promo.RulesHash(b)
	return hex.EncodeToString(h[:])
}

// TestAuditRulesConsistent: a freeze that keeps the rules file it commits
// to passes, with or without the beacon round the rules announce, and the
// fact says the file checked it.
func TestAuditRulesConsistent(t *testing.T) {
	sig657413, _ := hex.DecodeString("b713718a38ae728dfd477991af2822e08d2f305e47718cef9f7848ce4050e7be41076862b98fad56e91a6b85b89cd97b")
	for _, tc := range []struct {
		name   string
		round  uint64
		beacon string
		value  []byte
	}{
		{"no beacon promised", 0, "", nil},
		{"the round promised", 657413, "drand:52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971:657413", sig657413},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, rules := ruledLog(t, exampleRules(t), tc.round, tc.beacon, tc.value)
			v := runRules(t, a, audit.RulesFile{Name: "rules.yaml", Data: rules})
			if v.Status() != verdict.StatusPass {
				t.Fatalf("a freeze keeping its rules:\n%s", v.Text("en"))
			}
			want := fmt.Sprintf("rules.yaml (SHA-256 %s): 1 freeze(s) committing to it checked against it", sha(rules))
			if f := rulesFacts(v, "en"); len(f) != 1 || f[0] != want {
				t.Errorf("rules facts %q, want %q", f, want)
			}
		})
	}
}

// TestAuditRulesContradicted: a freeze, logged and signed by the appliance,
// that contradicts the rules file it commits to by its hash is
// misbehaviour, naming the draw, the freeze's entry, the file and the rule
// broken, in English and French. Without the file, the log alone shows
// nothing (the audit passed such freezes before --rules existed).
func TestAuditRulesContradicted(t *testing.T) {
	moved := bytes.Replace(exampleRules(t), []byte("    date: 2016-06-21\n    latest_date: 2016-07-21\n"), []byte("    date: 2016-06-22\n    latest_date: 2016-07-22\n"), 1)
	for _, tc := range []struct {
		name   string
		rules  []byte
		round  uint64
		edit   func(*record.PromoFreeze)
		en, fr string
	}{
		{"two winners", exampleRules(t), 0, func(f *record.PromoFreeze) { f.Winners, f.Reserves = 2, 2 },
			"the freeze ranks 2 winners, but the rules it commits to give draw bonus-crescendo/1 one winner (rank 1), then its reserves: the freeze contradicts its own rules",
			"le gel classe 2 gagnants, mais le règlement auquel il s'engage donne au tirage bonus-crescendo/1 un seul gagnant (rang 1)"},
		{"two reserves", exampleRules(t), 0, func(f *record.PromoFreeze) { f.Reserves = 2 },
			"the freeze ranks 2 reserves, the rules ask for 3",
			"le gel classe 2 suppléants, le règlement en demande 3"},
		{"beacon round dropped", exampleRules(t), 657413, nil,
			"the freeze announces no beacon round, but the rules it commits to announce drand quicknet (52db9ba7…) round 657413",
			"le gel annonce : aucune ronde de balise ; le règlement auquel il s'engage annonce pour le tirage bonus-crescendo/1 : la ronde 657413 de drand quicknet"},
		{"frozen before the period ended", exampleRules(t), 0, func(f *record.PromoFreeze) { f.Time = time.Date(2016, 6, 1, 12, 0, 0, 0, time.UTC) },
			"draw bonus-crescendo/1 was frozen at 2016-06-01T12:00:00Z, before its participation period ended",
			"le tirage bonus-crescendo/1 a été gelé le 2016-06-01T12:00:00Z, avant la fin de sa période de participation"},
		{"drawn before its date", moved, 0, nil, // the draw record's time: 21 June, the rules say from 22 June
			"draw bonus-crescendo/1 was held at 2016-06-21T10:00:00Z (2016-06-21, Europe/Paris time), outside the dates the rules allow (2016-06-22 to 2016-07-22)",
			"le tirage bonus-crescendo/1 a eu lieu le 2016-06-21T10:00:00Z (le 2016-06-21, heure de Europe/Paris), hors des dates que permet le règlement (du 2016-06-22 au 2016-07-22)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var edits []func(*record.PromoFreeze)
			if tc.edit != nil {
				edits = append(edits, tc.edit)
			}
			a, rules := ruledLog(t, tc.rules, tc.round, "", nil, edits...)
			if v := runRules(t, a); v.Status() != verdict.StatusPass {
				t.Fatalf("without the rules, the log alone shows nothing wrong:\n%s", v.Text("en"))
			}
			v := runRules(t, a, audit.RulesFile{Name: "/op/rules.yaml", Data: rules})
			c := v.Find(verdict.CheckPromotions)
			if v.Status() != verdict.StatusMisbehaviour || c == nil || c.Status != verdict.StatusMisbehaviour {
				t.Fatalf("want misbehaviour at %s:\n%s", verdict.CheckPromotions, v.Text("en"))
			}
			freeze := a.Size() - 2 // the freeze, then its draw
			en := fmt.Sprintf("1 failing: draw bonus-crescendo/1 (freeze, entry %d; rules file /op/rules.yaml): %s", freeze, tc.en)
			fr := fmt.Sprintf("1 en échec : tirage bonus-crescendo/1 (gel, entrée %d ; règlement /op/rules.yaml) : %s", freeze, tc.fr)
			if !strings.HasPrefix(c.Reason("en"), en) || !strings.HasPrefix(c.Reason("fr"), fr) {
				t.Errorf("reasons:\n%s\nwant %q\n%s\nwant %q", c.Reason("en"), en, c.Reason("fr"), fr)
			}
			if err := v.Err(); !errors.Is(err, verdict.ErrMisbehaviour) {
				t.Errorf("Err() = %v, want ErrMisbehaviour", err)
			}
		})
	}
}

// TestAuditRulesUndrawn: a freeze whose draw the log does not hold yet is
// checked alone (no ceremony time): the same freeze that broke the dates by
// its draw passes without it, and one that breaks its rules by itself is
// still misbehaviour.
func TestAuditRulesUndrawn(t *testing.T) {
	moved := bytes.Replace(exampleRules(t), []byte("    date: 2016-06-21\n    latest_date: 2016-07-21\n"), []byte("    date: 2016-06-22\n    latest_date: 2016-07-22\n"), 1)
	a, rules := ruledLog(t, moved, 0, "", nil)
	undrawn := a.Fork(a.Size() - 1)
	given := audit.RulesFile{Name: "rules.yaml", Data: rules}
	if v := runRules(t, a, given); v.Status() != verdict.StatusMisbehaviour {
		t.Fatalf("drawn before its date:\n%s", v.Text("en"))
	}
	if v := runRules(t, undrawn, given); v.Status() != verdict.StatusPass {
		t.Fatalf("the freeze alone keeps the dates:\n%s", v.Text("en"))
	}
	a, rules = ruledLog(t, exampleRules(t), 0, "", nil, func(f *record.PromoFreeze) { f.Reserves = 2 })
	undrawn = a.Fork(a.Size() - 1)
	v := runRules(t, undrawn, audit.RulesFile{Name: "rules.yaml", Data: rules})
	if c := v.Find(verdict.CheckPromotions); c == nil || c.Status != verdict.StatusMisbehaviour || !strings.Contains(c.Detail, "the freeze ranks 2 reserves, the rules ask for 3") {
		t.Fatalf("an undrawn freeze ranking 2 reserves:\n%s", v.Text("en"))
	}
}

// TestAuditRulesUnchecked: freezes committing to rules not given are
// listed, with their count and rules hashes, so that the reader knows
// what was not checked; a file given that no freeze commits to is noted
// (likely the wrong file), not an error.
func TestAuditRulesUnchecked(t *testing.T) {
	a, rules := ruledLog(t, exampleRules(t), 0, "", nil)
	unchecked := fmt.Sprintf("1 freeze(s) commit to rules files not given (--rules FILE), not checked against them: SHA-256 %s (operation bonus-crescendo): 1 freeze(s)", sha(rules))
	v := runRules(t, a)
	if f := rulesFacts(v, "en"); v.Status() != verdict.StatusPass || len(f) != 1 || f[0] != unchecked {
		t.Fatalf("no rules given: facts %q, want %q\n%s", f, unchecked, v.Text("en"))
	}
	other := bytes.Replace(rules, []byte("\noperation: bonus-crescendo\n"), []byte("\noperation: bonus-ete\n"), 1)
	v = runRules(t, a, audit.RulesFile{Name: "other.yaml", Data: other})
	unused := fmt.Sprintf("other.yaml (SHA-256 %s): no freeze in the log commits to this file", sha(other))
	f := rulesFacts(v, "en")
	if v.Status() != verdict.StatusPass || len(f) != 2 || !strings.HasPrefix(f[0], unused) || f[1] != unchecked {
		t.Fatalf("another operation's file given: facts %q, want %q… and %q\n%s", f, unused, unchecked, v.Text("en"))
	}
	fr := rulesFacts(v, "fr")
	if !strings.Contains(fr[0], "aucun gel du journal ne s'engage sur ce fichier") || !strings.HasPrefix(fr[1], "1 gel(s) s'engagent sur des règlements non fournis") {
		t.Errorf("French facts: %q", fr)
	}
	// Several operations: each hash once, in log order, with its count.
	if err := a.PromoDraw("d1", 20, false); err != nil {
		t.Fatal(err)
	}
	if err := a.PromoDraw("d2", 20, false); err != nil {
		t.Fatal(err)
	}
	v = runRules(t, a, audit.RulesFile{Name: "rules.yaml", Data: rules})
	f = rulesFacts(v, "en")
	if v.Status() != verdict.StatusPass || len(f) != 2 || !strings.HasPrefix(f[0], "rules.yaml (SHA-256 ") ||
		!strings.HasPrefix(f[1], "2 freeze(s) commit to rules files not given") || !strings.HasSuffix(f[1], "): 2 freeze(s)") {
		t.Fatalf("two other freezes: facts %q\n%s", f, v.Text("en"))
	}
}

// TestAuditRulesNotFrozen: a rules file of the freeze's operation whose
// hash is not the frozen one fails the promotions check, as rngverify
// certificate --rules fails rules-hash (MsgPromoRulesNotFrozen): either the
// operator froze other rules than this file, or this copy is not the one it
// froze. Not misbehaviour: nothing shows which file is the operation's.
// Given beside the frozen file, it is merely unused. Before, the freeze was
// only listed as not checked, and the audit passed.
func TestAuditRulesNotFrozen(t *testing.T) {
	a, rules := ruledLog(t, exampleRules(t), 0, "", nil)
	copied := append(bytes.Clone(rules), "# the bailiff's copy\n"...)
	v := runRules(t, a, audit.RulesFile{Name: "copy.yaml", Data: copied})
	c := v.Find(verdict.CheckPromotions)
	want := fmt.Sprintf("draw bonus-crescendo/1 (freeze, entry %d; rules file copy.yaml): the rules file given is for operation bonus-crescendo but hashes to %s, and the freeze record commits to rules %s: either the operator froze other rules than this file, or this copy is not the one it froze",
		a.Size()-2, sha(copied), sha(rules))
	if c == nil || c.Status != verdict.StatusFail || !strings.Contains(c.Detail, want) || v.Status() != verdict.StatusFail {
		t.Fatalf("another copy of the operation's rules: want FAIL %q\n%s", want, v.Text("en"))
	}
	f := rulesFacts(v, "en")
	if len(f) != 1 || !strings.HasPrefix(f[0], "copy.yaml (SHA-256 "+sha(copied)+"): no freeze in the log commits to this file") {
		t.Errorf("facts %q", f)
	}
	if fr := v.Text("fr"); !strings.Contains(fr, "soit l'exploitant a gelé un autre règlement que ce fichier, soit cette copie n'est pas celle qu'il a gelée") {
		t.Errorf("French:\n%s", fr)
	}
	// Beside the frozen file, the copy is merely unused.
	v = runRules(t, a, audit.RulesFile{Name: "rules.yaml", Data: rules}, audit.RulesFile{Name: "copy.yaml", Data: copied})
	if f := rulesFacts(v, "en"); v.Status() != verdict.StatusPass || len(f) != 2 || !strings.Contains(f[1], "no freeze in the log commits to this file") {
		t.Fatalf("the frozen file and a copy: facts %q\n%s", f, v.Text("en"))
	}
}

// TestAuditRulesBad: a rules file that promo.ParseRules refuses is the
// caller's error, naming the file, on one line; nothing is audited.
func TestAuditRulesBad(t *testing.T) {
	a, rules := ruledLog(t, exampleRules(t), 0, "", nil)
	bad := []audit.RulesFile{{Name: "good.yaml", Data: rules}, {Name: "bad.yaml", Data: []byte("version: 1\noperation: Bonus!\nnope: 3\n")}}
	keys, _ := checkpoint.ParseKeys(string(a.LogKeyFile()))
	fetched := 0
	f := fetchCount{files(a.Tiles()), &fetched}
	res, err := audit.Run(context.Background(), audit.Config{Fetch: f, LogKeys: keys, Rules: bad})
	if err == nil || res != nil {
		t.Fatalf("Run with a bad rules file: %v, %v", res, err)
	}
	if !strings.HasPrefix(err.Error(), "rules file bad.yaml: ") || strings.Contains(err.Error(), "\n") || fetched != 0 {
		t.Errorf("error %q (%d fetches), want one line naming bad.yaml and nothing read", err, fetched)
	}
	if err2 := audit.CheckRules(bad); err2 == nil || err2.Error() != err.Error() {
		t.Errorf("CheckRules: %v, want %v", err2, err)
	}
	if err := audit.CheckRules(bad[:1]); err != nil {
		t.Errorf("CheckRules of a rules file: %v", err)
	}
}

type fetchCount struct {
	files
	n *int
}

func (f fetchCount) Fetch(ctx context.Context, path string) ([]byte, error) {
	*f.n++
	return f.files.Fetch(ctx, path)
}
