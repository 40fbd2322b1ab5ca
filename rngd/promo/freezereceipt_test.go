package promo

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"

	"tirage.fr/tirage/verifier/promo"
)

// The receipt of a real freeze (the appliance, its embedded log) verifies
// with the verifier's VerifyFreezeReceipt, under the log's keys, with and
// without the entrant list the bailiff gets; a proof of another index, a
// checkpoint signed by another key and a list with one account more are
// refused, each by its check.
//
// TIRAGE_WRITE_FREEZE_FIXTURE=1 writes the receipt and its list to
// verifier/promo/testdata (freeze-receipt.json, freeze-entrants.txt), the
// fixtures of the verifier's and rngverify's tests.
func TestFreezeReceiptVerifies(t *testing.T) {
	ctx := context.Background()
	r, rulesFile := exampleRules(t)
	a, _ := newAppliance(t)
	if _, err := a.Freeze(ctx, FreezeRequest{Rules: r, RulesFile: rulesFile, DrawIndex: 0, Entrants: fiveOf, Withheld: 2}); err != nil {
		t.Fatal(err)
	}
	rc, err := a.Receipt(ctx, "bonus-crescendo/1")
	if err != nil {
		t.Fatal(err)
	}
	st, err := a.load("bonus-crescendo/1")
	if err != nil {
		t.Fatal(err)
	}
	file, listFile := ReceiptJSON(rc), st.list.Format()
	list, err := promo.ParseEntrantList(listFile)
	if err != nil {
		t.Fatal(err)
	}
	anchors := promo.Anchors{LogKeys: a.cfg.Log.VerifierKeys(), Reserves: -1}
	for _, l := range []*promo.EntrantList{nil, list} {
		v, err := promo.VerifyFreezeReceipt(file, l, anchors)
		if err != nil {
			t.Fatalf("the appliance's receipt (list %v): %v", l != nil, err)
		}
		if v.Draw != "bonus-crescendo/1" || v.Index != rc.Freeze.Index || v.Freeze.Count != 5 || v.LeafHash != rc.FreezeLeafHash {
			t.Errorf("verified %+v", v)
		}
		if (l != nil) != (v.EntrantsFile == rc.EntrantsFile) {
			t.Errorf("list %v: entrants file %q, receipt %q", l != nil, v.EntrantsFile, rc.EntrantsFile)
		}
	}
	if os.Getenv("TIRAGE_WRITE_FREEZE_FIXTURE") != "" {
		dir := "../../verifier/promo/testdata"
		if err := os.WriteFile(filepath.Join(dir, "freeze-receipt.json"), file, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "freeze-entrants.txt"), listFile, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	refused := func(what string, rc *FreezeReceipt, l *promo.EntrantList, check string) {
		t.Helper()
		_, err := promo.VerifyFreezeReceipt(ReceiptJSON(rc), l, anchors)
		var ce *promo.CheckError
		if !errors.As(err, &ce) || ce.Check != check {
			t.Errorf("%s: %v, want check %s", what, err, check)
		}
	}
	// The proof of another record (index 0, the key announcement) for the
	// freeze's.
	if rc.Freeze.Index == 0 {
		t.Fatal("the freeze is the log's first record")
	}
	size, err := strconv.ParseUint(strings.Split(rc.Checkpoint, "\n")[1], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	p, err := a.cfg.Log.InclusionProof(ctx, 0, size)
	if err != nil {
		t.Fatal(err)
	}
	other := *rc
	other.Freeze.Proof = promo.ProofHex(p)
	refused("proof of another index", &other, nil, promo.CheckFreezeInclusion)
	other = *rc
	other.Freeze.Index = 0
	refused("the record at another index", &other, nil, promo.CheckFreezeInclusion)

	// The checkpoint's body signed by another key of the same name.
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
	other = *rc
	other.Checkpoint, other.LogKeys = string(resigned), []string{vkey}
	refused("checkpoint signed by another key", &other, nil, promo.CheckCheckpoint)
	if _, err := promo.VerifyFreezeReceipt(ReceiptJSON(&other), nil, promo.Anchors{Reserves: -1}); err != nil {
		t.Errorf("without anchors, the receipt's own key is used (Anchors.LogKeys): %v", err)
	}

	// One account more than was frozen, under the draw's key.
	more := &promo.EntrantList{Draw: list.Draw, Key: list.Key, Accounts: append([]string{"aaron"}, list.Accounts...)}
	refused("one account more", rc, more, promo.CheckEntrantRoot)

	// The fixture is the appliance's: it round-trips through the verifier's type.
	var back promo.FreezeReceipt
	if err := json.Unmarshal(file, &back); err != nil || string(promo.FreezeReceiptJSON(&back)) != string(file) {
		t.Errorf("round trip: %v", err)
	}
}
