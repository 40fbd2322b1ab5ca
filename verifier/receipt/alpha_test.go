package receipt

import (
	"bytes"
	"testing"

	"tirage.fr/tirage/verifier/record"
)

// FuzzAlphaFields: α that splits re-joins to the same bytes.
func FuzzAlphaFields(f *testing.F) {
	f.Add(record.PickAlpha("g", "E1", [32]byte{1}, [32]byte{2}, 3, 4))
	f.Add(record.StartAlpha("g", "E1", [32]byte{1}, 1000, [32]byte{2}))
	f.Add([]byte(record.AlphaDomain))
	f.Fuzz(func(t *testing.T, a []byte) {
		kind, fields, err := alphaFields(a)
		if err != nil {
			return
		}
		b := []byte(record.AlphaDomain)
		b = append(b, byte(len(kind)>>8), byte(len(kind)))
		b = append(b, kind...)
		for _, f := range fields {
			b = append(b, byte(len(f)>>24), byte(len(f)>>16), byte(len(f)>>8), byte(len(f)))
			b = append(b, f...)
		}
		if !bytes.Equal(a, b) {
			t.Fatalf("α %x splits and re-joins to %x", a, b)
		}
	})
}
