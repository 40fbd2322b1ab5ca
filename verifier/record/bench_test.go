package record_test

import (
	"testing"

	"tirage.fr/tirage/verifier/record"
)

func benchRecords(b *testing.B) map[string]record.Record {
	b.Helper()
	out := map[string]record.Record{}
	for _, r := range samples() {
		switch r.Kind() {
		case record.KindPick, record.KindGameStart:
			out[string(r.Kind())] = r
		}
	}
	return out
}

// BenchmarkFormat: encoding one pick / start record (the daemon, per draw).
func BenchmarkFormat(b *testing.B) {
	for name, r := range benchRecords(b) {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := record.Format(r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParse: decoding one leaf (the verifier, per record), including
// the canonical-form check.
func BenchmarkParse(b *testing.B) {
	for name, r := range benchRecords(b) {
		leaf, err := record.Format(r)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(leaf)))
			for b.Loop() {
				if _, err := record.Parse(leaf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPickAlpha: building α of a pick.
func BenchmarkPickAlpha(b *testing.B) {
	for b.Loop() {
		record.PickAlpha("g-000042", "QOD-2026-07", secret, secret, 3, 17)
	}
}
