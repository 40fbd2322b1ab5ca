package promo

import (
	"bytes"
	"context"
	"io"
	"os"
	"testing"

	"tirage.fr/tirage/verifier/promo"
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
	if err := Generate(&buf, r, GenConfig{Rows: 1_000_000, Seed: 1, Format: FormatCSV, Defects: true}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ResetTimer()
	for range b.N {
		t := promo.NewTally(r)
		t.Grow(1_000_000)
		if _, err := Ingest(context.Background(), bytes.NewReader(buf.Bytes()), FormatCSV, t, io.Discard, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkIngestJSONL(b *testing.B) {
	r, _ := exampleRules(b)
	var buf bytes.Buffer
	if err := Generate(&buf, r, GenConfig{Rows: 1_000_000, Seed: 1, Format: FormatJSONL, Defects: true}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ResetTimer()
	for range b.N {
		t := promo.NewTally(r)
		if _, err := Ingest(context.Background(), bytes.NewReader(buf.Bytes()), FormatJSONL, t, io.Discard, nil); err != nil {
			b.Fatal(err)
		}
	}
}
