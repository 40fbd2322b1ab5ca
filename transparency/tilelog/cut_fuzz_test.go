package tilelog

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/transparency-dev/tessera/api"

	"tirage.fr/tirage/transparency"
)

// FuzzCutResource: a wider resource read back from disk (a full or wider
// partial tile or entry bundle, which another tessera process or a bad disk
// could have written) is cut to exactly the width entries asked for, a
// prefix of it that tessera's own reading of an entry bundle reads as
// width entries; or it is refused as ErrSecurity when it holds fewer.
func FuzzCutResource(f *testing.F) {
	var bundle []byte
	for i := range 5 {
		e := bytes.Repeat([]byte{byte('a' + i)}, i*7)
		bundle = binary.BigEndian.AppendUint16(bundle, uint16(len(e)))
		bundle = append(bundle, e...)
	}
	f.Add(bundle, uint8(3), false)
	f.Add(bundle, uint8(5), false)
	f.Add(bundle, uint8(6), false)
	f.Add(bundle[:len(bundle)-1], uint8(5), false)
	f.Add(bytes.Repeat([]byte{7}, 32*4), uint8(3), true)
	f.Add(bytes.Repeat([]byte{7}, 32*4-1), uint8(4), true)
	f.Add([]byte{0xff, 0xff, 1}, uint8(1), false)
	f.Fuzz(func(t *testing.T, b []byte, width uint8, tile bool) {
		hashSize := 0
		if tile {
			hashSize = 32
		}
		got, err := cutResource("tile/entries/000.p/9", b, width, hashSize)
		// The reference: the first width entries, one at a time.
		want, off := [][]byte(nil), 0
		for range int(width) {
			n := hashSize
			if !tile {
				if off+2 > len(b) {
					break
				}
				n = int(b[off])<<8 | int(b[off+1])
				off += 2
			}
			if off+n > len(b) {
				break
			}
			want = append(want, b[off:off+n])
			off += n
		}
		if len(want) < int(width) {
			if err == nil || !errors.Is(err, transparency.ErrSecurity) || got != nil {
				t.Fatalf("%x cut to %d entries: %x, %v; it holds %d", b, width, got, err, len(want))
			}
			return
		}
		if err != nil || !bytes.Equal(got, b[:off]) {
			t.Fatalf("%x cut to %d entries: %x, %v; want %x", b, width, got, err, b[:off])
		}
		if tile {
			return
		}
		var eb api.EntryBundle
		if err := eb.UnmarshalText(got); err != nil || len(eb.Entries) != int(width) {
			t.Fatalf("%x cut to %d entries: %x, which tessera reads as %d entries, %v", b, width, got, len(eb.Entries), err)
		}
		for i, e := range eb.Entries {
			if !bytes.Equal(e, want[i]) {
				t.Fatalf("entry %d: %x, want %x", i, e, want[i])
			}
		}
	})
}
