package web_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/cli"
	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/vrf"
	"tirage.fr/tirage/verifier/web"
)

// drand quicknet round 123 (verifier/beacon/testdata/rounds.json).
const (
	quicknetHash = "52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971"
	sig123       = "b75c69d0b72a5d906e854e808ba7e2accb1542ac355ae486d591aa9d43765482e26cd02df835d3546d23c4b13e0dfc92"
	round123     = "drand:" + quicknetHash + ":123"
)

// ruled is a promotion certificate with the rules file its freeze commits
// to, and the operator's keys as the page's trust zone takes them.
type ruled struct {
	cert, rules, vkey []byte
	pin               string // the VRF key, SUITE:FP
}

// readFile reads a test input.
func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ruledCertificate makes (receipttest's RuledCertificate) the
// certificate of draw bonus-crescendo/1 by a test appliance whose freeze
// commits to the example's rules — its draw 1 announcing quicknet round
// rulesRound, none when 0 — by their hash but announces freezeBeacon (""
// or a quicknet round), its draw binding that round's value.
func ruledCertificate(t *testing.T, rulesRound uint64, freezeBeacon string) ruled {
	t.Helper()
	var value []byte
	if freezeBeacon != "" {
		value, _ = hex.DecodeString(sig123)
	}
	a, err := receipttest.New(24)
	if err != nil {
		t.Fatal(err)
	}
	cert, rules, err := a.RuledCertificate(readFile(t, "../../examples/bonus-crescendo.yaml"), rulesRound, freezeBeacon, value)
	if err != nil {
		t.Fatal(err)
	}
	return ruled{cert: cert, rules: rules, vkey: a.LogKeyFile(), pin: a.VRFPin()}
}

// verify runs the page on the certificate, trusting its appliance's keys,
// with rules (nil: none given).
func (c ruled) verify(rules *web.File) []web.Result {
	return web.Verify([]web.File{{Name: "cert.json", Data: c.cert}}, []web.File{{Name: "log.vkey", Data: c.vkey}}, c.pin, rules)
}

// beaconCases: rngd freezes a draw with the beacon round its rules
// announce; a freeze that drops it, names another round or one the rules
// do not announce contradicts the rules it commits to by their hash.
var beaconCases = []struct {
	name         string
	rulesRound   uint64
	freezeBeacon string
	want         verdict.Status // with the rules
	beacon       verdict.Status // beacon-signature, with the rules
	en, fr       string         // its reason
}{
	{"the round announced", 123, round123, verdict.StatusPass, verdict.StatusPass, "drand quicknet (52db9ba7…) round 123", "ronde 123 de drand quicknet"},
	{"none announced, none promised", 0, "", verdict.StatusPass, verdict.StatusSkip,
		"neither the freeze nor the rules given (--rules) announce a beacon round", "ni le gel ni le règlement fourni (--rules) n'annoncent de ronde de balise"},
	{"beacon dropped", 657413, "", verdict.StatusMisbehaviour, verdict.StatusMisbehaviour,
		"the freeze announces no beacon round, but the rules it commits to announce drand quicknet (52db9ba7…) round 657413 (drand:" + quicknetHash + ":657413) for draw bonus-crescendo/1: the freeze contradicts its own rules",
		"le gel annonce : aucune ronde de balise ; le règlement auquel il s'engage annonce pour le tirage bonus-crescendo/1 : la ronde 657413 de drand quicknet (52db9ba7…) (drand:" + quicknetHash + ":657413) ; le gel contredit son propre règlement"},
	{"another round", 657413, round123, verdict.StatusMisbehaviour, verdict.StatusMisbehaviour,
		"the freeze announces drand quicknet (52db9ba7…) round 123 (" + round123 + "), but the rules it commits to announce drand quicknet (52db9ba7…) round 657413",
		"le gel annonce : la ronde 123 de drand quicknet (52db9ba7…) (" + round123 + ") ; le règlement auquel il s'engage annonce pour le tirage bonus-crescendo/1 : la ronde 657413 de drand quicknet"},
	{"a round the rules do not announce", 0, round123, verdict.StatusMisbehaviour, verdict.StatusMisbehaviour,
		"the freeze announces drand quicknet (52db9ba7…) round 123 (" + round123 + "), but the rules it commits to announce no beacon round",
		"le règlement auquel il s'engage annonce pour le tirage bonus-crescendo/1 : aucune ronde de balise ; le gel contredit"},
}

// TestCertificateRules: the page takes the draw's rules file as rngverify
// certificate --rules does. With the rules, a freeze — proven the
// appliance's — that announced another beacon than its rules is
// MISBEHAVIOUR at beacon-signature, naming both, and the rules file is
// the frozen one; the announced round, or none when none is promised,
// passes. Without the rules every certificate passes, and a freeze that
// announced no round is skipped with the command line's wording and the
// page's note to give the rules (NoteRulesMissing). Before, the page took
// no rules: a certificate whose freeze dropped the promised round passed.
func TestCertificateRules(t *testing.T) {
	for _, c := range beaconCases {
		t.Run(c.name, func(t *testing.T) {
			rc := ruledCertificate(t, c.rulesRound, c.freezeBeacon)
			rs := rc.verify(nil)
			if len(rs) != 1 || rs[0].Verdict.Status() != verdict.StatusPass {
				t.Fatalf("without the rules: %+v", rs)
			}
			b := rs[0].Verdict.Find(promo.CheckBeacon)
			if c.freezeBeacon == "" {
				if b == nil || b.Status != verdict.StatusSkip || b.Reason("en") != "the freeze announced no beacon round; only the draw's rules show whether one was promised (rngverify certificate --rules FILE checks it)" || rs[0].Note != web.NoteRulesMissing {
					t.Errorf("without the rules, the skip does not send to the rules: note %q\n%s", rs[0].Note, rs[0].Verdict.Text("en"))
				}
			} else if rs[0].Note != "" {
				t.Errorf("without the rules, a round announced: note %q", rs[0].Note)
			}

			rs = rc.verify(&web.File{Name: "rules.yaml", Data: rc.rules})
			if len(rs) != 1 {
				t.Fatalf("with the rules: %d results, want the certificate", len(rs))
			}
			v := rs[0].Verdict
			b, h := v.Find(promo.CheckBeacon), v.Find(promo.CheckRules)
			if v.Status() != c.want || b == nil || b.Status != c.beacon || !strings.Contains(b.Reason("en"), c.en) || !strings.Contains(b.Reason("fr"), c.fr) || rs[0].Note != "" {
				t.Fatalf("with the rules: %s, beacon-signature %v, note %q; want %s, %s %q\n%s\n%s", v.Status(), b, rs[0].Note, c.want, c.beacon, c.en, v.Text("en"), v.Text("fr"))
			}
			if h == nil || h.Status != verdict.StatusPass || h.Reason("en") != "the rules file given is the frozen one" {
				t.Errorf("with the rules: rules-hash %+v", h)
			}
			// The page shows it so.
			var page []struct{ Verdict, Summary, Note string }
			if err := json.Unmarshal(web.Render(rs, "en"), &page); err != nil || len(page) != 1 || page[0].Verdict != string(c.want) {
				t.Fatalf("rendered: %+v (%v)", page, err)
			}
			if c.want == verdict.StatusMisbehaviour && !strings.Contains(page[0].Summary, "MISBEHAVIOUR PROVEN") {
				t.Errorf("summary %q", page[0].Summary)
			}
		})
	}
}

// TestRulesRefused: a rules file the page cannot read as one is refused
// by name, each problem with its line, in both languages
// (NoteRulesRefused), and the certificates are still checked against it:
// they fail rules-hash (it is not the frozen file), as with rngverify
// certificate --rules. Before, the page took no rules file.
func TestRulesRefused(t *testing.T) {
	rc := ruledCertificate(t, 657413, "")
	for name, c := range map[string]struct {
		data   []byte
		en, fr string
	}{
		"not YAML":       {[]byte("version: 1\noperation: [\n"), "my-rules.yaml: line ", "my-rules.yaml : "},
		"unknown field":  {append(bytes.Clone(rc.rules), "bonus: 1\n"...), "my-rules.yaml: line ", "my-rules.yaml : "},
		"empty":          {[]byte("\n"), "my-rules.yaml: (file): empty rules file", "my-rules.yaml : "},
		"larger than 16": {make([]byte, receipt.MaxSize+1), "couldn't read the rules: my-rules.yaml is larger than 16 MiB, the limit for a rules file", "impossible de lire le règlement : my-rules.yaml dépasse 16 Mio, la limite pour un règlement"},
	} {
		rs := rc.verify(&web.File{Name: "my-rules.yaml", Data: c.data})
		if len(rs) != 2 {
			t.Errorf("%s: %d results, want the refusal and the certificate", name, len(rs))
			continue
		}
		r := rs[0]
		f := r.Verdict.Find(verdict.CheckFormat)
		if r.File != "my-rules.yaml" || r.Note != web.NoteRulesRefused || r.Verdict.Status() != verdict.StatusFail || f == nil ||
			!strings.Contains(f.Reason("en"), c.en) || !strings.Contains(f.Reason("fr"), c.fr) {
			t.Errorf("%s: %s, note %q\n%s\n%s", name, r.File, r.Note, r.Verdict.Text("en"), r.Verdict.Text("fr"))
		}
		v := rs[1].Verdict
		if h := v.Find(promo.CheckRules); v.Status() != verdict.StatusFail || h == nil || h.Status != verdict.StatusFail {
			t.Errorf("%s: the certificate against refused rules:\n%s", name, v.Text("en"))
		}
	}
	// The page is told the note; a rules file it reads is not shown.
	var page []struct{ File, Note string }
	if err := json.Unmarshal(web.Render(rc.verify(&web.File{Name: "my-rules.yaml", Data: []byte("x: [\n")}), "fr"), &page); err != nil {
		t.Fatal(err)
	}
	if len(page) != 2 || page[0].File != "my-rules.yaml" || page[0].Note != web.NoteRulesRefused || page[1].Note != "" {
		t.Errorf("rendered notes: %+v", page)
	}
	if rs := web.Verify(nil, nil, "", &web.File{Name: "rules.yaml", Data: rc.rules}); len(rs) != 0 {
		t.Errorf("good rules, no document: %+v", rs)
	}
}

// TestRulesAsCommandLine: the page's verdict on a certificate, with or
// without the rules, is rngverify certificate's (--json, the same bytes),
// so that the page and the command line cannot drift apart: the beacon
// cases, rules that are not the frozen ones (not rules, or another copy of
// the operation's), and the fixture certificate of rngd with its entrant
// list and the example's rules. (Rules of another operation:
// TestRulesOtherOperation.)
func TestRulesAsCommandLine(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	type run struct {
		name                 string
		cert, rules, entrant []byte
		vkey                 []byte
		pins                 []string
	}
	var runs []run
	for _, c := range beaconCases {
		rc := ruledCertificate(t, c.rulesRound, c.freezeBeacon)
		runs = append(runs, run{c.name, rc.cert, rc.rules, nil, rc.vkey, []string{rc.pin}},
			run{c.name + ", no rules", rc.cert, nil, nil, rc.vkey, []string{rc.pin}})
	}
	rc := ruledCertificate(t, 123, round123)
	runs = append(runs, run{"other rules", rc.cert, []byte("version: 1\n"), nil, rc.vkey, []string{rc.pin}},
		run{"another copy of the operation's rules", rc.cert, append(bytes.Clone(rc.rules), "# the bailiff's copy\n"...), nil, rc.vkey, []string{rc.pin}})
	// rngd's certificate (verifier/cli/testdata), its keys pinned.
	cert, entrants := readFile(t, "../cli/testdata/promo-certificate.json"), readFile(t, "../cli/testdata/promo-entrants.txt")
	rules := readFile(t, "../../examples/bonus-crescendo.yaml")
	var keys struct {
		LogKeys      []string `json:"log_keys"`
		VRFSuite     string   `json:"vrf_suite"`
		VRFPublicKey string   `json:"vrf_public_key"`
	}
	if err := json.Unmarshal(cert, &keys); err != nil {
		t.Fatal(err)
	}
	var pins []string
	for _, k := range keys.LogKeys {
		lk, err := checkpoint.ParseKey(k)
		if err != nil {
			t.Fatal(err)
		}
		pins = append(pins, lk.Fingerprint())
	}
	s, err := vrf.ParseSuite(keys.VRFSuite)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := hex.DecodeString(keys.VRFPublicKey)
	pk, err := vrf.ParsePublicKey(s, raw)
	if err != nil {
		t.Fatal(err)
	}
	pins = append(pins, receipt.VRFPin(pk))
	runs = append(runs, run{"rngd's certificate", cert, rules, entrants, nil, pins},
		run{"rngd's certificate, no rules", cert, nil, entrants, nil, pins})

	for _, r := range runs {
		args := []string{"certificate", write("cert.json", r.cert), "--json"}
		docs := []web.File{{Name: "cert.json", Data: r.cert}}
		var anchors []web.File
		var rules *web.File
		if r.vkey != nil {
			args = append(args, "--log-key", write("log.vkey", r.vkey))
			anchors = append(anchors, web.File{Name: "log.vkey", Data: r.vkey})
		}
		for _, p := range r.pins {
			args = append(args, "--pin", p)
		}
		if r.rules != nil {
			args = append(args, "--rules", write("rules.yaml", r.rules))
			rules = &web.File{Name: "rules.yaml", Data: r.rules}
		}
		if r.entrant != nil {
			args = append(args, "--entrants", write("entrants.txt", r.entrant))
			docs = append(docs, web.File{Name: "entrants.txt", Data: r.entrant})
		}
		var out, errs bytes.Buffer
		cli.Run(cli.Env{Args: args, Stdout: &out, Stderr: &errs})
		var page *verdict.Verdict
		for _, res := range web.Verify(docs, anchors, strings.Join(r.pins, " "), rules) {
			if res.File == "cert.json" {
				page = res.Verdict
			}
		}
		if page == nil {
			t.Fatalf("%s: the page shows no verdict on the certificate", r.name)
		}
		if !bytes.Equal(page.JSON(), out.Bytes()) {
			t.Errorf("%s: the page's verdict is not rngverify's\npage:\n%s\nrngverify:\n%s%s", r.name, page.JSON(), out.Bytes(), errs.Bytes())
		}
	}
}

// TestRulesOtherOperation: a bailiff drops the certificates of two
// operations with one operation's rules file. The certificate of that
// operation is checked against them; the other's is not: it is verified
// as without rules — its verdict the bytes of rngverify certificate --json
// without --rules — with NoteRulesOtherOperation and, beside it, the two
// operations named in both languages, as rngverify certificate --rules
// refuses the pair (exit 2). Before, it FAILED rules-hash. The rules of
// its own operation with another hash still fail rules-hash, saying both
// readings.
func TestRulesOtherOperation(t *testing.T) {
	a, err := receipttest.New(25)
	if err != nil {
		t.Fatal(err)
	}
	example := readFile(t, "../../examples/bonus-crescendo.yaml")
	crescendo, crescendoRules, err := a.RuledCertificate(example, 0, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	ete, eteRules, err := a.RuledCertificate(bytes.Replace(example, []byte("\noperation: bonus-crescendo\n"), []byte("\noperation: bonus-ete\n"), 1), 0, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	docs := []web.File{{Name: "crescendo.json", Data: crescendo}, {Name: "ete.json", Data: ete}}
	anchors := []web.File{{Name: "log.vkey", Data: a.LogKeyFile()}}
	alone := map[string]*verdict.Verdict{} // each certificate without rules
	for _, r := range web.Verify(docs, anchors, a.VRFPin(), nil) {
		alone[r.File] = r.Verdict
	}
	dir := t.TempDir()
	certPath := filepath.Join(dir, "ete.json")
	if err := os.WriteFile(certPath, ete, 0o644); err != nil {
		t.Fatal(err)
	}
	vkeyPath := filepath.Join(dir, "log.vkey")
	if err := os.WriteFile(vkeyPath, a.LogKeyFile(), 0o644); err != nil {
		t.Fatal(err)
	}
	var cliOut bytes.Buffer
	if code := cli.Run(cli.Env{Args: []string{"certificate", certPath, "--log-key", vkeyPath, "--pin", a.VRFPin(), "--json"}, Stdout: &cliOut, Stderr: io.Discard}); code != cli.ExitOK {
		t.Fatalf("rngverify certificate ete.json: exit %d", code)
	}

	for _, c := range []struct {
		rules           []byte
		own, other      string // the certificates of the rules' operation and of the other
		ruleOp, otherOp string
	}{
		{crescendoRules, "crescendo.json", "ete.json", "bonus-crescendo", "bonus-ete"},
		{eteRules, "ete.json", "crescendo.json", "bonus-ete", "bonus-crescendo"},
	} {
		rs := web.Verify(docs, anchors, a.VRFPin(), &web.File{Name: "rules.yaml", Data: c.rules})
		if len(rs) != 2 {
			t.Fatalf("rules of %s: %d results, want the two certificates", c.ruleOp, len(rs))
		}
		for _, r := range rs {
			v := r.Verdict
			if r.File == c.own {
				if h := v.Find(promo.CheckRules); v.Status() != verdict.StatusPass || h == nil || h.Reason("en") != "the rules file given is the frozen one" || r.Note != "" || r.NoteDetail != nil {
					t.Errorf("rules of %s, %s: note %q\n%s", c.ruleOp, r.File, r.Note, v.Text("en"))
				}
				continue
			}
			en := "the rules file given is for operation " + c.ruleOp + ", this certificate for operation " + c.otherOp + ": they are not its rules, so it was not checked against them"
			fr := "le règlement fourni est celui de l'opération " + c.ruleOp + ", ce certificat celui de l'opération " + c.otherOp + " : ce n'est pas son règlement, il n'a donc pas été vérifié contre lui"
			if v.Status() != verdict.StatusPass || !bytes.Equal(v.JSON(), alone[r.File].JSON()) || r.Note != web.NoteRulesOtherOperation ||
				r.NoteDetail == nil || r.NoteDetail.Text("en") != en || r.NoteDetail.Text("fr") != fr {
				t.Errorf("rules of %s, %s: note %q %v, want %q\n%s\nwithout rules:\n%s", c.ruleOp, r.File, r.Note, r.NoteDetail, web.NoteRulesOtherOperation, v.Text("en"), alone[r.File].Text("en"))
			}
			if r.File == "ete.json" && !bytes.Equal(v.JSON(), cliOut.Bytes()) {
				t.Errorf("rules of %s: the page's verdict on ete.json is not rngverify's without --rules\npage:\n%s\nrngverify:\n%s", c.ruleOp, v.JSON(), cliOut.Bytes())
			}
			// The page shows the note and its detail in either language.
			for lang, want := range map[string]string{"en": en, "fr": fr} {
				var page []struct {
					File, Verdict, Note string
					NoteDetail          string `json:"note_detail"`
				}
				if err := json.Unmarshal(web.Render(rs, lang), &page); err != nil {
					t.Fatal(err)
				}
				shown := 0
				for _, p := range page {
					if p.File != r.File {
						continue
					}
					shown++
					if p.Verdict != "pass" || p.Note != web.NoteRulesOtherOperation || p.NoteDetail != want {
						t.Errorf("rendered in %s: %+v, want the note and %q", lang, p, want)
					}
				}
				if shown != 1 {
					t.Errorf("rendered in %s: %s shown %d times", lang, r.File, shown)
				}
			}
		}
	}

	// The rules of its operation, another copy: FAIL at rules-hash, both readings.
	bailiff := append(bytes.Clone(crescendoRules), "# the bailiff's copy\n"...)
	rs := web.Verify(docs[:1], anchors, a.VRFPin(), &web.File{Name: "rules.yaml", Data: bailiff})
	if len(rs) != 1 {
		t.Fatalf("another copy: %d results", len(rs))
	}
	v := rs[0].Verdict
	h := v.Find(promo.CheckRules)
	if v.Status() != verdict.StatusFail || h == nil || h.Status != verdict.StatusFail || rs[0].Note != "" ||
		!strings.Contains(h.Reason("en"), "the rules file given is for operation bonus-crescendo but hashes to ") ||
		!strings.Contains(h.Reason("en"), ": either the operator froze other rules than this file, or this copy is not the one it froze") ||
		!strings.Contains(h.Reason("fr"), "soit l'exploitant a gelé un autre règlement que ce fichier, soit cette copie n'est pas celle qu'il a gelée") {
		t.Errorf("another copy of the operation's rules: note %q\n%s\n%s", rs[0].Note, v.Text("en"), v.Text("fr"))
	}
}
