package promo

import (
	"bytes"
	"context"
	"io"
	"os"
	"testing"

	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/promo/stakes"
)

func exampleRules(t testing.TB) (*promo.Rules, []byte) {
	t.Helper()
	data, err := os.ReadFile("../../examples/bonus-crescendo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r, err := promo.ParseRules(data)
	if err != nil {
		t.Fatal(err)
	}
	return r, data
}

func BenchmarkIngestCSV(b *testing.B) {
	r, _ := exampleRules(b)
	var buf bytes.Buffer
	if err := Generate(&buf, r, GenConfig{Rows: 1_000_000, Seed: 1, Format: stakes.FormatCSV, Defects: true}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ResetTimer()
	for range b.N {
		t := promo.NewTally(r)
		t.Grow(1_000_000)
		if _, err := stakes.Ingest(context.Background(), bytes.NewReader(buf.Bytes()), stakes.FormatCSV, t, io.Discard, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkIngestJSONL(b *testing.B) {
	r, _ := exampleRules(b)
	var buf bytes.Buffer
	if err := Generate(&buf, r, GenConfig{Rows: 1_000_000, Seed: 1, Format: stakes.FormatJSONL, Defects: true}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ResetTimer()
	for range b.N {
		t := promo.NewTally(r)
		if _, err := stakes.Ingest(context.Background(), bytes.NewReader(buf.Bytes()), stakes.FormatJSONL, t, io.Discard, nil); err != nil {
			b.Fatal(err)
		}
	}
}
