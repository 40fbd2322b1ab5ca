package cli

import (
	"context"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/promo/stakes"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// accountLines are the lines of out about account.
func accountLines(out, account string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "  account "+account+": ") || strings.HasPrefix(l, "  compte "+account+" : ") {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	return lines
}

// rngverify freeze --account: a player disputes the draw. Once the usual
// checks pass, one line per fact says whether the account is in the frozen
// list (index, pseudonym, its leaf's inclusion proof verified against the
// receipt's root) and, with the input files and rules, why not — below the
// minimum, closed by the draw date, no stake; without them, which flags
// tell why. Not being in the list is a fact (exit 0), not a failure.
func TestFreezeCommandAccount(t *testing.T) {
	rc, pin := freezeInputsFixture(t)
	in := func(name string) string { return filepath.Join(freezeInputsDir, name) }
	files := []string{"--stakes", in("stakes-1.csv"), "--stakes", in("stakes-2.csv"), "--closed", in("closed.csv"), "--rules", "../../examples/bonus-crescendo.yaml"}
	freeze := func(account string, extra ...string) (int, string, string) {
		return run(t, append([]string{"freeze", freezeInputsFile, "--pin", pin, "--entrants", freezeInputsEntrants, "--account", account}, extra...)...)
	}
	listFile, err := os.ReadFile(freezeInputsEntrants)
	if err != nil {
		t.Fatal(err)
	}
	list, err := promo.ParseEntrantList(listFile)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := list.Tree()
	if err != nil {
		t.Fatal(err)
	}
	bobLeaf := tree.Leaf(1)

	for _, c := range []struct {
		account string
		files   bool
		want    []string
	}{
		{"bob", true, []string{
			"account bob: in the frozen entrant list of bonus-crescendo/1: entrant 2 of 5 (index 1), pseudonym " + promo.Pseudonym(bobLeaf),
			"account bob: its leaf " + hex.EncodeToString(bobLeaf[:]) + " is in the receipt's entrants_root " + rc.Root + ": inclusion proof verified (hashes: 3)",
			"account bob: 2016-06-16: counted (cents): 1300, minimum 1200: took part",
			"account bob: stake rows counted: 2, not counted or rejected: 0",
			"account bob: the input files make it an entrant: it took part, and its account was open on the draw date",
		}},
		{"bob", false, []string{
			"account bob: in the frozen entrant list of bonus-crescendo/1: entrant 2 of 5 (index 1), pseudonym " + promo.Pseudonym(bobLeaf),
			"account bob: its leaf " + hex.EncodeToString(bobLeaf[:]) + " is in the receipt's entrants_root " + rc.Root + ": inclusion proof verified (hashes: 3)",
		}},
		{"frank", true, []string{
			"account frank: not in the frozen entrant list of bonus-crescendo/1 (entrants: 5; the list hashes to the frozen root)",
			"account frank: 2016-06-16: counted (cents): 500, minimum 1200: below the minimum",
			"account frank: stake rows counted: 1, not counted or rejected: 0",
			"account frank: why: its counted stakes stayed below the minimum on every day of the draw",
		}},
		{"frank", false, []string{
			"account frank: not in the frozen entrant list of bonus-crescendo/1 (entrants: 5; the list hashes to the frozen root)",
			"account frank: why: give the freeze's input files and its rules too (--stakes, --closed, --rules) to recompute its stakes",
		}},
		{"mallory", true, []string{
			"account mallory: not in the frozen entrant list of bonus-crescendo/1 (entrants: 5; the list hashes to the frozen root)",
			"account mallory: 2016-06-16: counted (cents): 2000, minimum 1200: took part",
			"account mallory: closed at 2016-06-18T08:00:00Z, at or before the draw date 2016-06-21: the closure withholds it from the draw",
			"account mallory: stake rows counted: 1, not counted or rejected: 0",
			"account mallory: why: it took part, but its account was closed by the draw date",
		}},
		{"zed", true, []string{
			"account zed: not in the frozen entrant list of bonus-crescendo/1 (entrants: 5; the list hashes to the frozen root)",
			"account zed: 2016-06-16: counted (cents): 0, minimum 1200: below the minimum",
			"account zed: stake rows counted: 0, not counted or rejected: 0",
			"account zed: why: no row of the stake files names this account (is it the id the operator's files use?)",
		}},
	} {
		var extra []string
		if c.files {
			extra = files
		}
		code, out, errs := freeze(c.account, extra...)
		if got := accountLines(out, c.account); code != ExitOK || errs != "" || strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s (files %v): exit %d %s\n%s\nwant\n%s", c.account, c.files, code, errs, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
	}

	// In French.
	code, out, _ := freeze("mallory", append(files, "--lang", "fr")...)
	frenchOK(t, "mallory fr", out)
	want := []string{
		"compte mallory : absent de la liste gelée des participants de bonus-crescendo/1 (participants : 5 ; la liste donne la racine gelée)",
		"compte mallory : 2016-06-16 : compté (centimes) : 2000, minimum 1200 : a participé",
		"compte mallory : clos le 2016-06-18T08:00:00Z, au plus tard à la date du tirage, 2016-06-21 : la clôture l'écarte du tirage",
		"compte mallory : lignes de mises comptées : 1, non comptées ou rejetées : 0",
		"compte mallory : pourquoi : il a participé, mais son compte était clos à la date du tirage",
	}
	if got := accountLines(out, "mallory"); code != ExitOK || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("fr: exit %d\n%s", code, out)
	}
	for _, a := range []string{"bob", "frank", "zed"} {
		code, out, _ := freeze(a, append(files, "--lang", "fr")...)
		frenchOK(t, a+" fr", out)
		if code != ExitOK || len(accountLines(out, a)) < 4 {
			t.Errorf("%s fr: exit %d\n%s", a, code, out)
		}
	}
	code, out, _ = freeze("frank", "--lang", "fr")
	frenchOK(t, "frank fr, no files", out)
	if !strings.Contains(out, "compte frank : pourquoi : fournissez aussi les fichiers d'entrée du gel et son règlement (--stakes, --closed, --rules) pour recalculer ses mises") {
		t.Errorf("fr, no files: exit %d\n%s", code, out)
	}

	// Usage errors, naming the flag: an account id that is not one, none,
	// no entrant list.
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"freeze", freezeInputsFile, "--pin", pin, "--entrants", freezeInputsEntrants, "--account", "bob smith"}, `--account "bob smith": not an account id ([A-Za-z0-9._:-]{1,64}, as in the stake files)`},
		{[]string{"freeze", freezeInputsFile, "--pin", pin, "--entrants", freezeInputsEntrants, "--account="}, `--account "": not an account id`},
		{[]string{"freeze", freezeInputsFile, "--pin", pin, "--account", "bob"}, "--account ACCOUNT needs the entrant list (--entrants LIST)"},
		{[]string{"freeze", freezeInputsFile, "--pin", pin, "--account", "bob", "--lang", "fr"}, "--account COMPTE demande la liste des participants (--entrants LISTE)"},
	} {
		if code, out, errs := run(t, c.args...); code != ExitUsage || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.says) {
			t.Errorf("%q: exit %d %q %q", c.args, code, out, errs)
		}
	}
}

// A list with the account added, the receipt's root unchanged, never puts
// it in the draw: the checks fail (exit 1) and the account is not answered
// for. Nor is it on input files that are not the freeze's: the answer would
// be another list's.
func TestFreezeCommandAccountTampered(t *testing.T) {
	_, pin := freezeInputsFixture(t)
	in := func(name string) string { return filepath.Join(freezeInputsDir, name) }
	listFile, err := os.ReadFile(freezeInputsEntrants)
	if err != nil {
		t.Fatal(err)
	}
	list, err := promo.ParseEntrantList(listFile)
	if err != nil {
		t.Fatal(err)
	}
	list.Accounts = promo.Canonicalize(append(list.Accounts, "frank"))
	tampered := write(t, t.TempDir(), "entrants.txt", list.Format())
	for _, lang := range []string{"en", "fr"} {
		code, out, _ := run(t, "freeze", freezeInputsFile, "--pin", pin, "--entrants", tampered, "--account", "frank", "--lang", lang)
		got := strings.Join(accountLines(out, "frank"), "\n")
		if code != ExitFail || (got != "account frank: not answered: a check above did not pass" && got != "compte frank : sans réponse : une vérification ci-dessus a échoué") {
			t.Errorf("%s: a list with frank added: exit %d\n%s", lang, code, out)
		}
	}
	filtered := []string{"--stakes", in("stakes-1.csv"), "--stakes", in("stakes-2-filtered.csv"), "--closed", in("closed.csv"), "--rules", "../../examples/bonus-crescendo.yaml"}
	code, out, _ := run(t, append([]string{"freeze", freezeInputsFile, "--pin", pin, "--entrants", freezeInputsEntrants, "--account", "dave"}, filtered...)...)
	if got := strings.Join(accountLines(out, "dave"), "\n"); code != ExitFail || got != "account dave: not answered: a check above did not pass" {
		t.Errorf("files not the freeze's: exit %d\n%s", code, out)
	}
}

// TestAccountFrench: every message of the account's answer is reached,
// with --lang fr, and reads in French: rows not counted or rejected, more
// than are listed, closures after the draw date or of unknown date (the
// library, on files giving the frozen list with more rows and closures),
// a proof that does not verify (the library, on a list with an entrant
// added).
func TestAccountFrench(t *testing.T) {
	rc, pin := freezeInputsFixture(t)
	in := func(name string) string { return filepath.Join(freezeInputsDir, name) }
	files := []string{"--stakes", in("stakes-1.csv"), "--stakes", in("stakes-2.csv"), "--closed", in("closed.csv"), "--rules", "../../examples/bonus-crescendo.yaml"}
	var outs []string
	for _, args := range [][]string{
		append([]string{"freeze", freezeInputsFile, "--pin", pin, "--entrants", freezeInputsEntrants, "--account", "bob", "--lang", "fr"}, files...),
		append([]string{"freeze", freezeInputsFile, "--pin", pin, "--entrants", freezeInputsEntrants, "--account", "frank", "--lang", "fr"}, files...),
		append([]string{"freeze", freezeInputsFile, "--pin", pin, "--entrants", freezeInputsEntrants, "--account", "mallory", "--lang", "fr"}, files...),
		append([]string{"freeze", freezeInputsFile, "--pin", pin, "--entrants", freezeInputsEntrants, "--account", "zed", "--lang", "fr"}, files...),
		{"freeze", freezeInputsFile, "--pin", pin, "--entrants", freezeInputsEntrants, "--account", "frank", "--lang", "fr"},
		{"freeze", freezeInputsFile, "--pin", pin, "--entrants", freezeInputsEntrants, "--account", "x y", "--lang", "fr"},
		{"freeze", freezeInputsFile, "--pin", pin, "--account", "bob", "--lang", "fr"},
		{"freeze", freezeInputsFile, "--pin", pin, "--entrants", "../promo/testdata/freeze-inputs/closed.csv", "--account", "bob", "--lang", "fr"},
		append([]string{"freeze", freezeFile, "--pin", legacyPin(t), "--entrants", legacyEntrants, "--account", "frank", "--lang", "fr"}, files...),
	} {
		_, out, errs := run(t, args...)
		frenchOK(t, strings.Join(args, " "), out+errs)
		outs = append(outs, out+errs)
	}

	// Files giving the frozen list, with more rows of frank's, gus's and
	// hank's, and frank closed after the draw date, gus at an unknown date.
	file, err := os.ReadFile(freezeInputsFile)
	if err != nil {
		t.Fatal(err)
	}
	s1, _ := os.ReadFile(in("stakes-1.csv"))
	s2, _ := os.ReadFile(in("stakes-2.csv"))
	more := "f1,frank,2016-06-16T10:00:00+02:00,loto,5000,retail\nf2,frank,2016-06-16T10:00:00+02:00,loto,12.00,web\ng1,gus,2016-06-16T10:00:00+02:00,loto,1500,web\n"
	for i := range promo.MaxAccountRows {
		more += "f" + strings.Repeat("x", i+1) + ",frank,2016-06-10T10:00:00+02:00,loto,100,web\n"
	}
	more += "h1,hank,2016-06-16T10:00:00+02:00,loto,5000,retail\n" // hank: a row, none counted
	closed := "account,closed_at\nmallory,2016-06-18T10:00:00+02:00\nfrank,2016-06-25T10:00:00+02:00\ngus,\n"
	rulesFile, err := os.ReadFile("../../examples/bonus-crescendo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rules, err := promo.ParseRules(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	listFile, _ := os.ReadFile(freezeInputsEntrants)
	list, err := promo.ParseEntrantList(listFile)
	if err != nil {
		t.Fatal(err)
	}
	k, err := checkpoint.ParseKey(rc.LogKeys[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, account := range []string{"frank", "gus", "hank"} {
		re, err := stakes.RecomputeAccount(context.Background(), rules, []stakes.File{{Name: "stakes-1.csv", R: strings.NewReader(string(s1) + more)}, {Name: "stakes-2.csv", R: strings.NewReader(string(s2))}},
			&stakes.File{Name: "closed.csv", R: strings.NewReader(closed)}, account)
		if err != nil {
			t.Fatal(err)
		}
		v := receipt.VerifyFreezeFiles(file, list, nil, &receipt.FreezeInputs{Files: rc.Inputs, RulesFile: rulesFile, Eligibility: re.Eligibility, Account: account},
			receipt.Anchors{LogKeys: []*checkpoint.Key{k}})
		if v.Status() != verdict.StatusPass {
			t.Fatalf("%s: %s", account, v.Text("en"))
		}
		en, fr := v.Text("en"), v.Text("fr")
		frenchOK(t, account+" library", fr)
		outs = append(outs, fr)
		switch account {
		case "frank":
			for _, want := range []string{
				"account frank: closed at 2016-06-25T08:00:00Z, after the draw date 2016-06-21: the closure does not withhold it",
				"account frank: stake rows counted: 1, not counted or rejected: 22",
				"account frank: stakes-1.csv:6 not counted: channel not counted",
				"account frank: stakes-1.csv:7 rejected: amount_cents: must be",
				"account frank: stakes-1.csv:9 not counted: outside the participation period",
				"account frank: rows not counted or rejected beyond those listed: 2",
				"account frank: why: its counted stakes stayed below the minimum on every day of the draw",
			} {
				if !strings.Contains(en, want) {
					t.Errorf("frank: no %q in\n%s", want, en)
				}
			}
		case "gus":
			if !strings.Contains(en, "account gus: closed at an unknown date (counted as before everything), so by the draw date 2016-06-21: the closure withholds it from the draw") ||
				!strings.Contains(en, "account gus: why: it took part, but its account was closed by the draw date") {
				t.Errorf("gus:\n%s", en)
			}
		case "hank": // a row, not counted: its stakes did not count, not "no row names it"
			if !strings.Contains(en, "account hank: why: no stake of it counted on the draw's days") {
				t.Errorf("hank:\n%s", en)
			}
		}
	}
	// A proof that does not verify: a list with frank added.
	r, err := record.Parse([]byte(rc.Freeze.Record))
	if err != nil {
		t.Fatal(err)
	}
	added := *list
	added.Accounts = promo.Canonicalize(append(append([]string(nil), list.Accounts...), "frank"))
	_, err = promo.FindEntrant(&added, r.(*record.PromoFreeze), "frank")
	var ce *promo.CheckError
	if !errors.As(err, &ce) {
		t.Fatalf("frank added: %v", err)
	}
	outs = append(outs, receipt.CheckErrorMsg(ce).Text("fr"))
	frenchOK(t, "proof", outs[len(outs)-1])

	all := strings.Join(outs, "\n")
	src, err := os.ReadFile("../verdict/messages.go")
	if err != nil {
		t.Fatal(err)
	}
	_, block, _ := strings.Cut(string(src), "// A player disputes a draw: one account's answer's message ids")
	block, _, _ = strings.Cut(block, "\n)")
	decl := regexp.MustCompile(`(?m)^\s*(Msg\w*)\s+MsgID = "([^"]+)"`).FindAllStringSubmatch(block, -1)
	if len(decl) < 22 {
		t.Fatalf("found only %d account messages in messages.go", len(decl))
	}
	verb := regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z]`)
	for _, d := range decl {
		frag := ""
		for _, p := range verb.Split(verdict.Format(verdict.MsgID(d[2]), "fr"), -1) {
			if len(strings.TrimSpace(p)) > len(strings.TrimSpace(frag)) {
				frag = p
			}
		}
		if !strings.Contains(all, frag) {
			t.Errorf("%s: no case above reaches it (%q)", d[1], frag)
		}
	}
}

// legacyEntrants is the entrant list of freezeFile, a freeze logged before
// freezes bound their input files: the same accounts as the files of
// freezeInputsDir give.
const legacyEntrants = "../promo/testdata/freeze-entrants.txt"

func legacyPin(t *testing.T) string {
	_, _, lk := freezeReceiptFixture(t)
	return lk.Fingerprint()
}

// A freeze that binds no input files (logged before freezes did) gives the
// same list from files edited for one account — its rows taken out, its
// closure — so the files are not proven the freeze's (input-files
// skipped) and the why is not answered from them: only whether the
// account is in the list, on the frozen root's word. Before, frank's row
// taken out made the answer "no stake of it counted", where the freeze's
// files say below the minimum; mallory's row and closure taken out, "no
// stake" where they say closed by the draw date.
func TestFreezeCommandAccountUnboundFiles(t *testing.T) {
	in := func(name string) string { return filepath.Join(freezeInputsDir, name) }
	dir := t.TempDir()
	s1, _ := os.ReadFile(in("stakes-1.csv"))
	s2, _ := os.ReadFile(in("stakes-2.csv"))
	edited1 := write(t, dir, "stakes-1.csv", []byte(strings.Replace(string(s1), "s4,mallory,2016-06-16T12:00:00+02:00,loto,2000,web\n", "", 1)))
	edited2 := write(t, dir, "stakes-2.csv", []byte(strings.Replace(string(s2), "s8,frank,2016-06-16T11:30:00+02:00,loto,500,web\n", "", 1)))
	closed := write(t, dir, "closed.csv", []byte("account,closed_at\n"))
	if strings.Contains(readString(t, edited1), "mallory") || strings.Contains(readString(t, edited2), "frank") {
		t.Fatal("fixture: rows not taken out")
	}
	for _, files := range [][]string{
		{"--stakes", in("stakes-1.csv"), "--stakes", in("stakes-2.csv"), "--closed", in("closed.csv")},
		{"--stakes", edited1, "--stakes", edited2, "--closed", closed},
	} {
		for _, account := range []string{"frank", "mallory"} {
			args := append([]string{"freeze", freezeFile, "--pin", legacyPin(t), "--entrants", legacyEntrants, "--account", account, "--rules", "../../examples/bonus-crescendo.yaml"}, files...)
			code, out, errs := run(t, args...)
			if code != ExitOK || !strings.Contains(out, "[PASS] entrants-recomputed") || !strings.Contains(out, "[skip] input-files") {
				t.Fatalf("%q: exit %d %s\n%s", args, code, errs, out)
			}
			want := []string{
				"account " + account + ": not in the frozen entrant list of bonus-crescendo/1 (entrants: 5; the list hashes to the frozen root)",
				"account " + account + ": why: not answered from these files: the freeze binds no input files (logged before freezes did), so nothing proves they are the ones it was computed from",
			}
			if got := accountLines(out, account); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%q:\n%s\nwant\n%s", args, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
	}
}

func readString(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
