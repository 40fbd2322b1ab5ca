package stakes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/promo"
)

func TestIngestBadInput(t *testing.T) {
	r, _ := exampleRules(t)
	for _, c := range []struct{ format, in, err string }{
		{FormatCSV, "", "stake file: line 1: no header line (the file is empty)"},
		{FormatCSV, "\n\r\n", "stake file: line 1: no header line (the file is empty)"},
		{FormatCSV, "id,account,when\n", `unknown column "when"`},
		{FormatCSV, "id,account,time,game,amount_cents\n", `missing column "channel"`},
		{FormatCSV, "id,id,account,time,game,amount_cents,channel\n", `column "id" twice`},
		{"xml", "", "unknown stake format"},
	} {
		_, err := Ingest(context.Background(), strings.NewReader(c.in), c.format, promo.NewTally(r), &bytes.Buffer{}, nil)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%q: %v, want %q", c.in, err, c.err)
		}
	}
	// Row-level problems are reported with their line, and counting goes on.
	in := "id,account,time,game,amount_cents,channel\n" +
		"1,a,2016-06-16T10:00:00+02:00,loto,1200,web\n" +
		"2,b,\"2016-06-16T10:00:00+02:00,loto,1200,web\n"
	var rej bytes.Buffer
	st, err := Ingest(context.Background(), strings.NewReader(in), FormatCSV, promo.NewTally(r), &rej, nil)
	if err != nil || st.Counted != 1 || st.Rejected != 1 || !strings.HasPrefix(rej.String(), "3: csv:") {
		t.Fatalf("%v %+v %q", err, st, rej.String())
	}
	jl := `{"id":"1","account":"a","time":"2016-06-16T10:00:00+02:00","game":"loto","amount_cents":1200,"channel":"web"}` + "\n" +
		`{"id":"2","account":"a","time":"2016-06-16T10:00:00+02:00","game":"loto","amount_cents":1200,"channel":"web","extra":1}` + "\n\n" +
		`{"id":"3","account":"a"` + "\n" +
		`{"id":"4","account":"a","time":"2016-06-16T10:00:00+02:00","game":"loto","amount_cents":12.5,"channel":"web"}` + "\n" +
		strings.Repeat("x", maxLine+10) + "\n" +
		`{"id":"5","account":"a","time":"2016-06-16T10:00:00+02:00","game":"loto","amount_cents":1200,"channel":"web"}`
	rej.Reset()
	st, err = Ingest(context.Background(), strings.NewReader(jl), FormatJSONL, promo.NewTally(r), &rej, nil)
	want := []string{"2: json: unknown field \"extra\"", "4: json:", "5: amount_cents:", "6: line longer than"}
	got := strings.Split(strings.TrimSpace(rej.String()), "\n")
	if err != nil || st.Counted != 2 || len(got) != len(want) {
		t.Fatalf("%v %+v\n%s", err, st, rej.String())
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("rejection %d = %q, want prefix %q", i, got[i], want[i])
		}
	}
}

// A quote left open fails its own row only: the rows after it are read
// (encoding/csv ran the field on over the next lines and the stakes in
// them vanished into one rejected row).
func TestIngestCSVOpenQuote(t *testing.T) {
	r, _ := exampleRules(t)
	in := "id,account,time,game,amount_cents,channel\r\n" +
		"1,a,2016-06-16T10:00:00+02:00,loto,1200,web\r\n" +
		"2,\"b,2016-06-16T10:00:00+02:00,loto,1200,web\n" +
		"3,c,2016-06-16T10:00:00+02:00,loto,1200,web\n" +
		"\n" +
		"4,d,2016-06-16T10:00:00+02:00,loto,1200,\"web\"\n" +
		"5,\"e\"\"\",2016-06-16T10:00:00+02:00,loto,1200,web\n" +
		"6,f,2016-06-16T10:00:00+02:00,\"lo\"to,1200,web\n" +
		"7,g,2016-06-16T10:00:00+02:00,lo\"to,1200,web"
	tl := promo.NewTally(r)
	var rej bytes.Buffer
	st, err := Ingest(context.Background(), strings.NewReader(in), FormatCSV, tl, &rej, nil)
	want := "3: csv: column 3: quoted field not closed on its line\n" +
		"7: account: must match [A-Za-z0-9._:-]{1,64}, got \"e\\\"\"\n" +
		"8: csv: column 35: extraneous \" in quoted field\n" +
		"9: csv: column 33: bare \" in non-quoted field\n"
	if err != nil || st.Lines != 7 || st.Counted != 3 || st.Rejected != 4 || rej.String() != want {
		t.Fatalf("%v %+v\n%s", err, st, rej.String())
	}
	for _, a := range []string{"a", "c", "d"} {
		if tl.Total(a, 3) != 1200 {
			t.Errorf("%s: %d cents on 16 June", a, tl.Total(a, 3))
		}
	}
}

// A JSON line another reader could read otherwise is rejected: a key
// repeated (encoding/json keeps the last) or spelled in another case
// (encoding/json matches keys case-insensitively).
func TestIngestJSONAmbiguousKeys(t *testing.T) {
	r, _ := exampleRules(t)
	const head = `{"id":"1","account":"a","time":"2016-06-16T10:00:00+02:00","game":"loto","channel":"web",`
	in := head + `"amount_cents":1200,"amount_cents":500000}` + "\n" +
		head + `"amount_cents":1200,"AMOUNT_CENTS":500000}` + "\n" +
		`{"ID":"2","account":"b","time":"2016-06-16T10:00:00+02:00","game":"loto","channel":"web","amount_cents":1200}` + "\n" +
		`{"id":"3","account":"c","time":"2016-06-16T10:00:00+02:00","game":"loto","channel":"web","amount_cents":"1200"}` + "\n" +
		`{"id":"4","account":"d","time":"2016-06-16T10:00:00+02:00","game":"loto","channel":"web","amount_cents":1200} {}` + "\n" +
		`{"id":"5","account":"\u0065","time":"2016-06-16T10:00:00+02:00","game":"loto","channel":"web","amount_cents":1200}` + "\n"
	tl := promo.NewTally(r)
	var rej bytes.Buffer
	st, err := Ingest(context.Background(), strings.NewReader(in), FormatJSONL, tl, &rej, nil)
	want := "1: json: field \"amount_cents\" twice\n" +
		"2: json: unknown field \"AMOUNT_CENTS\"\n" +
		"3: json: unknown field \"ID\"\n" +
		"5: json: more than one value on the line\n"
	if err != nil || st.Counted != 2 || rej.String() != want || tl.Total("c", 3) != 1200 || tl.Total("e", 3) != 1200 {
		t.Fatalf("%v %+v\n%s", err, st, rej.String())
	}
}

func TestReadClosed(t *testing.T) {
	c, err := ReadClosed(strings.NewReader("account,closed_at\nA1,2016-06-17T10:00:00+02:00\nA2,\nA1,2016-06-15T10:00:00+02:00\n"))
	if err != nil || len(c) != 2 || !c["A2"].IsZero() || c["A1"].Day() != 15 {
		t.Fatalf("%v %v", err, c)
	}
	for _, in := range []string{"acct\nA1\n", "account,closed_at\nA 1,\n", "account,closed_at\nA1,yesterday\n", "account\nA1,x\n"} {
		if _, err := ReadClosed(strings.NewReader(in)); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

// FuzzFlatJSONLine: wherever the fast JSON path answers, encoding/json
// accepts the line and reads the same fields.
func FuzzFlatJSONLine(f *testing.F) {
	f.Add([]byte(`{"id":"s1","account":"A1","time":"2016-06-16T10:00:00+02:00","game":"loto","amount_cents":1200,"channel":"web"}`))
	f.Add([]byte(` { "id" : "s1" , "amount_cents" : "0012" , "kind":"abo+","debited_at":"x"} `))
	f.Add([]byte(`{"ID":"s1"}`))
	f.Add([]byte(`{"id":"a\"b"}`))
	f.Add([]byte(`{"amount_cents":012}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"id":"1","id":"2"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		fast, ok := flatJSONLine(b)
		if !ok {
			return
		}
		slow, err := decodeJSONLineStd(b)
		if err != nil {
			t.Fatalf("fast path accepted %q, encoding/json: %v", b, err)
		}
		if fast != slow {
			t.Fatalf("%q: fast %q, encoding/json %q", b, fast, slow)
		}
	})
}

// Several stake files into one tally: each rejection names its file, and a
// duplicate the file (and line) of the first stake with its id.
func TestIngestFilesNamed(t *testing.T) {
	r, _ := exampleRules(t)
	const head = "id,account,time,game,amount_cents,channel\n"
	files := []struct{ name, in string }{
		{"stakes-1.csv", head +
			"1,a,2016-06-16T10:00:00+02:00,loto,1200,web\n" +
			"2,b,2016-06-16T10:00:00+02:00,loto,12.00,web\n"},
		{"stakes-2.csv", head +
			"3,c,2016-06-16T10:00:00+02:00,loto,1200,web\n" +
			"1,d,2016-06-16T10:00:00+02:00,loto,1200,web\n" +
			"4,e,2016-06-16T10:00:00+24:00,loto,1200,web\n" +
			"3,f,2016-06-16T10:00:00+02:00,loto,1200,web\n"},
	}
	tl := promo.NewTally(r)
	var rej bytes.Buffer
	for _, f := range files {
		if _, err := IngestFile(context.Background(), f.name, strings.NewReader(f.in), FormatCSV, tl, &rej, nil); err != nil {
			t.Fatal(err)
		}
	}
	want := "stakes-1.csv:3: amount_cents: must be an integer number of cents between 1 and 100000000000, got \"12.00\"\n" +
		"stakes-2.csv:3: id: duplicate stake id (first seen in stakes-1.csv on line 2)\n" +
		"stakes-2.csv:4: time: must be RFC 3339 with an offset like 2016-06-13T00:00:00+02:00, got \"2016-06-16T10:00:00+24:00\"\n" +
		"stakes-2.csv:5: id: duplicate stake id (first seen in stakes-2.csv on line 2)\n"
	if rej.String() != want {
		t.Fatalf("rejections:\n%s\nwant:\n%s", rej.String(), want)
	}
	// One file without a name: lines only.
	rej.Reset()
	if _, err := Ingest(context.Background(), strings.NewReader(files[1].in), FormatCSV, promo.NewTally(r), &rej, nil); err != nil {
		t.Fatal(err)
	}
	if want := "4: time: must be RFC 3339 with an offset like 2016-06-13T00:00:00+02:00, got \"2016-06-16T10:00:00+24:00\"\n" +
		"5: id: duplicate stake id (first seen on line 2)\n"; rej.String() != want {
		t.Fatalf("rejections:\n%s\nwant:\n%s", rej.String(), want)
	}
}

// closed_at is read as strictly as a stake's time (RFC 3339 §5.6).
func TestReadClosedStrictTime(t *testing.T) {
	for _, at := range []string{"2016-06-17T10:00:00+24:00", `"2016-06-17T10:00:00,5+02:00"`, "2016-06-17T10:00:00+02:60"} {
		if c, err := ReadClosed(strings.NewReader("account,closed_at\nA1," + at + "\n")); err == nil {
			t.Errorf("%s accepted: %v", at, c)
		} else if !strings.Contains(err.Error(), "line 2: closed_at") {
			t.Errorf("%s: %v", at, err)
		}
	}
	if _, err := ReadClosed(strings.NewReader("account,closed_at\nA1,2016-06-17T10:00:00.5+02:00\n")); err != nil {
		t.Fatal(err)
	}
}

// endless is a reader that never ends: line repeated forever.
type endless struct {
	line []byte
	off  int
}

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = e.line[e.off]
		e.off = (e.off + 1) % len(e.line)
	}
	return len(p), nil
}

// ingestWithin runs Ingest on r and fails the test if it does not return
// within d (an Ingest that spins forever is left behind).
func ingestWithin(t *testing.T, ctx context.Context, d time.Duration, r io.Reader, format string) (IngestStats, error) {
	t.Helper()
	rules, _ := exampleRules(t)
	type result struct {
		st  IngestStats
		err error
	}
	done := make(chan result, 1)
	go func() {
		st, err := Ingest(ctx, r, format, promo.NewTally(rules), io.Discard, nil)
		done <- result{st, err}
	}()
	select {
	case res := <-done:
		return res.st, res.err
	case <-time.After(d):
		t.Fatalf("%s: Ingest still running after %v", format, d)
		return IngestStats{}, nil
	}
}

// A line that never ends (/dev/zero, a binary file) refuses the file once
// maxRunOn bytes were read without a line end, naming the line: it is not
// skipped through to an end that may never come.
func TestIngestRunOnLine(t *testing.T) {
	for _, format := range []string{FormatCSV, FormatJSONL} {
		for _, in := range []io.Reader{
			&endless{line: []byte("x")},
			io.MultiReader(strings.NewReader("id,account,time,game,amount_cents,channel\n{}\n"), &endless{line: []byte{0}}),
		} {
			_, err := ingestWithin(t, context.Background(), 10*time.Second, in, format)
			if !errors.Is(err, errRunOn) || !strings.Contains(err.Error(), "line ") {
				t.Errorf("%s: %v, want %v naming the line", format, err, errRunOn)
			}
		}
	}
	// Below the bound, an over-long line is a rejected row (the last one
	// without a line end too).
	in := "id,account,time,game,amount_cents,channel\n" + strings.Repeat("x", maxLine+1) + "\n" +
		"1,a,2016-06-16T10:00:00+02:00,loto,1200,web\n" + strings.Repeat("y", maxRunOn-1)
	rules, _ := exampleRules(t)
	var rej bytes.Buffer
	st, err := Ingest(context.Background(), strings.NewReader(in), FormatCSV, promo.NewTally(rules), &rej, nil)
	if err != nil || st.Lines != 3 || st.Rejected != 2 || st.Counted != 1 ||
		rej.String() != fmt.Sprintf("2: line longer than %d bytes\n4: line longer than %d bytes\n", maxLine, maxLine) {
		t.Fatalf("%v %+v %q", err, st, rej.String())
	}
}

// An interrupt stops Ingest promptly, whatever the input: endless valid
// rows, endless over-long rows (each one a rejection).
func TestIngestCancel(t *testing.T) {
	rows := map[string]string{
		FormatCSV:   "1,a,2016-06-16T10:00:00+02:00,loto,1200,web\n",
		FormatJSONL: `{"id":"1","account":"a","time":"2016-06-16T10:00:00+02:00","game":"loto","amount_cents":1200,"channel":"web"}` + "\n",
	}
	for _, format := range []string{FormatCSV, FormatJSONL} {
		for _, line := range []string{rows[format], strings.Repeat("x", maxLine+1) + "\n"} {
			head := ""
			if format == FormatCSV {
				head = "id,account,time,game,amount_cents,channel\n"
			}
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(100*time.Millisecond, cancel)
			_, err := ingestWithin(t, ctx, 5*time.Second, io.MultiReader(strings.NewReader(head), &endless{line: []byte(line)}), format)
			if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "interrupted after") {
				t.Errorf("%s, lines of %d bytes: %v, want interrupted", format, len(line), err)
			}
		}
	}
}

// A byte order mark before the first line (editors on Windows write one)
// is taken in JSON Lines as it is in CSV: its first stake counts.
func TestIngestByteOrderMark(t *testing.T) {
	r, _ := exampleRules(t)
	for f, file := range map[string]string{
		FormatCSV:   "\ufeffid,account,time,game,amount_cents,channel\ns1,alice,2016-06-16T12:00:00+02:00,loto,1200,web\n",
		FormatJSONL: "\ufeff" + `{"id":"s1","account":"alice","time":"2016-06-16T12:00:00+02:00","game":"loto","amount_cents":1200,"channel":"web"}` + "\n",
	} {
		var rej bytes.Buffer
		st, err := Ingest(context.Background(), strings.NewReader(file), f, promo.NewTally(r), &rej, nil)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if st.Counted != 1 || st.Rejected != 0 {
			t.Errorf("%s with a byte order mark: %d counted, %d rejected (%s), want its one stake counted", f, st.Counted, st.Rejected, rej.String())
		}
	}
}

func exampleRules(t testing.TB) (*promo.Rules, []byte) {
	t.Helper()
	data, err := os.ReadFile("../../../examples/bonus-crescendo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r, err := promo.ParseRules(data)
	if err != nil {
		t.Fatal(err)
	}
	return r, data
}
