package promo

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/verdict"
)

// TestInputsDigestVectors: InputsDigest and its preimage are the
// known-answer vectors of testdata/freeze-inputs-digest.txt, computed
// outside this package.
func TestInputsDigestVectors(t *testing.T) {
	b, err := os.ReadFile("testdata/freeze-inputs-digest.txt")
	if err != nil {
		t.Fatal(err)
	}
	var files []InputFile
	var preimage string
	n := 0
	for i, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 0 || strings.HasPrefix(f[0], "#"):
		case f[0] == "file" && len(f) == 3:
			files = append(files, InputFile{Role: f[1], Name: "file " + f[1], SHA256: f[2]})
		case f[0] == "preimage" && len(f) == 2:
			preimage = f[1]
		case f[0] == "digest" && len(f) == 2:
			n++
			if preimage != "" {
				pre, err := inputsPreimage(files)
				if err != nil || hex.EncodeToString(pre) != preimage {
					t.Errorf("vector %d: preimage %x (%v), want %s", n, pre, err, preimage)
				}
			}
			d, err := InputsDigest(files)
			if err != nil || hex.EncodeToString(d[:]) != f[1] {
				t.Errorf("vector %d: digest %x (%v), want %s", n, d, err, f[1])
			}
			files, preimage = nil, ""
		default:
			t.Fatalf("line %d: %q", i+1, line)
		}
	}
	if n != 2 {
		t.Fatalf("%d vectors, want 2", n)
	}
}

// The names are display only; the roles, the order and every SHA-256 are
// bound; a list that is no freeze's is refused, naming the file.
func TestInputsDigest(t *testing.T) {
	h := func(s string) string { d := sha256.Sum256([]byte(s)); return hex.EncodeToString(d[:]) }
	base := []InputFile{{InputStakes, "a.csv", h("a")}, {InputStakes, "b.csv", h("b")}, {InputClosed, "c.csv", h("c")}}
	d0, err := InputsDigest(base)
	if err != nil {
		t.Fatal(err)
	}
	edit := func(f func([]InputFile) []InputFile) []InputFile {
		return f(append([]InputFile(nil), base...))
	}
	renamed := edit(func(l []InputFile) []InputFile { l[0].Name = "elsewhere/a.csv"; return l })
	if d, err := InputsDigest(renamed); err != nil || d != d0 {
		t.Errorf("renamed: %x %v, want %x", d, err, d0)
	}
	for name, l := range map[string][]InputFile{
		"swapped":       edit(func(l []InputFile) []InputFile { l[0], l[1] = l[1], l[0]; return l }),
		"one less":      edit(func(l []InputFile) []InputFile { return l[1:] }),
		"no closed":     edit(func(l []InputFile) []InputFile { return l[:2] }),
		"another hash":  edit(func(l []InputFile) []InputFile { l[1].SHA256 = h("b'"); return l }),
		"closed stakes": edit(func(l []InputFile) []InputFile { l[2].Role = InputStakes; return l }),
	} {
		if d, err := InputsDigest(l); err != nil || d == d0 {
			t.Errorf("%s: %x %v, want another digest", name, d, err)
		}
	}
	for _, c := range []struct {
		name string
		l    []InputFile
		msg  verdict.MsgID
	}{
		{"none", nil, verdict.MsgFreezeInputsNoStakes},
		{"closed first", edit(func(l []InputFile) []InputFile { return []InputFile{l[2], l[0]} }), verdict.MsgFreezeInputsNoStakes},
		{"closed not last", edit(func(l []InputFile) []InputFile { return []InputFile{l[0], l[2], l[1]} }), verdict.MsgFreezeInputClosedLast},
		{"two closed", edit(func(l []InputFile) []InputFile { return append(l, l[2]) }), verdict.MsgFreezeInputClosedLast},
		{"other role", edit(func(l []InputFile) []InputFile { l[1].Role = "rules"; return l }), verdict.MsgFreezeInputRole},
		{"upper hex", edit(func(l []InputFile) []InputFile { l[1].SHA256 = strings.ToUpper(l[1].SHA256); return l }), verdict.MsgFreezeInputDigest},
		{"short hex", edit(func(l []InputFile) []InputFile { l[1].SHA256 = l[1].SHA256[:62]; return l }), verdict.MsgFreezeInputDigest},
		{"not hex", edit(func(l []InputFile) []InputFile { l[1].SHA256 = strings.Repeat("g", 64); return l }), verdict.MsgFreezeInputDigest},
	} {
		_, err := InputsDigest(c.l)
		var me *verdict.MsgError
		if !errors.As(err, &me) || me.Msg.ID != c.msg {
			t.Errorf("%s: %v, want %s", c.name, err, c.msg)
		}
	}
}

// NewFreeze binds the input files given (their digest), none when none is
// given (as older freezes), and refuses a list that is no freeze's.
func TestNewFreezeInputs(t *testing.T) {
	list := &EntrantList{Draw: "bonus-crescendo/1", Accounts: accounts(3)}
	tree, _ := list.Tree()
	in := FreezeInput{Operation: "bonus-crescendo", RulesHash: RulesHash([]byte("r")), Draw: list.Draw, Tree: tree, KeyID: "k"}
	fr, err := NewFreeze(in)
	if err != nil || fr.Inputs != ([32]byte{}) {
		t.Fatalf("no input file: %v, %x", err, fr.Inputs)
	}
	in.Inputs = []InputFile{NewInputFile(InputStakes, "s.csv", sha256.Sum256([]byte("s"))), NewInputFile(InputClosed, "c.csv", sha256.Sum256([]byte("c")))}
	want, _ := InputsDigest(in.Inputs)
	if fr, err = NewFreeze(in); err != nil || fr.Inputs != want {
		t.Fatalf("with input files: %v, %x, want %x", err, fr.Inputs, want)
	}
	in.Inputs = in.Inputs[1:]
	if _, err := NewFreeze(in); err == nil || !strings.Contains(err.Error(), "input files: ") {
		t.Errorf("only the closed accounts: %v", err)
	}
}

// freezeInputsFixture is testdata/freeze-inputs-receipt.json (a freeze
// binding its input files, written by rngd/promo's TestFreezeBindsInputs),
// with anchors of its log key.
func freezeInputsFixture(t testing.TB) (file []byte, rc FreezeReceipt, list *EntrantList, a Anchors) {
	t.Helper()
	file, err := os.ReadFile("testdata/freeze-inputs-receipt.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(file, &rc); err != nil {
		t.Fatal(err)
	}
	lb, err := os.ReadFile("testdata/freeze-inputs-entrants.txt")
	if err != nil {
		t.Fatal(err)
	}
	if list, err = ParseEntrantList(lb); err != nil {
		t.Fatal(err)
	}
	return file, rc, list, Anchors{LogKeys: rc.LogKeys, Reserves: -1}
}

// A receipt's input files must encode to the inputs its record binds (and
// list none when it binds none): the list edited in any bound way is
// refused by freeze-inputs; renamed, it verifies.
func TestVerifyFreezeReceiptInputs(t *testing.T) {
	file, rc, list, a := freezeInputsFixture(t)
	if !bytes.Equal(FreezeReceiptJSON(&rc), file) {
		t.Fatal("the fixture is not FreezeReceiptJSON's encoding")
	}
	v, err := VerifyFreezeReceipt(file, list, a)
	if err != nil || len(v.Inputs) != 3 || v.Inputs[1] != rc.Inputs[1] {
		t.Fatalf("the fixture: %+v, %v", v, err)
	}
	edit := func(f func(r *FreezeReceipt)) []byte {
		r := rc
		r.Inputs = append([]InputFile(nil), rc.Inputs...)
		f(&r)
		return FreezeReceiptJSON(&r)
	}
	renamed := edit(func(r *FreezeReceipt) { r.Inputs[0].Name = "copy.csv" })
	if v, err := VerifyFreezeReceipt(renamed, nil, a); err != nil || v.Inputs[0].Name != "copy.csv" {
		t.Errorf("renamed: %v", err)
	}
	other := sha256.Sum256([]byte("filtered"))
	legacy, lrc, _, la := freezeFixture(t)
	lrc.Inputs = rc.Inputs
	for _, c := range []struct {
		name string
		file []byte
		a    Anchors
		msg  verdict.MsgID
	}{
		{"a stake file's hash", edit(func(r *FreezeReceipt) { r.Inputs[1].SHA256 = hex.EncodeToString(other[:]) }), a, verdict.MsgFreezeInputsDiffer},
		{"a stake file dropped", edit(func(r *FreezeReceipt) { r.Inputs = append(r.Inputs[:1], r.Inputs[2]) }), a, verdict.MsgFreezeInputsDiffer},
		{"stake files swapped", edit(func(r *FreezeReceipt) { r.Inputs[0], r.Inputs[1] = r.Inputs[1], r.Inputs[0] }), a, verdict.MsgFreezeInputsDiffer},
		{"closed accounts dropped", edit(func(r *FreezeReceipt) { r.Inputs = r.Inputs[:2] }), a, verdict.MsgFreezeInputsDiffer},
		{"roles changed", edit(func(r *FreezeReceipt) { r.Inputs[2].Role = InputStakes }), a, verdict.MsgFreezeInputsDiffer},
		{"no list", edit(func(r *FreezeReceipt) { r.Inputs = nil }), a, verdict.MsgFreezeInputsBad},
		{"upper hex", edit(func(r *FreezeReceipt) { r.Inputs[0].SHA256 = strings.ToUpper(r.Inputs[0].SHA256) }), a, verdict.MsgFreezeInputsBad},
		{"a list on a freeze binding none", FreezeReceiptJSON(&lrc), la, verdict.MsgFreezeInputsUnbound},
	} {
		_, err := VerifyFreezeReceipt(c.file, nil, c.a)
		var ce *CheckError
		if !errors.As(err, &ce) || ce.Check != CheckFreezeInputs || ce.Msg.ID != c.msg {
			t.Errorf("%s: %v, want %s (%s)", c.name, err, CheckFreezeInputs, c.msg)
		}
	}
	// The legacy fixture binds none, lists none, and verifies.
	if v, err := VerifyFreezeReceipt(legacy, nil, la); err != nil || v.Inputs != nil {
		t.Errorf("a freeze binding no input file: %+v, %v", v, err)
	}
}

// CompareInputFiles names the first file given that is not the freeze's,
// or the role whose count differs; names are not compared.
func TestCompareInputFiles(t *testing.T) {
	_, rc, _, _ := freezeInputsFixture(t)
	bound := rc.Inputs
	given := func(f func([]InputFile) []InputFile) []InputFile { return f(append([]InputFile(nil), bound...)) }
	if err := CompareInputFiles(bound, given(func(l []InputFile) []InputFile { l[0].Name = "x"; return l })); err != nil {
		t.Errorf("the same files renamed: %v", err)
	}
	for _, c := range []struct {
		name  string
		given []InputFile
		msg   verdict.MsgID
		says  string
	}{
		{"a stake file differs", given(func(l []InputFile) []InputFile {
			l[1].Name, l[1].SHA256 = "mine.csv", strings.Repeat("ab", 32)
			return l
		}),
			verdict.MsgInputFileDiffers, `stakes file "mine.csv" has SHA-256 ` + strings.Repeat("ab", 32) + `, but the freeze's stakes file 2 ("stakes-2.csv" on the receipt) has ` + bound[1].SHA256},
		{"the closed accounts differ", given(func(l []InputFile) []InputFile { l[2].SHA256 = strings.Repeat("cd", 32); return l }),
			verdict.MsgInputFileDiffers, `closed file "closed.csv" has SHA-256 `},
		{"a stake file missing", given(func(l []InputFile) []InputFile { return l[1:] }), verdict.MsgInputFilesCount, "number of stakes files given: 1, the freeze binds 2"},
		{"no closed accounts", given(func(l []InputFile) []InputFile { return l[:2] }), verdict.MsgInputFilesCount, "number of closed files given: 0, the freeze binds 1"},
		{"swapped", given(func(l []InputFile) []InputFile { l[0], l[1] = l[1], l[0]; return l }), verdict.MsgInputFileDiffers, `stakes file "stakes-2.csv" has SHA-256 `},
	} {
		err := CompareInputFiles(bound, c.given)
		var ce *CheckError
		if !errors.As(err, &ce) || ce.Check != CheckInputFiles || ce.Msg.ID != c.msg || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want %s saying %q", c.name, err, c.msg, c.says)
		}
		if ce != nil && ce.Msg.Text("fr") == ce.Msg.Text("en") {
			t.Errorf("%s: no French", c.name)
		}
	}
	// A count of one or none reads right in both languages ("1 stakes
	// files given" did not).
	err := CompareInputFiles(bound, given(func(l []InputFile) []InputFile { return l[1:] }))
	var ce *CheckError
	if !errors.As(err, &ce) {
		t.Fatalf("a stake file missing: %v", err)
	}
	if en, fr := ce.Msg.Text("en"), ce.Msg.Text("fr"); en != "number of stakes files given: 1, the freeze binds 2" || fr != "nombre de fichiers de mises fournis : 1, le gel en engage 2" {
		t.Errorf("a stake file missing: %q / %q", en, fr)
	}
}
