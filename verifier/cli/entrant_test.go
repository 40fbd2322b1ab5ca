package cli

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/promo"
)

// rngverify entrant: a player's entrant proof (the fixture is account
// acct-000003's, written by verifier/promo's TestEntrantProofVerifies)
// passes under its log key, printing the pseudonym, in English and in
// French; edited, it fails the check that sees it (exit 1); without a
// trusted key or a file, it refuses to run (exit 2).
func TestEntrantCommand(t *testing.T) {
	const fixture = "../promo/testdata/entrant-proof.json"
	b, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	var p promo.EntrantProof
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	var rc promo.FreezeReceipt
	if err := json.Unmarshal(p.FreezeReceipt, &rc); err != nil {
		t.Fatal(err)
	}
	key := rc.LogKeys[0]
	dir := t.TempDir()
	code, out, errs := run(t, "entrant", fixture, "--log-key", key)
	if code != ExitOK || !strings.Contains(out, "[PASS] entrant-inclusion") || !strings.Contains(out, "pseudonym (as the certificate and the procès-verbal print it): ") ||
		!strings.Contains(out, "account: acct-000003: entrant 4 of 7 (index 3) of bonus-crescendo/1") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if code, out, _ := run(t, "entrant", fixture, "--log-key", key, "--lang", "fr"); code != ExitOK || !strings.Contains(out, "[OK] entrant-inclusion") ||
		!strings.Contains(out, "le compte acct-000003 est le participant 4 des 7 gelés pour bonus-crescendo/1") {
		t.Fatalf("--lang fr: exit %d\n%s", code, out)
	}
	n := 0
	edit := func(f func(q *promo.EntrantProof)) string {
		n++
		q := p
		q.Proof = append([]string(nil), p.Proof...)
		f(&q)
		return write(t, dir, "edited-"+string(rune('a'+n))+".json", promo.EntrantProofJSON(&q))
	}
	for _, c := range []struct {
		name, file, check, fr string
	}{
		{"index", edit(func(q *promo.EntrantProof) { q.Index = 2 }), "entrant-inclusion", "n'est pas le participant 3 des 7 gelés"},
		{"count", edit(func(q *promo.EntrantProof) { q.Count = 9 }), "entrant-inclusion", "la preuve indique count 9, l'enregistrement du gel journalisé 7"},
		{"index beyond", edit(func(q *promo.EntrantProof) { q.Index = 7 }), "entrant-inclusion", "l'index 7 dépasse les 7 participants gelés"},
		{"proof hash", edit(func(q *promo.EntrantProof) { q.Proof[1] = "00" }), "entrant-inclusion", "l'empreinte 1 ne fait pas 64 chiffres hexadécimaux"},
	} {
		code, out, errs := run(t, "entrant", c.file, "--log-key", key, "--lang", "fr")
		if code != ExitFail || !strings.Contains(out, "[ÉCHEC] "+c.check) || !strings.Contains(out, c.fr) {
			t.Errorf("%s: exit %d\n%s%s", c.name, code, out, errs)
		}
	}
	// A file that is not one: unreadable input (exit 2), saying why.
	for _, c := range []struct{ name, file, fr string }{
		{"salt", edit(func(q *promo.EntrantProof) { q.Salt = "x" }), "champ « salt » : 64 chiffres hexadécimaux"},
		{"account", edit(func(q *promo.EntrantProof) { q.Account = "é" }), "« é » n'est pas un identifiant de compte"},
	} {
		if code, _, errs := run(t, "entrant", c.file, "--log-key", key, "--lang", "fr"); code != ExitUsage || !strings.Contains(errs, c.fr) {
			t.Errorf("%s: exit %d, %q", c.name, code, errs)
		}
	}
	if code, _, errs := run(t, "entrant", write(t, dir, "not.json", []byte(`{"freeze_receipt": {}, "extra": 1}`)), "--log-key", key, "--lang", "fr"); code != ExitUsage ||
		!strings.Contains(errs, "ce n'est pas une preuve de participation") {
		t.Errorf("not a proof: exit %d, %q", code, errs)
	}
	// Under the receipt's own keys only: refused.
	if code, _, errs := run(t, "entrant", fixture); code != ExitUsage || !strings.Contains(errs, "no trust anchor") || !strings.Contains(errs, "the proof's own keys are not trusted") {
		t.Errorf("no anchor: exit %d, %q", code, errs)
	}
	if code, _, errs := run(t, "entrant", "--log-key", key); code != ExitUsage || !strings.Contains(errs, "missing the entrant proof FILE") {
		t.Errorf("no file: exit %d, %q", code, errs)
	}
	if code, out, errs := run(t, "entrant", "-h", "--lang", "fr"); code != ExitOK || !strings.Contains(out+errs, "utilisation : rngverify entrant FICHIER") {
		t.Errorf("help: exit %d, %q", code, out+errs)
	}
	// Another log's key: log-key fails, and nothing is shown as a fact.
	if code, out, _ := run(t, "entrant", fixture, "--pin", strings.Repeat("ab", 32)); code != ExitFail || !strings.Contains(out, "[FAIL] log-key") || strings.Contains(out, "pseudonym") {
		t.Errorf("another log's key: exit %d\n%s", code, out)
	}
}
