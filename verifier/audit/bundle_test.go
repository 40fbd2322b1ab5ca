package audit

import (
	"context"
	"encoding/binary"
	"fmt"
	"testing"
)

type one []byte

func (o one) Fetch(context.Context, string) ([]byte, error) {
	if o == nil {
		return nil, fmt.Errorf("none")
	}
	return o, nil
}

// FuzzReadBundle: a bundle that parses holds exactly the entries asked for,
// and re-encodes to a prefix of its bytes.
func FuzzReadBundle(f *testing.F) {
	f.Add([]byte{0, 1, 'a', 0, 2, 'b', 'c'}, uint8(2))
	f.Add([]byte{0, 5, 'a'}, uint8(1))
	f.Fuzz(func(t *testing.T, b []byte, n uint8) {
		if n == 0 {
			return
		}
		leaves, err := readBundle(context.Background(), one(b), 0, int64(n))
		if err != nil {
			return
		}
		if len(leaves) != int(n) {
			t.Fatalf("%d leaves, want %d", len(leaves), n)
		}
		var again []byte
		for _, l := range leaves {
			again = binary.BigEndian.AppendUint16(again, uint16(len(l)))
			again = append(again, l...)
		}
		if string(b[:len(again)]) != string(again) {
			t.Fatal("bundle does not re-encode to its prefix")
		}
	})
}
