//go:build !js

package web_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"tirage.fr/tirage/verifier/web"
)

// TestBrowserPageFreezeInputs: in headless Chromium, a freeze receipt that
// binds its input files, with its entrant list and its log key pinned.
// Without the files, input-files is skipped and the page says what to give,
// in English and French. The stake files given one at a time (the page
// shows their order) and the closed-accounts file: input-files passes;
// with the rules in the rules zone, entrants-recomputed passes too. The
// second stake file altered by one byte in its place: input-files fails,
// naming the file, in English and French, and so does entrants-recomputed.
func TestBrowserPageFreezeInputs(t *testing.T) {
	dir := t.TempDir()
	page := buildPage(t, dir)
	_, pin := inputsPin(t)
	put := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	in := func(name string) string { return put(name, readFile(t, filepath.Join(inputsDir, name))) }
	freeze, entrants := put("freeze.json", readFile(t, inputsReceipt)), put("entrants.txt", readFile(t, inputsEntrants))
	s1, s2, closed := in("stakes-1.csv"), in("stakes-2.csv"), in("closed.csv")
	rules := put("rules.yaml", readFile(t, inputsRules))
	b := readFile(t, s2)
	i := bytes.LastIndexByte(b, '.')
	b[i+1] ^= 1 // one digit of an amount
	altered := put("stakes-2-altered.csv", b)

	ctx := startBrowser(t, dir)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+filepath.Join(page, "index.html"))); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`window.tirageReady === true`, chromedp.WithPollingTimeout(2*time.Minute))); err != nil {
		t.Fatalf("the page did not load its verifier: %v", err)
	}
	const receipt = `#results section[data-file="freeze.json"]`
	// shows waits until the receipt's verdict and the checks are as given.
	shows := func(what, verdict string, checks map[string]string) {
		t.Helper()
		cond := `document.querySelector('` + receipt + `[data-verdict="` + verdict + `"]') !== null`
		for c, s := range checks {
			cond += ` && document.querySelector('` + receipt + ` li[data-check="` + c + `"][data-status="` + s + `"]') !== null`
		}
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(time.Minute))); err != nil {
			text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("results").textContent`))
			t.Fatalf("%s: not shown (%v): %s", what, err, text)
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(sel))
		if err != nil {
			t.Fatalf("%s: %v", sel, err)
		}
		return s
	}
	lang := func(l string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Click("#lang-"+l)); err != nil {
			t.Fatal(err)
		}
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.documentElement.lang === "`+l+`" && document.querySelector('`+receipt+`') !== null`, chromedp.WithPollingTimeout(time.Minute))); err != nil {
			t.Fatal(err)
		}
	}
	upload := func(sel, file string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.SetUploadFiles(sel, []string{file})); err != nil {
			t.Fatal(err)
		}
	}

	// No input file: skipped, and the page says what to give.
	if err := chromedp.Do(ctx,
		chromedp.Click("#lang-en"),
		chromedp.SendKeys("#pins", pin),
		chromedp.SetUploadFiles("#files", []string{freeze, entrants}),
	); err != nil {
		t.Fatal(err)
	}
	shows("no input file", "pass", map[string]string{"input-files": "skip", "entrant-root": "pass"})
	for _, c := range []struct{ lang, note, detail string }{
		{"en", "drop the stake files the operator gave you, in the receipt's order, in the stake files zone", "no input file given"},
		{"fr", "déposez les fichiers de mises que l'exploitant vous a remis, dans l'ordre du reçu", "aucun fichier d'entrée fourni"},
	} {
		lang(c.lang)
		if note := text(receipt + ` p.note[data-note="inputs-missing"]`); !strings.Contains(note, c.note) {
			t.Errorf("%s: the note reads %q, want %q", c.lang, note, c.note)
		}
		if d := text(receipt + ` li[data-check="input-files"] .detail`); !strings.Contains(d, c.detail) {
			t.Errorf("%s: input-files reads %q", c.lang, d)
		}
	}
	lang("en")

	// The freeze's files, the stake files one at a time.
	upload("#stakes", s1)
	upload("#stakes", s2)
	upload("#closed", closed)
	shows("the freeze's files", "pass", map[string]string{"input-files": "pass", "entrants-recomputed": "skip"})
	if s := text("#stakes-loaded"); !strings.Contains(s, "1. stakes-1.csv, 2. stakes-2.csv") {
		t.Errorf("the stake files shown: %q", s)
	}
	if note := text(receipt + ` p.note[data-note="recompute-missing"]`); !strings.Contains(note, "drop the draw's rules file in the rules zone") {
		t.Errorf("with the files, no rules: note %q", note)
	}
	upload("#rules", rules)
	shows("recomputed", "pass", map[string]string{"input-files": "pass", "entrants-recomputed": "pass"})

	// The second stake file altered by one byte.
	if err := chromedp.Do(ctx, chromedp.Click("#clear-stakes")); err != nil {
		t.Fatal(err)
	}
	upload("#stakes", s1)
	upload("#stakes", altered)
	shows("a stake file altered", "fail", map[string]string{"input-files": "fail", "entrants-recomputed": "fail"})
	for _, c := range []struct{ lang, want string }{
		{"en", `stakes file "stakes-2-altered.csv" has SHA-256 `},
		{"fr", `le fichier de mises « stakes-2-altered.csv » a pour SHA-256 `},
	} {
		lang(c.lang)
		if d := text(receipt + ` li[data-check="input-files"] .detail`); !strings.Contains(d, c.want) {
			t.Errorf("%s: input-files reads %q, want %q", c.lang, d, c.want)
		}
	}

	// Stake files over web.MaxInputsTotal together, by their declared
	// sizes (two sparse files of web.MaxInput with the freeze's): none is
	// read — the page read each whole, 2 GiB into the tab, before the
	// verifier refused them by their sizes — and the verifier refuses the
	// one that takes the sum over, in rngverify's words; the
	// closed-accounts file given then is not read either. The stake files
	// cleared and the freeze's given again, they fit: the closed-accounts
	// file is read then, and input-files passes.
	lang("en")
	sparse := func(name string) string {
		p := put(name, nil)
		if err := os.Truncate(p, web.MaxInput); err != nil {
			t.Fatal(err)
		}
		return p
	}
	big1, big2 := sparse("big-1.csv"), sparse("big-2.csv")
	if err := chromedp.Do(ctx, chromedp.Click("#clear-stakes"), chromedp.Click("#clear-closed"),
		chromedp.SetUploadFiles("#stakes", []string{s1, s2, big1, big2})); err != nil {
		t.Fatal(err)
	}
	upload("#closed", closed)
	shows("input files over the total", "fail", map[string]string{"input-files": "fail"})
	refused := `#results section[data-file="big-2.csv"][data-note="inputs-refused"]`
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector('`+refused+`') !== null`, chromedp.WithPollingTimeout(time.Minute))); err != nil {
		t.Fatalf("big-2.csv not refused: %v: %s", err, text("#results"))
	}
	if s := text(refused); !strings.Contains(s, "big-2.csv takes the freeze's input files over 2048 MiB in all (2049 MiB, 5 files)") {
		t.Errorf("big-2.csv refused as %q", s)
	}
	held, err := chromedp.Run(ctx, chromedp.Evaluate[string](`[...stakes, ...closed].map((f) => f.name + ":" + f.data.length).join(" ")`))
	if want := "stakes-1.csv:0 stakes-2.csv:0 big-1.csv:0 big-2.csv:0 closed.csv:0"; err != nil || held != want {
		t.Errorf("the page holds (name:bytes) %q (%v), want %q: none read", held, err, want)
	}
	if err := chromedp.Do(ctx, chromedp.Click("#clear-stakes")); err != nil {
		t.Fatal(err)
	}
	upload("#stakes", s1)
	upload("#stakes", s2)
	shows("the freeze's files again", "pass", map[string]string{"input-files": "pass", "entrants-recomputed": "pass"})
}
