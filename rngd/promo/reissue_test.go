package promo

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/record"
)

// A freeze's receipt is re-issued from the request that made it, as
// Receipt makes it, appending nothing; a draw the log holds no freeze of,
// a request that is not the freeze's, a draw id frozen twice in the log
// and a lost state directory are refused.
func TestReissueReceipt(t *testing.T) {
	ctx := context.Background()
	r, rulesFile := exampleRules(t)
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	keys := testKeys(t, filepath.Join(tmp, "keys"))
	c := &clock{t: freezeAt}
	a, lg := openRandAppliance(t, data, keys, c)
	defer func() { lg.Close() }()
	req := FreezeRequest{Rules: r, RulesFile: rulesFile, DrawIndex: 0, Entrants: fiveOf, Withheld: 2}
	fz, err := a.Freeze(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := a.Receipt(ctx, "bonus-crescendo/1")
	if err != nil {
		t.Fatal(err)
	}
	appends := lg.Stats().Appends
	again, err := a.ReissueReceipt(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ReceiptJSON(again), ReceiptJSON(rc)) {
		t.Errorf("re-issued receipt:\n%s\nwant the freeze's:\n%s", ReceiptJSON(again), ReceiptJSON(rc))
	}

	otherRules := append(bytes.Clone(rulesFile), "# edited\n"...)
	for _, c := range []struct {
		what   string
		edit   func(*FreezeRequest)
		target error
		want   string
	}{
		{"a draw not frozen", func(q *FreezeRequest) { q.DrawIndex = 1 }, ErrNotFrozen, "bonus-crescendo/2: draw not frozen: the log holds no promo_freeze record of it"},
		{"another list", func(q *FreezeRequest) { q.Entrants = fiveOf[1:] }, ErrNotFreezeInputs, "the entrant list given (4 entrants, root "},
		{"one entrant more", func(q *FreezeRequest) { q.Entrants = append([]string{"aaron"}, fiveOf...) }, ErrNotFreezeInputs, "is not the frozen one (5 entrants, root "},
		{"no entrant", func(q *FreezeRequest) { q.Entrants = nil }, ErrNotFreezeInputs, "no entrant given, but the log holds its promo_freeze record at index 1"},
		{"other withheld", func(q *FreezeRequest) { q.Withheld = 3 }, ErrNotFreezeInputs, "3 participants withheld (closed accounts), the freeze's documents say 2"},
		{"other rules", func(q *FreezeRequest) { q.RulesFile = otherRules }, ErrNotFreezeInputs, "the rules file given (sha256 "},
	} {
		q := req
		c.edit(&q)
		_, err := a.ReissueReceipt(ctx, q)
		if !errors.Is(err, c.target) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %v naming %q", c.what, err, c.target, c.want)
		}
	}
	if n := lg.Stats().Appends; n != appends {
		t.Fatalf("%d appends by re-issues, want %d", n, appends)
	}

	// A second freeze of the draw id in the log (an appliance without the
	// check): no receipt.
	second := *fz.Record
	second.Count = 4
	leaf, err := record.Format(&second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lg.Append(ctx, leaf); err != nil {
		t.Fatal(err)
	}
	lg.Close()
	a, lg = openRandAppliance(t, data, keys, c)
	appends = lg.Stats().Appends
	if _, err := a.ReissueReceipt(ctx, req); !errors.Is(err, ErrLoggedTwice) {
		t.Errorf("re-issue of a draw id frozen twice in the log: %v, want ErrLoggedTwice", err)
	}

	// Its state directory lost, a frozen draw has no receipt.
	os.RemoveAll(filepath.Join(data, "promo", "bonus-crescendo", "1"))
	if _, err := a.ReissueReceipt(ctx, req); err == nil || !strings.Contains(err.Error(), "the log holds the promo_freeze record of bonus-crescendo/1 at index 1, but its state directory") {
		t.Errorf("re-issue without the state directory: %v", err)
	}
	if n := lg.Stats().Appends; n != appends {
		t.Fatalf("%d appends by re-issues, want %d", n, appends)
	}
}
