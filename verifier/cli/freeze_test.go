package cli

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"

	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/verdict"
)

// The receipt and entrant list of a real freeze (rngd/promo's
// TestFreezeReceiptVerifies wrote them: the appliance over its embedded log).
const (
	freezeFile         = "../promo/testdata/freeze-receipt.json"
	freezeEntrantsFile = "../promo/testdata/freeze-entrants.txt"
)

func freezeReceiptFixture(t *testing.T) (file []byte, rc promo.FreezeReceipt, logKey *checkpoint.Key) {
	t.Helper()
	file, err := os.ReadFile(freezeFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(file, &rc); err != nil || len(rc.LogKeys) != 1 {
		t.Fatalf("fixture: %v", err)
	}
	if logKey, err = checkpoint.ParseKey(rc.LogKeys[0]); err != nil {
		t.Fatal(err)
	}
	return file, rc, logKey
}

func TestFreezeCommand(t *testing.T) {
	_, rc, lk := freezeReceiptFixture(t)
	// No trust anchor: refused, one line; the receipt's own keys are not
	// trusted (there is no --tofu).
	for _, args := range [][]string{{"freeze", freezeFile}, {"freeze", freezeFile, "--tofu"}} {
		code, out, errs := run(t, args...)
		if code != ExitUsage || out != "" || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "rngverify freeze: ") {
			t.Fatalf("%q: exit %d %q %q", args, code, out, errs)
		}
	}
	// The log key pinned by its fingerprint: the public checks.
	code, out, errs := run(t, "freeze", freezeFile, "--pin", lk.Fingerprint())
	if code != ExitOK || !strings.HasPrefix(out, "checked: freeze of promotion draw bonus-crescendo/1\n") || errs != "" {
		t.Fatalf("pinned: exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{
		"[PASS] log-key", "[PASS] format", "[PASS] checkpoint-signature", "[PASS] freeze-record", "[PASS] freeze-inclusion",
		"[PASS] rules-hash", "[PASS] receipt-fields", "[skip] entrant-root", "no entrant list given: public checks only",
		"draw: bonus-crescendo/1, 5 entrants", "frozen at: 2016-06-20T16:00:00Z", "leaf hash: " + rc.FreezeLeafHash,
		"log: freeze record at index 1 of log tirage.test/promo, checkpoint of size 2", "receipt fingerprint: sha256:",
		"VERDICT: every check passed.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("pinned: no %q in\n%s", want, out)
		}
	}
	// The bailiff's path: the key as text, with the list.
	code, out, errs = run(t, "freeze", "--log-key", rc.LogKeys[0], freezeFile, "--entrants", freezeEntrantsFile)
	if code != ExitOK || !strings.Contains(out, "[PASS] entrant-list") || !strings.Contains(out, "[PASS] entrant-root") ||
		!strings.Contains(out, "[PASS] entrants-sha256") || !strings.Contains(out, "entrant list file: sha256:"+rc.EntrantsFile) {
		t.Fatalf("with the list: exit %d\n%s%s", code, out, errs)
	}
	// In French, and as JSON.
	code, out, _ = run(t, "freeze", freezeFile, "--log-key", rc.LogKeys[0], "--entrants", freezeEntrantsFile, "--lang", "fr")
	if code != ExitOK || !strings.HasPrefix(out, "contrôlé : gel du tirage promotionnel bonus-crescendo/1\n") ||
		!strings.Contains(out, "[OK] receipt-fields         reçu conforme au journal") || !strings.Contains(out, "toutes les vérifications sont réussies") {
		t.Fatalf("fr: exit %d\n%s", code, out)
	}
	frenchOK(t, "freeze --lang fr", out)
	code, out, _ = run(t, "freeze", freezeFile, "--pin", lk.Fingerprint(), "--json")
	var v verdict.Verdict
	if code != ExitOK || json.Unmarshal([]byte(out), &v) != nil || v.Status() != verdict.StatusPass || v.Kind != "freeze-receipt" || v.Find("receipt-fields") == nil {
		t.Fatalf("json: exit %d %s", code, out)
	}
	// The state rngverify log keeps: its keys are trusted (read only; a
	// path that does not exist is refused).
	st, _ := checkpoint.ParseState(nil)
	if _, err := st.Trust(lk.Name, []*checkpoint.Key{lk}, checkpoint.TrustPinned, time.Now()); err != nil {
		t.Fatal(err)
	}
	state := write(t, t.TempDir(), "state.json", st.Marshal())
	if code, out, errs := run(t, "freeze", freezeFile, "--state", state); code != ExitOK || !strings.Contains(out, "[PASS] log-key                log key trusted — 1 key(s)") {
		t.Fatalf("--state: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := run(t, "freeze", freezeFile, "--state", state+".none"); code != ExitUsage || !strings.Contains(errs, "--state") {
		t.Fatalf("--state missing: exit %d %s", code, errs)
	}
	// The help, in both languages, and the command list.
	if code, _, errs := run(t, "freeze", "-h", "--lang", "fr"); code != ExitOK || !strings.Contains(errs, "utilisation : rngverify freeze FICHIER [--entrants LISTE]") {
		t.Errorf("help: exit %d %s", code, errs)
	}
	if _, _, errs := run(t, "help"); !strings.Contains(errs, "freeze") {
		t.Errorf("the command list has no freeze:\n%s", errs)
	}
}

// Each tampering fails its named check, NOT VERIFIED (a receipt is a file
// anyone can edit: never MISBEHAVIOUR), exit 1, in English and in French;
// what cannot be read is exit 2.
func TestFreezeCommandTampered(t *testing.T) {
	file, rc, lk := freezeReceiptFixture(t)
	dir := t.TempDir()
	list, err := os.ReadFile(freezeEntrantsFile)
	if err != nil {
		t.Fatal(err)
	}
	edit := func(name string, f func(r *promo.FreezeReceipt)) string {
		r := rc
		f(&r)
		return write(t, dir, name, promo.FreezeReceiptJSON(&r))
	}
	skey, vkey, err := note.GenerateKey(rand.Reader, "tirage.test/promo")
	if err != nil {
		t.Fatal(err)
	}
	signer, _ := note.NewSigner(skey)
	body, _, _ := strings.Cut(rc.Checkpoint, "\n\n")
	resigned, err := note.Sign(&note.Note{Text: body + "\n"}, signer)
	if err != nil {
		t.Fatal(err)
	}
	pin := lk.Fingerprint()
	cases := []struct {
		name  string
		args  []string
		code  int
		check string
	}{
		{"count", []string{"freeze", edit("count.json", func(r *promo.FreezeReceipt) { r.Count++ }), "--pin", pin}, ExitFail, "check receipt-fields: the receipt shows count \"6\", the logged freeze record says \"5\""},
		{"root", []string{"freeze", edit("root.json", func(r *promo.FreezeReceipt) { r.Root = strings.Repeat("0", 64) }), "--pin", pin}, ExitFail, "check receipt-fields: the receipt shows entrants_root"},
		{"commitment", []string{"freeze", edit("commit.json", func(r *promo.FreezeReceipt) { r.Commitment = strings.Repeat("1", 64) }), "--pin", pin}, ExitFail, "check receipt-fields: the receipt shows commitment"},
		{"frozen at", []string{"freeze", edit("time.json", func(r *promo.FreezeReceipt) { r.FrozenAt = "2016-06-20T15:00:00Z" }), "--pin", pin}, ExitFail, "check receipt-fields: the receipt shows frozen_at"},
		{"rules hash", []string{"freeze", edit("rules.json", func(r *promo.FreezeReceipt) { r.RulesHash = strings.Repeat("ab", 32) }), "--pin", pin}, ExitFail, "check rules-hash: the receipt says rules abab"},
		{"proof of another index", []string{"freeze", edit("index.json", func(r *promo.FreezeReceipt) { r.Freeze.Index = 0 }), "--pin", pin}, ExitFail, "check freeze-inclusion"},
		{"checkpoint signed by another key", []string{"freeze", edit("cp.json", func(r *promo.FreezeReceipt) { r.Checkpoint, r.LogKeys = string(resigned), []string{vkey} }), "--log-key", rc.LogKeys[0]}, ExitFail, "check checkpoint-signature"},
		{"the receipt's key, another key given", []string{"freeze", freezeFile, "--log-key", vkey}, ExitFail, "check checkpoint-signature"},
		{"a pin of another key", []string{"freeze", freezeFile, "--pin", strings.Repeat("ab", 32)}, ExitFail, "check log-key"},
		{"one account more", []string{"freeze", freezeFile, "--pin", pin, "--entrants", write(t, dir, "more.txt", bytes.Replace(bytes.Replace(list, []byte("count 5\n"), []byte("count 6\n"), 1), []byte("erin\n"), []byte("erin\nzoe\n"), 1))}, ExitFail, "check entrant-root: the list holds 6 entrants, 5 were frozen"},
		{"list SHA-256 differs", []string{"freeze", edit("sha.json", func(r *promo.FreezeReceipt) { r.EntrantsFile = strings.Repeat("3", 64) }), "--pin", pin, "--entrants", freezeEntrantsFile}, ExitFail, "check entrants-sha256"},
		{"list of another draw", []string{"freeze", freezeFile, "--pin", pin, "--entrants", write(t, dir, "other.txt", bytes.Replace(list, []byte("bonus-crescendo/1"), []byte("bonus-crescendo/2"), 1))}, ExitFail, "check entrant-list"},
		{"list garbled", []string{"freeze", freezeFile, "--pin", pin, "--entrants", write(t, dir, "bad.txt", list[:len(list)-1])}, ExitFail, "check entrant-list"},
		{"unknown member", []string{"freeze", write(t, dir, "extra.json", bytes.Replace(file, []byte(`"v": 1,`), []byte(`"v": 1, "key": "vrf",`), 1)), "--pin", pin}, ExitUsage, "unreadable input"},
		{"not json", []string{"freeze", write(t, dir, "hello.json", []byte("hello")), "--pin", pin}, ExitUsage, "unreadable input: " + filepath.Join(dir, "hello.json") + ": not a freeze receipt"},
		{"missing file", []string{"freeze", filepath.Join(dir, "none.json"), "--pin", pin}, ExitUsage, "couldn't read the freeze receipt"},
		{"missing list", []string{"freeze", freezeFile, "--pin", pin, "--entrants", filepath.Join(dir, "none.txt")}, ExitUsage, "couldn't read the entrant list"},
		{"no file", []string{"freeze", "--pin", pin}, ExitUsage, "missing the freeze receipt FILE"},
		{"two files", []string{"freeze", freezeFile, freezeFile, "--pin", pin}, ExitUsage, "unexpected argument"},
		{"bad flag", []string{"freeze", freezeFile, "--reserves", "3", "--pin", pin}, ExitUsage, "not defined"},
		{"bad lang", []string{"freeze", freezeFile, "--pin", pin, "--lang", "de"}, ExitUsage, "--lang"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := run(t, c.args...)
			if code != c.code || !strings.Contains(errs, c.check) || !strings.HasPrefix(errs, "rngverify freeze: ") || strings.Count(errs, "\n") != 1 {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", code, errs, c.code, c.check)
			}
			if c.code != ExitFail {
				if out != "" {
					t.Errorf("exit %d with a verdict on stdout:\n%s", code, out)
				}
				return
			}
			if !strings.HasPrefix(errs, "rngverify freeze: NOT VERIFIED, check ") || strings.Contains(out, "MISBEHAVIOUR") {
				t.Errorf("not an ordinary failure: %s\n%s", errs, out)
			}
			code, out, errs = run(t, append(c.args, "--lang", "fr")...)
			if code != c.code || !strings.HasPrefix(errs, "rngverify freeze : NON VÉRIFIÉ") || !strings.HasPrefix(out, "contrôlé : ") {
				t.Fatalf("--lang fr: exit %d\n%s%s", code, out, errs)
			}
			frenchOK(t, c.name, out+errs)
		})
	}
}

// TestFreezeVRFKeyIsNoAnchor: a freeze has no VRF proof, so a --vrf-key of
// "SUITE HEX" lines anchors nothing: refused as no trust anchor (exit 2,
// one line), as docs/verifier.md says, not run to fail log-key. A key
// announcement given with --vrf-key pins its log keys too: it anchors
// (here another log's: log-key fails, exit 1).
func TestFreezeVRFKeyIsNoAnchor(t *testing.T) {
	var c struct {
		VRFSuite     string `json:"vrf_suite"`
		VRFPublicKey string `json:"vrf_public_key"`
	}
	b, err := os.ReadFile(certFile)
	if err != nil || json.Unmarshal(b, &c) != nil || c.VRFSuite == "" {
		t.Fatalf("fixture: %v", err)
	}
	vrfKey := write(t, t.TempDir(), "vrf.txt", []byte(c.VRFSuite+" "+c.VRFPublicKey+"\n"))
	for _, lang := range []string{"en", "fr"} {
		code, out, errs := run(t, "freeze", freezeFile, "--vrf-key", vrfKey, "--lang", lang)
		want := map[string]string{"en": "no trust anchor", "fr": "aucune ancre de confiance"}[lang]
		if code != ExitUsage || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, want) {
			t.Errorf("--lang %s: exit %d %q %q", lang, code, out, errs)
		}
	}
	_, ann := certKeys(t)
	code, out, errs := run(t, "freeze", freezeFile, "--vrf-key", ann)
	if code != ExitFail || !strings.Contains(out, "[FAIL] log-key") || !strings.Contains(errs, "check log-key") {
		t.Errorf("announcement: exit %d\n%s%s", code, out, errs)
	}
	// Both: the announcement anchors, the key file adds nothing.
	if code, _, errs := run(t, "freeze", freezeFile, "--vrf-key", vrfKey, "--vrf-key", ann); code != ExitFail {
		t.Errorf("key file and announcement: exit %d %s", code, errs)
	}
}

// TestFreezeCommandListRefused: an entrant list that is not one (an
// account twice, a wrong count) fails entrant-list, and the receipt is
// still checked and shown in the same verdict, as the browser page shows
// it (exit 1): the user sees both. A receipt that fails too shows both
// failures.
func TestFreezeCommandListRefused(t *testing.T) {
	file, rc, lk := freezeReceiptFixture(t)
	dir := t.TempDir()
	list, err := os.ReadFile(freezeEntrantsFile)
	if err != nil {
		t.Fatal(err)
	}
	twice := write(t, dir, "twice.txt", bytes.Replace(bytes.Replace(list, []byte("count 5\n"), []byte("count 6\n"), 1), []byte("bob\n"), []byte("bob\nbob\n"), 1))
	count := write(t, dir, "count.txt", bytes.Replace(list, []byte("count 5\n"), []byte("count 4\n"), 1))
	pin := lk.Fingerprint()
	for _, l := range []string{twice, count} {
		code, out, errs := run(t, "freeze", freezeFile, "--pin", pin, "--entrants", l)
		if code != ExitFail || !strings.HasPrefix(errs, "rngverify freeze: NOT VERIFIED, check entrant-list") || strings.Count(errs, "\n") != 1 {
			t.Fatalf("%s: exit %d %q", l, code, errs)
		}
		for _, want := range []string{
			"checked: freeze of promotion draw bonus-crescendo/1\n", "[PASS] log-key", "[PASS] freeze-inclusion", "[PASS] receipt-fields",
			"[FAIL] entrant-list", l + ": ", "[skip] entrant-root", "[skip] entrants-sha256", "leaf hash: " + rc.FreezeLeafHash,
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: no %q in\n%s", l, want, out)
			}
		}
		if strings.Contains(out, "public checks only") {
			t.Errorf("%s: a list was given:\n%s", l, out)
		}
		code, out, errs = run(t, "freeze", freezeFile, "--pin", pin, "--entrants", l, "--lang", "fr")
		if code != ExitFail || !strings.Contains(out, "[ÉCHEC] entrant-list") {
			t.Errorf("%s --lang fr: exit %d\n%s%s", l, code, out, errs)
		}
		frenchOK(t, "list refused --lang fr", out+errs)
	}
	// The receipt edited too: both failures shown, the receipt's first.
	var r promo.FreezeReceipt
	if err := json.Unmarshal(file, &r); err != nil {
		t.Fatal(err)
	}
	r.Count++
	edited := write(t, dir, "count.json", promo.FreezeReceiptJSON(&r))
	code, out, errs := run(t, "freeze", edited, "--pin", pin, "--entrants", twice)
	if code != ExitFail || !strings.Contains(errs, "check receipt-fields") || !strings.Contains(out, "[FAIL] receipt-fields") || !strings.Contains(out, "[FAIL] entrant-list") {
		t.Errorf("both: exit %d\n%s%s", code, out, errs)
	}
}

// TestFreezeCommandNoFactsUntrusted: under a log key that is not the
// receipt's, nothing the receipt says is shown as established.
func TestFreezeCommandNoFactsUntrusted(t *testing.T) {
	_, rc, _ := freezeReceiptFixture(t)
	code, out, _ := run(t, "freeze", freezeFile, "--pin", strings.Repeat("ab", 32))
	if code != ExitFail || !strings.Contains(out, "[FAIL] log-key") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, fact := range []string{"draw: ", "leaf hash: ", rc.FreezeLeafHash, "log: freeze record at index", "receipt fingerprint: "} {
		if strings.Contains(out, fact) {
			t.Errorf("fact %q shown under an untrusted key:\n%s", fact, out)
		}
	}
}

// TestFreezeCommandFrenchIndex: a freeze record's index beyond the
// checkpoint is explained in French, not quoted as an English technical
// error.
func TestFreezeCommandFrenchIndex(t *testing.T) {
	_, rc, lk := freezeReceiptFixture(t)
	rc.Freeze.Index = 7
	f := write(t, t.TempDir(), "index.json", promo.FreezeReceiptJSON(&rc))
	code, out, errs := run(t, "freeze", f, "--pin", lk.Fingerprint(), "--lang", "fr")
	if code != ExitFail || !strings.Contains(out, "l'index 7 n'est pas inférieur à la taille 2 du point de contrôle") || strings.Contains(out+errs, "anglais") {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
}
