package record_test

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/record"
)

// craftedLeaves are hostile leaves of about record.MaxLeafSize bytes, each
// built to make a parser allocate much more than its input: many tiny
// values (one tree node, or one slice element, per two bytes), slices of
// structs whose elements are too short to decode, a valid promotion draw
// with a huge ranking, and long escaped or hex strings.
func craftedLeaves(t testing.TB) map[string][]byte {
	t.Helper()
	// fill repeats unit between prefix and suffix up to MaxLeafSize bytes,
	// dropping the last unit's trailing comma.
	fill := func(prefix, unit, suffix string) []byte {
		n := (record.MaxLeafSize - len(prefix) - len(suffix)) / len(unit)
		return []byte(prefix + strings.TrimSuffix(strings.Repeat(unit, n), ",") + suffix)
	}
	draw := func(ranking string, n int) []byte {
		leaf, err := record.Format(sample(record.KindPromoDraw)) // a draw: count 48213, 1 winner, 3 reserves
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range [][2]string{
			{`"count":48213`, `"count":1099511627776`},
			{`"ranking":[40211,77,3141,9000]`, `"ranking":[` + ranking + `]`},
			{`"reserves":3`, `"reserves":0`},
			{`"winners":1`, `"winners":` + strconv.Itoa(n)},
		} {
			if !bytes.Contains(leaf, []byte(r[0])) {
				t.Fatalf("no %s in %s", r[0], leaf)
			}
			leaf = bytes.Replace(leaf, []byte(r[0]), []byte(r[1]), 1)
		}
		if len(leaf) > record.MaxLeafSize {
			t.Fatalf("crafted draw of %d bytes", len(leaf))
		}
		return leaf
	}
	room := record.MaxLeafSize - len(draw("", 0)) - len("1048576") // for the ranking
	var distinct []string
	for i, size := 0, 0; size+len(strconv.Itoa(i))+1 <= room; i++ {
		distinct = append(distinct, strconv.Itoa(i))
		size += len(strconv.Itoa(i)) + 1
	}
	zeros := room / 2
	statement := bytes.Repeat([]byte{'x'}, (record.MaxLeafSize-400)/2)
	att, err := record.Format(&record.Attestation{Time: t0, Subject: "s", Type: "t", Key: "att-1",
		Digest: sha256.Sum256(statement), Statement: statement})
	if err != nil {
		t.Fatal(err)
	}
	// A valid short ranking of a draw of 2^23 entrants: a leaf of a few
	// hundred bytes that a bit set of its entrants would make cost 1 MiB.
	large, err := record.Format(sample(record.KindPromoDraw))
	if err != nil {
		t.Fatal(err)
	}
	large = bytes.Replace(large, []byte(`"count":48213`), []byte(`"count":8388608`), 1)
	return map[string][]byte{
		"short ranking, large draw": large,
		"many integers":             fill(`{"kind":"promo_draw","ranking":[`, `0,`, `],"v":1}`),
		"many empty arrays":         fill(`{"kind":"promo_draw","ranking":[`, `[],`, `],"v":1}`),
		"nested integers":           fill(`{"keys":[[[[[[[`, `0,`, `]]]]]]],"kind":"key","v":1}`),
		"short keys":                fill(`{"keys":[`, `{},`, `],"kind":"key","v":1}`),
		"short keys after one":      fill(`{"keys":[{"fingerprint":"`+strings.Repeat("00", 32)+`","id":"","public_key":"","suite":"","use":""},`, `{},`, `],"kind":"key","v":1}`),
		"ranking of zeros":          draw(strings.TrimSuffix(strings.Repeat("0,", zeros), ","), zeros),
		"valid huge ranking":        draw(strings.Join(distinct, ","), len(distinct)),
		"escaped string":            fill(`{"kind":"attestation","subject":"`, `\\\\`, `","v":1}`),
		"valid huge statement":      att,
		"many members":              fill(`{"kind":"key","v":1,"w`, `w`, `":0}`),
		"hex with escapes":          fill(`{"digest":"`, `\"`, `","kind":"attestation","v":1}`),
		"long integers":             fill(`{"kind":"promo_draw","ranking":[`, `1234567890123456,`, `],"v":1}`),
		"valid-looking strings":     fill(`{"keys":[`, `{"fingerprint":"`+fmt.Sprintf("%064x", 0)+`","id":"a","public_key":"00","suite":"s","use":"u"},`, `],"kind":"key","v":1}`),
	}
}

// maxAllocRatio bounds what Parse may allocate: maxAllocRatio bytes per
// byte of leaf, plus maxAllocSlack.
const (
	maxAllocRatio = 8
	maxAllocSlack = 64 << 10
)

// TestParseAllocBound: Parse allocates at most about 8 bytes per byte of a
// leaf, whatever the leaf. A tree of the leaf's values made a 1 MiB leaf of
// "[0,0,…]" cost 256 MiB.
func TestParseAllocBound(t *testing.T) {
	for name, leaf := range craftedLeaves(t) {
		t.Run(name, func(t *testing.T) {
			_, perr := record.Parse(leaf)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			record.Parse(leaf)
			runtime.ReadMemStats(&after)
			got := after.TotalAlloc - before.TotalAlloc
			limit := uint64(maxAllocRatio*len(leaf) + maxAllocSlack)
			// An error quotes the leaf short: a megabyte of one member's
			// name is not repeated back.
			if perr != nil && len(perr.Error()) > 512 {
				t.Errorf("the error is %d bytes long: %.200s…", len(perr.Error()), perr)
			}
			t.Logf("%d bytes, %d allocated (%.2f×), err %.200v", len(leaf), got, float64(got)/float64(len(leaf)), perr)
			if got > limit {
				t.Errorf("Parse of %d bytes allocated %d bytes (%.1f×), want at most %d", len(leaf), got, float64(got)/float64(len(leaf)), limit)
			}
		})
	}
}

// BenchmarkParseCrafted: Parse of the crafted leaves; -benchmem shows the
// bytes allocated per leaf (B/op) against its size (MB/s's denominator).
func BenchmarkParseCrafted(b *testing.B) {
	for name, leaf := range craftedLeaves(b) {
		b.Run(strings.ReplaceAll(name, " ", "_"), func(b *testing.B) {
			b.SetBytes(int64(len(leaf)))
			b.ReportAllocs()
			for b.Loop() {
				record.Parse(leaf)
			}
		})
	}
}

// TicketHash's memory does not grow with its input (a game server's code,
// up to rngd's message limit): a long code allocates no more bytes than a
// short one refused the same way, give or take the boxed count its error
// quotes.
func TestTicketHashAllocs(t *testing.T) {
	const runs = 100
	bytesPerRun := func(code string) uint64 {
		_, _ = record.TicketHash(code)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range runs {
			_, _ = record.TicketHash(code)
		}
		runtime.ReadMemStats(&after)
		return (after.TotalAlloc - before.TotalAlloc) / runs
	}
	for _, c := range []struct{ short, long string }{
		{"ABCDEFGHJKLMNPQRSTU", strings.Repeat("A", 16<<10)},
		{"AB-AB-AB-AB-AB-AB-AB-AB-AB-AB-!", strings.Repeat("AB-", 1<<12) + "!"},
	} {
		if short, long := bytesPerRun(c.short), bytesPerRun(c.long); long > short+16 {
			t.Errorf("TicketHash of %d bytes: %d bytes allocated, of %d: %d", len(c.long), long, len(c.short), short)
		}
	}
}

// RequestID hashes on the stack: no allocation a call.
func TestRequestIDAllocs(t *testing.T) {
	if n := testing.AllocsPerRun(200, func() { record.RequestID("server-a.example", "req-1") }); n != 0 {
		t.Errorf("RequestID: %v allocations, want 0", n)
	}
}
