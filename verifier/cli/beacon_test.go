package cli

import (
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/record"
)

// drand quicknet rounds (verifier/beacon/testdata/rounds.json).
const (
	quicknetHash = "52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971"
	sig123       = "b75c69d0b72a5d906e854e808ba7e2accb1542ac355ae486d591aa9d43765482e26cd02df835d3546d23c4b13e0dfc92"
)

// beaconCertificate writes the rules file (the example's, its draw 1
// announcing quicknet round rulesRound, none when 0) and the certificate
// of draw bonus-crescendo/1 by a test appliance whose freeze commits to
// those rules by their hash but announces freezeBeacon ("" or a quicknet
// round), its draw binding that round's value. It returns the files and
// the anchors that trust the appliance's keys.
func beaconCertificate(t *testing.T, rulesRound uint64, freezeBeacon string, value []byte, edits ...func(*record.PromoFreeze)) (cert, rules string, trust []string) {
	t.Helper()
	dir := t.TempDir()
	rulesFile, err := os.ReadFile("../../examples/bonus-crescendo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	a, err := receipttest.New(71)
	if err != nil {
		t.Fatal(err)
	}
	c, rulesFile, err := a.RuledCertificate(rulesFile, rulesRound, freezeBeacon, value, edits...)
	if err != nil {
		t.Fatal(err)
	}
	cert = write(t, dir, "cert.json", c)
	rules = write(t, dir, "rules.yaml", rulesFile)
	return cert, rules, []string{"--log-key", write(t, dir, "log.vkey", a.LogKeyFile()), "--pin", a.VRFPin()}
}

// TestCertificateBeaconAgainstRules: rngd freezes a draw with the beacon
// round its rules announce; a freeze that drops it (or names another
// round) draws without the promised outside randomness. With the rules
// given (--rules), the freeze — proven the appliance's, committing to the
// rules by their hash — contradicts them: MISBEHAVIOUR at
// beacon-signature, naming both beacons. Before, the certificate passed,
// beacon-signature skipped ("the freeze announced no beacon round").
// Without the rules the skip says that only the rules show whether a
// round was promised.
func TestCertificateBeaconAgainstRules(t *testing.T) {
	value, _ := hex.DecodeString(sig123)
	round123 := "drand:" + quicknetHash + ":123"
	for _, c := range []struct {
		name         string
		rulesRound   uint64
		freezeBeacon string
		value        []byte
		want         int
		line, fr     string // the beacon-signature line, in English and French
	}{
		{"beacon dropped", 657413, "", nil, ExitFail,
			"[MISBEHAVIOUR] beacon-signature       public beacon — the freeze announces no beacon round, but the rules it commits to announce drand quicknet (52db9ba7…) round 657413 (drand:" + quicknetHash + ":657413) for draw bonus-crescendo/1: the freeze contradicts its own rules",
			"le gel annonce : aucune ronde de balise ; le règlement auquel il s'engage annonce pour le tirage bonus-crescendo/1 : la ronde 657413 de drand quicknet (52db9ba7…) (drand:" + quicknetHash + ":657413) ; le gel contredit son propre règlement"},
		{"another round", 657413, round123, value, ExitFail,
			"[MISBEHAVIOUR] beacon-signature       public beacon — the freeze announces drand quicknet (52db9ba7…) round 123 (" + round123 + "), but the rules it commits to announce drand quicknet (52db9ba7…) round 657413",
			"le gel annonce : la ronde 123 de drand quicknet (52db9ba7…) (" + round123 + ") ; le règlement auquel il s'engage annonce pour le tirage bonus-crescendo/1 : la ronde 657413 de drand quicknet"},
		{"a round the rules do not announce", 0, round123, value, ExitFail,
			"[MISBEHAVIOUR] beacon-signature       public beacon — the freeze announces drand quicknet (52db9ba7…) round 123 (" + round123 + "), but the rules it commits to announce no beacon round",
			"le règlement auquel il s'engage annonce pour le tirage bonus-crescendo/1 : aucune ronde de balise ; le gel contredit"},
		{"the round announced", 123, round123, value, ExitOK, "[PASS] beacon-signature", "[OK] beacon-signature       balise publique d'aléa — ronde 123 de drand quicknet"},
		{"none announced, none promised", 0, "", nil, ExitOK,
			"[skip] beacon-signature       public beacon — neither the freeze nor the rules given (--rules) announce a beacon round",
			"ni le gel ni le règlement fourni (--rules) n'annoncent de ronde de balise"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cert, rules, trust := beaconCertificate(t, c.rulesRound, c.freezeBeacon, c.value)
			// Without the rules: passes; a freeze without a round says
			// that only the rules show whether one was promised.
			code, out, errs := runCLI(append([]string{"certificate", cert}, trust...)...)
			if code != ExitOK {
				t.Fatalf("without --rules: exit %d\n%s%s", code, out, errs)
			}
			if c.freezeBeacon == "" && !strings.Contains(out, "[skip] beacon-signature       public beacon — the freeze announced no beacon round; only the draw's rules show whether one was promised (rngverify certificate --rules FILE checks it)\n") {
				t.Errorf("without --rules, the skip does not send to the rules:\n%s", out)
			}
			args := append([]string{"certificate", cert, "--rules", rules}, trust...)
			code, out, errs = runCLI(args...)
			if code != c.want || !strings.Contains(out, c.line) {
				t.Fatalf("--rules: exit %d, want %d and %q\n%s%s", code, c.want, c.line, out, errs)
			}
			if c.want == ExitFail {
				if !strings.HasPrefix(errs, "rngverify certificate: MISBEHAVIOUR PROVEN, check beacon-signature: ") ||
					!strings.Contains(out, "[PASS] rules-hash") || !strings.Contains(out, "the rules file given is the frozen one") {
					t.Errorf("--rules: stderr %q\n%s", errs, out)
				}
			}
			code, out, errs = runCLI(append(args, "--lang", "fr")...)
			if code != c.want || !strings.Contains(out, c.fr) {
				t.Fatalf("--rules --lang fr: exit %d, want %d and %q\n%s%s", code, c.want, c.fr, out, errs)
			}
			frenchOK(t, c.name, out+errs)
		})
	}
}

// TestCertificateRankingAgainstRules: every draw of the rules has one
// winner, then draws[j].reserves ranked reserves (Bonus Crescendo art. 3.1,
// 3.3.1). A freeze, proven the appliance's, that ranks two winners or fewer
// reserves than the rules it commits to by their hash contradicts them:
// MISBEHAVIOUR at ranked-picks with --rules (before, both passed); so does
// one frozen before the participation period ended (draw-dates: before, an
// ordinary failure, though rngverify audit --rules calls it misbehaviour). Without
// the rules nothing shows what was promised. A --reserves other than the
// rules' is the user's inputs disagreeing: nothing is proven.
func TestCertificateRankingAgainstRules(t *testing.T) {
	for _, c := range []struct {
		name   string
		edit   func(*record.PromoFreeze)
		en, fr string
	}{
		{"two winners", func(f *record.PromoFreeze) { f.Winners, f.Reserves = 2, 2 },
			"[MISBEHAVIOUR] ranked-picks", "the freeze ranks 2 winners, but the rules it commits to give draw bonus-crescendo/1 one winner (rank 1), then its reserves: the freeze contradicts its own rules"},
		{"fewer reserves", func(f *record.PromoFreeze) { f.Reserves = 2 },
			"[MISBEHAVIOUR] ranked-picks", "the freeze ranks 2 reserves, the rules ask for 3"},
		{"frozen during the participation period", func(f *record.PromoFreeze) { f.Time = time.Date(2016, 6, 19, 10, 0, 0, 0, time.UTC) },
			"[MISBEHAVIOUR] draw-dates", "2016-06-19"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cert, rules, trust := beaconCertificate(t, 0, "", nil, c.edit)
			if code, out, errs := runCLI(append([]string{"certificate", cert}, trust...)...); code != ExitOK {
				t.Fatalf("without --rules: exit %d, want %d (nothing shows what the rules promise)\n%s%s", code, ExitOK, out, errs)
			}
			args := append([]string{"certificate", cert, "--rules", rules}, trust...)
			code, out, errs := runCLI(args...)
			if code != ExitFail || !strings.Contains(out, c.en) || !strings.Contains(out, c.fr) ||
				!strings.HasPrefix(errs, "rngverify certificate: MISBEHAVIOUR PROVEN, check ") {
				t.Fatalf("--rules: exit %d, want %d, %q and %q\n%s%s", code, ExitFail, c.en, c.fr, out, errs)
			}
			code, out, errs = runCLI(append(args, "--lang", "fr")...)
			if code != ExitFail || !strings.Contains(out, "[MANQUEMENT] "+strings.Fields(c.en)[1]) {
				t.Fatalf("--rules --lang fr: exit %d\n%s%s", code, out, errs)
			}
			frenchOK(t, c.name, out+errs)
		})
	}
	cert, rules, trust := beaconCertificate(t, 0, "", nil)
	for _, lang := range []string{"en", "fr"} {
		code, out, errs := runCLI(append([]string{"certificate", cert, "--rules", rules, "--reserves", "2", "--lang", lang}, trust...)...)
		want := map[string]string{"en": "2 reserves given (--reserves), but the rules file gives draw bonus-crescendo/1 3: give the rules file alone, or the count it gives",
			"fr": "2 suppléants fournis (--reserves), mais le règlement fourni en donne 3 au tirage bonus-crescendo/1 : fournir le règlement seul, ou le nombre qu'il donne"}[lang]
		if code != ExitFail || !strings.Contains(out, want) || strings.Contains(out, "MISBEHAVIOUR") {
			t.Errorf("--reserves 2 against rules of 3 (%s): exit %d, want %d and %q, no misbehaviour\n%s%s", lang, code, ExitFail, want, out, errs)
		}
	}
}

// TestCertificateDatesShown: with --rules, a certificate drawn within its
// dates shows draw-dates passed, titled in both languages (before, the
// check ran but no row said so: a bailiff could not tell the dates were
// checked); without --rules there is no such row.
func TestCertificateDatesShown(t *testing.T) {
	cert, rules, trust := beaconCertificate(t, 0, "", nil)
	code, out, errs := runCLI(append([]string{"certificate", cert}, trust...)...)
	if code != ExitOK || strings.Contains(out, "draw-dates") {
		t.Fatalf("without --rules: exit %d, want %d and no draw-dates row\n%s%s", code, ExitOK, out, errs)
	}
	for lang, want := range map[string]string{
		"en": "[PASS] draw-dates             dates — frozen after the participation period, drawn between the draw's date and its latest date",
		"fr": "[OK] draw-dates             dates — gelé après la période de participation, tiré entre la date du tirage et sa date limite",
	} {
		code, out, errs := runCLI(append([]string{"certificate", cert, "--rules", rules, "--lang", lang}, trust...)...)
		if code != ExitOK || !strings.Contains(out, want) {
			t.Errorf("--rules --lang %s: exit %d, want %d and %q\n%s%s", lang, code, ExitOK, want, out, errs)
		}
		if lang == "fr" {
			frenchOK(t, "draw-dates", out+errs)
		}
	}
}
