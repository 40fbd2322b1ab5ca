package promo

import (
	"bytes"
	"compress/zlib"
	"io"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/record"
)

// Art. 3.3.1 « d'une valeur de 2 000 € TTC », art. 3.3.3 « un lot de 5 000
// euros »: the procès-verbal's « Valeur » field writes the prize value as
// the published rules (and French usage) write it, thousands grouped with
// a no-break space, in the rules' currency.
func TestAmount(t *testing.T) {
	for _, tc := range []struct {
		cents    int64
		currency string
		want     string
	}{
		{200000, "EUR", "2\u00a0000 €"}, // « 2 000 € TTC » (art. 3.3.1)
		{500000, "EUR", "5\u00a0000 €"}, // « 5 000 euros » (art. 3.3.3)
		{800, "EUR", "8 €"},
		{99999, "EUR", "999,99 €"},
		{123456, "", "1\u00a0234,56 €"}, // a meta.json without currency
		{100000000, "CHF", "1\u00a0000\u00a0000 CHF"},
	} {
		if got := amount(tc.cents, tc.currency); got != tc.want {
			t.Errorf("amount(%d, %q) = %q, want %q", tc.cents, tc.currency, got, tc.want)
		}
	}
}

// The procès-verbal's value renders in Helvetica's Windows-1252 encoding:
// the no-break space is byte 0xA0 and € byte 0x80 of the page's text, not
// the '.' fpdf prints for a character the encoding lacks.
func TestProcesVerbalValue(t *testing.T) {
	at := time.Date(2016, 6, 21, 8, 0, 0, 0, time.UTC)
	c := &Certificate{
		Meta: Meta{Operation: "bonus-crescendo", OpTitle: "Opération « Bonus Crescendo »", Title: "Tirage au sort n° 1",
			Prize: "Séjour 3 jours/2 nuits à Florence (Italie), 2 000 € TTC", ValueCents: 200000, Currency: "EUR"},
		JSON: []byte("{}\n"),
		Verified: &promo.Verified{
			Freeze:     &record.PromoFreeze{Time: at.Add(-14 * time.Hour), Count: 1},
			DrawRecord: &record.PromoDraw{Time: at, Share: []byte("text:huissier")},
			Picks:      []promo.PickProof{{Rank: 1, Pseudonym: "3f2a-91bc-0d4e-77a1"}},
		},
	}
	var pdf bytes.Buffer
	if err := WriteProcesVerbalPDF(&pdf, c); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(pdf.Bytes(), []byte("%PDF-")) || !bytes.HasSuffix(bytes.TrimSpace(pdf.Bytes()), []byte("%%EOF")) {
		t.Fatal("not a whole PDF file")
	}
	text := pageText(t, pdf.Bytes())
	if want := []byte("(2\xa0000 \x80)"); !bytes.Contains(text, want) {
		t.Errorf("the page does not show the value as %q", want)
	}
}

// pageText inflates the PDF's Flate streams (fpdf compresses page contents).
func pageText(t *testing.T, pdf []byte) []byte {
	t.Helper()
	var out []byte
	for rest := pdf; ; {
		i := bytes.Index(rest, []byte("stream\n"))
		if i < 0 {
			break
		}
		rest = rest[i+len("stream\n"):]
		j := bytes.Index(rest, []byte("endstream"))
		if j < 0 {
			t.Fatal("a stream without endstream")
		}
		if zr, err := zlib.NewReader(bytes.NewReader(rest[:j])); err == nil {
			b, err := io.ReadAll(zr)
			if err != nil {
				t.Fatalf("a damaged stream: %v", err)
			}
			out = append(out, b...)
		}
		rest = rest[j+len("endstream"):]
	}
	if len(out) == 0 {
		t.Fatal("no page content")
	}
	return out
}
