package promo

import (
	"bytes"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/record"
)

// TestProcesVerbalShareAsRecorded: the procès-verbal prints the bailiff's
// share as recorded. Its font (Windows-1252) has no glyph for Ł or ź, which
// printed as '.', so "Łódź" and ".ód." (or any other letters there) made
// the same page; such a share is printed escaped (\u0141), and a French one
// as it was typed.
func TestProcesVerbalShareAsRecorded(t *testing.T) {
	at := time.Date(2016, 6, 21, 8, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		share string
		want  []byte
	}{
		{"text:Łódź, 21 juin 2016", []byte(`\\u0141\\u00f3d\\u017a, 21 juin 2016`)},
		{"text:Maître Dupont, 21 juin", []byte("text:Ma\xeetre Dupont, 21 juin")},
	} {
		cert := &Certificate{
			Meta: Meta{Operation: "bonus-crescendo", Title: "Tirage au sort n° 1"},
			JSON: []byte("{}\n"),
			Verified: &promo.Verified{
				Freeze:     &record.PromoFreeze{Time: at.Add(-14 * time.Hour), Count: 1},
				DrawRecord: &record.PromoDraw{Time: at, Share: []byte(c.share)},
				Picks:      []promo.PickProof{{Rank: 1, Pseudonym: "3f2a-91bc-0d4e-77a1"}},
			},
		}
		var pdf bytes.Buffer
		if err := WriteProcesVerbalPDF(&pdf, cert); err != nil {
			t.Fatal(err)
		}
		if text := pageText(t, pdf.Bytes()); !bytes.Contains(text, c.want) {
			t.Errorf("share %q: the page does not show %q", c.share, c.want)
		}
	}
}
