package cli

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// TestFreezeInputsFrench: every message of the input files a freeze binds
// (the freeze-inputs, input-files and entrants-recomputed checks, the
// facts and rngverify freeze's usage errors) is reached, with --lang fr,
// and reads in French. A message is reached when the longest literal part
// of its French text is in some output below.
func TestFreezeInputsFrench(t *testing.T) {
	rc, pin := freezeInputsFixture(t)
	_, lrc, lk := freezeReceiptFixture(t)
	dir := t.TempDir()
	in := func(name string) string { return filepath.Join(freezeInputsDir, name) }
	right := []string{"--stakes", in("stakes-1.csv"), "--stakes", in("stakes-2.csv"), "--closed", in("closed.csv")}
	filtered := []string{"--stakes", in("stakes-1.csv"), "--stakes", in("stakes-2-filtered.csv"), "--closed", in("closed.csv")}
	rules := "../../examples/bonus-crescendo.yaml"
	// Another entrant in dave's place: as many entrants, another list.
	s2, err := os.ReadFile(in("stakes-2.csv"))
	if err != nil {
		t.Fatal(err)
	}
	swapped := []string{"--stakes", in("stakes-1.csv"), "--stakes", write(t, dir, "stakes-2.csv", []byte(strings.ReplaceAll(string(s2), "dave", "zed"))), "--closed", in("closed.csv")}
	// Receipts whose input list was edited.
	edited := func(name string, edit func(*promo.FreezeReceipt)) string {
		r := rc
		r.Inputs = append([]promo.InputFile(nil), rc.Inputs...)
		edit(&r)
		return write(t, dir, name, promo.FreezeReceiptJSON(&r))
	}
	legacyListing := func() string {
		r := lrc
		r.Inputs = rc.Inputs
		return write(t, dir, "legacy.json", promo.FreezeReceiptJSON(&r))
	}()
	freeze := func(file string, extra ...string) []string {
		return append([]string{"freeze", file, "--pin", pin, "--entrants", freezeInputsEntrants, "--lang", "fr"}, extra...)
	}
	var outs []string
	for _, args := range [][]string{
		freeze(freezeInputsFile, right...),
		freeze(freezeInputsFile, filtered...),
		freeze(freezeInputsFile, "--stakes", in("stakes-2.csv")),
		freeze(freezeInputsFile),
		{"freeze", freezeFile, "--pin", lk.Fingerprint(), "--lang", "fr", "--stakes", in("stakes-1.csv")},
		{"freeze", legacyListing, "--pin", lk.Fingerprint(), "--lang", "fr"},
		freeze(edited("sha.json", func(r *promo.FreezeReceipt) { r.Inputs[1].SHA256 = rc.Inputs[0].SHA256 })),
		freeze(edited("role.json", func(r *promo.FreezeReceipt) { r.Inputs[1].Role = "bets" })),
		freeze(edited("first.json", func(r *promo.FreezeReceipt) { r.Inputs[0].Role = promo.InputClosed })),
		freeze(edited("last.json", func(r *promo.FreezeReceipt) { r.Inputs[1].Role = promo.InputClosed })),
		freeze(edited("upper.json", func(r *promo.FreezeReceipt) { r.Inputs[0].SHA256 = strings.ToUpper(r.Inputs[0].SHA256) })),
		freeze(freezeInputsFile, append([]string{"--rules", rules}, right...)...),
		freeze(freezeInputsFile, append([]string{"--rules", rules}, filtered...)...),
		freeze(freezeInputsFile, append([]string{"--rules", rules}, swapped...)...),
		freeze(freezeInputsFile, "--stakes", in("none.csv")),
		freeze(freezeInputsFile, "--closed", in("closed.csv")),
		{"freeze", freezeInputsFile, "--pin", pin, "--lang", "fr", "--rules", rules, "--stakes", in("stakes-1.csv")},
		freeze(freezeInputsFile, append([]string{"--rules", in("none.yaml")}, right...)...),
		freeze(freezeInputsFile, "--rules", rules, "--stakes", in("closed.csv")),
		freeze(freezeInputsFile, "--stakes", "-", "--closed", "-"),
	} {
		_, out, errs := run(t, args...)
		frenchOK(t, strings.Join(args, " "), out+errs)
		outs = append(outs, out+errs)
	}
	// What rngverify cannot reach: the list missing (it requires
	// --entrants) or no eligibility (it recomputes one) with --rules.
	file, err := os.ReadFile(freezeInputsFile)
	if err != nil {
		t.Fatal(err)
	}
	k, err := checkpoint.ParseKey(rc.LogKeys[0])
	if err != nil {
		t.Fatal(err)
	}
	a := receipt.Anchors{LogKeys: []*checkpoint.Key{k}}
	v := receipt.VerifyFreezeFiles(file, nil, nil, &receipt.FreezeInputs{Eligibility: &promo.Eligibility{}}, a)
	outs = append(outs, v.Text("fr"))
	r, err := record.Parse([]byte(rc.Freeze.Record))
	if err != nil {
		t.Fatal(err)
	}
	rulesFile, err := os.ReadFile(rules)
	if err != nil {
		t.Fatal(err)
	}
	var ce *promo.CheckError
	if err := promo.CheckRecomputed(r.(*record.PromoFreeze), rulesFile, &promo.Eligibility{}, [32]byte{}); !errors.As(err, &ce) {
		t.Fatalf("no eligibility: %v", err)
	}
	outs = append(outs, receipt.CheckErrorMsg(ce).Text("fr"))
	frenchOK(t, "library", strings.Join(outs[len(outs)-2:], "\n"))

	all := strings.Join(outs, "\n")
	decl := catalogIDs(t, "// The input files a freeze binds: message ids.", "\n)", 27)
	verb := regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z]`)
	for _, d := range decl {
		frag := ""
		for _, p := range verb.Split(verdict.Format(verdict.MsgID(d[2]), "fr"), -1) {
			if len(strings.TrimSpace(p)) > len(strings.TrimSpace(frag)) {
				frag = p
			}
		}
		if strings.TrimSpace(frag) == "" {
			t.Fatalf("%s: no French text", d[1])
		}
		if !strings.Contains(all, frag) {
			t.Errorf("%s: no case above reaches it (%q)", d[1], frag)
		}
	}
}
