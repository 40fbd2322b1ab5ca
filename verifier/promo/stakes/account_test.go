package stakes

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/promo"
)

// RecomputeAccount notes the account's rows as the files are read, with
// everyone's: rows the reader rejects (malformed, in CSV and JSON Lines;
// duplicate ids across files) and rows the rules exclude, each with its
// file and line; the eligibility is Recompute's.
func TestRecomputeAccount(t *testing.T) {
	r, _ := exampleRules(t)
	s1 := recStakes1 +
		"r1,dave,2016-06-16T13:00:00+02:00,loto,12.00,web\n" + // malformed amount
		"r2,dave,2016-06-16T13:00:00+02:00,loto,800,retail\n" + // channel not counted
		"r3,dave,2016-06-16T13:00:00,loto,800,web\n" + // no offset
		"r4,dave,2016-06-16T13:00:00+02:00,loto,800\n" + // a field short: account unread
		",dave,2016-06-16T13:00:00+02:00,loto,800,web\n" // no id: rejected before the account, still dave's
	s2 := recStakes2 +
		`{"id":"r2","account":"dave","time":"2016-06-16T14:00:00+02:00","game":"loto","amount_cents":900,"channel":"web"}` + "\n" + // duplicate of stakes-1.csv's
		`{"id":"r5","account":"dave","time":"2016-06-16T14:00:00+02:00","game":"loto","amount_cents":-900,"channel":"web"}` + "\n"
	read := func(account string) *Recomputed {
		rc, err := RecomputeAccount(context.Background(), r, []File{{"stakes-1.csv", strings.NewReader(s1)}, {"stakes-2.jsonl", strings.NewReader(s2)}},
			&File{"closed.csv", strings.NewReader(recClosed)}, account)
		if err != nil {
			t.Fatal(err)
		}
		return rc
	}
	rc := read("dave")
	st, ok := rc.Eligibility.Standing("bonus-crescendo/1", "dave")
	if !ok || st.Why() != promo.WhyBelowMinimum || st.Days[0].TotalCents != 500 || st.Rows == nil || st.Rows.Counted != 1 {
		t.Fatalf("dave: %+v", st)
	}
	var got []string
	for _, row := range st.Rows.Rows {
		why := row.Rejected
		if why == "" {
			why = row.Excluded.String()
		}
		got = append(got, row.File+":"+strconv.Itoa(row.Line)+" "+why)
	}
	want := []string{
		"stakes-1.csv:5 amount_cents: must be",
		"stakes-1.csv:6 channel not counted",
		"stakes-1.csv:7 time: ",
		"stakes-1.csv:9 id: required",
		"stakes-2.jsonl:4 id: duplicate stake id (first seen in stakes-1.csv on line 6)",
		"stakes-2.jsonl:5 amount_cents: must be",
	}
	if len(got) != len(want) {
		t.Fatalf("dave's rows %q, want %q", got, want)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("row %d: %q, want %q", i, got[i], want[i])
		}
	}
	// The same eligibility as Recompute's, the same files hashed.
	plain := read("")
	if strings.Join(plain.Eligibility.Entrants[0], ",") != strings.Join(rc.Eligibility.Entrants[0], ",") || plain.Stats != rc.Stats || plain.Inputs[0] != rc.Inputs[0] || plain.Inputs[1] != rc.Inputs[1] {
		t.Errorf("watching dave changed the reading: %+v / %+v", plain.Stats, rc.Stats)
	}
	if st, _ := plain.Eligibility.Standing("bonus-crescendo/1", "dave"); st.Rows != nil {
		t.Errorf("no account watched: rows %+v", st.Rows)
	}
}
