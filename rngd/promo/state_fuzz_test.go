package promo

import (
	"bytes"
	"encoding/json"
	"math/big"
	"regexp"
	"strings"
	"testing"
)

// FuzzParseIndex: an index file (freeze.idx, draw.idx, announcement.idx,
// read back from the data directory) is accepted exactly when, spaces
// around it trimmed, it is decimal digits of a value below 2^63 (a
// reference on math/big), and then is that value, which formatIndex writes
// so that it reads back; a refusal names the file and nothing of its
// content.
func FuzzParseIndex(f *testing.F) {
	for _, i := range []uint64{0, 2, 48213, 1<<63 - 1, 1 << 63, 1<<64 - 1} {
		f.Add(formatIndex(i))
	}
	for _, s := range []string{"", "\n", "12", " 12 \r\n", "007\n", "-1\n", "+1\n", "0x10\n", "1_000\n", "1 2\n", "١٢\n", "\u00a012\u2028"} {
		f.Add([]byte(s))
	}
	digits := regexp.MustCompile(`^[0-9]+$`)
	limit := new(big.Int).Lsh(big.NewInt(1), 63)
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := parseIndex("draw.idx", b)
		text := strings.TrimSpace(string(b))
		v, ok := new(big.Int).SetString(text, 10)
		want := digits.MatchString(text) && ok && v.Cmp(limit) < 0
		if err != nil {
			if want || n != -1 || err.Error() != "draw.idx is damaged" {
				t.Fatalf("%q refused: %d, %v", b, n, err)
			}
			return
		}
		if !want || v.Int64() != n {
			t.Fatalf("%q read as %d", b, n)
		}
		again, err := parseIndex("draw.idx", formatIndex(uint64(n)))
		if err != nil || again != n {
			t.Fatalf("index %d written as %q, read as %d, %v", n, formatIndex(uint64(n)), again, err)
		}
	})
}

// FuzzDecodeMeta: a meta.json (read back from the data directory) that
// decodes is valid JSON naming a draw; what Freeze would write of the Meta
// it holds (indented, a newline) decodes again to the same Meta, written
// again byte for byte; a refusal names the file, and JSON that decodes to
// a Meta (encoding/json) is refused only when that names no draw (null,
// {}). Nothing panics.
func FuzzDecodeMeta(f *testing.F) {
	for _, m := range []Meta{
		{Operation: "bonus-crescendo", OpTitle: "Opération « Bonus Crescendo »", Draw: "bonus-crescendo/1", Title: "Tirage au sort n° 1",
			Prize: "Séjour", Date: "2016-06-21", LatestDate: "2016-07-21", Timezone: "Europe/Paris", Rows: 100},
		{Operation: "bonus-crescendo", Draw: "bonus-crescendo/1", Prize: "Séjour 3 jours/2 nuits à Florence (Italie), 2 000 € TTC",
			ValueCents: 200000, Currency: "EUR", Days: []string{"2016-06-10", "2016-06-11"}, Reserves: 3, Participants: 12, Withheld: 1,
			Entrants: 11, Rejected: 2, Rows: 40, RulesHash: strings.Repeat("ab", 32), Excluded: map[string]int64{"below_minimum": 4}},
		{},
	} {
		b, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(append(b, '\n'))
	}
	for _, s := range []string{"", "null", "[]", "{", `{"draw":""}`, `{"draw":"a/1"}`, `{"excluded_rows":{}}`, `{"days":[]}`, `{"value_cents":1e3}`, `{"reserves":"1"}`,
		`{"Operation":"a","operation":"b"}`, "{\"title\":\"\xff\"}", `{"entrants":99999999999999999999}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var m Meta
		if err := decodeJSON("meta.json", b, &m); err != nil {
			var ref Meta
			if !strings.HasPrefix(err.Error(), "meta.json is damaged: ") || json.Unmarshal(b, &ref) == nil && ref.Draw != "" {
				t.Fatalf("%q refused: %v", b, err)
			}
			return
		}
		if !json.Valid(b) || m.Draw == "" {
			t.Fatalf("%q read as %+v", b, m)
		}
		written, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			t.Fatalf("%+v of %q: %v", m, b, err)
		}
		var again Meta
		if err := decodeJSON("meta.json", append(written, '\n'), &again); err != nil {
			t.Fatalf("%q written as %q, refused: %v", b, written, err)
		}
		if rewritten, _ := json.MarshalIndent(again, "", "  "); !bytes.Equal(rewritten, written) {
			t.Fatalf("%q written as\n%s\nthen as\n%s", b, written, rewritten)
		}
	})
}
