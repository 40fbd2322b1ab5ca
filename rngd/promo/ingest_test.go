package promo

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/promo/stakes"
)

// The JSON Lines and CSV readers see the same rows the same way.
func TestIngestFormatsAgree(t *testing.T) {
	r, _ := exampleRules(t)
	tallies := map[string]*promo.Tally{}
	stats := map[string]stakes.IngestStats{}
	for _, f := range []string{stakes.FormatCSV, stakes.FormatJSONL} {
		var buf bytes.Buffer
		if err := Generate(&buf, r, GenConfig{Rows: 30_000, Accounts: 2000, Seed: 3, Format: f, Defects: true}); err != nil {
			t.Fatal(err)
		}
		tallies[f] = promo.NewTally(r)
		var rej bytes.Buffer
		st, err := stakes.Ingest(context.Background(), &buf, f, tallies[f], &rej, nil)
		if err != nil {
			t.Fatal(err)
		}
		if st.Rejected == 0 || int64(strings.Count(rej.String(), "\n")) != st.Rejected {
			t.Fatalf("%s: %d rejected, report:\n%s", f, st.Rejected, rej.String())
		}
		stats[f] = st
	}
	c, j := stats[stakes.FormatCSV], stats[stakes.FormatJSONL]
	if c.Lines != j.Lines || c.Rejected != j.Rejected || c.Counted != j.Counted || c.Excluded != j.Excluded {
		t.Fatalf("csv %+v, jsonl %+v", c, j)
	}
	for a := range 2000 {
		acct := "A" + strconv.Itoa(a)
		for d := range r.Days {
			if tallies[stakes.FormatCSV].Total(acct, d) != tallies[stakes.FormatJSONL].Total(acct, d) {
				t.Fatalf("%s day %d differs", acct, d)
			}
		}
	}
}

// FuzzIngest: whatever the bytes, every data line is either counted,
// excluded or reported, and nothing panics.
func FuzzIngest(f *testing.F) {
	r, _ := exampleRules(f)
	var csv, jl bytes.Buffer
	Generate(&csv, r, GenConfig{Rows: 20, Seed: 1, Format: stakes.FormatCSV, Defects: true})
	Generate(&jl, r, GenConfig{Rows: 20, Seed: 1, Format: stakes.FormatJSONL, Defects: true})
	f.Add(csv.Bytes(), false)
	f.Add(jl.Bytes(), true)
	f.Add([]byte("id,account,time,game,amount_cents,channel\n\"\n"), false)
	f.Fuzz(func(t *testing.T, b []byte, jsonl bool) {
		format := stakes.FormatCSV
		if jsonl {
			format = stakes.FormatJSONL
		}
		tl := promo.NewTally(r)
		var rej bytes.Buffer
		st, err := stakes.Ingest(context.Background(), bytes.NewReader(b), format, tl, &rej, nil)
		if err != nil {
			return // header-level problems refuse the whole file
		}
		var excluded int64
		for _, n := range st.Excluded {
			excluded += n
		}
		if st.Counted+excluded+st.Rejected != st.Lines {
			t.Fatalf("%d lines: %d counted + %d excluded + %d rejected", st.Lines, st.Counted, excluded, st.Rejected)
		}
		if int64(strings.Count(rej.String(), "\n")) != st.Rejected {
			t.Fatalf("%d rejected, %d reported", st.Rejected, strings.Count(rej.String(), "\n"))
		}
	})
}

// The e-credit report, byte for byte, on a small case.
func TestECreditReport(t *testing.T) {
	r, _ := exampleRules(t)
	in := "id,account,time,game,amount_cents,channel\n" +
		"1,bob,2016-06-13T09:00:00+02:00,illiko-express,1000,web\n" +
		"2,al,2016-06-19T23:59:59+02:00,bingo-live,1500,app\n" +
		"3,al,2016-06-13T09:00:00+02:00,illiko-action,999,web\n" +
		"4,cy,2016-06-13T09:00:00+02:00,illiko-action,5000,web\n"
	tl := promo.NewTally(r)
	if _, err := stakes.Ingest(context.Background(), strings.NewReader(in), stakes.FormatCSV, tl, &bytes.Buffer{}, nil); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	n, total, err := WriteECredits(&out, tl.Eligibility(promo.Closed{"cy": {}}))
	want := ECreditHeader +
		"bob,2016-06-13,500,2016-06-20,2016-06-27\n" +
		"al,2016-06-19,800,2016-06-26,2016-07-03\n"
	if err != nil || n != 2 || total != 1300 || out.String() != want {
		t.Fatalf("%d e-credits, %d cents, %v:\n%s", n, total, err, out.String())
	}
}
