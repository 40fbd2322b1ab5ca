package cli

import (
	"crypto/sha256"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/promo"
)

// A real freeze binding its input files (rngd/promo's TestFreezeBindsInputs
// wrote it), with the files, and a stake file with one row less.
const (
	freezeInputsFile     = "../promo/testdata/freeze-inputs-receipt.json"
	freezeInputsEntrants = "../promo/testdata/freeze-inputs-entrants.txt"
	freezeInputsDir      = "../promo/testdata/freeze-inputs"
)

func freezeInputsFixture(t *testing.T) (rc promo.FreezeReceipt, pin string) {
	t.Helper()
	file, err := os.ReadFile(freezeInputsFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(file, &rc); err != nil || len(rc.LogKeys) != 1 || len(rc.Inputs) != 3 {
		t.Fatalf("fixture: %v", err)
	}
	k, err := checkpoint.ParseKey(rc.LogKeys[0])
	if err != nil {
		t.Fatal(err)
	}
	return rc, k.Fingerprint()
}

// rngverify freeze --stakes … --closed …: the bailiff's copies of the
// input files are compared with those the freeze binds; the first that
// differs is named; without them the check is skipped, saying what to ask
// for; a freeze binding none says so, and is not failed.
func TestFreezeCommandInputFiles(t *testing.T) {
	rc, pin := freezeInputsFixture(t)
	in := func(name string) string { return filepath.Join(freezeInputsDir, name) }
	right := []string{"--stakes", in("stakes-1.csv"), "--stakes", in("stakes-2.csv"), "--closed", in("closed.csv")}
	run1 := func(extra ...string) (int, string, string) {
		return run(t, append([]string{"freeze", freezeInputsFile, "--pin", pin, "--entrants", freezeInputsEntrants}, extra...)...)
	}

	code, out, errs := run1(right...)
	if code != ExitOK || errs != "" {
		t.Fatalf("the freeze's files: exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{
		"[PASS] freeze-inputs", "the freeze binds the 3 input files the receipt lists (",
		"[PASS] input-files", "the files given (3) are the freeze's input files, in order",
		"stakes file 1: sha256:" + rc.Inputs[0].SHA256 + " (stakes-1.csv)", "stakes file 2: sha256:" + rc.Inputs[1].SHA256 + " (stakes-2.csv)",
		"closed file 1: sha256:" + rc.Inputs[2].SHA256 + " (closed.csv)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the freeze's files: no %q in\n%s", want, out)
		}
	}

	// A stake file with one row less (a player withheld): named, failed.
	filtered := []string{"--stakes", in("stakes-1.csv"), "--stakes", in("stakes-2-filtered.csv"), "--closed", in("closed.csv")}
	code, out, _ = run1(filtered...)
	if code != ExitFail || !strings.Contains(out, "[FAIL] input-files") ||
		!strings.Contains(out, `stakes file "`+in("stakes-2-filtered.csv")+`" has SHA-256 `) ||
		!strings.Contains(out, `but the freeze's stakes file 2 ("stakes-2.csv" on the receipt) has `+rc.Inputs[1].SHA256) ||
		!strings.Contains(out, "[PASS] freeze-inputs") || !strings.Contains(out, "NOT VERIFIED") {
		t.Errorf("a stake file filtered: exit %d\n%s", code, out)
	}
	// In French.
	code, out, _ = run1(append(filtered, "--lang", "fr")...)
	if code != ExitFail || !strings.Contains(out, `le fichier de mises « `+in("stakes-2-filtered.csv")+` » a pour SHA-256 `) {
		t.Errorf("fr: exit %d\n%s", code, out)
	}
	// A stake file left out, the closed accounts left out, files in
	// another order.
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--stakes", in("stakes-2.csv"), "--closed", in("closed.csv")}, "number of stakes files given: 1, the freeze binds 2"},
		{[]string{"--stakes", in("stakes-1.csv"), "--stakes", in("stakes-2.csv")}, "number of closed files given: 0, the freeze binds 1"},
		{[]string{"--stakes", in("stakes-2.csv"), "--stakes", in("stakes-1.csv"), "--closed", in("closed.csv")}, `stakes file "` + in("stakes-2.csv") + `" has SHA-256`},
	} {
		if code, out, _ := run1(c.args...); code != ExitFail || !strings.Contains(out, "[FAIL] input-files") || !strings.Contains(out, c.says) {
			t.Errorf("%q: exit %d, want %q in\n%s", c.args, code, c.says, out)
		}
	}
	// Without the files: not checked, and the bailiff is told what to ask.
	code, out, _ = run1()
	if code != ExitOK || !strings.Contains(out, "[skip] input-files") || !strings.Contains(out, "ask the operator for the stake and closed-accounts files") {
		t.Errorf("no file given: exit %d\n%s", code, out)
	}
	// Usage errors: a file that cannot be read, --closed alone.
	if code, out, errs := run1("--stakes", in("none.csv")); code != ExitUsage || out != "" || !strings.Contains(errs, "couldn't read --stakes "+in("none.csv")) {
		t.Errorf("a missing stake file: exit %d %q %q", code, out, errs)
	}
	if code, _, errs := run1("--closed", in("closed.csv")); code != ExitUsage || !strings.Contains(errs, "--closed FILE needs the freeze's stake files too") {
		t.Errorf("--closed alone: exit %d %q", code, errs)
	}
	// --rules recomputes the entrants: it needs the files and the list.
	for _, args := range [][]string{
		{"freeze", freezeInputsFile, "--pin", pin, "--rules", "../../examples/bonus-crescendo.yaml", "--stakes", in("stakes-1.csv")},
		{"freeze", freezeInputsFile, "--pin", pin, "--rules", "../../examples/bonus-crescendo.yaml", "--entrants", freezeInputsEntrants},
	} {
		if code, _, errs := run(t, args...); code != ExitUsage || !strings.Contains(errs, "--rules FILE recomputes the entrant list from the input files: it needs") {
			t.Errorf("%q: exit %d %q", args, code, errs)
		}
	}
	if code, _, errs := run1(append([]string{"--rules", in("none.yaml")}, right...)...); code != ExitUsage || !strings.Contains(errs, "--rules "+in("none.yaml")+": ") {
		t.Errorf("unreadable rules: exit %d %q", code, errs)
	}
	if code, _, errs := run1(append([]string{"--rules", in("closed.csv")}, right...)...); code != ExitUsage || !strings.Contains(errs, "--rules "+in("closed.csv")+": ") {
		t.Errorf("rules that are not: exit %d %q", code, errs)
	}
	// Recomputed from the freeze's files under its rules, the entrants are
	// the frozen list; from the filtered file, one short.
	rules := "../../examples/bonus-crescendo.yaml"
	code, out, _ = run1(append([]string{"--rules", rules}, right...)...)
	if code != ExitOK || !strings.Contains(out, "[PASS] input-files") || !strings.Contains(out, "[PASS] entrants-recomputed") ||
		!strings.Contains(out, "the 5 entrants recomputed from the input files under the frozen rules hash, under the list's key, to the frozen root and count") {
		t.Errorf("recomputed from the freeze's files: exit %d\n%s", code, out)
	}
	code, out, _ = run1(append([]string{"--rules", rules}, filtered...)...)
	if code != ExitFail || !strings.Contains(out, "[FAIL] input-files") || !strings.Contains(out, "[FAIL] entrants-recomputed") ||
		!strings.Contains(out, "the input files give 4 entrants under the frozen rules, the freeze 5") {
		t.Errorf("recomputed from the filtered file: exit %d\n%s", code, out)
	}
	code, out, _ = run1(append([]string{"--rules", rules, "--lang", "fr"}, filtered...)...)
	if code != ExitFail || !strings.Contains(out, "les fichiers d'entrée donnent 4 participants selon le règlement gelé, le gel 5") {
		t.Errorf("fr: exit %d\n%s", code, out)
	}
	// Rules that are not the frozen ones.
	other := filepath.Join(t.TempDir(), "rules.yaml")
	src, _ := os.ReadFile(rules)
	os.WriteFile(other, append(src, "# edited\n"...), 0o644)
	code, out, _ = run1(append([]string{"--rules", other}, right...)...)
	if code != ExitFail || !strings.Contains(out, "[FAIL] entrants-recomputed") || !strings.Contains(out, "the rules file hashes to ") {
		t.Errorf("other rules: exit %d\n%s", code, out)
	}
	// A list that is not one: not reached.
	bad := filepath.Join(t.TempDir(), "list.txt")
	os.WriteFile(bad, []byte("not a list\n"), 0o644)
	code, out, _ = run(t, append([]string{"freeze", freezeInputsFile, "--pin", pin, "--entrants", bad, "--rules", rules}, right...)...)
	if code != ExitFail || !strings.Contains(out, "[skip] entrants-recomputed") || !strings.Contains(out, "not reached") {
		t.Errorf("a list refused: exit %d\n%s", code, out)
	}

	// A freeze binding no input file (logged before freezes did): noted,
	// not failed, with or without files.
	_, lrc, lk := freezeReceiptFixture(t)
	for _, extra := range [][]string{nil, right} {
		code, out, _ := run(t, append([]string{"freeze", freezeFile, "--pin", lk.Fingerprint()}, extra...)...)
		if code != ExitOK || !strings.Contains(out, "[skip] freeze-inputs") || !strings.Contains(out, "the freeze binds no input files (logged before freezes did)") {
			t.Errorf("legacy freeze, files %v: exit %d\n%s", extra != nil, code, out)
		}
		if skip := strings.Contains(out, "[skip] input-files") && strings.Contains(out, "the files given cannot be checked"); skip != (extra != nil) || strings.Contains(out, "stakes file 1:") {
			t.Errorf("legacy freeze, files %v (%s):\n%s", extra != nil, lrc.Draw, out)
		}
	}
}

// A receipt whose input list was edited (one file's SHA-256 replaced by
// that of the filtered file, so the operator's filtered file would match
// it) fails freeze-inputs: the list is bound by the logged record.
func TestFreezeCommandInputsEdited(t *testing.T) {
	rc, pin := freezeInputsFixture(t)
	filtered, err := os.ReadFile(filepath.Join(freezeInputsDir, "stakes-2-filtered.csv"))
	if err != nil {
		t.Fatal(err)
	}
	sum := promo.NewInputFile(promo.InputStakes, "stakes-2.csv", sha256.Sum256(filtered))
	rc.Inputs[1] = sum
	edited := filepath.Join(t.TempDir(), "receipt.json")
	if err := os.WriteFile(edited, promo.FreezeReceiptJSON(&rc), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := run(t, "freeze", edited, "--pin", pin, "--stakes", filepath.Join(freezeInputsDir, "stakes-1.csv"),
		"--stakes", filepath.Join(freezeInputsDir, "stakes-2-filtered.csv"), "--closed", filepath.Join(freezeInputsDir, "closed.csv"))
	if code != ExitFail || !strings.Contains(out, "[FAIL] freeze-inputs") || !strings.Contains(out, "the list was edited") ||
		!strings.Contains(out, "[skip] input-files") {
		t.Errorf("edited receipt: exit %d\n%s", code, out)
	}
}

// Without --rules, a verdict whose input files pass does not read as if
// the frozen list were what they give: entrants-recomputed is skipped,
// saying how to check it, whenever the freeze binds files or files are
// given (a legacy freeze checked without any: nothing to say).
func TestFreezeCommandNotRecomputed(t *testing.T) {
	_, pin := freezeInputsFixture(t)
	in := func(name string) string { return filepath.Join(freezeInputsDir, name) }
	right := []string{"--stakes", in("stakes-1.csv"), "--stakes", in("stakes-2.csv"), "--closed", in("closed.csv")}
	_, _, lk := freezeReceiptFixture(t)
	for _, c := range []struct {
		name string
		args []string
		skip bool
	}{
		{"files given", append([]string{"freeze", freezeInputsFile, "--pin", pin, "--entrants", freezeInputsEntrants}, right...), true},
		{"no file given", []string{"freeze", freezeInputsFile, "--pin", pin, "--entrants", freezeInputsEntrants}, true},
		{"legacy freeze, files given", append([]string{"freeze", freezeFile, "--pin", lk.Fingerprint()}, right...), true},
		{"legacy freeze, no file", []string{"freeze", freezeFile, "--pin", lk.Fingerprint()}, false},
	} {
		code, out, _ := run(t, c.args...)
		skipped := strings.Contains(out, "[skip] entrants-recomputed") &&
			strings.Contains(out, "not recomputed (--rules FILE, with --stakes, --closed and --entrants): that the frozen list is what the input files give is not checked")
		if code != ExitOK || skipped != c.skip || (!c.skip && strings.Contains(out, "entrants-recomputed")) {
			t.Errorf("%s: exit %d, skipped %v, want %v:\n%s", c.name, code, skipped, c.skip, out)
		}
	}
	code, out, _ := run(t, append([]string{"freeze", freezeInputsFile, "--pin", pin, "--entrants", freezeInputsEntrants, "--lang", "fr"}, right...)...)
	if code != ExitOK || !strings.Contains(out, "que la liste gelée soit bien celle que donnent les fichiers d'entrée n'est pas vérifié") {
		t.Errorf("fr: exit %d\n%s", code, out)
	}
	frenchOK(t, "not recomputed", out)
}

// With --rules, the rows the reader read and rejected are facts: an
// entrant whose rows were made malformed before the freeze is left out of
// the recomputed list as of the frozen one, and only this count shows it.
func TestFreezeCommandRecomputedRows(t *testing.T) {
	_, pin := freezeInputsFixture(t)
	in := func(name string) string { return filepath.Join(freezeInputsDir, name) }
	s2, err := os.ReadFile(in("stakes-2.csv"))
	if err != nil {
		t.Fatal(err)
	}
	bad := write(t, t.TempDir(), "stakes-2.csv", append(s2, "s9,zed,2016-06-16T11:30:00+02:00,loto,12.00,web\n"...))
	for _, c := range []struct {
		stakes2 string
		want    string
	}{
		{in("stakes-2.csv"), "stake rows recomputed: 8 read, 0 rejected (malformed or duplicate: they count for no one"},
		{bad, "stake rows recomputed: 9 read, 1 rejected (malformed or duplicate: they count for no one"},
	} {
		_, out, _ := run(t, "freeze", freezeInputsFile, "--pin", pin, "--entrants", freezeInputsEntrants, "--rules", "../../examples/bonus-crescendo.yaml",
			"--stakes", in("stakes-1.csv"), "--stakes", c.stakes2, "--closed", in("closed.csv"))
		if !strings.Contains(out, c.want) || !strings.Contains(out, "[PASS] entrants-recomputed") {
			t.Errorf("%s: no %q in\n%s", c.stakes2, c.want, out)
		}
	}
}

// "-" reads an input file from standard input, as rngctl promo freeze
// takes it; standard input is read once: given twice, refused (exit 2).
func TestFreezeCommandInputStdin(t *testing.T) {
	_, pin := freezeInputsFixture(t)
	in := func(name string) string { return filepath.Join(freezeInputsDir, name) }
	stakes2, err := os.ReadFile(in("stakes-2.csv"))
	if err != nil {
		t.Fatal(err)
	}
	runStdin := func(stdin string, extra ...string) (int, string, string) {
		var out, errb strings.Builder
		args := append([]string{"freeze", freezeInputsFile, "--pin", pin, "--entrants", freezeInputsEntrants}, extra...)
		code := Run(Env{Args: args, Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb})
		return code, out.String(), errb.String()
	}
	for _, rules := range [][]string{nil, {"--rules", "../../examples/bonus-crescendo.yaml"}} {
		args := append([]string{"--stakes", in("stakes-1.csv"), "--stakes", "-", "--closed", in("closed.csv")}, rules...)
		if code, out, errs := runStdin(string(stakes2), args...); code != ExitOK || !strings.Contains(out, "[PASS] input-files") {
			t.Errorf("stakes file 2 on standard input %v: exit %d\n%s%s", rules, code, out, errs)
		}
		if code, out, _ := runStdin(string(stakes2[:len(stakes2)-2]), args...); code != ExitFail || !strings.Contains(out, "[FAIL] input-files") {
			t.Errorf("stakes file 2 cut short on standard input %v: exit %d\n%s", rules, code, out)
		}
	}
	code, _, errs := runStdin("", "--stakes", "-", "--stakes", in("stakes-2.csv"), "--closed", "-")
	if code != ExitUsage || !strings.Contains(errs, "standard input (-) given 2 times") {
		t.Errorf("standard input twice: exit %d %s", code, errs)
	}
}
