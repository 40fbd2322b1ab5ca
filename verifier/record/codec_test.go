package record

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// TestMinSize: minSize(t) is the length of the shortest encoding of a t,
// the bound decodeSlice relies on; and no slice in a record costs more than
// 4 bytes of memory per byte of leaf (an element of size s takes at least
// minSize+1 bytes, its comma included).
func TestMinSize(t *testing.T) {
	n := 0
	for _, k := range []Kind{KindKey, KindEmission, KindManifest, KindGameStart, KindTicketQuit, KindPick, KindDecision,
		KindGameEnd, KindPromoFreeze, KindPromoDraw, KindAttestation} {
		n += checkSlices(t, reflect.TypeOf(newRecord(k)).Elem(), string(k))
	}
	if n < 2 { // key.keys and promo_draw.ranking at least
		t.Errorf("%d slices checked", n)
	}
	// Types without a zero value of minimal length.
	var e encoder
	if err := e.value(reflect.ValueOf(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)), "time"); err != nil || len(e.buf) != minSize(timeType) {
		t.Errorf("time encodes to %q (%v), minSize %d", e.buf, err, minSize(timeType))
	}
	if n := minSize(reflect.TypeFor[bool]()); n != len("true") {
		t.Errorf("minSize(bool) = %d", n)
	}
}

// checkSlices checks the element type of every (non-byte) slice under typ
// and returns how many it checked.
func checkSlices(t *testing.T, typ reflect.Type, path string) int {
	t.Helper()
	n := 0
	switch {
	case typ == timeType || isBytesType(typ):
	case typ.Kind() == reflect.Struct:
		for _, f := range fieldsOf(typ) {
			n += checkSlices(t, typ.Field(f.index).Type, path+"."+f.name)
		}
	case typ.Kind() == reflect.Array:
		n += checkSlices(t, typ.Elem(), path)
	case typ.Kind() == reflect.Slice:
		elem := typ.Elem()
		var e encoder
		if err := e.value(reflect.New(elem).Elem(), path); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if m := minSize(elem); m != len(e.buf) {
			t.Errorf("%s: minSize(%s) = %d, but a zero %s encodes to %d bytes: %s", path, elem, m, elem, len(e.buf), e.buf)
		}
		if s := int(elem.Size()); s > 4*(minSize(elem)+1) {
			t.Errorf("%s: a %d-byte %s from %d bytes of leaf", path, s, elem, minSize(elem)+1)
		}
		n += 1 + checkSlices(t, elem, path)
	}
	return n
}

// TestFirstBadEntry: firstBadEntry finds the entry the obvious set-based
// loop finds.
func TestFirstBadEntry(t *testing.T) {
	want := func(ranking []uint64, count uint64) int {
		seen := map[uint64]bool{}
		for i, e := range ranking {
			if e >= count || seen[e] {
				return i
			}
			seen[e] = true
		}
		return -1
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		ranking := make([]uint64, rng.IntN(12))
		for i := range ranking {
			ranking[i] = rng.Uint64N(16)
		}
		count := rng.Uint64N(20)
		if got, w := firstBadEntry(ranking, count), want(ranking, count); got != w {
			t.Fatalf("firstBadEntry(%v, %d) = %d, want %d", ranking, count, got, w)
		}
	}
	// Past the first 64 entries, with the entrants marked in a bit set
	// (count up to maxBitsetEntrants) or the positions sorted (more).
	for range 2000 {
		n, span := 64+rng.IntN(400), 1+rng.Uint64N(2000)
		count, base := 1+rng.Uint64N(maxBitsetEntrants), uint64(0)
		if rng.IntN(2) == 0 {
			count, base = 1<<40, 1<<39
		}
		ranking := make([]uint64, n)
		for i := range ranking {
			ranking[i] = base + uint64(i)*span%count // distinct unless span wraps
			if rng.IntN(200) == 0 {
				ranking[i] = ranking[rng.IntN(i+1)] // a repeat (or itself)
			}
			if rng.IntN(1000) == 0 {
				ranking[i] = count + rng.Uint64N(3) // out of range
			}
		}
		if got, w := firstBadEntry(ranking, count), want(ranking, count); got != w {
			t.Fatalf("n %d, count %d: firstBadEntry = %d, want %d", n, count, got, w)
		}
	}
}

// appendTime writes what time.Time.AppendFormat writes with timeLayout,
// for every second the encoder accepts (years 1970..9999).
func TestAppendTime(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	lo := time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	hi := time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).Unix()
	times := []int64{lo, hi, 0, 951782400 /* 2000-02-29 */, 4107542399 /* 2100-02-28T23:59:59 */}
	for range 100_000 {
		times = append(times, lo+rng.Int64N(hi-lo+1))
	}
	for _, s := range times {
		tm := time.Unix(s, 0).UTC()
		got, want := appendTime([]byte("x"), tm), tm.AppendFormat([]byte("x"), timeLayout)
		if string(got) != string(want) {
			t.Fatalf("%d: %s, want %s", s, got, want)
		}
	}
}
