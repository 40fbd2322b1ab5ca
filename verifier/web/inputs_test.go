package web_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/cli"
	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/web"
)

// A real freeze binding its input files (rngd/promo's TestFreezeBindsInputs
// wrote it), its entrant list, its input files and a stake file with one
// row less, and the rules it froze (verifier/cli's freezeinputs_test.go).
const (
	inputsReceipt  = "../promo/testdata/freeze-inputs-receipt.json"
	inputsEntrants = "../promo/testdata/freeze-inputs-entrants.txt"
	inputsDir      = "../promo/testdata/freeze-inputs"
	inputsRules    = "../../examples/bonus-crescendo.yaml"
)

// TestFreezeInputsOnPage: the page takes a freeze's input files — the
// stake files in order and the closed-accounts file — and its verdict on
// the freeze receipt is rngverify freeze --stakes … --closed … [--rules]'s
// (its --json verdict, byte for byte): the freeze's files pass
// input-files; a stake file altered by one byte fails it, naming the file;
// files in another order fail it; with the rules zone's file, the
// entrants are recomputed (entrants-recomputed), and from the filtered
// file fail. Without files, input-files is skipped as on the command line,
// and the page's note says to give them; with files but no rules, its note
// says to give the rules.
func TestFreezeInputsOnPage(t *testing.T) {
	_, pin := inputsPin(t)
	in := func(name string) string { return filepath.Join(inputsDir, name) }
	file := func(path string) web.File { return web.File{Name: path, Data: readFile(t, path)} }
	// A stake file altered by one byte (an amount's digit), under its own name.
	s2 := readFile(t, in("stakes-2.csv"))
	i := bytes.LastIndexByte(s2, '.')
	altered := bytes.Clone(s2)
	altered[i+1] ^= 1 // a digit after the last decimal point: still a CSV
	alteredPath := filepath.Join(t.TempDir(), "stakes-2.csv")
	if err := os.WriteFile(alteredPath, altered, 0o644); err != nil {
		t.Fatal(err)
	}
	docs := []web.File{file(inputsReceipt), file(inputsEntrants)}
	rules := file(inputsRules)
	type want struct {
		status                verdict.Status
		inputFiles, recompute string // the checks' statuses ("" absent)
		says                  string // in input-files' or entrants-recomputed's reason
		notes                 []string
	}
	for _, c := range []struct {
		name   string
		stakes []string
		closed string
		rules  bool
		want
	}{
		{"the freeze's files", []string{in("stakes-1.csv"), in("stakes-2.csv")}, in("closed.csv"), false,
			want{verdict.StatusPass, "pass", "skip", "the files given (3) are the freeze's input files, in order", []string{web.NoteRecomputeMissing}}},
		{"a stake file altered by one byte", []string{in("stakes-1.csv"), alteredPath}, in("closed.csv"), false,
			want{verdict.StatusFail, "fail", "skip", `stakes file "` + alteredPath + `" has SHA-256 `, []string{web.NoteRecomputeMissing}}},
		{"in another order", []string{in("stakes-2.csv"), in("stakes-1.csv")}, in("closed.csv"), false,
			want{verdict.StatusFail, "fail", "skip", `stakes file "` + in("stakes-2.csv") + `" has SHA-256`, []string{web.NoteRecomputeMissing}}},
		{"the closed accounts left out", []string{in("stakes-1.csv"), in("stakes-2.csv")}, "", false,
			want{verdict.StatusFail, "fail", "skip", "number of closed files given: 0, the freeze binds 1", []string{web.NoteRecomputeMissing}}},
		{"recomputed", []string{in("stakes-1.csv"), in("stakes-2.csv")}, in("closed.csv"), true,
			want{verdict.StatusPass, "pass", "pass", "the 5 entrants recomputed from the input files under the frozen rules", nil}},
		{"recomputed from the filtered file", []string{in("stakes-1.csv"), in("stakes-2-filtered.csv")}, in("closed.csv"), true,
			want{verdict.StatusFail, "fail", "fail", "the input files give 4 entrants under the frozen rules, the freeze 5", nil}},
		{"no file", nil, "", false,
			want{verdict.StatusPass, "skip", "skip", "no input file given (--stakes, --closed): ask the operator for the stake and closed-accounts files", []string{web.NoteInputsMissing}}},
		{"no file, the rules given", nil, "", true,
			want{verdict.StatusPass, "skip", "skip", "no input file given", []string{web.NoteInputsMissing}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var sf []web.File
			args := []string{"freeze", inputsReceipt, "--pin", pin, "--entrants", inputsEntrants}
			for _, s := range c.stakes {
				sf = append(sf, file(s))
				args = append(args, "--stakes", s)
			}
			var cf, rf *web.File
			if c.closed != "" {
				f := file(c.closed)
				cf = &f
				args = append(args, "--closed", c.closed)
			}
			if c.rules {
				rf = &rules
				if len(sf) > 0 { // rngverify: --rules needs --stakes
					args = append(args, "--rules", inputsRules)
				}
			}
			rs := results(web.VerifyInputs(docs, nil, pin, rf, "", web.ReadInputs(sf, cf, rf)))
			if len(rs) != 1 {
				t.Fatalf("%d results, want the receipt's: %v", len(rs), rs)
			}
			r := rs.get(inputsReceipt)
			v := r.Verdict
			status := func(name string) string {
				if ch := v.Find(name); ch != nil {
					return string(ch.Status)
				}
				return ""
			}
			notes := append([]string{r.Note}, r.MoreNotes...)
			if r.Note == "" {
				notes = nil
			}
			if v.Status() != c.status || status(promo.CheckInputFiles) != c.inputFiles || status(promo.CheckEntrantsRecomputed) != c.recompute ||
				!strings.Contains(v.Text("en"), c.says) || strings.Join(notes, ",") != strings.Join(c.notes, ",") {
				t.Errorf("%s, input-files %s, entrants-recomputed %s, notes %q; want %+v\n%s", v.Status(), status(promo.CheckInputFiles),
					status(promo.CheckEntrantsRecomputed), notes, c.want, v.Text("en"))
			}
			var out, errs bytes.Buffer
			cli.Run(cli.Env{Args: append(args, "--json"), Stdout: &out, Stderr: &errs})
			if !bytes.Equal(v.JSON(), out.Bytes()) {
				t.Errorf("the page's verdict is not rngverify's\npage:\n%s\nrngverify %q:\n%s%s", v.JSON(), args, out.Bytes(), errs.Bytes())
			}
		})
	}

	// As the page shows them, in English and French: the file named.
	altered2 := []web.File{file(in("stakes-1.csv")), {Name: "stakes-2.csv", Data: altered}}
	closed := file(in("closed.csv"))
	rs := web.VerifyInputs(docs, nil, pin, nil, "", web.ReadInputs(altered2, &closed, nil))
	for lang, w := range map[string]string{
		"en": `stakes file \"stakes-2.csv\" has SHA-256 `,
		"fr": `le fichier de mises « stakes-2.csv » a pour SHA-256 `,
	} {
		if page := string(web.Render(rs, lang)); !strings.Contains(page, w) || !strings.Contains(page, `"note":"`+web.NoteRecomputeMissing+`"`) {
			t.Errorf("%s: no %q in\n%s", lang, w, page)
		}
	}
	// Without the list either: both notes.
	rs = web.VerifyInputs(docs[:1], nil, pin, nil, "", nil)
	if r := rs[0]; r.Note != web.NoteEntrantsMissing || strings.Join(r.MoreNotes, ",") != web.NoteInputsMissing {
		t.Errorf("neither the list nor the files: notes %q %q", r.Note, r.MoreNotes)
	} else if page := string(web.Render(rs, "en")); !strings.Contains(page, `"more_notes":["inputs-missing"]`) {
		t.Errorf("rendered: %s", page)
	}
}

// TestFreezeInputsRefused: an input file the page does not use is refused
// by name, reported first, and every freeze receipt fails input-files with
// the reason: a file larger than the page reads (by its bytes or its
// declared size: web.MaxInput, with the limit, in rngverify's words), and a
// closed-accounts file without stake files (rngverify freeze refuses
// --closed alone). Rules that are not rules, given with the files, fail
// entrants-recomputed; rules of the freeze recompute nothing without its
// entrant list, and say it is needed.
func TestFreezeInputsRefused(t *testing.T) {
	_, pin := inputsPin(t)
	in := func(name string) web.File {
		p := filepath.Join(inputsDir, name)
		return web.File{Name: name, Data: readFile(t, p)}
	}
	receiptFile := web.File{Name: "freeze.json", Data: readFile(t, inputsReceipt)}
	list := web.File{Name: "entrants.txt", Data: readFile(t, inputsEntrants)}
	big := in("stakes-2.csv")
	big.Size = web.MaxInput + 1
	closed := in("closed.csv")
	for _, c := range []struct {
		name     string
		stakes   []web.File
		closed   *web.File
		refused  string // the file refused
		en, fr   string
		inputFix string // input-files' status on the receipt
	}{
		{"too large", []web.File{in("stakes-1.csv"), big}, &closed, "stakes-2.csv",
			"stakes-2.csv is larger than 1024 MiB, the limit for a freeze's input file on the browser page",
			"stakes-2.csv dépasse 1024 Mio, la limite pour un fichier d'entrée d'un gel", "fail"},
		{"closed accounts alone", nil, &closed, "closed.csv",
			"--closed FILE needs the freeze's stake files too", "--closed FICHIER demande aussi les fichiers de mises du gel", "fail"},
	} {
		rs := web.VerifyInputs([]web.File{receiptFile, list}, nil, pin, nil, "", web.ReadInputs(c.stakes, c.closed, nil))
		if len(rs) != 2 || rs[0].File != c.refused || rs[0].Note != web.NoteInputsRefused {
			t.Fatalf("%s: %d results, first %q note %q; want %s refused first", c.name, len(rs), rs[0].File, rs[0].Note, c.refused)
		}
		ch := rs[0].Verdict.Find(promo.CheckInputFiles)
		if ch == nil || ch.Status != verdict.StatusFail || !strings.HasPrefix(ch.Reason("en"), c.en) || !strings.HasPrefix(ch.Reason("fr"), c.fr) {
			t.Errorf("%s: %s\n%s", c.name, rs[0].Verdict.Text("en"), rs[0].Verdict.Text("fr"))
		}
		v := results(rs).get("freeze.json").Verdict
		if ch := v.Find(promo.CheckInputFiles); v.Status() != verdict.StatusFail || ch == nil || string(ch.Status) != c.inputFix || !strings.HasPrefix(ch.Reason("en"), c.en) {
			t.Errorf("%s: the receipt\n%s", c.name, v.Text("en"))
		}
	}

	right := []web.File{in("stakes-1.csv"), in("stakes-2.csv")}
	notRules := web.File{Name: "rules.yaml", Data: []byte("not: rules\n")}
	rs := results(web.VerifyInputs([]web.File{receiptFile, list}, nil, pin, &notRules, "", web.ReadInputs(right, &closed, &notRules)))
	v := rs.get("freeze.json").Verdict
	if ch := v.Find(promo.CheckEntrantsRecomputed); ch == nil || ch.Status != verdict.StatusFail || !strings.HasPrefix(ch.Reason("en"), "--rules rules.yaml: ") ||
		v.Find(promo.CheckInputFiles).Status != verdict.StatusPass || rs.get("rules.yaml").Note != web.NoteRulesRefused {
		t.Errorf("rules that are not:\n%s", v.Text("en"))
	}
	// A stake file rngctl would have refused (its header): not the frozen
	// one, and the entrants cannot be recomputed from it.
	bad := web.File{Name: "stakes-2.csv", Data: []byte("no,header\n")}
	rules := web.File{Name: "rules.yaml", Data: readFile(t, inputsRules)}
	v = results(web.VerifyInputs([]web.File{receiptFile, list}, nil, pin, &rules, "", web.ReadInputs([]web.File{right[0], bad}, &closed, &rules))).get("freeze.json").Verdict
	if ch := v.Find(promo.CheckEntrantsRecomputed); ch == nil || ch.Status != verdict.StatusFail || !strings.HasPrefix(ch.Reason("en"), "couldn't read the input files: stakes-2.csv: ") ||
		v.Find(promo.CheckInputFiles).Status != verdict.StatusFail {
		t.Errorf("a stake file refused by the reader:\n%s", v.Text("en"))
	}
	// The rules without the list: the list is needed (its key).
	v = results(web.VerifyInputs([]web.File{receiptFile}, nil, pin, &rules, "", web.ReadInputs(right, &closed, &rules))).get("freeze.json").Verdict
	if ch := v.Find(promo.CheckEntrantsRecomputed); ch == nil || ch.Status != verdict.StatusSkip || !strings.Contains(ch.Reason("en"), "the entrant list (--entrants LIST) is needed") {
		t.Errorf("the rules without the list:\n%s", v.Text("en"))
	}
	// Nothing given: nothing read.
	if web.ReadInputs(nil, nil, &rules) != nil {
		t.Error("ReadInputs of no file is not nil")
	}
}

func inputsPin(t testing.TB) (promo.FreezeReceipt, string) {
	t.Helper()
	var rc promo.FreezeReceipt
	if err := json.Unmarshal(readFile(t, inputsReceipt), &rc); err != nil || len(rc.LogKeys) != 1 || len(rc.Inputs) != 3 {
		t.Fatalf("fixture: %v", err)
	}
	k, err := checkpoint.ParseKey(rc.LogKeys[0])
	if err != nil {
		t.Fatal(err)
	}
	return rc, k.Fingerprint()
}

// FuzzReadInputs: whatever is given as a freeze's second stake file, its
// closed-accounts file and its rules, the page's verdict on the freeze
// receipt renders without panicking, ReadInputs changes none of the files
// (the page keeps its copies), and input-files passes only when the files
// are the freeze's own, byte for byte.
func FuzzReadInputs(f *testing.F) {
	_, pin := inputsPin(f)
	s1 := readFile(f, filepath.Join(inputsDir, "stakes-1.csv"))
	s2, closed := readFile(f, filepath.Join(inputsDir, "stakes-2.csv")), readFile(f, filepath.Join(inputsDir, "closed.csv"))
	rules := readFile(f, inputsRules)
	f.Add(s2, closed, rules)
	f.Add(s2, closed, []byte(nil))
	f.Add(readFile(f, filepath.Join(inputsDir, "stakes-2-filtered.csv")), closed, rules)
	f.Add([]byte("{\"account\":1}\n"), []byte("account\n\"x\n"), []byte("x: [\n"))
	f.Add([]byte(nil), []byte(nil), rules)
	docs := []web.File{{Name: "freeze.json", Data: readFile(f, inputsReceipt)}, {Name: "entrants.txt", Data: readFile(f, inputsEntrants)}}
	f.Fuzz(func(t *testing.T, stake2, closedFile, rulesFile []byte) {
		sf := []web.File{{Name: "stakes-1.csv", Data: s1}, {Name: "stakes-2.csv", Data: stake2}}
		cf := &web.File{Name: "closed.csv", Data: closedFile}
		var rf *web.File
		if rulesFile != nil {
			rf = &web.File{Name: "rules.yaml", Data: rulesFile}
		}
		given := [][]byte{bytes.Clone(stake2), bytes.Clone(closedFile), bytes.Clone(rulesFile)}
		rs := web.VerifyInputs(docs, nil, pin, rf, "", web.ReadInputs(sf, cf, rf))
		if !bytes.Equal(stake2, given[0]) || !bytes.Equal(closedFile, given[1]) || !bytes.Equal(rulesFile, given[2]) {
			t.Fatal("ReadInputs changed the files it was given")
		}
		var page []json.RawMessage
		if err := json.Unmarshal(web.Render(rs, "fr"), &page); err != nil || len(page) != len(rs) {
			t.Fatalf("rendered page: %v", err)
		}
		v := results(rs).get("freeze.json").Verdict
		if c := v.Find(promo.CheckInputFiles); c == nil || (c.Status == verdict.StatusPass) != (bytes.Equal(stake2, s2) && bytes.Equal(closedFile, closed)) {
			t.Fatalf("input-files %v with these files:\n%s", c, v.Text("en"))
		}
	})
}

// TestFreezeInputsTotal: input files each within web.MaxInput but over
// web.MaxInputsTotal together (by their declared sizes: the page does not
// read them) are refused, by the name of the file that takes the sum over,
// reported first, in English and French, and every freeze receipt fails
// input-files with the reason; files summing to the limit are not refused.
func TestFreezeInputsTotal(t *testing.T) {
	_, pin := inputsPin(t)
	in := func(name string, size int64) web.File {
		f := web.File{Name: name, Data: readFile(t, filepath.Join(inputsDir, name))}
		f.Size = max(size, int64(len(f.Data)))
		return f
	}
	receiptFile := web.File{Name: "freeze.json", Data: readFile(t, inputsReceipt)}
	list := web.File{Name: "entrants.txt", Data: readFile(t, inputsEntrants)}
	closed := in("closed.csv", 0)
	over := []web.File{in("stakes-1.csv", web.MaxInput), in("stakes-2.csv", web.MaxInput)}
	rs := web.VerifyInputs([]web.File{receiptFile, list}, nil, pin, nil, "", web.ReadInputs(over, &closed, nil))
	if len(rs) != 2 || rs[0].File != "closed.csv" || rs[0].Note != web.NoteInputsRefused {
		t.Fatalf("%d results, first %q note %q; want closed.csv refused first", len(rs), rs[0].File, rs[0].Note)
	}
	const (
		en = "closed.csv takes the freeze's input files over 2048 MiB in all (2049 MiB, 3 files), the limit for them together on the browser page"
		fr = "closed.csv porte les fichiers d'entrée du gel au-delà de 2048 Mio en tout (2049 Mio, 3 fichiers), la limite pour leur ensemble sur la page du navigateur"
	)
	ch := rs[0].Verdict.Find(promo.CheckInputFiles)
	if ch == nil || ch.Status != verdict.StatusFail || !strings.HasPrefix(ch.Reason("en"), en) || !strings.HasPrefix(ch.Reason("fr"), fr) {
		t.Errorf("the refusal:\n%s\n%s", rs[0].Verdict.Text("en"), rs[0].Verdict.Text("fr"))
	}
	v := results(rs).get("freeze.json").Verdict
	if ch := v.Find(promo.CheckInputFiles); ch == nil || ch.Status != verdict.StatusFail || !strings.HasPrefix(ch.Reason("en"), en) {
		t.Errorf("the receipt:\n%s", v.Text("en"))
	}
	// At the limit: read (the files' data differ from the frozen ones'
	// only by the sizes declared here).
	at := []web.File{in("stakes-1.csv", web.MaxInput), in("stakes-2.csv", web.MaxInputsTotal-web.MaxInput-int64(len(closed.Data)))}
	for _, r := range web.VerifyInputs([]web.File{receiptFile, list}, nil, pin, nil, "", web.ReadInputs(at, &closed, nil)) {
		if r.Note == web.NoteInputsRefused {
			t.Errorf("files summing to web.MaxInputsTotal: %s refused\n%s", r.File, r.Verdict.Text("en"))
		}
	}
}
