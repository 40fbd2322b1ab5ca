package promo

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"

	"tirage.fr/tirage/verifier/verdict"
)

// testdata/freeze-receipt.json and freeze-entrants.txt are a real freeze's
// receipt and entrant list: rngd/promo's TestFreezeReceiptVerifies wrote
// them (TIRAGE_WRITE_FREEZE_FIXTURE=1) from the appliance's Freeze and
// Receipt over its embedded log.
const (
	freezeReceiptFile  = "testdata/freeze-receipt.json"
	freezeEntrantsFile = "testdata/freeze-entrants.txt"
)

func freezeFixture(t testing.TB) (file []byte, rc FreezeReceipt, list *EntrantList, a Anchors) {
	t.Helper()
	file, err := os.ReadFile(freezeReceiptFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(file, &rc); err != nil {
		t.Fatal(err)
	}
	lb, err := os.ReadFile(freezeEntrantsFile)
	if err != nil {
		t.Fatal(err)
	}
	if list, err = ParseEntrantList(lb); err != nil {
		t.Fatal(err)
	}
	return file, rc, list, Anchors{LogKeys: rc.LogKeys, Reserves: -1}
}

func TestVerifyFreezeReceipt(t *testing.T) {
	file, rc, list, a := freezeFixture(t)
	if !bytes.Equal(FreezeReceiptJSON(&rc), file) {
		t.Fatal("the fixture is not FreezeReceiptJSON's encoding")
	}
	v, err := VerifyFreezeReceipt(file, nil, a)
	if err != nil {
		t.Fatal(err)
	}
	if v.Draw != "bonus-crescendo/1" || v.Operation != "bonus-crescendo" || v.Freeze.Count != 5 || v.Index != 1 || v.TreeSize != 2 ||
		v.LeafHash != rc.FreezeLeafHash || v.RulesHash != rc.RulesHash || v.LogOrigin != "tirage.test/promo" || v.EntrantsFile != "" {
		t.Errorf("without the list: %+v", v)
	}
	if v, err = VerifyFreezeReceipt(file, list, a); err != nil || v.EntrantsFile != rc.EntrantsFile {
		t.Fatalf("with the list: %+v, %v", v, err)
	}
}

// Each tampering is refused by the check that covers it.
func TestVerifyFreezeReceiptTampered(t *testing.T) {
	file, rc, list, a := freezeFixture(t)
	skey, vkey, err := note.GenerateKey(rand.Reader, "tirage.test/promo")
	if err != nil {
		t.Fatal(err)
	}
	signer, _ := note.NewSigner(skey)
	body, _, _ := strings.Cut(rc.Checkpoint, "\n\n")
	resigned, err := note.Sign(&note.Note{Text: body + "\n"}, signer)
	if err != nil {
		t.Fatal(err)
	}
	edit := func(f func(r *FreezeReceipt)) []byte {
		r := rc
		r.Freeze.Proof = append([]string(nil), rc.Freeze.Proof...)
		f(&r)
		return FreezeReceiptJSON(&r)
	}
	text := func(old, new string) []byte {
		if !bytes.Contains(file, []byte(old)) {
			t.Fatalf("fixture: no %q", old)
		}
		return bytes.Replace(file, []byte(old), []byte(new), 1)
	}
	withList := func(f func(l *EntrantList)) *EntrantList {
		l := *list
		l.Accounts = append([]string(nil), list.Accounts...)
		f(&l)
		return &l
	}
	cases := []struct {
		name  string
		file  []byte
		list  *EntrantList
		a     Anchors
		check string
		msg   verdict.MsgID
	}{
		{"not json", []byte("hello"), nil, a, CheckReceiptFormat, verdict.MsgFreezeNotReceipt},
		{"unknown member", text(`"v": 1,`, `"v": 1, "key": "vrf",`), nil, a, CheckReceiptFormat, verdict.MsgFreezeNotReceipt},
		{"member twice", text(`"v": 1,`, `"v": 1, "count": 6,`), nil, a, CheckReceiptFormat, verdict.MsgFreezeNotReceipt},
		{"trailing data", append(bytes.Clone(file), "{}"...), nil, a, CheckReceiptFormat, verdict.MsgFreezeNotReceipt},
		{"version 2", edit(func(r *FreezeReceipt) { r.V = 2 }), nil, a, CheckReceiptFormat, verdict.MsgPromoVersion},
		{"checkpoint signed by another key", edit(func(r *FreezeReceipt) { r.Checkpoint = string(resigned); r.LogKeys = []string{vkey} }), nil, a, CheckCheckpoint, verdict.MsgPromoErr},
		{"no usable log key", file, nil, Anchors{LogKeys: []string{"nope"}}, CheckCheckpoint, verdict.MsgPromoNoLogKey},
		{"another kind of record", edit(func(r *FreezeReceipt) { r.Freeze.Record = `{"kind":"promo_draw"}` }), nil, a, CheckFreezeRecord, verdict.MsgPromoNotFreeze},
		{"the logged record edited", edit(func(r *FreezeReceipt) {
			r.Freeze.Record = strings.Replace(r.Freeze.Record, `"count":5`, `"count":4`, 1)
		}), nil, a, CheckFreezeInclusion, verdict.MsgPromoErr},
		{"proof of another index", edit(func(r *FreezeReceipt) { r.Freeze.Index = 0 }), nil, a, CheckFreezeInclusion, verdict.MsgPromoErr},
		{"index beyond the tree", edit(func(r *FreezeReceipt) { r.Freeze.Index = 7 }), nil, a, CheckFreezeInclusion, verdict.MsgPromoErr},
		{"proof hash changed", edit(func(r *FreezeReceipt) { r.Freeze.Proof[0] = strings.Repeat("00", 32) }), nil, a, CheckFreezeInclusion, verdict.MsgPromoErr},
		{"rules hash", edit(func(r *FreezeReceipt) { r.RulesHash = strings.Repeat("ab", 32) }), nil, a, CheckRules, verdict.MsgFreezeRulesDiffer},
		{"draw", edit(func(r *FreezeReceipt) { r.Draw = "bonus-crescendo/2" }), nil, a, CheckReceiptFields, verdict.MsgFreezeField},
		{"count", edit(func(r *FreezeReceipt) { r.Count = 6 }), nil, a, CheckReceiptFields, verdict.MsgFreezeField},
		{"entrants root", edit(func(r *FreezeReceipt) { r.Root = strings.Repeat("0", 64) }), nil, a, CheckReceiptFields, verdict.MsgFreezeField},
		{"entrants root in capitals", edit(func(r *FreezeReceipt) { r.Root = strings.ToUpper(r.Root) }), nil, a, CheckReceiptFields, verdict.MsgFreezeField},
		{"commitment", edit(func(r *FreezeReceipt) { r.Commitment = strings.Repeat("1", 64) }), nil, a, CheckReceiptFields, verdict.MsgFreezeField},
		{"reserves", edit(func(r *FreezeReceipt) { r.Reserves = 2 }), nil, a, CheckReceiptFields, verdict.MsgFreezeField},
		{"beacon", edit(func(r *FreezeReceipt) { r.Beacon = "drand:" + strings.Repeat("a", 64) + ":1" }), nil, a, CheckReceiptFields, verdict.MsgFreezeField},
		{"share commitment shown, none frozen", edit(func(r *FreezeReceipt) { r.ShareCommitment = strings.Repeat("3", 64) }), nil, a, CheckReceiptFields, verdict.MsgFreezeField},
		{"frozen at", edit(func(r *FreezeReceipt) { r.FrozenAt = "2016-06-20T15:00:00Z" }), nil, a, CheckReceiptFields, verdict.MsgFreezeField},
		{"leaf hash", edit(func(r *FreezeReceipt) { r.FreezeLeafHash = strings.Repeat("2", 64) }), nil, a, CheckReceiptFields, verdict.MsgFreezeField},
		{"participants", edit(func(r *FreezeReceipt) { r.Participants = 999 }), nil, a, CheckReceiptFields, verdict.MsgFreezeParticipants},
		{"withheld negative", edit(func(r *FreezeReceipt) { r.Withheld, r.Participants = -4, r.Participants-4 }), nil, a, CheckReceiptFields, verdict.MsgFreezeParticipants},
		{"withheld without participants", edit(func(r *FreezeReceipt) { r.Withheld++ }), nil, a, CheckReceiptFields, verdict.MsgFreezeParticipants},
		{"list digest not hex", edit(func(r *FreezeReceipt) { r.EntrantsFile = "not hex at all" }), nil, a, CheckReceiptFields, verdict.MsgFreezeListDigest},
		{"list digest in capitals", edit(func(r *FreezeReceipt) { r.EntrantsFile = strings.ToUpper(r.EntrantsFile) }), nil, a, CheckReceiptFields, verdict.MsgFreezeListDigest},
		{"list of another draw", file, withList(func(l *EntrantList) { l.Draw = "bonus-crescendo/2" }), a, CheckEntrantList, verdict.MsgPromoListDraw},
		{"list not canonical", file, withList(func(l *EntrantList) { l.Accounts[0], l.Accounts[1] = l.Accounts[1], l.Accounts[0] }), a, CheckEntrantList, verdict.MsgPromoErr},
		{"one account more", file, withList(func(l *EntrantList) { l.Accounts = append(l.Accounts, "zoe") }), a, CheckEntrantRoot, verdict.MsgPromoListSize},
		{"one account changed", file, withList(func(l *EntrantList) { l.Accounts[4] += "x" }), a, CheckEntrantRoot, verdict.MsgPromoListRoot},
		{"list under another key", file, withList(func(l *EntrantList) { l.Key[0] ^= 1 }), a, CheckEntrantRoot, verdict.MsgPromoListRoot},
		{"list SHA-256 differs", edit(func(r *FreezeReceipt) { r.EntrantsFile = strings.Repeat("3", 64) }), list, a, CheckEntrantsFile, verdict.MsgFreezeListFile},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := VerifyFreezeReceipt(c.file, c.list, c.a)
			var ce *CheckError
			if !errors.As(err, &ce) || ce.Check != c.check || ce.Msg.ID != c.msg {
				t.Fatalf("%v, want check %s (%s)", err, c.check, c.msg)
			}
			// MsgPromoErr passes the core's error through: rngverify
			// translates it (receipt.Cause).
			if en, fr := ce.Msg.Text("en"), ce.Msg.Text("fr"); (en == fr && c.msg != verdict.MsgPromoErr) || ce.Error() != c.check+": "+en {
				t.Errorf("messages: en %q, fr %q, error %q", en, fr, ce.Error())
			}
		})
	}
	// The receipt's own keys are used only without anchors (as for Verify):
	// the re-signed checkpoint then opens, and nothing else changed.
	if _, err := VerifyFreezeReceipt(cases[5].file, nil, Anchors{Reserves: -1}); err != nil {
		t.Errorf("under its own key: %v", err)
	}
	// Without the list, its SHA-256 is not checked (it is not in the log).
	if _, err := VerifyFreezeReceipt(cases[len(cases)-1].file, nil, a); err != nil {
		t.Errorf("SHA-256 changed, no list: %v", err)
	}
}

// FuzzVerifyFreezeReceipt: a freeze receipt is untrusted input. Whatever
// the bytes, VerifyFreezeReceipt does not panic and fails with a
// *CheckError in the catalog's words; what it accepts, with or without the
// entrant list, is one of the fixtures' receipts (freeze-receipt.json,
// binding no input file; freeze-inputs-receipt.json, binding three) but
// for white space, member order, the informative members (title, days,
// withheld, participants, the input files' names), its own log keys when
// the anchors give them, and without the list the list's SHA-256: the
// record, the proof, every displayed member and the input files' roles,
// order and SHA-256s are bound.
func FuzzVerifyFreezeReceipt(f *testing.F) {
	file, rc, list, a := freezeFixture(f)
	ifile, irc, ilist, ia := freezeInputsFixture(f)
	fixtures := []struct {
		file []byte
		rc   FreezeReceipt
		list *EntrantList
		a    Anchors
	}{{file, rc, list, a}, {ifile, irc, ilist, ia}}
	compact, _ := json.Marshal(rc)
	icompact, _ := json.Marshal(irc)
	for _, b := range [][]byte{
		file, compact, append(bytes.Clone(file), " \n"...),
		ifile, icompact,
		// Slightly broken.
		bytes.Replace(file, []byte(`"count": 5`), []byte(`"count": 6`), 1),
		bytes.Replace(file, []byte(`"v": 1,`), []byte(`"v": 1, "v": 1,`), 1),
		append(bytes.Clone(file), '}'), file[:len(file)/2], []byte(`{"v":1}`), []byte(`[]`),
		bytes.Replace(ifile, []byte(`"role": "closed"`), []byte(`"role": "stakes"`), 1),
		bytes.Replace(ifile, []byte(`"name": "stakes-1.csv"`), []byte(`"name": "renamed.csv"`), 1),
		bytes.Replace(ifile, []byte(`"sha256": "`), []byte(`"sha256": "0`), 1),
		bytes.Replace(ifile, []byte(`"role": "stakes",`), []byte(`"role": "stakes", "role": "stakes",`), 1),
		bytes.Replace(ifile, []byte(`"inputs": [`), []byte(`"inputs": [{"role":"stakes","name":"x","sha256":"`+strings.Repeat("0", 64)+`"},`), 1),
		bytes.Replace(ifile, []byte(`"inputs": [`), []byte(`"inputs": [{"role":"stakes","extra":1},`), 1),
	} {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for k := range 4 {
			fx, l := fixtures[k/2], fixtures[k/2].list
			if k%2 == 0 {
				l = nil
			}
			v, err := VerifyFreezeReceipt(b, l, fx.a)
			if err != nil {
				var ce *CheckError
				if !errors.As(err, &ce) || ce.Msg.ID == "" || v != nil {
					t.Fatalf("%q: %v is not a *CheckError with a message", b, err)
				}
				continue
			}
			var r FreezeReceipt
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatalf("accepted %q, which encoding/json refuses: %v", b, err)
			}
			// Only the informative members (in no record) may differ, the
			// receipt's log keys (the anchors' are used), the input files'
			// names, and without the list its SHA-256.
			want := fx.rc
			r.Title, r.Days, r.Withheld, r.Participants, r.LogKeys = want.Title, want.Days, want.Withheld, want.Participants, want.LogKeys
			if len(r.Inputs) == len(want.Inputs) {
				for j := range r.Inputs {
					r.Inputs[j].Name = want.Inputs[j].Name
				}
			}
			if l == nil {
				r.EntrantsFile = want.EntrantsFile
			}
			if again := FreezeReceiptJSON(&r); !bytes.Equal(again, fx.file) {
				t.Fatalf("accepted %q, another receipt than the fixture: %s", b, again)
			}
		}
	})
}

// The fuzz seeds load: the fixtures verify, each under its anchors (as the
// fuzz target runs them), so the round trip runs.
func TestFreezeFuzzSeedsVerify(t *testing.T) {
	file, _, list, a := freezeFixture(t)
	ifile, _, ilist, ia := freezeInputsFixture(t)
	renamed := bytes.Replace(ifile, []byte(`"name": "stakes-1.csv"`), []byte(`"name": "renamed.csv"`), 1)
	for _, c := range []struct {
		file []byte
		list *EntrantList
		a    Anchors
	}{{file, list, a}, {append(bytes.Clone(file), " \n"...), list, a}, {compactJSON(file), list, a}, {ifile, ilist, ia}, {compactJSON(ifile), ilist, ia}, {renamed, ilist, ia}} {
		if _, err := VerifyFreezeReceipt(c.file, c.list, c.a); err != nil {
			t.Errorf("seed %.40q: %v", c.file, err)
		}
	}
}

func compactJSON(b []byte) []byte {
	out, _ := json.Marshal(json.RawMessage(b))
	return out
}
