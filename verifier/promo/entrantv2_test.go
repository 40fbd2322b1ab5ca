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
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// TestEntrantSchemeV2KnownAnswer checks scheme 2 against values computed
// independently, once, with Python's hmac and hashlib:
//
//	import hmac, hashlib, struct
//	def lp(b): return struct.pack(">I", len(b)) + b
//	K = bytes(range(32)); D = b"bonus-crescendo/1"
//	for A in [b"alice", b"acct:42"]:
//	    salt = hmac.new(K, b"tirage/promo/entrant-salt/v2" + lp(D) + lp(A), hashlib.sha256).digest()
//	    data = hashlib.sha256(b"tirage/promo/entrant/v2" + lp(D) + lp(A) + salt).digest()
//	    leaf = hashlib.sha256(b"\x00" + data).digest()
//	    print(A, salt.hex(), data.hex(), leaf.hex())
//	# root of the sorted list [acct:42, alice]: sha256(b"\x01" + leaf(acct:42) + leaf(alice))
func TestEntrantSchemeV2KnownAnswer(t *testing.T) {
	var key [32]byte
	for i := range key {
		key[i] = byte(i)
	}
	const draw = "bonus-crescendo/1"
	for _, c := range []struct{ account, salt, data, leaf string }{
		{"alice", "aa3cc78eb70c2eaaaffac3c19d786978045d4efecd38a87c306a0b42356bf7d4",
			"553c7407061d631d99216849339b0e1c9e5f88fd71e83038916c1340e277ea83",
			"0f6079efd07c6fd772f8d47457508d801858d343a37265fccd5ae5fb6048e1ab"},
		{"acct:42", "af47f45c7a932d7600adaba609d4971d3d4f0604845fa1b607e96a380fd3dc38",
			"6e1563d86c528c01629e068dc68727506b1e22209e0b6d1246ffd8c8159280b2",
			"6f1e4a6c816600ce09db00ee12baff3d19f809264e1b9ba308d0ca223531cb57"},
	} {
		salt := EntrantSalt(key, draw, c.account)
		if got := hex.EncodeToString(salt[:]); got != c.salt {
			t.Errorf("%s: salt %s, want %s", c.account, got, c.salt)
		}
		data := EntrantDataV2(draw, c.account, salt)
		if got := hex.EncodeToString(data[:]); got != c.data {
			t.Errorf("%s: data %s, want %s", c.account, got, c.data)
		}
		leaf, err := EntrantLeaf(EntrantSchemeV2, key, draw, c.account)
		if got := hex.EncodeToString(leaf[:]); err != nil || got != c.leaf {
			t.Errorf("%s: leaf %s (%v), want %s", c.account, got, err, c.leaf)
		}
		// Scheme 1 gives another leaf: the scheme is not ignored.
		if v1, _ := EntrantLeaf(EntrantSchemeV1, key, draw, c.account); hex.EncodeToString(v1[:]) == c.leaf {
			t.Errorf("%s: scheme 1 gives scheme 2's leaf", c.account)
		}
	}
	l := &EntrantList{Draw: draw, Key: key, Accounts: []string{"acct:42", "alice"}, Scheme: EntrantSchemeV2}
	tree, err := l.Tree()
	if err != nil {
		t.Fatal(err)
	}
	if r := tree.Root(); hex.EncodeToString(r[:]) != "18e49b15111352b63ffb5a0da0dd7da0f27f171b741648dab53888d779aeafe5" || tree.Scheme() != EntrantSchemeV2 {
		t.Errorf("root %x, scheme %d", r, tree.Scheme())
	}
	if _, err := EntrantLeaf(1, key, draw, "alice"); err == nil {
		t.Error("scheme 1 written as 1 (absent says it) accepted")
	}
}

// TestEntrantSchemeFollowsFreeze: the bailiff's list is checked under the
// scheme the freeze states, both for a scheme 2 freeze and for a scheme 1
// one (absent), whose list hashes as before.
func TestEntrantSchemeFollowsFreeze(t *testing.T) {
	for _, scheme := range []uint64{EntrantSchemeV1, EntrantSchemeV2} {
		list := &EntrantList{Draw: "bonus-crescendo/1", Accounts: accounts(5), Scheme: scheme}
		list.Key[0] = 7
		tree, err := list.Tree()
		if err != nil {
			t.Fatal(err)
		}
		f := testFreeze(t, list.Draw, tree)
		if f.EntrantScheme != scheme {
			t.Fatalf("scheme %d: the freeze states %d", scheme, f.EntrantScheme)
		}
		// The list as the file gives it back: no scheme; the freeze's is used.
		parsed, err := ParseEntrantList(list.Format())
		if err != nil {
			t.Fatal(err)
		}
		if err := checkFrozenList(parsed, f); err != nil {
			t.Errorf("scheme %d: %v", scheme, err)
		}
		e, err := FindEntrant(parsed.ForFreeze(f), f, accounts(5)[2])
		if err != nil || e == nil || e.Leaf != tree.Leaf(2) {
			t.Errorf("scheme %d: FindEntrant %+v, %v", scheme, e, err)
		}
		// The other scheme's freeze of the same list does not check.
		other := *f
		other.EntrantScheme = EntrantSchemeV2 - scheme
		if err := checkFrozenList(parsed, &other); err == nil {
			t.Errorf("scheme %d: list checked under the other scheme", scheme)
		}
		var leaf tlog.Hash = tree.Leaf(0)
		if Pseudonym(leaf) == "" {
			t.Error("no pseudonym")
		}
	}
}

// testFreeze is the freeze record NewFreeze makes of tree.
func testFreeze(t testing.TB, draw string, tree *EntrantTree) *record.PromoFreeze {
	t.Helper()
	f, err := NewFreeze(FreezeInput{Operation: "bonus-crescendo", RulesHash: RulesHash([]byte("rules")), Draw: draw, Tree: tree,
		Reserves: 1, KeyID: "vrf-test", Now: time.Date(2016, 6, 20, 18, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// schemeFreeze freezes n accounts under scheme in an in-memory log and
// returns the freeze receipt file, the list, its tree and the anchors.
func schemeFreeze(t testing.TB, scheme uint64, n int) (file []byte, list *EntrantList, tree *EntrantTree, a Anchors) {
	t.Helper()
	list = &EntrantList{Draw: "bonus-crescendo/1", Accounts: accounts(n), Scheme: scheme}
	(&detReader{ctr: 11}).Read(list.Key[:])
	tree, err := list.Tree()
	if err != nil {
		t.Fatal(err)
	}
	f := testFreeze(t, list.Draw, tree)
	lg := newMemLog(t)
	lg.append(t, []byte("a key announcement"))
	leaf := mustFormat(t, f)
	fi := lg.append(t, leaf)
	lg.append(t, []byte("another draw's record"))
	lh := record.LeafHash(leaf)
	ls := sha256.Sum256(list.Format())
	rc := &FreezeReceipt{
		V: 1, Draw: f.Draw, Title: "Tirage n° 1", RulesHash: hex.EncodeToString(f.Rules[:]), Days: []string{"2016-06-16"},
		Count: f.Count, Root: hex.EncodeToString(f.Root[:]), Commitment: hex.EncodeToString(f.Commit[:]), Reserves: f.Reserves,
		FrozenAt: FormatTime(f.Time), Participants: int(f.Count), Freeze: *lg.logged(t, fi), FreezeLeafHash: hex.EncodeToString(lh[:]),
		Checkpoint: string(lg.checkpoint(t)), LogKeys: []string{lg.vkey}, EntrantsFile: hex.EncodeToString(ls[:]),
	}
	return FreezeReceiptJSON(rc), list, tree, Anchors{LogKeys: []string{lg.vkey}, Reserves: -1}
}

const entrantProofFile = "testdata/entrant-proof.json"

func TestEntrantProofVerifies(t *testing.T) {
	file, list, tree, a := schemeFreeze(t, EntrantSchemeV2, 7)
	// The bailiff's checks pass under the freeze's scheme.
	if _, err := VerifyFreezeReceipt(file, list, a); err != nil {
		t.Fatal(err)
	}
	for i, acct := range list.Accounts {
		p, err := NewEntrantProof(list, tree, file, acct)
		if err != nil {
			t.Fatal(err)
		}
		v, err := VerifyEntrantProof(EntrantProofJSON(p), a)
		if err != nil {
			t.Fatalf("%s: %v", acct, err)
		}
		if v.Index != uint64(i) || v.Account != acct || v.Pseudonym() != Pseudonym(tree.Leaf(int64(i))) || v.Count != 7 {
			t.Errorf("%s: %+v", acct, v)
		}
		// The proof holds the account's salt only: not K, not another's.
		b := EntrantProofJSON(p)
		if bytes.Contains(b, []byte(hex.EncodeToString(list.Key[:]))) {
			t.Fatal("the proof holds the freeze key")
		}
		for _, other := range list.Accounts {
			if s := EntrantSalt(list.Key, list.Draw, other); other != acct && bytes.Contains(b, []byte(hex.EncodeToString(s[:]))) {
				t.Fatalf("%s's proof holds %s's salt", acct, other)
			}
		}
	}
	// testdata/entrant-proof.json is account acct-000003's proof of this
	// freeze: the browser page's test reads it.
	p, err := NewEntrantProof(list, tree, file, list.Accounts[3])
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("TIRAGE_WRITE_ENTRANT_FIXTURE") != "" {
		if err := os.WriteFile(entrantProofFile, EntrantProofJSON(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if b, err := os.ReadFile(entrantProofFile); err != nil || !bytes.Equal(b, EntrantProofJSON(p)) {
		t.Errorf("%s is not this freeze's proof (TIRAGE_WRITE_ENTRANT_FIXTURE=1 writes it): %v", entrantProofFile, err)
	}
	if _, err := NewEntrantProof(list, tree, file, "nobody"); !errors.Is(err, ErrNotEntrant) {
		t.Errorf("an account not in the list: %v", err)
	}
}

func TestEntrantProofTampered(t *testing.T) {
	file, list, tree, a := schemeFreeze(t, EntrantSchemeV2, 7)
	p, err := NewEntrantProof(list, tree, file, list.Accounts[3])
	if err != nil {
		t.Fatal(err)
	}
	other, _ := NewEntrantProof(list, tree, file, list.Accounts[4])
	v1file, v1list, v1tree, _ := schemeFreeze(t, EntrantSchemeV1, 7)
	_ = v1tree
	edit := func(f func(q *EntrantProof)) []byte {
		q := *p
		q.Proof = append([]string(nil), p.Proof...)
		f(&q)
		return EntrantProofJSON(&q)
	}
	flip := func(s string) string {
		b, _ := hex.DecodeString(s)
		b[0] ^= 1
		return hex.EncodeToString(b)
	}
	var rc FreezeReceipt
	if err := json.Unmarshal(file, &rc); err != nil {
		t.Fatal(err)
	}
	otherRecord := rc
	otherRecord.Freeze.Record = strings.Replace(rc.Freeze.Record, `"reserves":1`, `"reserves":0`, 1)
	for _, c := range []struct {
		name  string
		file  []byte
		check string
		msg   verdict.MsgID
	}{
		{"salt", edit(func(q *EntrantProof) { q.Salt = flip(q.Salt) }), CheckEntrantInclusion, verdict.MsgEntrantNotIn},
		{"another's salt", edit(func(q *EntrantProof) { q.Salt = other.Salt }), CheckEntrantInclusion, verdict.MsgEntrantNotIn},
		{"account", edit(func(q *EntrantProof) { q.Account = list.Accounts[4] }), CheckEntrantInclusion, verdict.MsgEntrantNotIn},
		{"index", edit(func(q *EntrantProof) { q.Index = 4 }), CheckEntrantInclusion, verdict.MsgEntrantNotIn},
		{"index beyond", edit(func(q *EntrantProof) { q.Index = 7 }), CheckEntrantInclusion, verdict.MsgEntrantIndex},
		{"proof", edit(func(q *EntrantProof) { q.Proof[0] = flip(q.Proof[0]) }), CheckEntrantInclusion, verdict.MsgEntrantNotIn},
		{"proof cut", edit(func(q *EntrantProof) { q.Proof = q.Proof[1:] }), CheckEntrantInclusion, verdict.MsgEntrantNotIn},
		{"proof hex", edit(func(q *EntrantProof) { q.Proof[0] = "zz" }), CheckEntrantInclusion, verdict.MsgEntrantProofHex},
		// The same hash spelled in upper case: one spelling per proof.
		{"proof upper case", edit(func(q *EntrantProof) { q.Proof[0] = "A" + strings.Repeat("0", 63) }), CheckEntrantInclusion, verdict.MsgEntrantProofHex},
		{"count", edit(func(q *EntrantProof) { q.Count = 8 }), CheckEntrantInclusion, verdict.MsgEntrantField},
		{"draw", edit(func(q *EntrantProof) { q.Draw = "bonus-crescendo/2" }), CheckEntrantInclusion, verdict.MsgEntrantField},
		{"salt short", edit(func(q *EntrantProof) { q.Salt = q.Salt[2:] }), CheckReceiptFormat, verdict.MsgEntrantSalt},
		{"salt upper case", edit(func(q *EntrantProof) { q.Salt = strings.ToUpper(q.Salt) }), CheckReceiptFormat, verdict.MsgEntrantSalt},
		{"account invalid", edit(func(q *EntrantProof) { q.Account = "a b" }), CheckReceiptFormat, verdict.MsgEntrantAccount},
		{"version", edit(func(q *EntrantProof) { q.V = 2 }), CheckReceiptFormat, verdict.MsgPromoVersion},
		{"unknown member", bytes.Replace(EntrantProofJSON(p), []byte(`"v": 1`), []byte(`"v": 1, "key": "00"`), 1), CheckReceiptFormat, verdict.MsgEntrantNotProof},
		{"record", edit(func(q *EntrantProof) { q.FreezeReceipt = FreezeReceiptJSON(&otherRecord) }), CheckFreezeInclusion, verdict.MsgPromoErr},
		{"scheme 1 freeze", edit(func(q *EntrantProof) { q.FreezeReceipt = v1file }), CheckEntrantScheme, verdict.MsgEntrantSchemeOld},
	} {
		_, err := VerifyEntrantProof(c.file, a)
		var ce *CheckError
		if !errors.As(err, &ce) || ce.Check != c.check || ce.Msg.ID != c.msg {
			t.Errorf("%s: %v, want check %s, %s", c.name, err, c.check, c.msg)
		}
		if ce != nil && c.msg != verdict.MsgPromoErr {
			if en, fr := ce.Msg.Text("en"), ce.Msg.Text("fr"); en == fr || strings.Contains(en+fr, "%!") || ce.Error() != c.check+": "+en {
				t.Errorf("%s: messages: en %q, fr %q, error %q", c.name, en, fr, ce.Error())
			}
		}
	}
	// Under another log key nothing is verified.
	if _, err := VerifyEntrantProof(EntrantProofJSON(p), Anchors{LogKeys: []string{"tirage.test/other+00000000+AAAA"}}); err == nil {
		t.Error("verified under another log key")
	}
	// A scheme 1 freeze gives no proof.
	if _, err := NewEntrantProof(v1list, v1tree, v1file, v1list.Accounts[0]); !errors.Is(err, ErrEntrantSchemeV1) {
		t.Errorf("scheme 1: %v", err)
	}
}

func FuzzVerifyEntrantProof(f *testing.F) {
	file, list, tree, a := schemeFreeze(f, EntrantSchemeV2, 5)
	p, err := NewEntrantProof(list, tree, file, list.Accounts[2])
	if err != nil {
		f.Fatal(err)
	}
	good := EntrantProofJSON(p)
	f.Add(good)
	if b, err := os.ReadFile(entrantProofFile); err == nil {
		f.Add(b)
	}
	f.Add(bytes.Replace(good, []byte(`"index": 2`), []byte(`"index": 3`), 1))
	f.Add([]byte(`{"v":1}`))
	f.Add([]byte(`{"v":1,"draw":"a/b","account":"x","salt":"","index":0,"count":0,"proof":[],"freeze_receipt":{}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := VerifyEntrantProof(b, a)
		if err != nil {
			var ce *CheckError
			if !errors.As(err, &ce) {
				t.Fatalf("not a *CheckError: %v", err)
			}
			return
		}
		// Verified: the account's leaf is in the frozen tree at its index.
		if v.Index >= v.Count || tree.Leaf(int64(v.Index)) != v.Leaf {
			t.Fatalf("verified %+v, not the frozen leaf", v)
		}
	})
}
