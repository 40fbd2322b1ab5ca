package promo

import (
	"bytes"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/record"
)

// The procès-verbal states the scheduled date, says when the ceremony was
// postponed (art. 2.4 allows it for technical reasons only) and lists what
// the appliance knows of as anomalies — the postponement, the stake rows
// rejected (rejected.txt) — and claims « Aucune anomalie » only when there
// is none. The day held is the day in the rules' zone.
func TestProcesVerbalDateAndAnomalies(t *testing.T) {
	meta := Meta{Operation: "bonus-crescendo", OpTitle: "Opération « Bonus Crescendo »", Title: "Tirage au sort n° 1",
		Prize: "Séjour", Date: "2016-06-21", LatestDate: "2016-07-21", Timezone: "Europe/Paris", Rows: 100}
	for _, tc := range []struct {
		name     string
		at       time.Time
		rejected int64
		want     []string // in the page's Windows-1252 text
		wantNot  []string
	}{{
		name:    "on the day",
		at:      time.Date(2016, 6, 21, 8, 0, 0, 0, time.UTC),
		want:    []string{"(Date pr\xe9vue)", "(21/06/2016)", "(Aucune anomalie constat\xe9e par l'appareil"},
		wantNot: []string{"report", "Anomalies constat\xe9es"},
	}, {
		// 00:30 in Paris on the 21st is the scheduled day, 22:30 UTC the day before.
		name: "on the day in the rules' zone",
		at:   time.Date(2016, 6, 20, 22, 30, 0, 0, time.UTC),
		want: []string{"(Aucune anomalie constat\xe9e par l'appareil"}, wantNot: []string{"report"},
	}, {
		name:     "postponed, rows rejected",
		at:       time.Date(2016, 6, 23, 8, 0, 0, 0, time.UTC),
		rejected: 7,
		want: []string{"(Date pr\xe9vue)", "(21/06/2016)", "(tirage report\xe9 du 21/06/2016 au 23/06/2016)",
			"Anomalies constat\xe9es par l'appareil \\(2\\) :", "(- Le tirage, pr\xe9vu le 21/06/2016, a \xe9t\xe9 effectu\xe9 le 23/06/2016",
			"(- 7 lignes des fichiers de mises", "rejected.txt, une ligne par rejet.)"},
		wantNot: []string{"Aucune anomalie"},
	}, {
		name:     "rows rejected",
		at:       time.Date(2016, 6, 21, 8, 0, 0, 0, time.UTC),
		rejected: 1,
		want:     []string{"Anomalies constat\xe9es par l'appareil \\(1\\) :", "(- 1 ligne des fichiers de mises a \xe9t\xe9 rejet\xe9e"},
		wantNot:  []string{"Aucune anomalie", "report"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			m := meta
			m.Rejected = tc.rejected
			c := &Certificate{
				Meta: m, JSON: []byte("{}\n"),
				Verified: &promo.Verified{
					Freeze:     &record.PromoFreeze{Time: tc.at.Add(-14 * time.Hour), Count: 1},
					DrawRecord: &record.PromoDraw{Time: tc.at, Share: []byte("text:huissier")},
					Picks:      []promo.PickProof{{Rank: 1, Pseudonym: "3f2a-91bc-0d4e-77a1"}},
				},
			}
			var pdf bytes.Buffer
			if err := WriteProcesVerbalPDF(&pdf, c); err != nil {
				t.Fatal(err)
			}
			text := pageText(t, pdf.Bytes())
			for _, w := range tc.want {
				if !bytes.Contains(text, []byte(w)) {
					t.Errorf("the page does not show %q", w)
				}
			}
			for _, w := range tc.wantNot {
				if bytes.Contains(text, []byte(w)) {
					t.Errorf("the page shows %q", w)
				}
			}
		})
	}
}
