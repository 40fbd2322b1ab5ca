package rngd

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/qod"
)

// fillRandom sets every exported field of the struct v points to, and of
// the structs and arrays in it, to a random value: a field of a kind it
// does not know fails the test, so that a field added to storedGame or
// qod.Game cannot go unencoded unseen.
func fillRandom(fatalf func(string, ...any), r *rand.Rand, v reflect.Value, path string) {
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			// Years 1 to 9999, which JSON can hold.
			const first, last = -62135596800, 253402300799
			v.Set(reflect.ValueOf(time.Unix(first+r.Int64N(last-first), r.Int64N(1e9)).UTC()))
			return
		}
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() {
				fillRandom(fatalf, r, v.Field(i), path+"."+f.Name)
			}
		}
	case reflect.Array:
		for i := range v.Len() {
			fillRandom(fatalf, r, v.Index(i), path)
		}
	case reflect.String:
		// Any valid UTF-8, as ids and names are (JSON, which an older
		// store holds, would not keep invalid bytes).
		s := make([]rune, r.IntN(40))
		for i := range s {
			if s[i] = rune(r.IntN(0x10ffff)); s[i] >= 0xd800 && s[i] < 0xe000 {
				s[i] = rune(r.IntN(0x80))
			}
		}
		v.SetString(string(s))
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 1)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(r.Uint64()) >> r.IntN(64))
	case reflect.Uint8, reflect.Uint32, reflect.Uint64:
		v.SetUint(r.Uint64() >> (64 - v.Type().Bits()) >> r.IntN(v.Type().Bits()))
	default:
		fatalf("%s: a %s, which this test cannot fill: encode it in appendGame and decodeGame, then teach the test", path, v.Type())
	}
}

// Every field of a stored game comes back from the compact encoding as it
// was, whatever its value, and so does the JSON a store of format 8 or
// older wrote.
func TestGameEncodingRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 1))
	for i := range 2000 {
		var sg storedGame
		fillRandom(t.Fatalf, r, reflect.ValueOf(&sg).Elem(), "storedGame")
		if i%3 == 0 {
			sg.Secret = [32]byte{}
		}
		raw, err := appendGame(nil, &sg)
		if err != nil {
			t.Fatal(err)
		}
		var got storedGame
		got.commit = [32]byte{1} // overwritten: decodeGame sets the whole game
		if err := decodeGame(raw, &got); err != nil {
			t.Fatalf("game %d: %v", i, err)
		}
		if !reflect.DeepEqual(got, sg) {
			t.Fatalf("game %d came back as\n%+v\nwant\n%+v", i, got, sg)
		}
		js, err := json.Marshal(&sg)
		if err != nil {
			t.Fatal(err)
		}
		got = storedGame{}
		if err := decodeGame(js, &got); err != nil || !reflect.DeepEqual(got, sg) {
			t.Fatalf("game %d from its JSON: %v\n%+v\nwant\n%+v", i, err, got, sg)
		}
	}
}

// A stored game that is cut short, has bytes after it, or names an
// encoding this rngd does not know is refused, naming what is wrong, and
// nothing of it is read.
func TestGameEncodingRefused(t *testing.T) {
	sg := storedGame{Game: qod.Game{ID: "server-a/0192", Emission: "E1", Stake: 5000, Phase: qod.Playing,
		Started: time.Unix(1_780_000_000, 0).UTC()}, Server: "server-a", Records: 2, LastIndex: 7}
	raw, err := appendGame(nil, &sg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		raw  []byte
		want string
	}{
		{"empty", nil, "truncated"},
		{"cut", raw[:len(raw)-1], "truncated"},
		{"trailing", append(append([]byte(nil), raw...), 0), "1 bytes after the game"},
		{"version", append([]byte{2}, raw[1:]...), "game encoding 2 is not one this rngd reads"},
		{"flags", append([]byte{1, 0x80}, raw[2:]...), "unknown flags 0x80"},
		{"overflow", append([]byte{1, 0}, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01), "overflows 64 bits"},
		{"long", append([]byte{1, 0}, 0xff, 0xff, 0x01), "a field of 32767 bytes"},
		{"json", []byte(`{"Game":`), ""},
	} {
		got := sg
		err := decodeGame(c.raw, &got)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
		if !reflect.DeepEqual(got, storedGame{}) {
			t.Errorf("%s: refused, and left the game %+v, want it zero", c.name, got)
		}
	}
}

// FuzzDecodeGame: a games value of state.db (read back from disk) that
// decodeGame accepts is written again by appendGame as one that decodes to
// the same game; none makes it panic.
func FuzzDecodeGame(f *testing.F) {
	r := rand.New(rand.NewPCG(9, 2))
	for range 4 {
		var sg storedGame
		fillRandom(f.Fatalf, r, reflect.ValueOf(&sg).Elem(), "storedGame")
		raw, _ := appendGame(nil, &sg)
		f.Add(raw)
		js, _ := json.Marshal(&sg)
		f.Add(js)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var sg storedGame
		if err := decodeGame(raw, &sg); err != nil {
			return
		}
		again, err := appendGame(nil, &sg)
		if err != nil {
			// A time that JSON read but time's binary encoding cannot
			// write (a zone offset of exactly −1 minute, which it keeps
			// for UTC) is refused at putGame, not lost.
			return
		}
		var back storedGame
		if err := decodeGame(again, &back); err != nil || !reflect.DeepEqual(back, sg) {
			t.Fatalf("%x decoded as %+v, written again as %x, which decodes as %+v (%v)", raw, sg, again, back, err)
		}
	})
}
