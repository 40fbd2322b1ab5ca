package stakes

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// Stake files of draw 1 (fed by 2016-06-16, loto, 12 € minimum): alice,
// bob and carol take part, dave stakes too little; erin's account was
// closed before the draw.
const (
	recStakes1 = "id,account,time,game,amount_cents,channel\n" +
		"1,alice,2016-06-16T10:00:00+02:00,loto,1200,web\n" +
		"2,bob,2016-06-16T11:00:00+02:00,loto,700,web\n" +
		"3,bob,2016-06-16T12:00:00+02:00,loto,600,app\n"
	recStakes2 = `{"id":"4","account":"carol","time":"2016-06-16T10:00:00+02:00","game":"loto","amount_cents":1500,"channel":"web"}` + "\n" +
		`{"id":"5","account":"dave","time":"2016-06-16T10:00:00+02:00","game":"loto","amount_cents":500,"channel":"web"}` + "\n" +
		`{"id":"6","account":"erin","time":"2016-06-16T10:00:00+02:00","game":"loto","amount_cents":2000,"channel":"web"}` + "\n"
	recClosed = "account,closed_at\nerin,2016-06-18T10:00:00+02:00\n"
)

func recompute(t *testing.T, s1, s2, closed string) *Recomputed {
	t.Helper()
	r, _ := exampleRules(t)
	rc, err := Recompute(context.Background(), r, []File{{"stakes-1.csv", strings.NewReader(s1)}, {"stakes-2.jsonl", strings.NewReader(s2)}},
		&File{"closed.csv", strings.NewReader(closed)})
	if err != nil {
		t.Fatal(err)
	}
	return rc
}

// Recompute reads the files as rngctl does (formats by name, the closed
// accounts withheld) and hashes each, once; CheckRecomputed passes the
// freeze of that list under its key and fails, naming the counts, for
// files with an entrant's rows left out, and for a freeze of another list
// of the same size; rules that are not the frozen ones are refused.
func TestRecompute(t *testing.T) {
	rc := recompute(t, recStakes1, recStakes2, recClosed)
	if got := strings.Join(rc.Eligibility.Entrants[0], ","); got != "alice,bob,carol" {
		t.Fatalf("draw 1 entrants %q, want alice,bob,carol", got)
	}
	for i, data := range []string{recStakes1, recStakes2, recClosed} {
		if h := sha256.Sum256([]byte(data)); rc.Inputs[i].SHA256 != hex.EncodeToString(h[:]) {
			t.Errorf("input %d: sha256 %s", i, rc.Inputs[i].SHA256)
		}
	}
	if len(rc.Inputs) != 3 || rc.Inputs[2].Role != promo.InputClosed || rc.Stats.Lines != 6 {
		t.Fatalf("inputs %+v, stats %+v", rc.Inputs, rc.Stats)
	}

	_, rulesFile := exampleRules(t)
	freeze := func(accounts []string) (*promo.EntrantList, [32]byte) {
		l := &promo.EntrantList{Draw: "bonus-crescendo/1", Accounts: accounts}
		l.Key[0] = 9
		tree, err := l.Tree()
		if err != nil {
			t.Fatal(err)
		}
		return l, tree.Root()
	}
	l, root := freeze(rc.Eligibility.Entrants[0])
	tree, _ := l.Tree()
	f, err := promo.NewFreeze(promo.FreezeInput{Operation: "bonus-crescendo", RulesHash: promo.RulesHash(rulesFile), Draw: l.Draw, Tree: tree,
		Reserves: 0, KeyID: "k", Now: time.Date(2016, 6, 20, 16, 0, 0, 0, time.UTC), Inputs: rc.Inputs})
	if err != nil || f.Root != root {
		t.Fatal(err)
	}
	if err := promo.CheckRecomputed(f, rulesFile, rc.Eligibility, l.Key); err != nil {
		t.Fatalf("the files frozen: %v", err)
	}
	// bob's rows left out of the first stake file.
	filtered := recompute(t, strings.Split(recStakes1, "2,bob")[0], recStakes2, recClosed)
	other, _ := freeze([]string{"alice", "bob", "zoe"})
	otherTree, _ := other.Tree()
	sameSize := *f
	sameSize.Root = otherTree.Root()
	edited := append([]byte(nil), rulesFile...)
	edited = append(edited, "# edited\n"...)
	for _, c := range []struct {
		name  string
		f     *record.PromoFreeze
		rules []byte
		el    *promo.Eligibility
		msg   verdict.MsgID
		says  string
	}{
		{"an entrant's rows left out", f, rulesFile, filtered.Eligibility, verdict.MsgRecomputedCount, "the input files give 2 entrants under the frozen rules, the freeze 3"},
		{"another list frozen", &sameSize, rulesFile, rc.Eligibility, verdict.MsgRecomputedRoot, "the input files give 3 entrants under the frozen rules, as many as frozen, but another list"},
		{"other rules", f, edited, rc.Eligibility, verdict.MsgPromoErr, "the rules file hashes to "},
		{"no eligibility", f, rulesFile, nil, verdict.MsgRecomputedRules, "not recomputed under the rules the freeze binds"},
	} {
		err := promo.CheckRecomputed(c.f, c.rules, c.el, l.Key)
		var ce *promo.CheckError
		if !errors.As(err, &ce) || ce.Check != promo.CheckEntrantsRecomputed || ce.Msg.ID != c.msg || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want %s saying %q", c.name, err, c.msg, c.says)
		}
	}
	// Under another key, the same files give another root.
	if err := promo.CheckRecomputed(f, rulesFile, rc.Eligibility, [32]byte{1}); err == nil {
		t.Error("recomputed under another key: passed")
	}
}

// Add sums every count, the exclusions by reason included: rngctl's
// summary and rngverify's rows fact add several files' stats with it.
func TestIngestStatsAdd(t *testing.T) {
	a := IngestStats{Lines: 5, Rejected: 1, Counted: 3}
	a.Excluded[0], a.Excluded[promo.NumExclusions-1] = 1, 2
	b := IngestStats{Lines: 7, Rejected: 2, Counted: 4}
	b.Excluded[promo.NumExclusions-1] = 3
	a.Add(b)
	want := IngestStats{Lines: 12, Rejected: 3, Counted: 7}
	want.Excluded[0], want.Excluded[promo.NumExclusions-1] = 1, 5
	if a != want {
		t.Errorf("sum %+v, want %+v", a, want)
	}
}
