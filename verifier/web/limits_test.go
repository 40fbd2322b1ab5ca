package web_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/cli"
	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/web"
)

// TestSizeLimits: a file larger than rngverify reads is refused by name,
// with the limit and what it is for, in rngverify's words — a document
// over 16 MiB, a trusted key file over 1 MiB — not read as "not a Tirage
// file" or a key file; one at the limit is read. An entrant list may be
// larger than a document. The page's LIMITS (how much of a file it reads)
// are these, and its INPUTS_TOTAL is MaxInputsTotal.
func TestSizeLimits(t *testing.T) {
	over := bytes.Repeat([]byte{' '}, web.MaxDocument+1)
	list := append([]byte(receipt.EntrantsHead), bytes.Repeat([]byte{'\n'}, web.MaxDocument)...)
	key := bytes.Repeat([]byte{' '}, web.MaxKeyFile+1)
	rs := results(web.Verify([]web.File{{Name: "over.json", Data: over}, {Name: "at.json", Data: over[:web.MaxDocument]}, {Name: "list.txt", Data: list}},
		[]web.File{{Name: "big.vkey", Data: key}}, "", nil))
	for _, c := range []struct{ file, check, en, fr string }{
		{"over.json", verdict.CheckFormat, "over.json is larger than 16 MiB, the limit for a document to check (receipt, transcript, certificate, freeze receipt or attestation)", "over.json dépasse 16 Mio, la limite pour un document à vérifier"},
		{"big.vkey", verdict.CheckLogKey, "big.vkey is larger than 1 MiB, the limit for a key file", "big.vkey dépasse 1 Mio, la limite pour un fichier de clés"},
	} {
		r := rs.get(c.file)
		ch := r.Verdict.Find(c.check)
		if ch == nil || ch.Status != verdict.StatusFail || ch.Reason("en") != c.en || !strings.HasPrefix(ch.Reason("fr"), c.fr) {
			t.Errorf("%s: %s", c.file, r.Verdict.Text("en"))
		}
	}
	if r := rs.get("big.vkey"); r.Note != web.NoteAnchorRefused {
		t.Errorf("big.vkey: note %q", r.Note)
	}
	for _, f := range []string{"at.json", "list.txt"} {
		if s := rs.get(f).Verdict.Text("en"); strings.Contains(s, "larger than") || !strings.Contains(s, "[FAIL]") {
			t.Errorf("%s, at most its limit, is refused as too large, or has no result:\n%s", f, s)
		}
	}
	// What rngverify says of the same document.
	p := filepath.Join(t.TempDir(), "over.json")
	if err := os.WriteFile(p, over, 0o644); err != nil {
		t.Fatal(err)
	}
	var errs bytes.Buffer
	cli.Run(cli.Env{Args: []string{"receipt", p}, Stdout: &errs, Stderr: &errs})
	if !strings.Contains(errs.String(), p+" is larger than 16 MiB, the limit for a document to check (receipt, transcript, certificate, freeze receipt or attestation)") {
		t.Errorf("rngverify says %q", errs.String())
	}

	html := string(readFile(t, "static/index.html"))
	m := regexp.MustCompile(`const LIMITS = \{ document: (\d+) << 20, entrants: (\d+) << 20, keyFile: (\d+) << 20, rules: (\d+) << 20, input: (\d+) << 20 \};`).FindStringSubmatch(html)
	if m == nil {
		t.Fatal("index.html has no LIMITS")
	}
	for i, want := range []int{web.MaxDocument, web.MaxEntrants, web.MaxKeyFile, web.MaxRules, web.MaxInput} {
		if n, _ := strconv.Atoi(m[i+1]); n<<20 != want {
			t.Errorf("index.html's LIMITS %s: %d MiB, want %d MiB", m[0], n, want>>20)
		}
	}
	if !strings.Contains(html, fmt.Sprintf("const INPUTS_TOTAL = %d * (1 << 20);", web.MaxInputsTotal>>20)) {
		t.Errorf("index.html's INPUTS_TOTAL is not web.MaxInputsTotal (%d MiB)", web.MaxInputsTotal>>20)
	}
	if !strings.Contains(html, `const ENTRANTS_HEAD = "`+strings.ReplaceAll(receipt.EntrantsHead, "\n", `\n`)+`";`) {
		t.Error("index.html's ENTRANTS_HEAD is not receipt.EntrantsHead")
	}
}

// TestDocumentsAsCommandLine: the page's verdict on a receipt, a
// transcript (tampered too) and rngd's GetTranscript reply is rngverify
// receipt's or game's, word for word in English and French, whatever the
// trust given: none, the log key file, a sealed key announcement, pins
// (SHA256: and upper-case too). (Certificates: TestRulesAsCommandLine.)
func TestDocumentsAsCommandLine(t *testing.T) {
	dir := t.TempDir()
	paths := documents(t, dir)
	b := newBundle(t, 23)
	sealed := filepath.Join(dir, "sealed.json")
	if err := os.WriteFile(sealed, b.sealed, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, anchor := range []string{"", paths["vkey"], sealed} {
		for _, pin := range []string{"", paths["pin"], "SHA256:" + strings.ToUpper(b.logPin)} {
			for _, doc := range []string{paths["game"], paths["game-tampered"], paths["receipt"], "../cli/testdata/rngd/transcript-reply.json"} {
				data := readFile(t, doc)
				args := []string{"receipt", doc}
				if receipt.Detect(data) == receipt.DocTranscript {
					args[0] = "game"
				}
				var anchors []web.File
				if anchor != "" {
					args = append(args, "--log-key", anchor)
					anchors = append(anchors, web.File{Name: "anchor", Data: readFile(t, anchor)})
				}
				if pin != "" {
					args = append(args, "--pin", pin)
				}
				rs := web.Verify([]web.File{{Name: "doc", Data: data}}, anchors, pin, nil)
				for _, lang := range []string{"en", "fr"} {
					var out, errs bytes.Buffer
					cli.Run(cli.Env{Args: append(args, "--lang", lang), Stdout: &out, Stderr: &errs})
					if len(rs) != 1 || rs[0].Verdict.Text(lang) != out.String() {
						t.Errorf("%s %v, %s: the page's verdict is not rngverify's\npage:\n%s\nrngverify:\n%s%s", filepath.Base(doc), args[2:], lang, rs[0].Verdict.Text(lang), out.String(), errs.String())
					}
				}
			}
		}
	}
}

// TestPageScriptHash: the page's Content-Security-Policy lets run its one
// inline script by its SHA-256 alone (no 'unsafe-inline'): a script that
// text dropped on the page could inject would not run. Editing the script
// means updating the hash (the browser test then shows the page loads).
func TestPageScriptHash(t *testing.T) {
	html := string(readFile(t, "static/index.html"))
	csp := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`).FindStringSubmatch(html)
	scripts := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindAllStringSubmatch(html, -1)
	if csp == nil || len(scripts) != 1 {
		t.Fatalf("index.html: Content-Security-Policy %q, %d inline scripts, want one of each", csp, len(scripts))
	}
	var src string
	for _, d := range strings.Split(csp[1], ";") {
		if f := strings.Fields(d); len(f) > 0 && f[0] == "script-src" {
			src = d
		}
	}
	sum := sha256.Sum256([]byte(scripts[0][1]))
	if want := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !strings.Contains(src, want) {
		t.Errorf("script-src %q: want the inline script's hash %s", src, want)
	}
	if strings.Contains(src, "'unsafe-inline'") {
		t.Errorf("script-src %q allows any inline script", src)
	}
}

// TestSizeLimitsDeclared: a file the page does not read, its declared
// size over its limit (web.File.Size, its first bytes at most in Data), is
// refused with the verdict it has when read up to its limit and one byte
// more — a document, a key file, a rules file — and a document that
// begins as an entrant list with the entrant list's, by the size alone.
// One declared over the document's limit but not the entrant list's,
// read whole, is an entrant list.
func TestSizeLimitsDeclared(t *testing.T) {
	read := func(n int) []byte { return bytes.Repeat([]byte{' '}, n) }
	same := func(what string, declared, read []web.Result) {
		t.Helper()
		if len(declared) != len(read) {
			t.Fatalf("%s: %d results declared, %d read", what, len(declared), len(read))
		}
		for i := range read {
			d, r := declared[i], read[i]
			for _, lang := range []string{"en", "fr"} {
				if d.File != r.File || d.Note != r.Note || d.Verdict.Text(lang) != r.Verdict.Text(lang) {
					t.Errorf("%s, %s: declared\n%s (%q)\nread\n%s (%q)", what, lang, d.Verdict.Text(lang), d.Note, r.Verdict.Text(lang), r.Note)
				}
			}
		}
	}
	same("a document", web.Verify([]web.File{{Name: "over.json", Size: web.MaxDocument + 1}}, nil, "", nil),
		web.Verify([]web.File{{Name: "over.json", Data: read(web.MaxDocument + 1)}}, nil, "", nil))
	same("a document, its first bytes given", web.Verify([]web.File{{Name: "over.json", Data: []byte("{\"x\":"), Size: 3 << 30}}, nil, "", nil),
		web.Verify([]web.File{{Name: "over.json", Data: read(web.MaxDocument + 1)}}, nil, "", nil))
	same("a key file", web.Verify(nil, []web.File{{Name: "big.vkey", Size: web.MaxKeyFile + 1}}, "", nil),
		web.Verify(nil, []web.File{{Name: "big.vkey", Data: read(web.MaxKeyFile + 1)}}, "", nil))
	same("a rules file", web.Verify(nil, nil, "", &web.File{Name: "rules.yaml", Size: web.MaxRules + 1}),
		web.Verify(nil, nil, "", &web.File{Name: "rules.yaml", Data: read(web.MaxRules + 1)}))

	head := []byte(receipt.EntrantsHead)
	rs := web.Verify([]web.File{{Name: "list.txt", Data: head, Size: web.MaxEntrants + 1}}, nil, "", nil)
	if len(rs) != 1 {
		t.Fatalf("an entrant list over its limit: %d results", len(rs))
	}
	for lang, want := range map[string]string{"en": "list.txt is larger than 1024 MiB, the limit for an entrant list", "fr": "list.txt dépasse 1024 Mio, la limite pour une liste"} {
		c := rs[0].Verdict.Find(promo.CheckEntrantList)
		if rs[0].Verdict.Kind != receipt.DocEntrants || c == nil || c.Status != verdict.StatusFail || !strings.HasPrefix(c.Reason(lang), want) {
			t.Errorf("an entrant list over its limit, %s: %s", lang, rs[0].Verdict.Text(lang))
		}
	}
	// Its size at the limit, but only its head read (the page reads it
	// whole): not refused as too large.
	rs = web.Verify([]web.File{{Name: "list.txt", Data: head, Size: web.MaxEntrants}}, nil, "", nil)
	if s := rs[0].Verdict.Text("en"); len(rs) != 1 || strings.Contains(s, "larger than") {
		t.Errorf("an entrant list at its limit is refused as too large:\n%s", s)
	}
}
