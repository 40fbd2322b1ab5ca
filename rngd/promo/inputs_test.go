package promo

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/record"
)

// The input files of TestFreezeBindsInputs' freeze: two stake files and
// the closed accounts, whose draw 1 entrants under the example rules are
// fiveOf, mallory withheld (verifier/promo/testdata/freeze-inputs holds
// them for rngverify's tests, which recompute the list from them).
var inputFiles = []struct{ role, name, data string }{
	{promo.InputStakes, "stakes-1.csv", "id,account,time,game,amount_cents,channel\n" +
		"s1,alice,2016-06-16T10:00:00+02:00,loto,1200,web\n" +
		"s2,bob,2016-06-16T11:00:00+02:00,loto,700,web\n" +
		"s3,bob,2016-06-16T12:00:00+02:00,loto,600,app\n" +
		"s4,mallory,2016-06-16T12:00:00+02:00,loto,2000,web\n"},
	{promo.InputStakes, "stakes-2.csv", "id,account,time,game,amount_cents,channel\n" +
		"s5,carol,2016-06-16T10:00:00+02:00,loto,1500,web\n" +
		"s6,dave,2016-06-16T10:30:00+02:00,loto,1200,mobile\n" +
		"s7,erin,2016-06-16T11:00:00+02:00,loto,5000,web\n" +
		"s8,frank,2016-06-16T11:30:00+02:00,loto,500,web\n"},
	{promo.InputClosed, "closed.csv", "account,closed_at\nmallory,2016-06-18T10:00:00+02:00\n"},
}

func inputsOf(files []struct{ role, name, data string }) []promo.InputFile {
	var out []promo.InputFile
	for _, f := range files {
		out = append(out, promo.NewInputFile(f.role, f.name, sha256.Sum256([]byte(f.data))))
	}
	return out
}

// A freeze binds its input files: the record holds their digest
// (promo.InputsDigest), meta.json and the receipt list them, the PDF
// prints them, and the verifier checks the receipt's list against the
// record. A re-issue with another stake file is refused naming it, before
// the list (which that file changes too) is compared; with the same files
// under other names it is the same receipt.
//
// TIRAGE_WRITE_FREEZE_FIXTURE=1 writes the receipt, its list and the input
// files to verifier/promo/testdata (freeze-inputs-receipt.json,
// freeze-inputs-entrants.txt, freeze-inputs/), the fixtures of the
// verifier's and rngverify's input-file tests.
func TestFreezeBindsInputs(t *testing.T) {
	ctx := context.Background()
	r, rulesFile := exampleRules(t)
	a, lg := newAppliance(t)
	inputs := inputsOf(inputFiles)
	req := FreezeRequest{Rules: r, RulesFile: rulesFile, DrawIndex: 0, Entrants: fiveOf, Withheld: 1, Inputs: inputs}
	fz, err := a.Freeze(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	want, err := promo.InputsDigest(inputs)
	if err != nil || fz.Record.Inputs != want || want == ([32]byte{}) {
		t.Fatalf("the record binds %x, want %x (%v)", fz.Record.Inputs, want, err)
	}
	rc, err := a.Receipt(ctx, "bonus-crescendo/1")
	if err != nil {
		t.Fatal(err)
	}
	if len(rc.Inputs) != 3 || rc.Inputs[0] != inputs[0] || rc.Inputs[2] != inputs[2] {
		t.Fatalf("receipt inputs %+v, want %+v", rc.Inputs, inputs)
	}
	file := ReceiptJSON(rc)
	v, err := promo.VerifyFreezeReceipt(file, nil, promo.Anchors{LogKeys: lg.VerifierKeys(), Reserves: -1})
	if err != nil || len(v.Inputs) != 3 {
		t.Fatalf("verified %+v, %v", v, err)
	}
	if err := promo.CompareInputFiles(v.Inputs, inputs); err != nil {
		t.Errorf("the freeze's own files: %v", err)
	}

	// The PDF prints each file's SHA-256 and name.
	var pdf bytes.Buffer
	if err := WriteReceiptPDF(&pdf, rc); err != nil {
		t.Fatal(err)
	}
	text := pageText(t, pdf.Bytes())
	for _, in := range inputs {
		if !bytes.Contains(text, []byte(in.SHA256)) || !bytes.Contains(text, []byte(in.Name)) {
			t.Errorf("the receipt PDF does not print %s %s", in.Name, in.SHA256)
		}
	}

	// Re-issued from the same files (other names: display only), the same
	// receipt; from another stake file, refused naming it.
	renamed := req
	renamed.Inputs = inputsOf(inputFiles)
	renamed.Inputs[0].Name = "copy-of-stakes-1.csv"
	if again, err := a.ReissueReceipt(ctx, renamed); err != nil || !bytes.Equal(ReceiptJSON(again), file) {
		t.Errorf("re-issue, same files renamed: %v", err)
	}
	edited := slices.Clone(inputFiles)
	edited[1].name, edited[1].data = "stakes-2-filtered.csv", strings.Replace(edited[1].data, "s6,dave,2016-06-16T10:30:00+02:00,loto,1200,mobile\n", "", 1)
	if edited[1].data == inputFiles[1].data {
		t.Fatal("test bug: the filtered file is the file")
	}
	for _, tc := range []struct {
		what   string
		inputs []promo.InputFile
		says   string
	}{
		{"a stake file filtered", inputsOf(edited), `stakes file "stakes-2-filtered.csv" has SHA-256 `},
		{"a stake file missing", inputsOf(inputFiles[1:]), "number of stakes files given: 1, the freeze binds 2"},
		{"no closed accounts", inputsOf(inputFiles[:2]), "number of closed files given: 0, the freeze binds 1"},
		{"no input file", nil, "number of stakes files given: 0, the freeze binds 2"},
		{"stake files swapped", inputsOf([]struct{ role, name, data string }{inputFiles[1], inputFiles[0], inputFiles[2]}), `stakes file "stakes-2.csv" has SHA-256 `},
	} {
		q := req
		q.Inputs = tc.inputs
		_, err := a.ReissueReceipt(ctx, q)
		if !errors.Is(err, ErrNotFreezeInputs) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want ErrNotFreezeInputs saying %q", tc.what, err, tc.says)
		}
	}

	// meta.json edited to list other files: the receipt is not issued
	// (it would list files the record does not bind).
	dir, _ := a.drawDir("bonus-crescendo/1")
	meta, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	forged := bytes.Replace(meta, []byte(inputs[1].SHA256), []byte(strings.Repeat("0", 64)), 1)
	if err := os.WriteFile(filepath.Join(dir, "meta.json"), forged, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Receipt(ctx, "bonus-crescendo/1"); err == nil || !strings.Contains(err.Error(), "meta.json's input files are not those the freeze record binds") {
		t.Errorf("receipt from an edited meta.json: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "meta.json"), meta, 0o644)

	if os.Getenv("TIRAGE_WRITE_FREEZE_FIXTURE") != "" {
		st, err := a.load("bonus-crescendo/1")
		if err != nil {
			t.Fatal(err)
		}
		dir := "../../verifier/promo/testdata"
		os.MkdirAll(filepath.Join(dir, "freeze-inputs"), 0o755)
		for _, f := range []struct{ name, data string }{
			{"freeze-inputs-receipt.json", string(file)}, {"freeze-inputs-entrants.txt", string(st.list.Format())},
			{"freeze-inputs/" + inputFiles[0].name, inputFiles[0].data}, {"freeze-inputs/" + inputFiles[1].name, inputFiles[1].data},
			{"freeze-inputs/" + inputFiles[2].name, inputFiles[2].data}, {"freeze-inputs/stakes-2-filtered.csv", edited[1].data},
		} {
			if err := os.WriteFile(filepath.Join(dir, f.name), []byte(f.data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// A freeze made before freezes bound their input files (a meta.json and a
// record without them) is re-issued whatever files are given: there is
// nothing to compare them with, and its receipt lists none.
func TestReissueLegacyFreezeInputs(t *testing.T) {
	ctx := context.Background()
	r, rulesFile := exampleRules(t)
	a, _ := newAppliance(t)
	req := FreezeRequest{Rules: r, RulesFile: rulesFile, DrawIndex: 0, Entrants: fiveOf, Withheld: 2}
	fz, err := a.Freeze(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if fz.Record.Inputs != ([32]byte{}) {
		t.Fatalf("a freeze given no input file binds %x", fz.Record.Inputs)
	}
	q := req
	q.Inputs = inputsOf(inputFiles)
	rc, err := a.ReissueReceipt(ctx, q)
	if err != nil || rc.Inputs != nil {
		t.Fatalf("re-issue of a freeze binding no file: %+v, %v", rc, err)
	}
	// And a meta.json that lists files such a record does not bind is
	// refused.
	dir, _ := a.drawDir("bonus-crescendo/1")
	st, _ := a.load("bonus-crescendo/1")
	if err := checkMetaInputs(st.freeze, Meta{Inputs: q.Inputs}); err == nil || !strings.Contains(err.Error(), "binds none") {
		t.Errorf("meta.json listing files of a record binding none: %v (%s)", err, dir)
	}
	var f record.PromoFreeze
	f.Inputs[0] = 1
	if err := checkMetaInputs(&f, Meta{}); err == nil {
		t.Error("a record binding files, a meta.json listing none: accepted")
	}
}

// A freeze resumed (its append of unknown outcome) is re-sent as it was
// made, binding the files of the first run whatever the second gives, and
// only while meta.json lists those files: a receipt of it would list
// them.
func TestResumeFreezeInputs(t *testing.T) {
	ctx := context.Background()
	r, rulesFile := exampleRules(t)
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	keys := testKeys(t, filepath.Join(tmp, "keys"))
	c := &clock{t: freezeAt}
	a, lg := openRandAppliance(t, data, keys, c)
	defer func() { lg.Close() }()
	dir := filepath.Join(data, "promo", "bonus-crescendo", "2")
	inputs := inputsOf(inputFiles)
	fz, err := a.Freeze(ctx, FreezeRequest{Rules: r, RulesFile: rulesFile, DrawIndex: 1, Entrants: fiveOf, Inputs: inputs})
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "freeze.idx"))
	meta, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "meta.json"), bytes.Replace(meta, []byte(inputs[0].SHA256), []byte(inputs[1].SHA256), 1), 0o644)
	lg.Close()
	a, lg = openRandAppliance(t, data, keys, c)
	again := FreezeRequest{Rules: r, RulesFile: rulesFile, DrawIndex: 1, Entrants: fiveOf, Inputs: inputs[1:]}
	if _, err := a.Freeze(ctx, again); err == nil || !strings.Contains(err.Error(), "freeze.leaf is not re-sent") ||
		!strings.Contains(err.Error(), "meta.json's input files are not those the freeze record binds") {
		t.Fatalf("resumed with meta.json listing other files: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "meta.json"), meta, 0o644)
	fz2, err := a.Freeze(ctx, again)
	if err != nil || !bytes.Equal(fz2.Leaf, fz.Leaf) || len(fz2.Meta.Inputs) != 3 || fz2.Meta.Inputs[0] != inputs[0] {
		t.Fatalf("resumed: %v, inputs %+v", err, fz2.Meta.Inputs)
	}
}
