//go:build !js

package web_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserPageWitnessQuorum: the page's witness quorum field, in
// Chromium. With two witnesses as anchors and a receipt cosigned by one,
// the receipt fails with the field blank (all required) and passes with
// 1 typed; 3 typed is refused with rngverify's words and the page's note,
// in English and French, and the receipt fails again.
func TestBrowserPageWitnessQuorum(t *testing.T) {
	dir := t.TempDir()
	page := buildPage(t, dir)
	a, doc, w1, w2 := quorumFixture(t, 64)
	put := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	rc, lk, ws := put("receipt.json", doc), put("log.vkey", a.LogKeyFile()), put("witnesses.vkey", []byte(w1.VKey+"\n"+w2.VKey+"\n"))

	ctx := startBrowser(t, dir)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+filepath.Join(page, "index.html"))); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`window.tirageReady === true`, chromedp.WithPollingTimeout(2*time.Minute))); err != nil {
		t.Fatalf("the page did not load its verifier: %v", err)
	}
	shows := func(what, cond string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(time.Minute))); err != nil {
			text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("results").textContent`))
			t.Fatalf("%s: not shown (%v): %s", what, err, text)
		}
	}
	const receipt = `#results section[data-file="receipt.json"]`
	if err := chromedp.Do(ctx,
		chromedp.Click("#lang-en"),
		chromedp.SendKeys("#pins", a.VRFPin()),
		chromedp.SetUploadFiles("#anchors", []string{lk, ws}),
		chromedp.SetUploadFiles("#files", []string{rc}),
	); err != nil {
		t.Fatal(err)
	}
	shows("blank: all required", `document.querySelector('`+receipt+`[data-verdict="fail"] li[data-check="witness-cosignatures"][data-status="fail"]') !== null`)
	if err := chromedp.Do(ctx, chromedp.SendKeys("#quorum", "1")); err != nil {
		t.Fatal(err)
	}
	shows("quorum 1", `document.querySelector('`+receipt+`[data-verdict="pass"] li[data-check="witness-cosignatures"][data-status="pass"]') !== null`)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("quorum").value = ""; true`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.SendKeys("#quorum", "3")); err != nil {
		t.Fatal(err)
	}
	const refused = `#results section[data-file="3"][data-note="quorum-refused"]`
	shows("quorum 3", `document.querySelector('`+refused+`') !== null && document.querySelector('`+receipt+`[data-verdict="fail"]') !== null`)
	for _, c := range []struct{ lang, why, note string }{
		{"en", "--witness-quorum 3: want 1 to 2", "This quorum is refused"},
		{"fr", "--witness-quorum 3 : de 1 à 2 attendu", "Ce quorum est refusé"},
	} {
		if err := chromedp.Do(ctx, chromedp.Click("#lang-"+c.lang)); err != nil {
			t.Fatal(err)
		}
		shows(c.lang, `document.documentElement.lang === "`+c.lang+`" && document.querySelector('`+refused+`') !== null`)
		text, err := chromedp.Run(ctx, chromedp.Text(refused))
		if err != nil || !strings.Contains(text, c.why) || !strings.Contains(text, c.note) {
			t.Errorf("%s: the refusal reads %q (%v), want %q and %q", c.lang, text, err, c.why, c.note)
		}
	}
}
