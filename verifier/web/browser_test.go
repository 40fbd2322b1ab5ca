//go:build !js

package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"tirage.fr/tirage/internal/peertest"
	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/web"
)

const chromium = "/usr/bin/chromium"

// pageDoc is what the page shows for one document.
type pageDoc struct {
	File    string            `json:"file"`
	Verdict string            `json:"verdict"`
	Summary string            `json:"summary"`
	Checks  map[string]string `json:"checks"`
}

// TestBrowserPage builds the page with scripts/wasm.sh, opens it from a
// file:// URL in headless Chromium, gives it the operator's log key file as
// a trusted key and a pinned fingerprint, drops good and tampered documents
// on it and reads the checks it shows: good files pass, tampered files fail
// with the right check named, in French and in English, with no network
// request. Then the key file goes among the documents instead: it is shown
// as not trusted, with the page's advice, and the documents do not pass.
// Last, a promotion certificate whose freeze dropped the beacon round its
// rules promise: it passes without the rules, its beacon check skipped
// with the note to give them; given in the rules zone, MISBEHAVIOUR at
// beacon-signature; a file that is not a rules file in their place is
// refused by name and the certificate fails rules-hash; another
// operation's rules leave it passing, with the note naming both
// operations, in English and French.
func TestBrowserPage(t *testing.T) {
	dir := t.TempDir()
	page := buildPage(t, dir)
	files := documents(t, filepath.Join(dir, "docs"))
	ctx := startBrowser(t, dir)

	var mu sync.Mutex
	var requests []string
	if err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			mu.Lock()
			requests = append(requests, e.Request.URL)
			mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+filepath.Join(page, "index.html"))); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`window.tirageReady === true`, chromedp.WithPollingTimeout(2*time.Minute))); err != nil {
		t.Fatalf("the page did not load its verifier: %v", err)
	}
	// Its Content-Security-Policy refuses a connection, whatever asks for it.
	csp, err := chromedp.Run(ctx, chromedp.Evaluate[string](`new Promise((done) => {
		const seen = [];
		document.addEventListener("securitypolicyviolation", (e) => seen.push(e.effectiveDirective));
		fetch("http://127.0.0.1:9/").then(() => done("fetched"), () => setTimeout(() => done(seen.join(",")), 100));
	})`, chromedp.EvalAwaitPromise))
	if err != nil || csp != "connect-src" {
		t.Errorf("a fetch from the page: %q (%v), want refused by connect-src", csp, err)
	}
	// And an inline script other than its own does not run.
	injected, err := chromedp.Run(ctx, chromedp.Evaluate[string](`new Promise((done) => {
		const seen = [];
		document.addEventListener("securitypolicyviolation", (e) => seen.push(e.effectiveDirective));
		const s = document.createElement("script");
		s.textContent = "window.injected = true";
		document.body.append(s);
		setTimeout(() => { s.remove(); done((window.injected ? "ran," : "") + seen.join(",")); }, 100);
	})`, chromedp.EvalAwaitPromise))
	if err != nil || injected != "script-src-elem" {
		t.Errorf("an inline script added to the page: %q (%v), want refused by script-src-elem", injected, err)
	}
	if err := chromedp.Do(ctx,
		chromedp.Click("#lang-en"),
		chromedp.SendKeys("#pins", files["pin"]),
		chromedp.SetUploadFiles("#anchors", []string{files["vkey"]}),
		chromedp.SetUploadFiles("#files", []string{files["game"], files["game-tampered"], files["receipt"],
			files["certificate"], files["entrants"], files["certificate-tampered"], files["junk"]}),
	); err != nil {
		t.Fatal(err)
	}
	docs := read(t, ctx, 6)
	want := map[string]struct{ verdict, check, status string }{
		"game.json":                 {"pass", "vrf-proof", "pass"},
		"game-tampered.json":        {"fail", "outcome", "fail"}, // edited: proves nothing against the appliance
		"receipt.json":              {"pass", "outcome", "pass"},
		"certificate.json":          {"pass", "entrant-root", "pass"},
		"certificate-tampered.json": {"fail", "ranked-picks", "fail"},
		"junk.txt":                  {"fail", "format", "fail"},
	}
	for _, d := range docs {
		w, ok := want[d.File]
		if !ok {
			t.Errorf("unexpected document %q", d.File)
			continue
		}
		if d.Verdict != w.verdict || d.Checks[w.check] != w.status {
			t.Errorf("%s: verdict %s, %s %s; want %s, %s %s (%s)", d.File, d.Verdict, w.check, d.Checks[w.check], w.verdict, w.check, w.status, d.Summary)
		}
		if d.Verdict == "misbehaviour" && !strings.Contains(d.Summary, "MISBEHAVIOUR PROVEN") {
			t.Errorf("%s: summary %q", d.File, d.Summary)
		}
	}
	text, err := chromedp.Run(ctx, chromedp.Text("#results"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"(number 1, record 1): recorded good, β gives losing", "does not link to record 1",
		"rank 1: β picks entrant", "log: tirage.test/log size"} {
		if !strings.Contains(text, want) {
			t.Errorf("the English reasons are not shown (%q):\n%.3000s", want, text)
		}
	}
	// French.
	if err := chromedp.Do(ctx, chromedp.Click("#lang-fr")); err != nil {
		t.Fatal(err)
	}
	for _, d := range read(t, ctx, 6) {
		if d.File == "game-tampered.json" && !strings.Contains(d.Summary, "NON VÉRIFIÉ") {
			t.Errorf("French summary %q", d.Summary)
		}
		if d.File == "game.json" && !strings.Contains(d.Summary, "toutes les vérifications sont réussies") {
			t.Errorf("French summary %q", d.Summary)
		}
	}
	text, err = chromedp.Run(ctx, chromedp.Text("#results"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "Chaque valeur aléatoire est accompagnée d'une preuve") {
		t.Errorf("the French explanations are not shown:\n%.2000s", text)
	}
	// The reason after each check is French too, and so are the facts.
	for _, want := range []string{"(numéro 1, enregistrement 1) : enregistré « bon numéro », β donne « numéro perdant »",
		"l'enregistrement 2 (fin de partie) ne se rattache pas à l'enregistrement 1", "rang 1 : β désigne le participant",
		"journal : tirage.test/log, taille", "3 enregistrements chaînés par empreinte"} {
		if !strings.Contains(text, want) {
			t.Errorf("the French reasons are not shown (%q):\n%.3000s", want, text)
		}
	}
	for _, en := range []string{"recorded good", "β gives", "does not link", "records linked by hash", "log: "} {
		if strings.Contains(text, en) {
			t.Errorf("the French page shows English %q", en)
		}
	}

	// The key file among the documents, and no trusted key: nothing passes,
	// the key file is shown as not trusted and the page says how to trust it.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("pins").value = ""; true`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx,
		chromedp.Click("#lang-en"),
		chromedp.Click("#clear-anchors"),
		chromedp.Click("#clear"),
		chromedp.SetUploadFiles("#files", []string{files["vkey"], files["receipt"]}),
	); err != nil {
		t.Fatal(err)
	}
	for _, d := range read(t, ctx, 2) {
		if d.Verdict == "pass" || d.Checks["log-key"] != "fail" {
			t.Errorf("%s without a trusted key: verdict %s, log-key %s (%s)", d.File, d.Verdict, d.Checks["log-key"], d.Summary)
		}
	}
	note, err := chromedp.Run(ctx, chromedp.Text(`#results section[data-note="key-not-trusted"] .note`))
	if err != nil || !strings.Contains(note, "it is not trusted") || !strings.Contains(note, "type them in 1") {
		t.Errorf("the key file among the documents: note %q (%v)", note, err)
	}
	// The draw's rules, in their own zone (rngverify certificate --rules).
	rc := ruledCertificate(t, 657413, "")
	put := func(name string, b []byte) string {
		p := filepath.Join(dir, "docs", name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cert, vkey := put("dropped.json", rc.cert), put("promo.vkey", rc.vkey)
	rules, bad := put("rules.yaml", rc.rules), put("bad-rules.yaml", []byte("operation: [\n"))
	// wait polls until the page shows what sel selects.
	wait := func(what, sel string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`document.querySelector(%q) !== null`, sel), chromedp.WithPollingTimeout(time.Minute))); err != nil {
			text, _ := chromedp.Run(ctx, chromedp.Text("#results"))
			t.Fatalf("%s: the page does not show %s (%v):\n%.3000s", what, sel, err, text)
		}
	}
	if err := chromedp.Do(ctx,
		chromedp.Click("#clear"),
		chromedp.SetUploadFiles("#anchors", []string{vkey}),
		chromedp.SendKeys("#pins", rc.pin),
		chromedp.SetUploadFiles("#files", []string{cert}),
	); err != nil {
		t.Fatal(err)
	}
	wait("without the rules", `#results section[data-file="dropped.json"][data-verdict="pass"][data-note="rules-missing"]`)
	if d := read(t, ctx, 1)[0]; d.Checks["beacon-signature"] != "skip" || d.Checks["rules-hash"] != "pass" {
		t.Errorf("without the rules: %+v", d)
	}
	note, err = chromedp.Run(ctx, chromedp.Text(`#results section[data-note="rules-missing"] .note`))
	if err != nil || !strings.Contains(note, "drop the draw's rules file") {
		t.Errorf("without the rules: note %q (%v)", note, err)
	}
	if err := chromedp.Do(ctx, chromedp.SetUploadFiles("#rules", []string{rules})); err != nil {
		t.Fatal(err)
	}
	wait("with the rules", `#results section[data-file="dropped.json"][data-verdict="misbehaviour"]`)
	if d := read(t, ctx, 1)[0]; d.Checks["beacon-signature"] != "misbehaviour" || d.Checks["rules-hash"] != "pass" || !strings.Contains(d.Summary, "MISBEHAVIOUR PROVEN") {
		t.Errorf("with the rules: %+v", d)
	}
	text, err = chromedp.Run(ctx, chromedp.Text("#results"))
	if err != nil || !strings.Contains(text, "the freeze announces no beacon round, but the rules it commits to announce drand quicknet (52db9ba7…) round 657413") {
		t.Errorf("with the rules, the reason is not shown (%v):\n%.3000s", err, text)
	}
	// Another file in the rules zone replaces them: refused by name.
	if err := chromedp.Do(ctx, chromedp.SetUploadFiles("#rules", []string{bad})); err != nil {
		t.Fatal(err)
	}
	wait("bad rules", `#results section[data-file="bad-rules.yaml"][data-verdict="fail"][data-note="rules-refused"]`)
	for _, d := range read(t, ctx, 2) {
		if d.File == "bad-rules.yaml" && (d.Checks["format"] != "fail" || !strings.Contains(d.Summary, "bad-rules.yaml: line 1")) ||
			d.File == "dropped.json" && (d.Verdict != "fail" || d.Checks["rules-hash"] != "fail") {
			t.Errorf("bad rules: %+v", d)
		}
	}
	loaded, err := chromedp.Run(ctx, chromedp.Text("#rules-loaded"))
	if err != nil || strings.Contains(loaded, "rules.yaml,") || !strings.Contains(loaded, "bad-rules.yaml") {
		t.Errorf("the rules zone holds %q (%v), want the last file only", loaded, err)
	}
	note, err = chromedp.Run(ctx, chromedp.Text(`#results section[data-note="rules-refused"] .note`))
	if err != nil || !strings.Contains(note, "is refused") {
		t.Errorf("bad rules: note %q (%v)", note, err)
	}
	if err := chromedp.Do(ctx, chromedp.Click("#clear-rules")); err != nil {
		t.Fatal(err)
	}
	wait("rules cleared", `#results section[data-file="dropped.json"][data-verdict="pass"][data-note="rules-missing"]`)
	// Another operation's rules (a bailiff given several operations'
	// certificates): the certificate is verified as without them, not
	// failed, and the page names both operations, in English and French.
	ete := put("ete-rules.yaml", bytes.Replace(rc.rules, []byte("\noperation: bonus-crescendo\n"), []byte("\noperation: bonus-ete\n"), 1))
	if err := chromedp.Do(ctx, chromedp.SetUploadFiles("#rules", []string{ete})); err != nil {
		t.Fatal(err)
	}
	other := `#results section[data-file="dropped.json"][data-verdict="pass"][data-note="rules-other-operation"]`
	wait("another operation's rules", other)
	if d := read(t, ctx, 1)[0]; d.Checks["beacon-signature"] != "skip" || d.Checks["rules-hash"] != "pass" {
		t.Errorf("another operation's rules: %+v", d)
	}
	for _, c := range []struct{ lang, note, detail string }{
		{"en", "This certificate was not checked against the rules file given: it is another operation's",
			"the rules file given is for operation bonus-ete, this certificate for operation bonus-crescendo: they are not its rules, so it was not checked against them"},
		{"fr", "Ce certificat n'a pas été vérifié contre le règlement fourni : c'est celui d'une autre opération",
			"le règlement fourni est celui de l'opération bonus-ete, ce certificat celui de l'opération bonus-crescendo : ce n'est pas son règlement, il n'a donc pas été vérifié contre lui"},
	} {
		if err := chromedp.Do(ctx, chromedp.Click("#lang-"+c.lang)); err != nil {
			t.Fatal(err)
		}
		wait("another operation's rules, "+c.lang, `html[lang="`+c.lang+`"] `+other)
		note, err := chromedp.Run(ctx, chromedp.Text(other+" .note"))
		detail, err2 := chromedp.Run(ctx, chromedp.Text(other+" .note-detail"))
		if err != nil || err2 != nil || !strings.HasPrefix(note, c.note) || detail != c.detail {
			t.Errorf("another operation's rules, %s: note %q, detail %q (%v, %v)", c.lang, note, detail, err, err2)
		}
	}

	mu.Lock()
	defer mu.Unlock()
	scripts := 0
	for _, u := range requests {
		if !strings.HasPrefix(u, "file://") && !strings.HasPrefix(u, "data:") {
			t.Errorf("the page made a network request: %s", u)
		}
		if strings.HasSuffix(u, "/main.wasm.js") || strings.HasSuffix(u, "/wasm_exec.js") {
			scripts++
		}
	}
	if scripts != 2 { // else the listener saw nothing, and the check above proves nothing
		t.Errorf("the requests seen do not include the page's two scripts: %q", requests)
	}
}

// buildPage builds the page with scripts/wasm.sh into dir/page; it skips
// the test when Chromium is absent, or fails it in CI ([peertest.Absent]).
func buildPage(t *testing.T, dir string) string {
	t.Helper()
	if _, err := os.Stat(chromium); err != nil {
		peertest.Absent(t, "the browser test needs Chromium: %v (install Debian's chromium: make deps)", err)
	}
	page := filepath.Join(dir, "page")
	if out, err := exec.Command("bash", "../../scripts/wasm.sh", page).CombinedOutput(); err != nil {
		t.Fatalf("scripts/wasm.sh: %v\n%s", err, out)
	}
	return page
}

// startBrowser starts headless Chromium with its profile in dir, and its tab.
func startBrowser(t *testing.T, dir string) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:0:0],
		chromedp.ExecPath(chromium),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(filepath.Join(dir, "profile")),
	)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	ctx, cancel = context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil { // starts the browser and its tab
		t.Fatal(err)
	}
	return ctx
}

// read waits until the page shows n documents and returns them.
func read(t *testing.T, ctx context.Context, n int) []pageDoc {
	t.Helper()
	const js = `JSON.stringify(Array.from(document.querySelectorAll("#results section.doc")).map(d => ({
		file: d.dataset.file, verdict: d.dataset.verdict, summary: d.querySelector(".summary").textContent,
		checks: Object.fromEntries(Array.from(d.querySelectorAll("li[data-check]")).map(li => [li.dataset.check, li.dataset.status]))})))`
	var docs []pageDoc
	deadline := time.Now().Add(time.Minute)
	for {
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatal(err)
		}
		docs = nil
		if err := json.Unmarshal([]byte(s), &docs); err != nil {
			t.Fatal(err)
		}
		if len(docs) >= n || time.Now().After(deadline) {
			break
		}
		chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`document.querySelectorAll("#results section.doc").length >= %d`, n),
			chromedp.WithPollingTimeout(time.Minute)))
	}
	if len(docs) != n {
		status, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("status").textContent + " | " + document.getElementById("loaded").textContent`))
		t.Fatalf("the page shows %d documents, want %d (status: %s)", len(docs), n, status)
	}
	return docs
}

// TestBrowserPageFailures: what the page shows when it cannot verify. A
// copy without main.wasm.js says so, and keeps saying it, in the language
// chosen, when the language changes or a file is dropped (not « Loading »
// for ever). Files larger than rngverify reads are refused by name with
// the limit — a 3 GiB one too, whose reading failed unseen, and an entrant
// list one byte over its 1 GiB — and so is a key file over 1 MiB in zone
// 1, none of them read: the page keeps their first bytes only. The files
// kept are copied into the verifier once: typing pins and choosing the
// language verify again without reading them. When the verifier stops
// (out of memory), the page says so and shows no verdict, the last ones
// gone.
func TestBrowserPageFailures(t *testing.T) {
	dir := t.TempDir()
	page := buildPage(t, dir)
	files := documents(t, filepath.Join(dir, "docs"))
	broken := filepath.Join(dir, "broken")
	if err := os.MkdirAll(broken, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"index.html", "wasm_exec.js"} { // main.wasm.js left behind
		if err := os.WriteFile(filepath.Join(broken, f), readFile(t, filepath.Join(page, f)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sized := func(name string, size int64, head ...byte) string {
		p := filepath.Join(dir, "docs", name)
		f, err := os.Create(p)
		if err == nil {
			_, err = f.Write(head)
		}
		if err == nil {
			err = f.Truncate(size) // sparse
		}
		if err == nil {
			err = f.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	huge, over, key := sized("huge.bin", 3<<30), sized("over.json", web.MaxDocument+1), sized("big.vkey", web.MaxKeyFile+1)
	list := sized("list.bin", web.MaxEntrants+1, []byte(receipt.EntrantsHead)...)
	ctx := startBrowser(t, dir)
	failed := func(what string, want ...string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("status").classList.contains("failed")`, chromedp.WithPollingTimeout(time.Minute))); err != nil {
			t.Errorf("%s: the page does not say the verifier failed (%v)", what, err)
		}
		status, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("status").textContent + " | " + document.querySelectorAll("#results section").length + " results"`))
		for _, w := range append(want, " | 0 results") {
			if err != nil || !strings.Contains(status, w) {
				t.Errorf("%s: the page shows %q (%v), want %q", what, status, err, w)
			}
		}
	}

	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+filepath.Join(broken, "index.html")), chromedp.Click("#lang-en")); err != nil {
		t.Fatal(err)
	}
	failed("without main.wasm.js", "The verifier could not start", "main.wasm.js is missing")
	if err := chromedp.Do(ctx, chromedp.Click("#lang-fr"), chromedp.SetUploadFiles("#files", []string{files["receipt"]})); err != nil {
		t.Fatal(err)
	}
	failed("without main.wasm.js, a file dropped", "Le vérificateur n'a pas pu démarrer", "main.wasm.js is missing")

	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+filepath.Join(page, "index.html"))); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`window.tirageReady === true`, chromedp.WithPollingTimeout(2*time.Minute))); err != nil {
		t.Fatalf("the page did not load its verifier: %v", err)
	}
	if err := chromedp.Do(ctx,
		chromedp.Click("#lang-en"),
		chromedp.SetUploadFiles("#anchors", []string{key}),
		chromedp.SetUploadFiles("#files", []string{huge, over, list, files["receipt"]}),
	); err != nil {
		t.Fatal(err)
	}
	for _, d := range read(t, ctx, 5) {
		want := map[string]string{"huge.bin": "huge.bin is larger than 16 MiB, the limit for a document to check (receipt, transcript, certificate, freeze receipt or attestation)",
			"over.json": "over.json is larger than 16 MiB, the limit for a document to check (receipt, transcript, certificate, freeze receipt or attestation)",
			"list.bin":  "list.bin is larger than 1024 MiB, the limit for an entrant list",
			"big.vkey":  "big.vkey is larger than 1 MiB, the limit for a key file", "receipt.json": "NOT VERIFIED"}[d.File]
		if want == "" || d.Verdict != "fail" || !strings.Contains(d.Summary, want) {
			t.Errorf("%s: verdict %s, %q; want fail, %q", d.File, d.Verdict, d.Summary, want)
		}
	}
	if s, err := chromedp.Run(ctx, chromedp.Text("#read-errors")); err != nil || s != "" {
		t.Errorf("files not read: %q (%v)", s, err)
	}
	// The files over their limit were not read: the page keeps their
	// first bytes (whether a document is an entrant list) and their size.
	kept, err := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify(Object.fromEntries([...files, ...anchors].map((f) => [f.name, [f.data.length, f.size]])))`))
	var held map[string][2]int64
	if err == nil {
		err = json.Unmarshal([]byte(kept), &held)
	}
	head := int64(len(receipt.EntrantsHead))
	for name, w := range map[string][2]int64{"huge.bin": {head, 3 << 30}, "over.json": {head, web.MaxDocument + 1},
		"list.bin": {head, web.MaxEntrants + 1}, "big.vkey": {0, web.MaxKeyFile + 1}} {
		if held[name] != w {
			t.Errorf("%s: the page holds [bytes, size] %v, want %v (%v)", name, held[name], w, err)
		}
	}
	// Verified again as the pins are typed and the language chosen, the
	// files are not copied into the verifier again: it kept its copies.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.copied = 0;
		for (const f of [...files, ...anchors, ...rules]) { const d = f.data; Object.defineProperty(f, "data", { get() { window.copied++; return d; } }); }
		true`)); err != nil {
		t.Fatal(err)
	}
	copied := func(what, sel string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`document.querySelector(%q) !== null`, sel), chromedp.WithPollingTimeout(time.Minute))); err != nil {
			t.Fatalf("%s: the page does not show %s (%v)", what, sel, err)
		}
		if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`window.copied`)); err != nil || n != 0 {
			t.Errorf("%s: the files were read %d times (%v), want none: the verifier copies them again", what, n, err)
		}
		if d := read(t, ctx, 6); len(d) == 6 {
			for _, d := range d {
				if d.Verdict != "fail" {
					t.Errorf("%s: %s: verdict %s", what, d.File, d.Verdict)
				}
			}
		}
	}
	if err := chromedp.Do(ctx, chromedp.SendKeys("#pins", "ab")); err != nil {
		t.Fatal(err)
	}
	copied("pins typed", `html[lang="en"] #results section[data-file="ab"][data-note="pin-refused"]`)
	if err := chromedp.Do(ctx, chromedp.Click("#lang-fr")); err != nil {
		t.Fatal(err)
	}
	copied("French chosen", `html[lang="fr"] #results section[data-file="ab"][data-note="pin-refused"]`)
	// Two rules files given one after the other, the first read last (a
	// large file): the zone keeps the later given.
	kept, err = chromedp.Run(ctx, chromedp.Evaluate[string](`new Promise((done) => {
		const slow = new File(["first"], "first.yaml");
		slow.slice = () => ({ arrayBuffer: () => new Promise((r) => setTimeout(() => r(new ArrayBuffer(5)), 300)) });
		add(rules, [slow], "rules", true);
		add(rules, [new File(["second"], "second.yaml")], "rules", true);
		setTimeout(() => done(rules.map((f) => f.name).join(",")), 600);
	})`, chromedp.EvalAwaitPromise))
	if err != nil || kept != "second.yaml" {
		t.Errorf("rules zone after two drops, the first read last: %q (%v), want second.yaml", kept, err)
	}
	// The verifier stops (Go's out of memory, say): every call then throws.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.tirageVerify = () => { throw new Error("Go program has already exited"); }; true`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Click("#lang-fr")); err != nil {
		t.Fatal(err)
	}
	failed("the verifier stopped", "Le vérificateur n'a pas pu démarrer ou s'est arrêté", "Go program has already exited")
}

// TestBrowserPageFreezeAndAttestation: in headless Chromium, a freeze
// receipt with its draw's entrant list and its log key pinned, and a
// paytable attestation with the appliance's key announcement in zone 1,
// pass; an edited copy of each fails the check that sees it. Without the
// list and the announcement, the page says what to give, in English and
// French, and the attestation fails its key check.
func TestBrowserPageFreezeAndAttestation(t *testing.T) {
	dir := t.TempDir()
	page := buildPage(t, dir)
	docs := filepath.Join(dir, "docs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	put := func(name string, b []byte) string {
		p := filepath.Join(docs, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	file, rc, lk := freezeFixture(t)
	edited := rc
	edited.Count++
	p := newPaytable(t, 11)
	a, env, envEdited := p.a, p.env, p.edited
	freeze, freezeEdited := put("freeze.json", file), put("freeze-edited.json", promo.FreezeReceiptJSON(&edited))
	entrants := put("entrants.txt", readFile(t, freezeEntrantsFile))
	att, attEdited := put("paytable.dsse.json", env), put("edited.dsse.json", envEdited)
	ann := put("announcement.json", a.Announcement)

	ctx := startBrowser(t, dir)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+filepath.Join(page, "index.html"))); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`window.tirageReady === true`, chromedp.WithPollingTimeout(2*time.Minute))); err != nil {
		t.Fatalf("the page did not load its verifier: %v", err)
	}
	if err := chromedp.Do(ctx,
		chromedp.Click("#lang-en"),
		chromedp.SendKeys("#pins", lk.Fingerprint()),
		chromedp.SetUploadFiles("#anchors", []string{ann}),
		chromedp.SetUploadFiles("#files", []string{freeze, entrants, freezeEdited, att, attEdited}),
	); err != nil {
		t.Fatal(err)
	}
	want := map[string]struct{ verdict, check, status string }{
		"freeze.json":        {"pass", "entrants-sha256", "pass"},
		"freeze-edited.json": {"fail", "receipt-fields", "fail"},
		"paytable.dsse.json": {"pass", "predicate", "pass"},
		"edited.dsse.json":   {"fail", "attestation-signature", "fail"},
	}
	for _, d := range read(t, ctx, 4) {
		w, ok := want[d.File]
		if !ok || d.Verdict != w.verdict || d.Checks[w.check] != w.status {
			t.Errorf("%s: verdict %s, %s %s; want %+v (%s)", d.File, d.Verdict, w.check, d.Checks[w.check], w, d.Summary)
		}
	}
	// Neither the list nor the announcement: the page says to give them.
	if err := chromedp.Do(ctx,
		chromedp.Click("#clear-anchors"),
		chromedp.Click("#clear"),
		chromedp.SetUploadFiles("#files", []string{freeze, att}),
	); err != nil {
		t.Fatal(err)
	}
	for _, d := range read(t, ctx, 2) {
		if d.File == "freeze.json" && (d.Verdict != "pass" || d.Checks["entrant-root"] != "skip") ||
			d.File == "paytable.dsse.json" && (d.Verdict != "fail" || d.Checks["attestation-key"] != "fail") {
			t.Errorf("without the list and the announcement: %+v", d)
		}
	}
	for _, c := range []struct{ lang, entrants, announcement string }{
		{"en", "drop this draw's entrant list among the documents", "Drop the appliance's key announcement"},
		{"fr", "déposez aussi parmi les documents la liste des participants", "Déposez en 1 l'annonce des clés de l'appareil"},
	} {
		if err := chromedp.Do(ctx, chromedp.Click("#lang-"+c.lang)); err != nil {
			t.Fatal(err)
		}
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.documentElement.lang === "`+c.lang+`" && document.querySelectorAll("#results section[data-note]").length === 2`, chromedp.WithPollingTimeout(time.Minute))); err != nil {
			t.Fatalf("%s: the notes are not shown: %v", c.lang, err)
		}
		for sel, w := range map[string]string{`#results section[data-note="entrants-missing"] .note`: c.entrants, `#results section[data-note="announcement-missing"] .note`: c.announcement} {
			if note, err := chromedp.Run(ctx, chromedp.Text(sel)); err != nil || !strings.Contains(note, w) {
				t.Errorf("%s: %s is %q (%v), want %q", c.lang, sel, note, err, w)
			}
		}
	}
}
