package web_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/web"
)

// TestVerify runs the page's logic without a browser on the same documents
// as TestBrowserPage.
func TestVerify(t *testing.T) {
	paths := documents(t, t.TempDir())
	var files []web.File
	for k, p := range paths {
		if k == "pin" {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, web.File{Name: filepath.Base(p), Data: b})
	}
	var docs []struct {
		File    string `json:"file"`
		Verdict string `json:"verdict"`
		Summary string `json:"summary"`
		Checks  []struct {
			Name, Status, Title, Explanation string
		} `json:"checks"`
	}
	if err := json.Unmarshal(web.Render(web.Verify(files, paths["pin"]), "en"), &docs); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"game.json": "pass", "game-tampered.json": "misbehaviour", "receipt.json": "pass",
		"certificate.json": "pass", "certificate-tampered.json": "misbehaviour", "junk.txt": "fail"}
	if len(docs) != len(want) {
		t.Errorf("%d documents, want %d", len(docs), len(want))
	}
	for _, d := range docs {
		if want[d.File] != d.Verdict {
			t.Errorf("%s: %s, want %s: %s", d.File, d.Verdict, want[d.File], d.Summary)
		}
		for _, c := range d.Checks {
			if c.Title == "" || (c.Explanation == "" && c.Name != "format") {
				t.Errorf("%s: check %s has no title or explanation", d.File, c.Name)
			}
		}
	}
	// The reasons, subjects and facts are in the language asked for.
	want2 := map[string]map[string][]string{
		"en": {"game-tampered.json": {"MISBEHAVIOUR PROVEN — keep these files as evidence — check «record chain» (chain): record 2 (game_end) does not link to record 1", "(number 1, record 1): recorded good, β gives losing",
			"game g-page record 2 (game_end): prev is not the leaf hash of record 1"},
			"certificate-tampered.json": {"MISBEHAVIOUR PROVEN", "rank 1: "},
			"junk.txt":                  {"not a Tirage receipt, transcript, certificate, entrant list or log key file"}},
		"fr": {"game-tampered.json": {"MANQUEMENT PROUVÉ — conservez ces fichiers comme preuve — vérification « chaîne des enregistrements » (chain) : l'enregistrement 2 (fin de partie) ne se rattache pas à l'enregistrement 1", "(numéro 1, enregistrement 1) : enregistré « bon numéro », β donne « numéro perdant »",
			"partie g-page, enregistrement 2 (fin de partie) : le lien prev n'est pas l'empreinte de feuille de l'enregistrement 1"},
			"certificate-tampered.json": {"MANQUEMENT PROUVÉ", "rang 1 : "},
			"junk.txt":                  {"ce n'est ni un reçu, ni une transcription"}},
	}
	for lang, byFile := range want2 {
		var docs []struct {
			File, Subject, Summary string
			Checks                 []struct{ Detail string }
			Facts                  []struct{ Name, Value string }
		}
		if err := json.Unmarshal(web.Render(web.Verify(files, paths["pin"]), lang), &docs); err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			all := d.Subject + "\n" + d.Summary
			for _, c := range d.Checks {
				all += "\n" + c.Detail
			}
			for _, f := range d.Facts {
				all += "\n" + f.Name + ": " + f.Value
			}
			for _, w := range byFile[d.File] {
				if !strings.Contains(all, w) {
					t.Errorf("%s, %s lacks %q:\n%s", lang, d.File, w, all)
				}
			}
			// Technical details quoted from the core's errors stay English,
			// labelled so; everything else is French.
			prose := regexp.MustCompile(`en anglais\)? : « [^»]*»`).ReplaceAllString(all, "")
			for _, en := range []string{" record", " pick ", " the ", " does not ", "entrant", "fingerprint", "key(s)"} {
				if lang == "fr" && strings.Contains(prose, en) {
					t.Errorf("%s in French shows English %q:\n%s", d.File, en, all)
				}
			}
			if testing.Verbose() {
				t.Logf("%s %s:\n%s", lang, d.File, all)
			}
		}
	}

	// Without the key file and pin, nothing is trusted.
	var bare []web.File
	for _, f := range files {
		if f.Name != "log.vkey" {
			bare = append(bare, f)
		}
	}
	for _, r := range web.Verify(bare, "") {
		if r.Verdict.Status() == "pass" {
			t.Errorf("%s passed without any trust anchor", r.File)
		}
	}
}

// documents writes the test documents and returns their paths (and the pin).
func documents(t *testing.T, dir string) map[string]string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	put := func(key, name string, b []byte) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		out[key] = p
	}
	a, err := receipttest.New(21)
	if err != nil {
		t.Fatal(err)
	}
	g, err := a.PlayGame(receipttest.Play{Game: "g-page", StopAt: 2})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := os.ReadFile("../cli/testdata/promo-certificate.json")
	if err != nil {
		t.Fatal(err)
	}
	entrants, err := os.ReadFile("../cli/testdata/promo-entrants.txt")
	if err != nil {
		t.Fatal(err)
	}
	// The log keys as the operators publish them: the appliance's and the
	// promotion log's (its certificate names it; here it stands for the
	// published key file).
	var c struct {
		LogKeys []string          `json:"log_keys"`
		Picks   []json.RawMessage `json:"picks"`
	}
	if err := json.Unmarshal(cert, &c); err != nil {
		t.Fatal(err)
	}
	put("vkey", "log.vkey", append(a.LogKeyFile(), []byte(strings.Join(c.LogKeys, "\n")+"\n")...))
	put("game", "game.json", a.Transcript(g, receipttest.TranscriptOptions{}))
	put("receipt", "receipt.json", a.Receipt(g, 1, true))
	out["pin"] = a.VRFFingerprint()

	// A transcript whose first pick's outcome was edited.
	var tr receipt.Transcript
	json.Unmarshal(a.Transcript(g, receipttest.TranscriptOptions{}), &tr)
	r := tr.Records[1].Record
	if strings.Contains(r, `"outcome":"good"`) {
		r = strings.Replace(r, `"outcome":"good"`, `"outcome":"losing"`, 1)
	} else {
		r = strings.Replace(r, `"outcome":"losing"`, `"outcome":"good"`, 1)
	}
	tr.Records[1].Record = r
	put("game-tampered", "game-tampered.json", receipt.Marshal(&tr))

	put("certificate", "certificate.json", cert)
	put("entrants", "entrants.txt", entrants)
	// A certificate whose winner was changed.
	var m map[string]any
	json.Unmarshal(cert, &m)
	picks := m["picks"].([]any)
	p0 := picks[0].(map[string]any)
	p0["index"] = p0["index"].(float64) + 1
	b, _ := json.MarshalIndent(m, "", "  ")
	put("certificate-tampered", "certificate-tampered.json", b)
	put("junk", "junk.txt", []byte("hello\n"))
	return out
}

// TestKeyRecordAnchors: the key announcement alone anchors a transcript.
func TestKeyRecordAnchors(t *testing.T) {
	a, err := receipttest.New(22)
	if err != nil {
		t.Fatal(err)
	}
	g, err := a.PlayGame(receipttest.Play{Game: "g-k", StopAt: 1})
	if err != nil {
		t.Fatal(err)
	}
	res := web.Verify([]web.File{{Name: "keys.json", Data: a.Leaf(0)}, {Name: "game.json", Data: a.Transcript(g, receipttest.TranscriptOptions{})}}, "")
	if len(res) != 1 || res[0].Verdict.Status() != "pass" {
		t.Fatalf("%d results: %s", len(res), res[0].Verdict.Text("en"))
	}
}
