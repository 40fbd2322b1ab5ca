package promo

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"
	"rsc.io/qr"

	"tirage.fr/tirage/verifier/beacon"
	"tirage.fr/tirage/verifier/promo"
)

// The documents are A4 PDFs in French, built with go-pdf/fpdf and its core
// Helvetica font (Windows-1252, enough for French), with a QR code drawn
// from rsc.io/qr modules. Their creation date is the record's time, so the
// same certificate always gives the same bytes.

type doc struct {
	pdf *fpdf.Fpdf
	tr  func(string) string
}

func newDoc(title string, at time.Time) *doc {
	p := fpdf.New("P", "mm", "A4", "")
	p.SetCreationDate(at)
	p.SetModificationDate(at)
	p.SetProducer("Tirage", true)
	p.SetTitle(title, true)
	p.SetCatalogSort(true)
	p.SetAutoPageBreak(true, 15)
	p.AddPage()
	d := &doc{pdf: p, tr: p.UnicodeTranslatorFromDescriptor("")}
	p.SetFont("Helvetica", "B", 15)
	p.MultiCell(0, 7, d.tr(title), "", "L", false)
	p.Ln(3)
	return d
}

func (d *doc) heading(s string) {
	d.pdf.Ln(2)
	d.pdf.SetFont("Helvetica", "B", 11.5)
	d.pdf.MultiCell(0, 6, d.tr(s), "B", "L", false)
	d.pdf.Ln(1)
}

func (d *doc) para(s string) {
	d.pdf.SetFont("Helvetica", "", 10)
	d.pdf.MultiCell(0, 5, d.tr(s), "", "L", false)
}

// field prints "label : value", the value in a fixed font when mono.
func (d *doc) field(label, value string, mono bool) {
	d.pdf.SetFont("Helvetica", "", 10)
	d.pdf.CellFormat(58, 5, d.tr(label), "", 0, "L", false, 0, "")
	if mono {
		d.pdf.SetFont("Courier", "", 8.5)
	}
	d.pdf.MultiCell(0, 5, d.tr(value), "", "L", false)
}

// exact returns s unchanged when the page prints it as it is, or else —
// s holds a character the font has no glyph for, printed '.', so that two
// values would print alike — s quoted with every non-ASCII character
// escaped (\u0141): a recorded value is shown exactly, never approximated.
func (d *doc) exact(s string) string {
	for _, r := range s {
		if r >= 0x80 && d.tr(string(r)) == "." {
			return strconv.QuoteToASCII(s)
		}
	}
	return s
}

// qrCode draws a QR code of text, side mm wide, at the current position.
func (d *doc) qrCode(text string, side float64) error {
	c, err := qr.Encode(text, qr.M)
	if err != nil {
		return err
	}
	quiet := 4
	n := c.Size + 2*quiet
	m := side / float64(n)
	x0, y0 := d.pdf.GetX(), d.pdf.GetY()
	if y0+side > 280 {
		d.pdf.AddPage()
		x0, y0 = d.pdf.GetX(), d.pdf.GetY()
	}
	d.pdf.SetFillColor(0, 0, 0)
	for y := 0; y < c.Size; y++ {
		for x := 0; x < c.Size; x++ {
			if c.Black(x, y) {
				d.pdf.Rect(x0+float64(x+quiet)*m, y0+float64(y+quiet)*m, m, m, "F")
			}
		}
	}
	d.pdf.SetY(y0 + side + 1)
	return nil
}

func (d *doc) write(w io.Writer) error {
	if err := d.pdf.Error(); err != nil {
		return fmt.Errorf("pdf: %w", err)
	}
	return d.pdf.Output(w)
}

// exclusionFR translates the exclusion reasons of verifier/promo.
var exclusionFR = map[string]string{
	promo.OutsidePeriod.String():        "hors période de participation",
	promo.ChannelNotCounted.String():    "canal non retenu (hors internet et applications)",
	promo.GameNotInRange.String():       "jeu hors de la gamme du jour",
	promo.SubscriptionOtherDay.String(): "abonnement non souscrit le jour de la prise de jeu",
	promo.AboPlusOtherDay.String():      "Abo+ non prélevé le jour de l'enregistrement",
	promo.SubscriptionExcluded.String(): "abonnements exclus",
	promo.AboPlusExcluded.String():      "Abo+ exclus",
}

// amount writes an amount in minor units (value_cents) as French usage and
// the operator's rules write it: thousands grouped, a decimal comma only
// when there are cents, then the currency — « 2 000 € », « 1 234,56 CHF ».
// Thousands are grouped with a no-break space, U+00A0: Helvetica's
// Windows-1252 encoding (doc.tr) has it (0xA0), where the narrow one of
// French typography, U+202F, would print as '.'; fpdf breaks lines at
// U+0020 only, so an amount is never split across lines. currency is the
// rules' ISO 4217 code: EUR, or none (a meta.json of an older rngd), is
// written €, another code as it is. Amounts are in hundredths, as the
// rules' value_cents are.
func amount(cents int64, currency string) string {
	sym := currency
	if currency == "" || currency == "EUR" {
		sym = "€"
	}
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	units := strconv.FormatInt(cents/100, 10)
	var b strings.Builder
	b.WriteString(sign)
	for i, c := range units {
		if i > 0 && (len(units)-i)%3 == 0 {
			b.WriteString("\u00a0")
		}
		b.WriteRune(c)
	}
	if c := cents % 100; c != 0 {
		fmt.Fprintf(&b, ",%02d", c)
	}
	return b.String() + " " + sym
}

func hash8(h [32]byte) string { return hex.EncodeToString(h[:]) }

func frenchTime(s string) string {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return s
	}
	paris, err := time.LoadLocation("Europe/Paris") // embedded (verifier/promo imports time/tzdata)
	if err != nil {
		return s
	}
	return t.In(paris).Format("02/01/2006 à 15:04:05 (heure de Paris)") + " — " + s
}

// frenchDate writes a calendar day (2006-01-02) as 02/01/2006.
func frenchDate(s string) string {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return s
	}
	return t.Format("02/01/2006")
}

// heldDay returns the calendar day of the ceremony at t, in the rules'
// zone (Europe/Paris for a meta.json without one), and whether it is
// another day than the scheduled one (m.Date): a postponement.
func heldDay(m Meta, t time.Time) (string, bool) {
	zone := m.Timezone
	if zone == "" {
		zone = "Europe/Paris"
	}
	if loc, err := time.LoadLocation(zone); err == nil {
		t = t.In(loc)
	}
	day := t.Format(time.DateOnly)
	return day, m.Date != "" && day != m.Date
}

// WriteReceiptPDF writes the freeze receipt handed to the bailiff before the ceremony.
func WriteReceiptPDF(w io.Writer, r *FreezeReceipt) error {
	fp := sha256.Sum256(ReceiptJSON(r))
	frozen, _ := time.Parse(time.RFC3339, r.FrozenAt)
	d := newDoc("Récépissé de gel de la liste des participants — "+r.Title, frozen)
	d.para("La liste des participants au tirage ci-dessous a été arrêtée et son empreinte inscrite au journal de transparence de l'appareil avant toute contribution de l'huissier. Elle ne peut plus être modifiée sans que la vérification échoue.")
	d.heading("Tirage")
	d.field("Identifiant du tirage", r.Draw, false)
	d.field("Jours de participation", strings.Join(r.Days, ", "), false)
	d.field("Règlement (SHA-256)", r.RulesHash, true)
	d.heading("Liste gelée")
	d.field("Participants qualifiés", fmt.Sprint(r.Participants), false)
	d.field("Exclus (compte clôturé)", fmt.Sprint(r.Withheld), false)
	d.field("Inscrits au tirage", fmt.Sprint(r.Count), false)
	d.field("Suppléants à classer", fmt.Sprint(r.Reserves), false)
	d.field("Racine de Merkle", r.Root, true)
	d.field("Liste privée (SHA-256)", r.EntrantsFile, true)
	d.field("Engagement H(r)", r.Commitment, true)
	if r.Beacon != "" {
		d.field("Balise publique annoncée", beaconLabel(r.Beacon), true)
	}
	if r.ShareCommitment != "" {
		d.field("Engagement de l'huissier sur sa contribution", r.ShareCommitment, true)
	}
	d.field("Gel effectué le", frenchTime(r.FrozenAt), false)
	if len(r.Inputs) > 0 {
		// The files the list was computed from, which the freeze binds:
		// the bailiff asks the operator for them and compares
		// (rngverify freeze --stakes … --closed …).
		d.heading("Fichiers d'entrée (engagés par le gel)")
		n := 0
		for _, in := range r.Inputs {
			label := "Comptes clos (SHA-256)"
			if in.Role == promo.InputStakes {
				n++
				label = fmt.Sprintf("Mises, fichier %d (SHA-256)", n)
			}
			d.field(label, in.SHA256+"\n"+d.exact(in.Name), true)
		}
	}
	d.heading("Journal de transparence")
	d.field("Index de l'enregistrement", fmt.Sprint(r.Freeze.Index), false)
	d.field("Empreinte du gel", r.FreezeLeafHash, true)
	d.field("Point de contrôle", firstLines(r.Checkpoint, 3), true)
	d.field("Empreinte du récépissé", hash8(fp), true)
	d.pdf.Ln(2)
	if err := d.qrCode("tirage-receipt:sha256:"+hash8(fp), 38); err != nil {
		return err
	}
	p := "Le QR code contient l'empreinte SHA-256 du récépissé JSON (receipt.json). Lors de la cérémonie, l'huissier apporte sa contribution (texte saisi ou lancers de dés) ; le résultat dépend de cette contribution et du secret r engagé ci-dessus."
	if r.ShareCommitment != "" {
		p += " La contribution saisie doit ouvrir l'engagement de l'huissier ci-dessus : toute autre est refusée."
	}
	d.para(p)
	return d.write(w)
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, " | ")
}

// WriteProcesVerbalPDF writes the procès-verbal of a certified draw. It
// names entrants only by pseudonym; account ids go to the private annex.
func WriteProcesVerbalPDF(w io.Writer, c *Certificate) error {
	v := c.Verified
	f, dr := v.Freeze, v.DrawRecord
	fp := promo.Fingerprint(c.JSON)
	d := newDoc("Procès-verbal de tirage au sort — "+c.Meta.Title, dr.Time)
	d.para(fmt.Sprintf("%s (%s). Tirage au sort effectué par l'appareil Tirage, en présence et sous le contrôle de l'huissier de justice soussigné, le %s.",
		c.Meta.OpTitle, c.Meta.Operation, frenchTime(promo.FormatTime(dr.Time))))
	held, postponed := heldDay(c.Meta, dr.Time)
	d.heading("Date du tirage")
	if c.Meta.Date != "" {
		d.field("Date prévue", frenchDate(c.Meta.Date), false)
	}
	d.field("Tirage effectué le", frenchDate(held), false)
	if postponed {
		d.field("Report", fmt.Sprintf("tirage reporté du %s au %s", frenchDate(c.Meta.Date), frenchDate(held)), false)
	}
	d.heading("Lot")
	d.field("Dotation", c.Meta.Prize, false)
	if c.Meta.ValueCents > 0 {
		d.field("Valeur", amount(c.Meta.ValueCents, c.Meta.Currency), false)
	}
	d.heading("Participants")
	d.field("Jours de participation", strings.Join(c.Meta.Days, ", "), false)
	if c.Meta.Rows > 0 {
		d.field("Lignes de mises lues", fmt.Sprint(c.Meta.Rows), false)
		d.field("Lignes rejetées", fmt.Sprintf("%d (mal formées ou en double ; rapport joint rejected.txt, une ligne par rejet)", c.Meta.Rejected), false)
		for _, k := range sortedKeys(c.Meta.Excluded) {
			d.field("Mises non retenues", fmt.Sprintf("%d : %s", c.Meta.Excluded[k], exclusionFR[k]), false)
		}
	}
	d.field("Comptes qualifiés", fmt.Sprint(c.Meta.Participants), false)
	d.field("Exclus (compte clôturé)", fmt.Sprint(c.Meta.Withheld), false)
	d.field("Inscrits au tirage", fmt.Sprint(f.Count), false)
	d.para("Une seule participation par compte, quel que soit le montant misé (art. 2.4).")
	d.heading("Gel de la liste (avant la cérémonie)")
	d.field("Gel effectué le", frenchTime(promo.FormatTime(f.Time)), false)
	d.field("Racine de Merkle", hex.EncodeToString(f.Root[:]), true)
	d.field("Engagement H(r)", hex.EncodeToString(f.Commit[:]), true)
	if c := promo.ShareCommitmentHex(f); c != "" {
		d.field("Engagement de l'huissier sur sa contribution", c, true)
	}
	d.field("Règlement (SHA-256)", v.RulesHash, true)
	d.heading("Cérémonie")
	d.field("Contribution de l'huissier", d.exact(string(dr.Share)), true)
	switch {
	case v.Beacon.Verified():
		d.field("Balise publique", beaconLabel(dr.Beacon), true)
		d.field("Signature du tour (vérifiée)", hex.EncodeToString(dr.BeaconValue), true)
		d.field("Aléa du tour, SHA-256(signature)", hex.EncodeToString(v.Beacon.Randomness[:]), true)
	case dr.Beacon != "":
		d.field("Balise publique (non vérifiée)", dr.Beacon+" : "+hex.EncodeToString(dr.BeaconValue), true)
	}
	d.field("Secret r révélé", hex.EncodeToString(dr.Secret[:]), true)
	d.field("Clé VRF", fmt.Sprintf("%s, SHA-256 %s", dr.Key, fingerprintHex(v.VRFKey)), true)
	d.field("Sortie VRF (beta)", hex.EncodeToString(dr.Beta), true)
	d.heading("Résultat")
	d.para("Un seul tirage : le gagnant puis les suppléants, dans l'ordre, sont issus de la même sortie VRF ; il n'y a pas de second tirage.")
	for _, p := range v.Picks {
		role := "Gagnant"
		if p.Rank > 1 {
			role = fmt.Sprintf("Suppléant n° %d", p.Rank-1)
		}
		d.field(role, fmt.Sprintf("%s (position %d sur %d)", p.Pseudonym, p.Index+1, f.Count), true)
	}
	if len(v.Picks) > 1 {
		d.para("Le rang de suppléant ne donne aucun droit à une dotation que le gagnant perd après le tirage : le règlement de l'opération en fixe le sort.")
	}
	d.para("Les identifiants de compte des personnes tirées figurent uniquement dans l'annexe privée remise à l'opérateur.")
	d.heading("Anomalies")
	var anomalies []string
	if postponed {
		a := fmt.Sprintf("Le tirage, prévu le %s, a été effectué le %s (report du %s au %s)", frenchDate(c.Meta.Date), frenchDate(held), frenchDate(c.Meta.Date), frenchDate(held))
		if c.Meta.LatestDate != "" {
			a += fmt.Sprintf(", dans le délai que le règlement fixe au %s", frenchDate(c.Meta.LatestDate))
		}
		anomalies = append(anomalies, a+" ; le règlement ne permet un report que pour des raisons techniques (art. 2.4).")
	}
	if c.Meta.Rejected > 0 {
		a := fmt.Sprintf("%d lignes des fichiers de mises ont été rejetées (mal formées ou en double) et n'ont pas été comptées", c.Meta.Rejected)
		if c.Meta.Rejected == 1 {
			a = "1 ligne des fichiers de mises a été rejetée (mal formée ou en double) et n'a pas été comptée"
		}
		anomalies = append(anomalies, a+" : voir le rapport rejected.txt, une ligne par rejet.")
	}
	const checked = "la liste, l'engagement, la preuve VRF et les preuves d'inclusion ont été vérifiés avant l'émission de ce procès-verbal."
	if len(anomalies) == 0 {
		d.para("Aucune anomalie constatée par l'appareil : " + checked)
	} else {
		d.para(fmt.Sprintf("Anomalies constatées par l'appareil (%d) :", len(anomalies)))
		for _, a := range anomalies {
			d.para("- " + a)
		}
		d.para("Par ailleurs, " + checked)
	}
	d.heading("Vérification")
	d.field("Journal", fmt.Sprintf("%s, %d enregistrements", v.LogOrigin, v.TreeSize), false)
	d.field("Index gel / tirage", fmt.Sprintf("%d / %d", c.freezeIndex(), c.drawIndex()), false)
	d.field("Empreinte du certificat", fp, true)
	d.pdf.Ln(1)
	if err := d.qrCode("tirage-certificate:sha256:"+fp, 40); err != nil {
		return err
	}
	d.para("Vérification hors ligne : rngverify certificate certificate.json (contrôles publics), ou avec la liste privée : rngverify certificate certificate.json --entrants entrants.txt (contrôles de l'huissier). Le QR code contient l'empreinte SHA-256 du fichier certificate.json.")
	d.pdf.Ln(8)
	d.para("L'huissier de justice :                                                            Pour l'opérateur :")
	return d.write(w)
}

// WriteAnnexPDF writes the operator's private annex: the picked accounts.
func WriteAnnexPDF(w io.Writer, c *Certificate) error {
	v := c.Verified
	if len(v.Accounts) != len(v.Picks) {
		return fmt.Errorf("the annex needs the certificate verified with the entrant list")
	}
	d := newDoc("Annexe privée — "+c.Meta.Title, v.DrawRecord.Time)
	d.para("CONFIDENTIEL — réservé à l'opérateur. Correspondance entre les pseudonymes du procès-verbal et les comptes joueurs. Ne pas publier.")
	d.field("Certificat (SHA-256)", promo.Fingerprint(c.JSON), true)
	d.heading("Personnes tirées")
	for i, p := range v.Picks {
		role := "Gagnant"
		if p.Rank > 1 {
			role = fmt.Sprintf("Suppléant n° %d", p.Rank-1)
		}
		d.field(role, fmt.Sprintf("compte %s — %s", v.Accounts[i], p.Pseudonym), true)
	}
	return d.write(w)
}

func fingerprintHex(pubHex string) string {
	b, _ := hex.DecodeString(pubHex)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func (c *Certificate) freezeIndex() uint64 {
	var cert promo.Certificate
	json.Unmarshal(c.JSON, &cert)
	return cert.Freeze.Index
}

func (c *Certificate) drawIndex() uint64 {
	var cert promo.Certificate
	json.Unmarshal(c.JSON, &cert)
	return cert.DrawRecord.Index
}

// beaconLabel names an announced beacon round for people: the drand chain
// and round, then the reference as logged.
func beaconLabel(announced string) string {
	ref, err := beacon.ParseRef(announced)
	if err != nil {
		return announced // a free-text beacon of an older freeze
	}
	if c := beacon.Pinned(hex.EncodeToString(ref.Chain[:])); c != nil {
		return fmt.Sprintf("%s, tour %d (%s)", c, ref.Round, announced)
	}
	return announced
}
